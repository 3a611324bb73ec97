/**
 * Node worker threads for the host side (the CPU backend's MST, the GPU MST's read-back, the clustering's passes):
 * loading `node:worker_threads` only where it exists, where the worker script lies, the thread count (resolved once,
 * by the public entry point), and a pool of workers kept between calls. The worker script is src/worker.ts: one
 * entry that dispatches each message to its folder's job table (src/emst/*.threads.ts, src/cluster/*.threads.ts).
 *
 * Browsers and bundles never reach Node here: every Node module is loaded through a computed `import()` specifier
 * (as src/gpu/context.ts loads 'webgpu'), which bundlers leave alone, and anywhere it fails (a browser, a Web Worker,
 * a runtime without worker_threads) `loadNodeThreads()` answers null and the caller runs on one thread.
 *
 * Workers are kept in a pool per script, so that a second call pays neither the start-up (~30–50 ms) nor a cold JIT.
 * Important! An idle worker is unref()'d, so that the pool never keeps Node from exiting; a busy one is ref()'d, or
 * Node could exit while the caller awaits its answer (a pending promise keeps nothing alive).
 */
import type { Worker as NodeWorker } from 'node:worker_threads';
import { InputError } from '../errors.js';
import { MAX_DEFAULT_THREADS, THRESHOLDS } from './thresholds.js';
import { fromWire, toWire } from './wire.js';

/** The few Node APIs the CPU threads need. */
export interface NodeThreads {
  Worker: typeof NodeWorker;
  /** os.availableParallelism() (os.cpus().length on older Node). */
  parallelism: number;
  /** Whether a worker script exists at this file: URL (an unbuilt source tree has none: then one thread). */
  exists(url: URL): boolean;
}

let loaded: Promise<NodeThreads | null> | null = null;

/** The Node APIs, or null where they are missing (browsers, bundles for them, runtimes without worker_threads). */
export function loadNodeThreads(): Promise<NodeThreads | null> {
  loaded ??= loadNode();
  return loaded;
}

async function loadNode(): Promise<NodeThreads | null> {
  const proc = (globalThis as { process?: { versions?: { node?: string } } }).process;
  if (typeof proc?.versions?.node !== 'string') return null;
  try {
    // Computed specifiers: bundlers leave them alone, so no browser bundle contains a node: module.
    const names = ['node:worker_threads', 'node:os', 'node:fs', 'node:url'];
    const [threads, os, fs, url] = await Promise.all(names.map((name) => import(/* @vite-ignore */ name)));
    const parallelism: number =
      typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
    return {
      Worker: threads.Worker,
      parallelism: Math.max(1, parallelism),
      exists: (u: URL) => u.protocol === 'file:' && fs.existsSync(url.fileURLToPath(u)),
    };
  } catch {
    return null;
  }
}

/** The default thread count: min(available parallelism, `max`, default 8) from `minPoints` points on, else 1. */
export function defaultThreads(
  node: NodeThreads | null,
  n: number,
  minPoints: number,
  max = MAX_DEFAULT_THREADS,
): number {
  if (node === null || n < minPoints) return 1;
  return Math.min(node.parallelism, max);
}

/**
 * The thread count for n points: `requested` (checked), else min(available parallelism, `max` (8)) from
 * THRESHOLDS.emstThreadsMinPoints on. Called once per public call (emst(): at most 8, hdbscan(): 16 beside a GPU MST).
 */
export async function resolveThreads(requested: number | undefined, n: number, max?: number): Promise<number> {
  if (requested !== undefined) {
    if (!Number.isInteger(requested) || requested < 1) {
      throw new InputError(`Expected threads to be an integer >= 1, got ${requested}.`);
    }
    return requested;
  }
  return defaultThreads(await loadNodeThreads(), n, THRESHOLDS.emstThreadsMinPoints, max);
}

/**
 * `threads` for a call on `n` points whose default takes up to `max` threads (resolveThreads': min(cores, max) from
 * THRESHOLDS.emstThreadsMinPoints on, else 1) held to `cap` where that is less — a distributed worker's share of its
 * host (TaskEnv.hostThreads, src/distributed/worker.host.ts); undefined where it holds nothing back (no cap, or one of
 * `max` or more): the call's own default then stands.
 */
export async function heldThreads(cap: number | undefined, n: number, max: number): Promise<number | undefined> {
  return cap === undefined || cap >= max ? undefined : resolveThreads(undefined, n, cap);
}

/**
 * The worker script: src/worker.ts, built as dist/worker.js beside dist/host/. Important! Not a literal in
 * `new URL(…, import.meta.url)`: bundlers (webpack, Vite) would take that for an asset of the browser bundle, where
 * it does not exist.
 */
