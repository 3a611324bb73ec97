/**
 * The k-NN phase of the CPU backend (neighbours.cpu.ts) split across Node worker threads: the same queries, each
 * Morton position's list written by exactly one thread, so the lists — and the tree — are bit-identical to one
 * thread's.
 *
 *   main:    BVH arrays → SharedArrayBuffers (copied once), empty shared lists, a shared chunk counter
 *   workers: claim the next chunk of CHUNK Morton positions (Atomics.add), run its queries, repeat; answer the count
 *   main:    awaits every answer (the event loop stays free: an AbortSignal stops the workers at once)
 *
 * Chunks are claimed rather than assigned, so a thread slowed by start-up or by another process takes fewer.
 * Workers come from a pool kept between calls (src/cpu/threads.ts). Where worker threads or the built worker script
 * (neighbours.worker.js beside this module) are missing, startNeighbourWorkers answers null and the caller
 * runs the single-threaded code.
 */
import type { Worker as NodeWorker } from 'node:worker_threads';
import type { BvhCpu } from '../bvh/lbvh.cpu.js';
import {
  defaultThreads,
  loadNodeThreads,
  nextMessageId,
  postToWorkers,
  releaseWorkers,
  takeWorkers,
  terminateWorkers,
} from '../cpu/threads.js';
import { AbortError, InputError } from '../errors.js';
import type { NeighbourLists } from './neighbours.cpu.js';

/** One job as a worker receives it: every array lies in shared memory. */
export interface NeighbourJob {
  kind: 'knn';
  id: number;
  /** The BVH with shared arrays. */
  bvh: BvhCpu;
  k: number;
  period: Float32Array | null;
  /** The output lists (neighbours.cpu.ts, NeighbourLists), n × k each. */
  keys: Float32Array;
  points: Uint32Array;
  /** next[0]: the next unclaimed chunk. */
  next: Int32Array;
  /** Morton positions per chunk. */
  chunk: number;
}

/** A worker's answer: the queries it ran, or the error that stopped it. */
export interface NeighbourReply {
  id: number;
  queries: number;
  error?: string;
}

/**
 * The default uses threads from this many points on. Measured on the 2-core machine (uniform 2D, k = 8, another job
 * running), emst::neighbours of one thread vs two: 3·10^4 points, a process's first call 96 vs 107 ms, warm calls
 * ~74 vs ~46 ms; 5·10^4 points, first call 181 vs 153 ms, warm ~105 vs ~60 ms. (A new worker starts while the BVH
 * is built, but runs its first queries unoptimised.)
 */
export const THREADED_MIN_POINTS = 50_000;

/** Morton positions per claimed chunk (~1–3 ms of queries: claims are rare, the tail is short). */
const CHUNK = 1024;

/** Counts of the worker path, for tests that must know it ran (cumulative per process). */
export const neighbourThreadStats = { jobs: 0, workerQueries: 0 };

/**
 * The worker script beside this module. Important! Not a literal in `new URL(…, import.meta.url)`: bundlers
 * (webpack, Vite) would take that for an asset of the browser bundle, where it does not exist.
 */
const WORKER_FILE = './neighbours.worker.js';
let workerScript: URL | null = new URL(WORKER_FILE, import.meta.url);

/**
 * Replaces the worker script (null: none, so one thread); returns the previous one. For tests that run the
 * TypeScript sources, where no neighbours.worker.js lies beside this module: they bundle neighbours.worker.ts with
 * esbuild and point here.
 */
export function setNeighbourWorkerScript(url: URL | null): URL | null {
  const previous = workerScript;
  workerScript = url;
  return previous;
}

/** The worker script of the CPU backend's threads (also the clustering's: src/cluster/pointResults.threads.ts). */
export function neighbourWorkerScript(): URL | null {
  return workerScript;
}

/** The thread count for n points: `requested`, else min(available parallelism, `max` (8)) from THREADED_MIN_POINTS on. */
export async function resolveThreads(requested: number | undefined, n: number, max?: number): Promise<number> {
  if (requested !== undefined) {
    if (!Number.isInteger(requested) || requested < 1) {
      throw new InputError(`Expected threads to be an integer >= 1, got ${requested}.`);
    }
    return requested;
  }
  return defaultThreads(await loadNodeThreads(), n, THREADED_MIN_POINTS, max);
}

