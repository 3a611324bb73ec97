/**
 * `pointResults` (pointResults.ts) with the pass over the condensed tree's rows split across Node worker threads:
 * each thread takes a contiguous range of rows and writes the labels, probabilities and GLOSH scores of those rows'
 * points (every point has one row, so no two threads write one place), counts its labels and lists its exemplars
 * (points and leaf ranks, pointResults.ts candidateHits) in row order; the main thread runs the first range itself,
 * adds the counts and hands the exemplars to the collector range by range — the same results, bit for bit, as one
 * thread.
 *
 * The pass is bound by its three scattered writes per point (cache and TLB misses) and by first touches of the 200 MB of output; threads overlap both. The rows and the outputs lie in shared
 * memory (condense allocates the rows there when asked), so the returned arrays are views of SharedArrayBuffers.
 *
 * Node only; where worker threads or the built worker script are missing, or the tree is small, it answers null and
 * the caller runs `pointResults`.
 */
import { nextMessageId, splitOnWorkers, type JobTable } from '../host/threads.js';
import type { ClusterTreeInfo } from './clusterTree.js';
import type { ExemplarCollector } from './exemplars.js';
import {
  persistenceOf,
  labelPointWords,
  labelRows,
  candidateHits,
  pointTables,
  type PointWords,
  type PointOutputs,
  type PointResults,
  type PointTables,
} from './pointResults.js';
import type { CondensedTree, ResolvedClusterOptions } from './types.js';
import { THRESHOLDS } from '../host/thresholds.js';

/** One range of rows as a worker receives it: every array lies in shared memory. */
export interface PointRowsJob {
  kind: 'cluster-points';
  id: number;
  tables: PointTables;
  tree: Pick<CondensedTree, 'parent' | 'child' | 'lambda'>;
  out: Omit<PointOutputs, 'counts'>;
  labelCount: number;
  r0: number;
  r1: number;
}

/** A worker's answer: its labels' counts and its exemplars (points and leaf ranks, candidateHits), in row order. */
export interface PointRowsReply {
  id: number;
  counts?: Float64Array;
  hitPoints?: Uint32Array;
  hitRanks?: Uint32Array;
  error?: string;
}

/** The worker's side: runs one job and answers. */
export function runPointRowsJob(job: PointRowsJob): PointRowsReply {
  const counts = new Float64Array(job.labelCount);
  labelRows(job.tables, job.tree, job.r0, job.r1, { ...job.out, counts });
  const hits = candidateHits(job.tables, job.tree, job.r0, job.r1);
  return { id: job.id, counts, hitPoints: hits.points, hitRanks: hits.ranks };
}

/** Counts of the threaded path, for tests that must know it ran (cumulative per process). */
export const pointThreadStats = { runs: 0, workerRows: 0 };

/** Whether every row array of `tree` lies in shared memory (condense's `shared` option). */
function rowsShared(tree: CondensedTree): boolean {
  return [tree.parent, tree.child, tree.lambda].every((a) => a.buffer instanceof SharedArrayBuffer);
}

/**
 * `pointResults` on `threads` threads (the main thread included), or null where that is not possible or not worth
 * it (`minRows`: the size from which it is; tests lower it). `into`: shared output arrays (zeros) to fill.
 */
export async function pointResultsThreaded(
  tree: CondensedTree,
  info: ClusterTreeInfo,
  selected: Int32Array,
  stability: Float64Array,
  options: ResolvedClusterOptions,
  exemplars: ExemplarCollector | undefined,
  threads: number,
  minRows = THRESHOLDS.labelMinPoints,
  into?: Omit<PointOutputs, 'counts'>,
): Promise<PointResults | null> {
  const rows = tree.parent.length;
  if (threads < 2 || rows < Math.max(minRows, 2) || !rowsShared(tree)) return null;
  const n = info.numPoints;
  const tables = shareTables(pointTables(info, selected, options, exemplars));
  const out = into ?? {
    labels: new Int32Array(new SharedArrayBuffer(4 * n)),
    probabilities: new Float64Array(new SharedArrayBuffer(8 * n)),
    outlierScores: new Float64Array(new SharedArrayBuffer(8 * n)),
  };
  // Ranges of at least min(minRows, 2^16) rows.
  const parts = Math.max(1, Math.min(threads, Math.floor(rows / Math.min(minRows, 65536))));
  const bound = (j: number) => Math.floor((rows * j) / parts);
  const id = nextMessageId();
  const job = (j: number): PointRowsJob => ({
    kind: 'cluster-points',
    id,
    tables,
    tree: { parent: tree.parent, child: tree.child, lambda: tree.lambda },
    out,
    labelCount: selected.length,
    r0: bound(j),
    r1: bound(j + 1),
  });
  const counts = new Float64Array(selected.length);
  let first: PointRowsReply = { id };
  const mine = () => {
    labelRows(tables, tree, 0, bound(1), { ...out, counts });
    const hits = candidateHits(tables, tree, 0, bound(1));
    first = { id, hitPoints: hits.points, hitRanks: hits.ranks };
  };
  const replies = await splitOnWorkers(parts, true, 'cluster::label', (pass) => pass<PointRowsReply>(job, mine));
  if (replies === null) return null;
  gatherReplies(replies, first, counts, exemplars);
  pointThreadStats.runs++;
  pointThreadStats.workerRows += rows - bound(1);
  return { ...out, persistence: persistenceOf(info, selected, stability, counts, rows) };
}