const WORKER_FILE = '../worker.js';
let script: URL | null = new URL(WORKER_FILE, import.meta.url);

/**
 * Replaces the worker script (null: none, so one thread); returns the previous one. For tests that run the
 * TypeScript sources, where no worker.js lies beside src/: they bundle src/worker.ts with esbuild and point here.
 */
export function setWorkerScript(url: URL | null): URL | null {
  const previous = script;
  script = url;
  return previous;
}

/** The worker script of every threaded pass (null: none, so one thread). */
export function workerScript(): URL | null {
  return script;
}

/** Whether worker threads and the worker script are at hand (else every pass runs on the calling thread). */
export async function workersAtHand(): Promise<boolean> {
  const node = await loadNodeThreads();
  return node !== null && script !== null && node.exists(script);
}

/**
 * A folder's worker jobs by message kind (its *.threads.ts exports one): each runs on the worker and answers its
 * reply, or nothing for a message that wants none. src/worker.ts dispatches to them.
 */
export type JobTable = { readonly [kind: string]: (message: never) => WorkerReply | void };

/**
 * The most threads a distributed run's coordinator takes for its own passes (the fingerprint, the partitioning, the
 * merge, its results' pages): every core of its host up to this, as those passes are the run's serial part — the
 * workers wait on them (front: the partitions; tail: the result), so a same-host worker's cores are idle then. 16
 * before session 16: on the H100 x2 hosts (32 cores) the merge of 2·10^8 edges took 1.6–1.9 s on 16.
 */
export const COORDINATOR_THREADS = 64;

/**
 * Idle workers kept per script beyond this are terminated. As many as the widest pass takes (a distributed run's
 * coordinator: up to COORDINATOR_THREADS): with 16 kept, each of a 32-thread coordinator's passes started 16 threads
 * afresh (each loading the worker script), and its first passes got slower with 32 threads than with 16 (H100 x2 host,
 * 2·10^8 points: the fingerprint 0.14 → 0.33–0.45 s). Idle workers are unref()'d: they do not keep a process alive.
 */
const MAX_IDLE = COORDINATOR_THREADS;

/** Idle workers per worker script (file: URL string). */
const idle = new Map<string, NodeWorker[]>();

/**
 * `count` workers running `script`, taken from the pool or started; each is ref()'d (busy) until `release`d.
 * A caller owns the workers it took: concurrent calls never share one. Idle workers are taken oldest first, so
 * range j of a pass, and a one-worker pass, run on the same worker call after call and find their code optimised:
 * taken in pool order, a once-per-call job landed on a different worker each call and ran cold (bench/RESULTS.md
 * issue 17, ninth session).
 */
export function takeWorkers(node: NodeThreads, script: URL, count: number): NodeWorker[] {
  const pool = idle.get(script.href) ?? [];
  idle.set(script.href, pool);
  pool.sort((a, b) => b.threadId - a.threadId); // popped from the end: the oldest (lowest thread id) first
  const workers: NodeWorker[] = [];
  while (workers.length < count) {
    const w = pool.pop() ?? startWorker(node, script);
    w.ref();
    workers.push(w);
  }
  return workers;
}

function startWorker(node: NodeThreads, script: URL): NodeWorker {
  const w = new node.Worker(script);
  // A worker that dies while idle leaves the pool (a busy one is watched by its caller as well).
  w.on('error', () => undefined);
  w.on('exit', () => {
    for (const pool of idle.values()) {
      const i = pool.indexOf(w);
      if (i >= 0) pool.splice(i, 1);
    }
  });
  return w;
}

/** Gives healthy workers back to the pool, unref()'d. */
export function releaseWorkers(script: URL, workers: NodeWorker[]): void {
  const pool = idle.get(script.href) ?? [];
  idle.set(script.href, pool);
  for (const w of workers) {
    if (pool.length >= MAX_IDLE) {
      void w.terminate();
      continue;
    }
    w.unref();
    pool.push(w);
  }
}

/** Terminates workers (after an error or an abort: their state is unknown). */
export function terminateWorkers(workers: NodeWorker[]): void {
  for (const w of workers) void w.terminate();
}

/** Terminates every idle worker (tests, or a host that wants its threads back now). */
export async function closeIdleWorkers(): Promise<void> {
  const all = [...idle.values()].flat();
  idle.clear();
  await Promise.all(all.map((w) => w.terminate()));
}

/** What every worker answers to a message: the message's id, and the error that stopped it, if one did. */
export interface WorkerReply {
  id: number;
  error?: string;
}

let messages = 0;

/** A fresh message id: a reply is matched to its message by it. */
export function nextMessageId(): number {
  return ++messages;
}