/** Worker threads taken for one emst run: its k-NN phase, then its Borůvka rounds (boruvka.threads.ts). */
export interface NeighbourWorkers {
  /**
   * nearestNeighbours(bvh, k, period) on the workers; answers the lists and the BVH with its arrays in shared
   * memory (for the rounds). Rejects with AbortError when `signal` aborts, and with an Error quoting the worker's
   * when one fails; the workers are terminated then, and kept (for release or terminate) otherwise.
   */
  run(bvh: BvhCpu, k: number, period: Float32Array | null, signal?: AbortSignal): Promise<{ lists: NeighbourLists; bvh: BvhCpu }>;
  /** The workers, still held after run. */
  readonly workers: NodeWorker[];
  /** Gives the workers back to the pool (unused, or after the run). Once only, like terminate. */
  release(): void;
  /** Terminates the workers (after a failure or an abort: their state is unknown). */
  terminate(): void;
}

/**
 * Takes `threads` workers for a k-NN phase over n points, or answers null where worker threads or the worker
 * script are missing. Called before the BVH is built, so that a new worker's start-up overlaps the build.
 */
export async function startNeighbourWorkers(threads: number, n: number): Promise<NeighbourWorkers | null> {
  const node = await loadNodeThreads();
  const script = workerScript;
  if (node === null || script === null || !node.exists(script)) return null;
  const workers = takeWorkers(node, script, Math.min(threads, Math.ceil(n / CHUNK)));
  let held = true;
  let ran = false;
  const giveBack = (how: () => void) => {
    if (!held) return;
    held = false;
    how();
  };
  const terminate = () => giveBack(() => terminateWorkers(workers));
  return {
    workers,
    release: () => giveBack(() => releaseWorkers(script, workers)),
    terminate,
    run: async (bvh, k, period, signal) => {
      if (ran || !held) throw new Error('emst::neighbours: these worker threads were already used.');
      ran = true;
      let queries: number;
      let job: NeighbourJob;
      try {
        if (signal?.aborted) throw new AbortError('emst was aborted before its k-NN phase (emst::neighbours).');
        job = createJob(bvh, k, period);
        const chunks = Math.ceil(bvh.n / CHUNK);
        const replies = await postToWorkers<NeighbourReply>(
          workers,
          job,
          (what) => new Error(`emst::neighbours: a k-NN worker thread ${what}`),
          signal,
          () => new AbortError('emst was aborted during its k-NN phase (emst::neighbours).'),
          () => Atomics.store(job.next, 0, chunks),
        );
        queries = replies.reduce((sum, r) => sum + r.queries, 0);
      } catch (e) {
        // A failed or aborted job's workers may still be inside a chunk: never reuse them.
        terminate();
        throw e;
      }
      const n = bvh.n;
      if (queries !== n) {
        terminate();
        throw new Error(`emst::neighbours: the worker threads ran ${queries} of ${n} k-NN queries.`);
      }
      neighbourThreadStats.jobs++;
      neighbourThreadStats.workerQueries += queries;
      return { lists: { k, keys: job.keys, points: job.points }, bvh: job.bvh };
    },
  };
}

/** The job: the BVH's arrays in shared memory (copied once where they are not), empty shared lists, counter 0. */
function createJob(bvh: BvhCpu, k: number, period: Float32Array | null): NeighbourJob {
  const n = bvh.n;
  return {
    kind: 'knn',
    id: nextMessageId(),
    bvh: {
      n,
      dim: bvh.dim,
      frame: bvh.frame,
      codes: shareU32(bvh.codes),
      order: shareU32(bvh.order),
      sortedPoints: shareF32(bvh.sortedPoints),
      links: shareU32(bvh.links),
      boxes: shareF32(bvh.boxes),
      ranges: shareU32(bvh.ranges),
      parents: shareU32(bvh.parents),
    },
    k,
    period,
    keys: new Float32Array(new SharedArrayBuffer(n * k * 4)),
    points: new Uint32Array(new SharedArrayBuffer(n * k * 4)),
    next: new Int32Array(new SharedArrayBuffer(4)),
    chunk: CHUNK,
  };
}

function shareF32(a: Float32Array): Float32Array {
  if (a.buffer instanceof SharedArrayBuffer) return a;
  const s = new Float32Array(new SharedArrayBuffer(a.byteLength));
  s.set(a);
  return s;
}

function shareU32(a: Uint32Array): Uint32Array {
  if (a.buffer instanceof SharedArrayBuffer) return a;
  const s = new Uint32Array(new SharedArrayBuffer(a.byteLength));
  s.set(a);
  return s;
}
