/**
 * Condensing's layout (condense.layout.ts) on Node worker threads, and its last pass (`fillRunts`, condense.ts: the
 * points of every runt of ≥ 2 points, found by walking its subtree) split across them: each thread takes a
 * contiguous range of the deferred runts, whose rows are disjoint, so the rows come out as one thread writes them.
 * Its reads are cache misses into the linkage. Every array must lie in
 * shared memory (buffers.ts).
 *
 * Node only; where worker threads or the built worker script are missing, `fillRuntsThreaded` answers false and
 * `layOutThreaded` null (the caller then runs them on one thread).
 */
import { nextMessageId, passWithCaller, splitOnWorkers, type JobTable } from '../host/threads.js';
import { fillRunts, type Condensed, type DeferredRunts, type Layout } from './condense.js';
import type { ClusterTreeInfo } from './clusterTree.js';
import {
  clusterRowFacts,
  clusterRowsIn,
  condensedFromArrays,
  emptyClusterFacts,
  lambdaFromWeights,
  ownedStabilities,
  type RowArrays,
} from './condense.finish.js';
import {
  anchorSlots,
  firstSplits,
  layoutArrays,
  linkParents,
  relativeSlots,
  writePayloads,
  type LayoutArrays,
} from './condense.layout.js';
import type { ClusterBuffers } from './buffers.js';
import { chunkBounds, defaultChunks } from './linkage.chunks.js';
import type { QueuedCounts } from './linkage.js';
import type { SingleLinkageTree } from './types.js';
import { THRESHOLDS } from '../host/thresholds.js';

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
  minPerThread = THRESHOLDS.minRuntsPerThread,
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
  const done = await splitOnWorkers(parts, true, 'cluster::condense', (pass) => pass<FillRuntsReply>(job, mine));
  if (done === null) return false;
  runtThreadStats.runs++;
  return true;
}

type LayoutStep = 'parents' | 'relative' | 'payloads';

/** One thread's share of a layout step: (from, to, first split) triples. */
export interface LayoutJob {
  kind: 'condense-layout';
  id: number;
  step: LayoutStep;
  arrays: LayoutArrays;
  ranges: number[];
}

export interface LayoutReply {
  id: number;
  error?: string;
  splits?: number[];
  anchors?: Int32Array[];
}

/** Runs one share of a layout step (the worker's side, and the calling thread's). */
export function runLayoutJob(job: {
  id: number;
  step: LayoutStep;
  arrays: LayoutArrays;
  ranges: number[];
}): LayoutReply {
  const { step, arrays: a, ranges } = job;
  const splits: number[] = [];
  const anchors: Int32Array[] = [];
  for (let j = 0; j < ranges.length; j += 3) {
    if (step === 'parents') splits.push(linkParents(a, ranges[j], ranges[j + 1]));
    else if (step === 'relative') anchors.push(relativeSlots(a, ranges[j], ranges[j + 1]));
    else writePayloads(a, ranges[j], ranges[j + 1], ranges[j + 2]);
  }
  return { id: job.id, splits, anchors };
}

/** Counts of the threaded layout, for tests that must know it ran (cumulative per process). */
export const layoutThreadStats = { runs: 0 };

/**
 * Condensing's layout on `threads` threads (the calling one included), by `chunks` chunks of merges (as the
 * linkage's, `defaultChunks`), into the buffers' payload; null where it cannot run (no workers, or an array not
 * shared).
 */