/**
 * Posts `message` to `worker` with its views over SharedArrayBuffers as (buffer, offset, length): the structured clone
 * of a view keeps them modulo 2^32 bytes (wire.ts). Every message to a worker goes through here.
 */
export function postToWorker(worker: NodeWorker, message: unknown): void {
  worker.postMessage(toWire(message));
}

/**
 * Posts `message` to every worker and resolves with their replies once all have answered. Rejects with
 * `failed(what)` when a worker answers an error, throws or exits, and with `aborted()` when `signal` aborts; `stop`
 * runs first then (the caller tells the workers to stop claiming work).
 */
export function postToWorkers<R extends WorkerReply>(
  workers: NodeWorker[],
  message: { id: number },
  failed: (what: string) => Error,
  signal?: AbortSignal,
  aborted?: () => Error,
  stop?: () => void,
): Promise<R[]> {
  return new Promise((resolve, reject) => {
    let pending = workers.length;
    const replies: R[] = [];
    let settled = false;
    const cleanups: (() => void)[] = [];
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      for (const cleanup of cleanups) cleanup();
      if (error) {
        stop?.();
        reject(error);
      } else resolve(replies);
    };
    for (const w of workers) {
      const onMessage = (received: R) => {
        if (received.id !== message.id) return;
        const reply = fromWire(received);
        if (reply.error !== undefined) return finish(failed(`failed: ${reply.error}`));
        replies.push(reply);
        if (--pending === 0) finish();
      };
      const onError = (e: Error) => finish(failed(`failed: ${e?.stack ?? e?.message ?? String(e)}`));
      const onExit = (code: number) => finish(failed(`exited (code ${code}) before finishing its share.`));
      w.on('message', onMessage);
      w.on('error', onError);
      w.on('exit', onExit);
      cleanups.push(() => {
        w.off('message', onMessage);
        w.off('error', onError);
        w.off('exit', onExit);
      });
    }
    if (signal && aborted) {
      const onAbort = () => finish(aborted());
      signal.addEventListener('abort', onAbort, { once: true });
      cleanups.push(() => signal.removeEventListener('abort', onAbort));
    }
    if (workers.length === 0) finish();
    for (const w of workers) postToWorker(w, message);
  });
}

/** Part `part` of [0, count) split over `parts` ranges: [⌊part·count / parts⌋, ⌊(part + 1)·count / parts⌋). */
export function partRange(part: number, count: number, parts: number): { start: number; end: number } {
  return {
    start: Math.floor((part * count) / parts),
    end: Math.floor(((part + 1) * count) / parts),
  };
}

/** One pass of work split by ranges (see splitOnWorkers): resolves with the workers' replies in range order. */
export type RangePass = <R extends WorkerReply>(
  job: (part: number) => { id: number },
  here?: () => void,
) => Promise<R[]>;

/**
 * A pass whose range 0 the calling thread runs with `here` on the same message the workers get (`job(0)`): the
 * replies of every range, in range order, the caller's first.
 */
export async function passWithCaller<J extends { id: number }, R extends WorkerReply>(
  pass: RangePass,
  job: (part: number) => J,
  here: (job: J) => R,
): Promise<R[]> {
  let mine: R | null = null;
  const replies = await pass<R>(job, () => {
    mine = here(job(0));
  });
  return [mine!, ...replies];
}

/**
 * Takes workers for `parts` ranges of work from the pool and hands `body` a `pass` function. A pass posts `job(j)`
 * to the worker of range j and, when `onCaller`, runs range 0 itself (`here`) meanwhile; it resolves with the
 * workers' replies in range order. The workers go back to the pool when `body` resolves and are terminated when it
 * throws (their state is unknown then). Null where worker threads or the worker script are missing; `what` names
 * the work in errors.
 */
export async function splitOnWorkers<T>(
  parts: number,
  onCaller: boolean,
  what: string,
  body: (pass: RangePass) => Promise<T>,
): Promise<T | null> {
  const node = await loadNodeThreads();
  const script = workerScript();
  if (node === null || script === null || !node.exists(script)) return null;
  const first = onCaller ? 1 : 0;
  const workers = takeWorkers(node, script, parts - first);
  const pass: RangePass = async <R extends WorkerReply>(job: (part: number) => { id: number }, here?: () => void) => {
    const fail = (how: string) => new Error(`${what}: a worker thread ${how}`);
    const all = Promise.all(workers.map((w, k) => postToWorkers<R>([w], job(k + first), fail)));
    all.catch(() => undefined); // awaited below; a throw of `here` must not leave it unhandled
    if (onCaller) here?.();
    return (await all).map((replies) => replies[0]);
  };
  try {
    const result = await body(pass);
    releaseWorkers(script, workers);
    return result;
  } catch (e) {
    terminateWorkers(workers);
    throw e;
  }
}
