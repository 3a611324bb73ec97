/** What every benchmark figure is printed with: device, driver, commit, date. */
import { execFileSync } from 'node:child_process';
import type { GpuContext } from '../gpu/context.js';

export interface BenchEnvironment {
  device: string;
  driver: string;
  commit: string;
  date: string;
  node: string;
}

function tryRun(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

export function benchEnvironment(ctx: GpuContext): BenchEnvironment {
  const a = ctx.adapter;
  const nvidia = tryRun('nvidia-smi', ['--query-gpu=name,driver_version', '--format=csv,noheader']);
  return {
    device: [a.vendor, a.architecture, a.device].filter(Boolean).join(' ') || 'unknown',
    driver: [a.description, nvidia && `nvidia-smi: ${nvidia}`].filter(Boolean).join('; ') || 'unknown',
    commit: process.env.TREELINE_COMMIT || tryRun('git', ['rev-parse', '--short', 'HEAD']) || 'unknown',
    date: new Date().toISOString(),
    node: process.version,
  };
}