export async function layOutThreaded(
  tree: SingleLinkageTree,
  n: number,
  counts: QueuedCounts,
  buffers: ClusterBuffers,
  threads: number,
  chunks = defaultChunks(n - 1, threads),
): Promise<Layout | null> {
  const m = n - 1;
  if (threads < 2 || n < 3) return null;
  const tableWords = 3 * counts.splits;
  const splitTable = new Uint32Array(new SharedArrayBuffer(4 * Math.max(1, tableWords)), 0, tableWords);
  const a = layoutArrays(tree, n, counts.minClusterSize, counts, splitTable, buffers.unionFind, buffers.payload);
  const views = [a.left, a.right, a.distance, a.size, a.ql, a.qr, a.rel, a.parent, a.slotLambda];
  if (!views.every((v) => v.buffer instanceof SharedArrayBuffer)) return null;
  const T = threads;
  const ranges = chunkBounds(m, T);
  const bounds = chunkBounds(m, chunks);
  const K = bounds.length - 1;
  const byRange = (first?: number[]) =>
    Array.from({ length: T }, (_, p) => (p + 1 < ranges.length ? [ranges[p], ranges[p + 1], first?.[p] ?? 0] : []));
  const byChunk: number[][] = Array.from({ length: T }, () => []);
  for (let k = 0; k < K; k++) byChunk[k % T].push(bounds[k], bounds[k + 1], 0);
  const done = await splitOnWorkers(T, true, 'cluster::condense', async (pass) => {
    const run = (step: LayoutStep, shares: number[][]): Promise<LayoutReply[]> => {
      const id = nextMessageId();
      const job = (p: number): LayoutJob => ({ kind: 'condense-layout', id, step, arrays: a, ranges: shares[p] });
      return passWithCaller(pass, job, runLayoutJob);
    };
    const counted = await run('parents', byRange());
    const splits = counted.map((r) => r.splits?.[0] ?? 0);
    const related = await run('relative', byChunk);
    const anchors: Int32Array[] = new Array(K);
    related.forEach((reply, p) => reply.anchors!.forEach((list, j) => (anchors[p + j * T] = list)));
    anchorSlots(a, anchors);
    await run('payloads', byRange(firstSplits(splits)));
    return true;
  });
  if (done === null) return null;
  layoutThreadStats.runs++;
  return { slotLambda: a.slotLambda, slotWord: a.slotWord, splitTable: a.splitTable };
}

/** The worker's side (src/worker.ts). */
/** Counts of the threaded λ pass, for tests that must know it ran (cumulative per process). */
export const finishThreadStats = { runs: 0 };

/**
 * One range of λ from the rows' distances (condense.finish.ts lambdaFromWeights), in shared memory; the range's
 * cluster rows come back with the reply.
 */
export interface LambdaJob {
  kind: 'condense-lambda';
  id: number;
  weight: Float32Array;
  lambda: Float64Array;
  child: Uint32Array;
  n: number;
  scale: number;
  r0: number;
  r1: number;
}

export interface LambdaReply {
  id: number;
  clusterRows?: Uint32Array;
  error?: string;
}

/**
 * One share of the facts and stabilities: the clusters c with c % parts === part (condense.finish.ts
 * clusterRowFacts with an owner, then ownedStabilities), into the shared `info` and `stability`.
 */
export interface StabilityJob {
  kind: 'condense-stability';
  id: number;
  arrays: Pick<RowArrays, 'parent' | 'child' | 'lambda' | 'childSize'>;
  n: number;
  /** The rows whose child is a cluster, ascending (shared). */
  clusterRows: Uint32Array;
  info: ClusterTreeInfo;
  stability: Float64Array;
  part: number;
  parts: number;
}

/** The worker's side: its own owner table (a table, not c % parts per row), its clusters' facts, then their sums. */
export function runStabilityJob(job: StabilityJob): FillRuntsReply {
  const { info, part, parts } = job;
  const k = info.numClusters;
  const owner = new Uint8Array(k);
  for (let c = 0, p = 0; c < k; c++, p = p + 1 === parts ? 0 : p + 1) owner[c] = p;
  clusterRowFacts(job.arrays, job.n, job.clusterRows, info, owner, part);
  ownedStabilities(job.arrays, job.n, info.birth, job.stability, info.maxLambda, part, owner);
  return { id: job.id };
}

/** Counts of the stabilities computed on threads, for tests that must know it ran (cumulative per process). */
export const stabilityThreadStats = { runs: 0 };

/**
 * The facts and stabilities of an unpacked tree with its cluster rows known, split across worker threads by
 * cluster: each worker writes its own clusters' facts from the cluster rows, then reads every row's parent and sums
 * its own clusters' rows in row order (the same bits as the one-pass sum). The calling thread only posts and waits
 * (its once-per-call loops run cold: pointResults.threads.ts). Null where there are too few clusters for more than
 * one part, or no workers.
 */
