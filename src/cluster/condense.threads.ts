/**
 * The last pass of condensing (`fillRunts`, condense.ts: the points of every runt of ≥ 2 points, found by walking
 * its subtree) split across Node worker threads: each thread takes a contiguous range of the deferred runts, whose
 * rows are disjoint, so the rows come out as one thread writes them. Its reads are cache misses into the linkage
 * (~0.1–0.15 s at 10^7 points on one core). Every array must lie in shared memory (buffers.ts).
 *
 * Node only; answers false where worker threads or the built worker script are missing (the caller then fills on
 * one thread).
 */
import { nextMessageId, splitOnWorkers } from '../cpu/threads.js';
import { neighbourWorkerScript } from '../emst/neighbours.threads.js';
import { fillRunts, type DeferredRunts } from './condense.js';

/** One range of runts as a worker receives it. */
export interface FillRuntsJob {
  kind: 'fill-runts';
  id: number;
  child: Uint32Array;
  runts: DeferredRunts;
  left: Uint32Array;
  right: Uint32Array;
  n: number;
  minClusterSize: number;
  j0: number;
  j1: number;
}

export interface FillRuntsReply {
  id: number;
  error?: string;
}

/** The worker's side. */
export function runFillRuntsJob(job: FillRuntsJob): FillRuntsReply {
  fillRunts(job.child, job.runts, job.j0, job.j1, job.left, job.right, job.n, job.minClusterSize);
  return { id: job.id };
}

/** Runts per thread below which one thread fills them all. */
const MIN_RUNTS_PER_THREAD = 4096;

/** Counts of the threaded path, for tests that must know it ran (cumulative per process). */
export const runtThreadStats = { runs: 0 };

/**
 * Fills the deferred runts on `threads` threads (the main thread included); false when it did nothing (not worth
 * it, not shared, or no workers: the caller fills them). `minPerThread`: runts per thread from which it is worth it.
 */
export async function fillRuntsThreaded(
  child: Uint32Array,
  runts: DeferredRunts,
  left: Uint32Array,
  right: Uint32Array,
  n: number,
  minClusterSize: number,
  threads: number,
  minPerThread = MIN_RUNTS_PER_THREAD,
): Promise<boolean> {
  const parts = Math.min(threads, Math.floor(runts.count / Math.max(1, minPerThread)));
  const shared = [child, runts.deferred, left, right].every((a) => a.buffer instanceof SharedArrayBuffer);
  if (parts < 2 || !shared) return false;
  const bound = (j: number) => Math.floor((runts.count * j) / parts);
  const id = nextMessageId();
  const job = (j: number): FillRuntsJob => {
    return { kind: 'fill-runts', id, child, runts, left, right, n, minClusterSize, j0: bound(j), j1: bound(j + 1) };
  };
  const mine = () => fillRunts(child, runts, 0, bound(1), left, right, n, minClusterSize);
  const done = await splitOnWorkers(neighbourWorkerScript(), parts, true, 'cluster::condense', (pass) =>
    pass<FillRuntsReply>(job, mine),
  );
  if (done === null) return false;
  runtThreadStats.runs++;
  return true;
}
