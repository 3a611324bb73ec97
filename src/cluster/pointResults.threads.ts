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
import { exemplarsFromFacts, type ExemplarCollector } from './exemplars.js';
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
  /** Per label, in shared memory: each job adds its range's counts (Atomics.add). */
  counts: Int32Array;
  p0: number;
  p1: number;
}

/** The worker's side: labels its range and adds its counts to the shared ones. */
export function runPointWordsJob(job: PointWordsJob): PointRowsReply {
  const counts = new Float64Array(job.counts.length);
  labelPointWords(job.tables, job.pw, job.p0, job.p1, { ...job.out, counts });
  for (let j = 0; j < counts.length; j++) if (counts[j] !== 0) Atomics.add(job.counts, j, counts[j]);
  return { id: job.id };
}

/** The exemplars of every selected cluster, gathered on one worker while others label (exemplarsFromFacts). */
export interface ExemplarsJob {
  kind: 'cluster-exemplars';
  id: number;
  tree: Pick<CondensedTree, 'parent' | 'child' | 'lambda'>;
  n: number;
  firstChild: Int32Array;
  maxLambda: Float64Array;
  selected: Int32Array;
}

/** Every label's exemplars one after another (`flat`), label j's at [offsets[j], offsets[j + 1]). */
export interface ExemplarsReply {
  id: number;
  flat?: Uint32Array;
  offsets?: Uint32Array;
  error?: string;
}

/** The worker's side. */
export function runExemplarsJob(job: ExemplarsJob): ExemplarsReply {
  const lists = exemplarsFromFacts(job.tree, job.n, job.firstChild, job.maxLambda, job.selected);
  const offsets = new Uint32Array(lists.length + 1);
  for (let j = 0; j < lists.length; j++) offsets[j + 1] = offsets[j] + lists[j].length;
  const flat = new Uint32Array(offsets[lists.length]);
  for (let j = 0; j < lists.length; j++) flat.set(lists[j], offsets[j]);
  return { id: job.id, flat, offsets };
}

/**
 * `pointResultsFromWords` on worker threads: the points split by ranges across workers (sequential writes on each,
 * the label counts added atomically into one shared array) and, when `withExemplars`, the exemplars gathered from
 * the rows by one more worker meanwhile. The calling thread only posts and waits: its loops would run cold (a
 * once-per-call loop on the main thread ran at interpreter speed after a full collection, ~5 ms per 10^5
 * iterations on the H100's host, where the workers' stayed optimised: bench/RESULTS.md issue 17, ninth session).
 * Null where that is not possible (no workers; `words`, `into` or the rows not shared; fewer than `minPoints`
 * points).
 */
export async function pointResultsFromWordsThreaded(
  tree: CondensedTree,
  info: ClusterTreeInfo,
  selected: Int32Array,
  stability: Float64Array,
  options: ResolvedClusterOptions,
  withExemplars: boolean,
  pw: PointWords,
  into: Omit<PointOutputs, 'counts'>,
  threads: number,
  minPoints = THRESHOLDS.labelMinPoints,
): Promise<(PointResults & { exemplars?: Uint32Array[] }) | null> {
  const n = info.numPoints;
  const shared = () =>
    [pw.words, into.labels, into.probabilities, into.outlierScores, tree.parent, tree.child, tree.lambda].every(
      (a) => a.buffer instanceof SharedArrayBuffer,
    );
  if (threads < 2 || n < Math.max(minPoints, 2) || !shared()) return null;
  const tables = shareTables(pointTables(info, selected, options));
  // Ranges of at least min(minPoints, 2^16) points on the threads beside the calling one, less one for the exemplars.
  const room = Math.max(1, threads - 1 - (withExemplars ? 1 : 0));
  const parts = Math.max(1, Math.min(room, Math.floor(n / Math.min(minPoints, 65536))));
  const bound = (j: number) => Math.floor((n * j) / parts);
  const counts = new Int32Array(new SharedArrayBuffer(4 * selected.length));
  const id = nextMessageId();
  const job = (j: number): PointWordsJob | ExemplarsJob =>
    j < parts
      ? { kind: 'cluster-point-words', id, tables, pw, out: into, counts, p0: bound(j), p1: bound(j + 1) }
      : {
          kind: 'cluster-exemplars',
          id,
          tree: { parent: tree.parent, child: tree.child, lambda: tree.lambda },
          n,
          firstChild: info.firstChild,
          maxLambda: info.maxLambda,
          selected,
        };
  const workers = parts + (withExemplars ? 1 : 0);
  const replies = await splitOnWorkers(workers, false, 'cluster::label', (pass) =>
    pass<PointRowsReply | ExemplarsReply>(job),
  );
  if (replies === null) return null;
  pointThreadStats.runs++;
  pointThreadStats.workerRows += n;
  const persistence = persistenceOf(info, selected, stability, counts, tree.parent.length);
  if (!withExemplars) return { ...into, persistence };
  const { flat, offsets } = replies[parts] as ExemplarsReply;
  const exemplars: Uint32Array[] = [];
  for (let j = 0; j < selected.length; j++) exemplars.push(flat!.subarray(offsets![j], offsets![j + 1]));
  return { ...into, persistence, exemplars };
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
  'cluster-exemplars': runExemplarsJob,
} satisfies JobTable;
