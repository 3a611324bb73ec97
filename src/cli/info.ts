/**
 * `treeline info`: the backend `--backend auto` would use and why, then the WebGPU adapter, its optional features and
 * limits. 'auto' never uses a software adapter (lavapipe, SwiftShader, WARP: src/gpu/adapter.ts); `info` names the
 * adapter and says which it is, so that a slow run is never a surprise.
 */
import { createGpuContext } from '../gpu/context.js';
import { adapterName } from '../gpu/adapter.js';
import { GpuUnavailableError } from '../errors.js';

export interface InfoReport {
  /** The backend `--backend auto` uses: 'gpu' on a hardware adapter, else 'cpu'. */
  backend: 'gpu' | 'cpu';
  /** Why 'auto' uses that backend, one sentence. */
  auto: string;
  /** The adapter WebGPU gives (with `--backend gpu`, the one that runs), when there is one. */
  adapter?: {
    vendor: string;
    architecture: string;
    device: string;
    description: string;
    runtime: string;
    /** Why it is a software implementation, or null for a GPU. */
    software: string | null;
  };
  features?: Record<string, boolean>;
  limits?: Record<string, number>;
  /** Why no GPU backend is available at all, when none is. */
  reason?: string;
}

const LIMITS = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxStorageBuffersPerShaderStage',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupsPerDimension',
  'minUniformBufferOffsetAlignment',
];

export async function gatherInfo(): Promise<InfoReport> {
  let ctx;
  try {
    ctx = await createGpuContext();
  } catch (e) {
    if (e instanceof GpuUnavailableError) {
      return { backend: 'cpu', auto: `no WebGPU adapter: ${e.message.split('\n')[0]}`, reason: e.message };
    }
    throw e;
  }
  try {
    const limits: Record<string, number> = {};
    for (const k of LIMITS) limits[k] = (ctx.limits as unknown as Record<string, number>)[k];
    const adapter = { ...ctx.adapter };
    const name = adapterName(adapter);
    const auto = adapter.software
      ? `the only adapter, ${name}, is a software implementation (${adapter.software}), slower than the CPU ` +
        'backend; --backend gpu uses it anyway'
      : `${name} is a hardware adapter`;
    return { backend: adapter.software ? 'cpu' : 'gpu', auto, adapter, features: { ...ctx.features }, limits };
  } finally {
    await ctx.destroy();
  }
}

export function formatInfo(r: InfoReport): string {
  if (!r.adapter) {
    return `auto: cpu (${r.auto})\nThe CPU backend gives the same results, more slowly.\n`;
  }
  const a = r.adapter;
  const lines = [
    `auto: ${r.backend} (${r.auto})`,
    `adapter: ${a.description || a.device} [${a.vendor} ${a.architecture}] via ${a.runtime}` +
      `${a.software ? ', software' : ''} (used by --backend gpu)`,
    'optional features:',
    ...Object.entries(r.features!).map(([k, v]) => `  ${k}: ${v ? 'yes' : 'no'}`),
    'limits:',
    ...Object.entries(r.limits!).map(([k, v]) => `  ${k}: ${v}`),
  ];
  return lines.join('\n') + '\n';
}
