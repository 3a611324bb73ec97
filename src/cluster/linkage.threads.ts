/**
 * Single linkage on Node worker threads (issue 5): linkage.chunks.ts's steps, each split across the threads —
 * claim and unite by ranges of one chunk's edges, chunk after chunk; rows, sizes and counts by whole chunks — with
 * the two short sequential steps (pending rows' sizes and counts, 1–3 % of the edges) on the calling thread.
 * Same rows, sizes and counts as `singleLinkage`. Every array must lie in shared memory (buffers.ts).
 *
 * Node only; answers null where worker threads or the built worker script are missing, or an array is not shared
 * (the caller then runs `singleLinkage`).
 */
import { nextMessageId, passWithCaller, splitOnWorkers, type JobTable } from '../host/threads.js';
import {
  chunkBounds,
  chunkedLinkageArrays,
  defaultChunks,
  claimRoots,
  countChunk,
  cycleError,
  linkChunk,
  resetUnionFind,
  resolveCounts,
  resolveSizes,
  sizeChunk,
  uniteRoots,
  type ChunkedLinkage,
  type ChunkLinks,
} from './linkage.chunks.js';
import type { QueuedCounts } from './linkage.js';
import type { SingleLinkageTree } from './types.js';

type Step = 'reset' | 'claim' | 'unite' | 'link' | 'sizes' | 'count';

/** One thread's share of a step: `ranges` holds (chunk start, from, to) triples. */
export interface LinkageJob {
  kind: 'linkage';
  id: number;
  step: Step;
  arrays: ChunkedLinkage;
  ranges: number[];
}

export interface LinkageReply {
  id: number;
  error?: string;
  links?: ChunkLinks[];
  splits?: number;
}

/** Runs one share of a step (the worker's side, and the calling thread's). */
export function runLinkageJob(job: { id: number; step: Step; arrays: ChunkedLinkage; ranges: number[] }): LinkageReply {
  const { step, arrays: a, ranges } = job;
  const links: ChunkLinks[] = [];
  let splits = 0;
  for (let i = 0; i < ranges.length; i += 3) {
    const [c0, f0, f1] = [ranges[i], ranges[i + 1], ranges[i + 2]];
    if (step === 'reset') resetUnionFind(a.uf, f0, f1);
    else if (step === 'claim') claimRoots(a, c0, f0, f1);
    else if (step === 'unite') uniteRoots(a, f0, f1);
    else if (step === 'link') links.push(linkChunk(a, f0, f1));
    else if (step === 'sizes') sizeChunk(a, f0, f1);
    else splits += countChunk(a, f0, f1);
  }
  return { id: job.id, links, splits };
}

/** Counts of the threaded path, for tests that must know it ran (cumulative per process). */
export const linkageThreadStats = { runs: 0 };

/**
 * `singleLinkage(mst, n, into, counts)` on `threads` threads (the calling one included), by `chunks` chunks
 * (default `defaultChunks`: 2 per thread, ≥ 2^16 edges each). Null where it cannot run (see the file's comment).
 */
export async function singleLinkageThreaded(
  mst: { sources: Uint32Array; targets: Uint32Array; weights: Float32Array | Float64Array },
  n: number,
  counts: QueuedCounts,
  threads: number,
  into: { linkage: SingleLinkageTree; unionFind: Int32Array; payload: SharedArrayBuffer },
  chunks = defaultChunks(n - 1, threads),
): Promise<SingleLinkageTree | null> {
  // Slots (2f + side < 2^31) and their marks (−2 − slot) fit 32 bits up to 2^30 points.
  if (threads < 2 || n < 2 || n > 2 ** 30) return null;
  const a = chunkedLinkageArrays(mst, n, counts, into);
  const views = [a.sources, a.targets, a.weights, a.left, a.right, a.distance, a.size, a.q, a.ql, a.qr, a.uf];
  views.push(a.slotParent, a.slotNode);
  if (!views.every((v) => v.buffer instanceof SharedArrayBuffer)) return null;
  const m = n - 1;
  const bounds = chunkBounds(m, chunks);
  const K = bounds.length - 1;
  const T = threads;
  /** Ranges [from, to) split in T parts, as (c0, from, to) triples per part. */
  const split = (c0: number, from: number, to: number): number[][] =>
    Array.from({ length: T }, (_, p) => {
      const at = (q: number) => from + Math.floor(((to - from) * q) / T);
      return [c0, at(p), at(p + 1)];
    });
  /** Whole chunks, round robin. */
  const byChunk: number[][] = Array.from({ length: T }, () => []);
  for (let k = 0; k < K; k++) byChunk[k % T].push(bounds[k], bounds[k], bounds[k + 1]);
  const result = await splitOnWorkers(T, true, 'cluster::linkage', async (pass) => {
    const run = (step: Step, ranges: number[][]): Promise<LinkageReply[]> => {
      const id = nextMessageId();
      const job = (p: number): LinkageJob => ({ kind: 'linkage', id, step, arrays: a, ranges: ranges[p] });
      return passWithCaller(pass, job, runLinkageJob);
    };
    await run('reset', split(0, 0, n));
    for (let k = 0; k < K; k++) {
      await run('claim', split(bounds[k], bounds[k], bounds[k + 1]));
      await run('unite', split(bounds[k], bounds[k], bounds[k + 1]));
    }
    const linked = await run('link', byChunk);
    // Back in chunk order (part p holds chunks p, p + T, …).
    const links: ChunkLinks[] = new Array(K);
    linked.forEach((reply, p) => reply.links!.forEach((l, i) => (links[p + i * T] = l)));
    // A cycle ends the work here; the error is thrown once the workers are back in the pool.
    const cycles = links.map((l) => l.cycle).filter((f) => f >= 0);
    if (cycles.length > 0) return { cycle: Math.min(...cycles), splits: 0 };
    resolveSizes(a, links);
    await run('sizes', byChunk);
    resolveCounts(a, links);
    const counted = await run('count', byChunk);
    return { cycle: -1, splits: counted.reduce((s, r) => s + (r.splits ?? 0), 0) };
  });
  if (result === null) return null;
  if (result.cycle >= 0) throw cycleError(mst, result.cycle);
  counts.splits = result.splits;
  linkageThreadStats.runs++;
  return { left: a.left, right: a.right, distance: a.distance, size: a.size };
}

/** The worker's side (src/worker.ts). */
export const linkageJobs = { linkage: runLinkageJob } satisfies JobTable;
