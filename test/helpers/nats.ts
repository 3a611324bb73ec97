/**
 * A NATS server and `treeline worker` processes for the distributed tests (issue 20): the server on a random
 * loopback port with JetStream storing in a temporary folder, workers as real child processes of the bundled CLI
 * (cli.process.ts). Every child is started in its own process group and killed with its group: by `stop()` in the
 * test's afterAll, and at the latest when the test process exits, so no server or worker outlives its test file.
 *
 * nats-server must be installed (scripts/test.sh installs Debian's as root; elsewhere `apt-get install nats-server`):
 * without it the helper throws, naming that, rather than skipping.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { ObjectStore } from '@nats-io/obj';
import { expect } from 'vitest';
import { InputError } from '../../src/errors.js';
import { PARTITION_TASKS } from '../../src/distributed/partition.tasks.js';
import type { TaskEnv } from '../../src/distributed/types.js';
import { runWorker, type WorkerSummary } from '../../src/distributed/worker.js';
import type { BatchTask } from '../../src/distributed/worker.tasks.js';
import { mulberry32 } from './random.js';
import { join } from 'node:path';
import { cliEntry } from './cli.process.js';

const live = new Set<ChildProcess>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

process.once('exit', () => {
  for (const child of live) killGroup(child, 'SIGKILL');
});

/** Resolves when `child` has exited (at once if it has). */
export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** Stops `child`'s group: SIGTERM, then SIGKILL after `graceMs`. Resolves with how it ended. */
export async function stopProcess(
  child: ChildProcess,
  graceMs = 10_000,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const done = exited(child);
  killGroup(child, 'SIGTERM');
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
  const r = await done;
  clearTimeout(timer);
  live.delete(child);
  return r;
}

function track(child: ChildProcess): ChildProcess {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

export interface NatsServer {
  url: string;
  process: ChildProcess;
  /** Stops the server and removes its store. */
  stop(): Promise<void>;
}

/**
 * Starts nats-server with JetStream on 127.0.0.1, a random port (or `port`) and a temporary store; `maxFileStore`
 * (bytes) caps JetStream's file storage (through a config file: the command line has no such flag), for a server that
 * fills up; `args` go on its command line (`--user`, `--pass`).
 */
export async function startNatsServer(
  opts: { maxFileStore?: number; port?: number; args?: string[] } = {},
): Promise<NatsServer> {
  // Debian puts it in /usr/sbin, which a non-root PATH may lack.
  const bin = ['nats-server', '/usr/sbin/nats-server'].find((b) => !spawnSync(b, ['--version']).error);
  if (!bin) {
    throw new Error(
      'nats-server is not installed: scripts/test.sh installs it as root on Debian (apt-get install nats-server).',
    );
  }
  const store = mkdtempSync(join(tmpdir(), 'treeline-nats-test-'));
  let args = ['-js', '-sd', store];
  if (opts.maxFileStore !== undefined) {
    const config = join(store, 'server.conf');
    writeFileSync(
      config,
      `jetstream {\n  store_dir: "${join(store, 'js')}"\n  max_file_store: ${opts.maxFileStore}\n  max_memory_store: 1048576\n}\n`,
    );
    args = ['-c', config];
  }
  const child = track(
    spawn(bin, ['-a', '127.0.0.1', '-p', String(opts.port ?? -1), ...args, ...(opts.args ?? [])], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let log = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`nats-server did not start in 20 s:\n${log}`)), 20_000);
    const onData = (s: string): void => {
      log += s;
      const m = /Listening for client connections on ([\d.]+:\d+)/.exec(log);
      if (m && /Server is ready/.test(log)) {
        clearTimeout(timer);
        resolve(`nats://${m[1]}`);
      }
    };
    child.stdout!.setEncoding('utf8').on('data', onData);
    child.stderr!.setEncoding('utf8').on('data', onData);
    child.once('exit', (code) => reject(new Error(`nats-server exited (${code}) at start:\n${log}`)));
  });
  return {
    url,
    process: child,
    async stop() {
      await stopProcess(child);
      rmSync(store, { recursive: true, force: true });
    },
  };
}

