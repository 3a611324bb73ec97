/**
 * The k-NN phase of the CPU backend (src/knn/neighbours.cpu.ts) split across Node worker threads: the same queries, each
 * Morton position's list written by exactly one thread, so the lists — and the tree — are bit-identical to one
 * thread's.
 *
 *   main:    BVH arrays → SharedArrayBuffers (copied once), empty shared lists, a shared chunk counter
 *   workers: claim the next chunk of CHUNK Morton positions (Atomics.add), run its queries, repeat; answer the count
 *   main:    awaits every answer (the event loop stays free: an AbortSignal stops the workers at once)
 *
 * Chunks are claimed rather than assigned, so a thread slowed by start-up or by another process takes fewer.
 * Workers come from a pool kept between calls (src/host/threads.ts). Where worker threads or the built worker script
 * (src/worker.ts) are missing, startNeighbourWorkers answers null and the caller runs the single-threaded code.
 */
import type { Worker as NodeWorker } from 'node:worker_threads';
import type { BvhCpu } from '../bvh/lbvh.cpu.js';
import {
  loadNodeThreads,
  nextMessageId,
  postToWorkers,
  releaseWorkers,
  takeWorkers,
  terminateWorkers,
  workerScript,
  type JobTable,
} from '../host/threads.js';
import { AbortError } from '../errors.js';
import { KnnSearch, type NeighbourLists } from '../knn/neighbours.cpu.js';

/** One job as a worker receives it: every array lies in shared memory. */
export interface NeighbourJob {
  kind: 'knn';
  id: number;
  /** The BVH with shared arrays. */
  bvh: BvhCpu;
  k: number;
  period: Float32Array | null;
  /** The output lists (src/knn/neighbours.cpu.ts, NeighbourLists), n × k each. */
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

/** Morton positions per claimed chunk (a few ms of queries: claims are rare, the tail is short). */
const CHUNK = 1024;

/** Counts of the worker path, for tests that must know it ran (cumulative per process). */
export const neighbourThreadStats = { jobs: 0, workerQueries: 0 };

/** Worker threads taken for one emst run: its k-NN phase, then its Borůvka rounds (boruvka.threads.ts). */
export interface NeighbourWorkers {
  /**
   * nearestNeighbours(bvh, k, period) on the workers; answers the lists and the BVH with its arrays in shared
   * memory (for the rounds). Rejects with AbortError when `signal` aborts, and with an Error quoting the worker's
   * when one fails; the workers are terminated then, and kept (for release or terminate) otherwise.
   */
  run(
    bvh: BvhCpu,
    k: number,
    period: Float32Array | null,
    signal?: AbortSignal,
  ): Promise<{ lists: NeighbourLists; bvh: BvhCpu }>;
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
  const script = workerScript();
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

/** The worker's side (src/worker.ts): claims chunks of `job.chunk` Morton positions until all n are taken. */
function runNeighbourJob(job: NeighbourJob): NeighbourReply {
  const { bvh, k, period, next, chunk } = job;
  const n = bvh.n;
  const search = new KnnSearch(bvh, k, period);
  const lists = { k, keys: job.keys, points: job.points };
  let queries = 0;
  for (;;) {
    const first = Atomics.add(next, 0, 1) * chunk;
    if (first >= n) return { id: job.id, queries };
    const end = Math.min(first + chunk, n);
    for (let q = first; q < end; q++) search.run(q, lists);
    queries += end - first;
  }
}

export const neighbourJobs = { knn: runNeighbourJob } satisfies JobTable;