async function stabilitiesThreaded(
  arrays: RowArrays,
  n: number,
  clusterRows: Uint32Array,
  threads: number,
): Promise<Condensed | null> {
  const count = arrays.parent.length;
  const k = count - n + 1;
  const parts = Math.min(threads - 1, k, 255);
  if (parts < 2) return null;
  const alloc = (bytes: number) => new SharedArrayBuffer(bytes);
  const info = emptyClusterFacts(n, k, alloc);
  const stability = new Float64Array(alloc(8 * k), 0, k);
  const rows = { parent: arrays.parent, child: arrays.child, lambda: arrays.lambda, childSize: arrays.childSize };
  const shared = new Uint32Array(alloc(4 * clusterRows.length));
  shared.set(clusterRows);
  const id = nextMessageId();
  const job = (part: number): StabilityJob => ({
    kind: 'condense-stability',
    id,
    arrays: rows,
    n,
    clusterRows: shared,
    info,
    stability,
    part,
    parts,
  });
  const done = await splitOnWorkers(parts, false, 'cluster::condense', (pass) => pass<FillRuntsReply>(job));
  if (done === null) return null;
  stabilityThreadStats.runs++;
  const { parent, child, lambda, childSize } = arrays;
  return { tree: { parent, child, lambda, childSize, numPoints: n, numClusters: k }, info, stability };
}

/** The worker's side. */
export function runLambdaJob(job: LambdaJob): LambdaReply {
  lambdaFromWeights(job.weight, job.r0, job.r1, job.lambda, job.scale);
  return { id: job.id, clusterRows: clusterRowsIn(job.child, job.r0, job.r1, job.n) };
}

/**
 * The tree from its columns as the GPU wrote them (parent, child, child size read into place; `weight`: each
 * row's distance): λ on `threads` threads by ranges where the arrays are shared and there are ≥ `minRows` rows,
 * else on the calling thread; then the sequential pass (condensedFromArrays).
 */
export async function condensedFromColumns(
  arrays: RowArrays,
  weight: Float32Array,
  n: number,
  scale: number,
  threads: number,
  minRows: number,
): Promise<Condensed> {
  const count = arrays.parent.length;
  const { lambda } = arrays;
  // (SharedArrayBuffer is undefined in browsers without cross-origin isolation: asked only with threads.)
  const shared = () => [weight, lambda, arrays.child].every((a) => a.buffer instanceof SharedArrayBuffer);
  let clusterRows: Uint32Array | undefined;
  if (threads >= 2 && count >= minRows && shared()) {
    // On the workers only: the calling thread posts and waits (its once-per-call loops run cold).
    const parts = Math.max(1, Math.min(threads - 1, Math.floor(count / 65536)));
    const bound = (j: number) => Math.floor((count * j) / parts);
    const id = nextMessageId();
    const job = (j: number): LambdaJob => ({
      kind: 'condense-lambda',
      id,
      weight,
      lambda,
      child: arrays.child,
      n,
      scale,
      r0: bound(j),
      r1: bound(j + 1),
    });
    const replies = await splitOnWorkers(parts, false, 'cluster::condense', (pass) => pass<LambdaReply>(job));
    if (replies !== null) {
      const lists = replies.map((r) => r.clusterRows!);
      clusterRows = new Uint32Array(lists.reduce((t, l) => t + l.length, 0));
      let at = 0;
      for (const l of lists) {
        clusterRows.set(l, at);
        at += l.length;
      }
      finishThreadStats.runs++;
    }
  }
  if (!clusterRows) lambdaFromWeights(weight, 0, count, lambda, scale);
  const split = clusterRows ? await stabilitiesThreaded(arrays, n, clusterRows, threads) : null;
  return split ?? condensedFromArrays(arrays, n, clusterRows);
}

export const condenseJobs = {
  'condense-lambda': runLambdaJob,
  'condense-stability': runStabilityJob,
  'fill-runts': runFillRuntsJob,
  'condense-layout': runLayoutJob,
} satisfies JobTable;