export interface WorkerProcess {
  process: ChildProcess;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
  /** Resolves when its stderr has matched `re` `times` times. */
  waitFor(re: RegExp, times?: number): Promise<void>;
}

/** Starts `treeline worker --nats <url> ...args` (the bundled CLI) in its own process group. */
export function startWorker(url: string, args: string[] = []): WorkerProcess {
  const child = track(
    spawn(process.execPath, [cliEntry(), 'worker', '--nats', url, ...args], {
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    }),
  );
  let err = '';
  const waiters: { re: RegExp; times: number; resolve: () => void }[] = [];
  const check = (): void => {
    for (let i = waiters.length - 1; i >= 0; i--) {
      const w = waiters[i];
      const count = err.match(new RegExp(w.re.source, 'g'))?.length ?? 0;
      if (count >= w.times) {
        waiters.splice(i, 1);
        w.resolve();
      }
    }
  };
  child.stderr!.setEncoding('utf8').on('data', (s: string) => {
    err += s;
    check();
  });
  return {
    process: child,
    stderr: () => err,
    waitFor: (re, times = 1) =>
      new Promise<void>((resolve) => {
        waiters.push({ re, times, resolve });
        check();
      }),
  };
}

/** The presence period of startWorkerInProcess's workers in ms (PRESENCE_MS is 5 s). */
export const PRESENCE_TEST_MS = 150;

/**
 * A worker in this process (runWorker on the TypeScript sources, the partition tasks and `batchTasks`); `stop()` ends
 * its loop (and its presence) and resolves with its summary. `log`: its lines so far.
 */
export function startWorkerInProcess(
  url: string,
  env: TaskEnv,
  batchTasks: Record<string, BatchTask> = {},
): { log: string[]; stop: () => Promise<WorkerSummary> } {
  const log: string[] = [];
  const controller = new AbortController();
  const done = runWorker({
    url,
    env,
    partitionTasks: PARTITION_TASKS,
    batchTasks,
    presenceMs: PRESENCE_TEST_MS,
    signal: controller.signal,
    log: (line) => log.push(line),
  });
  return {
    log,
    stop: () => {
      controller.abort();
      return done;
    },
  };
}

/** n seeded random bytes (mulberry32, a word at a time): the object-store tests' payloads. */
export function randomBytes(n: number, seed: number): Uint8Array {
  const r = mulberry32(seed);
  const out = new Uint8Array(n);
  const words = new Uint32Array(out.buffer, 0, n >>> 2);
  for (let i = 0; i < words.length; i++) words[i] = Math.floor(r() * 2 ** 32);
  for (let i = words.length * 4; i < n; i++) out[i] = Math.floor(r() * 256);
  return out;
}

/** An object store's stream and bucket names (@nats-io/obj 3.4's internal fields, as src/distributed/nats.ts uses). */
export const streamOf = (os: ObjectStore): string => (os as unknown as { stream: string }).stream;
export const bucketOf = (os: ObjectStore): string => (os as unknown as { name: string }).name;

/** The subject of `name`'s meta message: `$O.<bucket>.M.<name, padded base64url>`. */
export function metaSubject(os: ObjectStore, name: string): string {
  const b64 = Buffer.from(name).toString('base64url');
  return `$O.${bucketOf(os)}.M.${b64}${'='.repeat((4 - (b64.length % 4)) % 4)}`;
}

/**
 * A TREELINE_NATS_*_WINDOW variable read by `read`: unset gives a positive default, 0 and `sample` are taken as they
 * are, and anything else outside 0–1024 whole numbers is an InputError naming the value (the variable restored after).
 */
export function expectWindowFromEnv(name: string, read: () => number, sample: number): void {
  const saved = process.env[name];
  try {
    delete process.env[name];
    expect(read()).toBeGreaterThan(0);
    process.env[name] = '0';
    expect(read()).toBe(0);
    process.env[name] = String(sample);
    expect(read()).toBe(sample);
    for (const bad of ['-1', '2.5', 'many', '1025']) {
      process.env[name] = bad;
      expect(() => read()).toThrow(InputError);
      expect(() => read()).toThrow(`got '${bad}'`);
    }
  } finally {
    if (saved === undefined) delete process.env[name];
    else process.env[name] = saved;
  }
}
