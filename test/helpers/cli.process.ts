/**
 * The real `treeline` executable as a child process, for CLI tests (issue 15: "CLI tests run the real CLI as a child
 * process"). Vitest runs the TypeScript sources and `dist/` may be stale or missing, so the first call in a test
 * process bundles src/cli/main.ts (and the host's worker script, src/worker.ts, which must lie one folder up as
 * worker.js, as in dist/) with esbuild into a temporary folder; `webgpu` and the other packages stay external and
 * resolve from the repository's node_modules (the folder lies inside the
 * repository's node_modules/.cache so that Node finds them by walking up).
 */
import { spawn, type SpawnOptions } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

const root = fileURLToPath(new URL('../..', import.meta.url));
let bundled: string | null = null;

/** The bundled CLI entry (built once per process; removed at exit). */
export function cliEntry(): string {
  if (bundled) return bundled;
  const cache = join(root, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'treeline-cli-'));
  const common = {
    absWorkingDir: root,
    bundle: true,
    format: 'esm' as const,
    platform: 'node' as const,
    target: 'node20',
    packages: 'external' as const,
    logLevel: 'warning' as const,
  };
  // As in dist/: cli/main.js, and worker.js one folder up (src/host/threads.ts looks for '../worker.js').
  buildSync({ ...common, entryPoints: ['src/cli/main.ts'], outfile: join(dir, 'cli', 'main.js') });
  buildSync({ ...common, entryPoints: ['src/worker.ts'], outfile: join(dir, 'worker.js') });
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  bundled = join(dir, 'cli', 'main.js');
  return bundled;
}

export interface CliProcessRun {
  /** The exit code (null when killed by a signal). */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Written to the child's stdin, which is then closed. */
  input?: string;
  /** Kill after this many ms (default 120 s). */
  timeoutMs?: number;
  /** Called once the child has started, e.g. to send it a signal later. */
  onSpawn?: (child: import('node:child_process').ChildProcess) => void;
}

/** Runs `treeline ...args` as a child process and collects its exit code, stdout and stderr. */
export function runCliProcess(args: string[], options: CliRunOptions = {}): Promise<CliProcessRun> {
  const entry = cliEntry();
  const spawnOptions: SpawnOptions = {
    cwd: options.cwd ?? root,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [entry, ...args], spawnOptions);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin!.end(options.input ?? '');
    options.onSpawn?.(child);
  });
}