/** One range of points labelled from their own rows in point order (labelPointWords). */
export interface PointWordsJob {
  kind: 'cluster-point-words';
  id: number;
  tables: PointTables;
  pw: PointWords;
  out: Omit<PointOutputs, 'counts'>;
  labelCount: number;
  p0: number;
  p1: number;
  /** The rows whose exemplar candidates this job gathers (none without a collector: `tables.wanted` null). */
  tree: Pick<CondensedTree, 'parent' | 'child' | 'lambda'>;
  r0: number;
  r1: number;
}

/** The worker's side. */
export function runPointWordsJob(job: PointWordsJob): PointRowsReply {
  const counts = new Float64Array(job.labelCount);
  labelPointWords(job.tables, job.pw, job.p0, job.p1, { ...job.out, counts });
  const hits = candidateHits(job.tables, job.tree, job.r0, job.r1);
  return { id: job.id, counts, hitPoints: hits.points, hitRanks: hits.ranks };
}

/**
 * `pointResultsFromWords` with the points split across `threads` threads by ranges (sequential writes on each),
 * the exemplar candidates then offered from the rows on the calling thread; null where that is not possible (no
 * workers, `words` or `into` not shared, fewer than `minPoints` points).
 */
export async function pointResultsFromWordsThreaded(
  tree: CondensedTree,
  info: ClusterTreeInfo,
  selected: Int32Array,
  stability: Float64Array,
  options: ResolvedClusterOptions,
  exemplars: ExemplarCollector | undefined,
  pw: PointWords,
  into: Omit<PointOutputs, 'counts'>,
  threads: number,
  minPoints = THRESHOLDS.labelMinPoints,
): Promise<PointResults | null> {
  const n = info.numPoints;
  const shared = () =>
    [pw.words, into.labels, into.probabilities, into.outlierScores].every((a) => a.buffer instanceof SharedArrayBuffer);
  if (threads < 2 || n < Math.max(minPoints, 2) || !shared()) return null;
  const tables = shareTables(pointTables(info, selected, options, exemplars));
  const parts = Math.max(1, Math.min(threads, Math.floor(n / Math.min(minPoints, 65536))));
  const bound = (j: number) => Math.floor((n * j) / parts);
  const rows = tree.parent.length;
  const rowBound = (j: number) => Math.floor((rows * j) / parts);
  const id = nextMessageId();
  const rowsOf = { parent: tree.parent, child: tree.child, lambda: tree.lambda };
  const job = (j: number): PointWordsJob => ({
    kind: 'cluster-point-words',
    id,
    tables,
    pw,
    out: into,
    labelCount: selected.length,
    p0: bound(j),
    p1: bound(j + 1),
    tree: rowsOf,
    r0: rowBound(j),
    r1: rowBound(j + 1),
  });
  const counts = new Float64Array(selected.length);
  let first: PointRowsReply = { id };
  const mine = () => {
    labelPointWords(tables, pw, 0, bound(1), { ...into, counts });
    const hits = candidateHits(tables, rowsOf, 0, rowBound(1));
    first = { id, hitPoints: hits.points, hitRanks: hits.ranks };
  };
  const replies = await splitOnWorkers(parts, true, 'cluster::label', (pass) => pass<PointRowsReply>(job, mine));
  if (replies === null) return null;
  // The candidates in row order: the first range's, then each worker's.
  gatherReplies(replies, first, counts, exemplars);
  pointThreadStats.runs++;
  pointThreadStats.workerRows += n - bound(1);
  return { ...into, persistence: persistenceOf(info, selected, stability, counts, tree.parent.length) };
}

/**
 * Adds the workers' label counts to `counts` and hands the exemplars to the collector in row order: the calling
 * thread's range (`first`), then each worker's in range order.
 */
function gatherReplies(
  replies: PointRowsReply[],
  first: PointRowsReply,
  counts: Float64Array,
  exemplars: ExemplarCollector | undefined,
): void {
  const add = (r: PointRowsReply) => {
    if (r.hitPoints && r.hitRanks) exemplars!.addHits(r.hitPoints, r.hitRanks);
  };
  if (exemplars) add(first);
  for (const reply of replies) {
    const c = reply.counts!;
    for (let j = 0; j < c.length; j++) counts[j] += c[j];
    if (exemplars) add(reply);
  }
}

/** The tables in shared memory (they are k-sized: up to ~n / 8 clusters, not worth copying to every worker). */
function shareTables(t: PointTables): PointTables {
  const share = <A extends Int32Array | Float64Array>(a: A): A => {
    const s = new (a.constructor as new (b: SharedArrayBuffer) => A)(new SharedArrayBuffer(a.byteLength));
    s.set(a);
    return s;
  };
  return {
    ...t,
    labelMaxLambda: share(t.labelMaxLambda),
    ownerDeath: share(t.ownerDeath),
    wanted: t.wanted && share(t.wanted),
    maxLambda: share(t.maxLambda),
  };
}

/** The worker's side (src/worker.ts). */
export const pointResultsJobs = {
  'cluster-points': runPointRowsJob,
  'cluster-point-words': runPointWordsJob,
} satisfies JobTable;
