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
import { ExemplarCollector } from './exemplars.js';
import { selectClusters } from './select.js';
import {
  persistenceOf,
  labelPointWords,
  labelRows,
  candidateHits,
  growTo,
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

/** The selection and the lookup tables, made once on one worker (in shared memory) for the labelling jobs. */
export interface SelectJob {
  kind: 'cluster-select';
  id: number;
  info: ClusterTreeInfo;
  stability: Float64Array;
  options: ResolvedClusterOptions;
  withExemplars: boolean;
}

export interface SelectReply {
  id: number;
  selected?: Int32Array;
  /** The stabilities as the selection left them. */
  stability?: Float64Array;
  tables?: PointTables;
  /** under[c] = 1 for a cluster at or under a selected one (leafHits), with exemplars. */
  under?: Uint8Array;
  error?: string;
}

/** The worker's side. */
export function runSelectJob(job: SelectJob): SelectReply {
  const selection = selectClusters(job.info, job.stability, job.options);
  const { selected } = selection;
  const tables = shareTables(pointTables(job.info, selected, job.options));
  let under: Uint8Array | undefined;
  if (job.withExemplars) {
    // Cluster indices grow away from the root (parent[c] < c): one pass marks every cluster under a selected one.
    const { numClusters: k, parent } = job.info;
    under = new Uint8Array(new SharedArrayBuffer(k));
    for (let j = 0; j < selected.length; j++) under[selected[j]] = 1;
    for (let c = 1; c < k; c++) if (under[c] === 0) under[c] = under[parent[c]];
  }
  return { id: job.id, selected, stability: selection.stability, tables, under };
}

/** One range of points labelled from their own rows in point order (labelPointWords), and a range of rows' hits. */
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
  /** The rows whose exemplar candidates this job lists (none without `under`). */
  tree: Pick<CondensedTree, 'parent' | 'child' | 'lambda'>;
  r0: number;
  r1: number;
  under?: Uint8Array;
  firstChild: Int32Array;
  maxLambda: Float64Array;
}

/** A labelling job's answer: its range's exemplar candidates (points and their leaves), in row order. */
export interface PointWordsReply {
  id: number;
  hitPoints?: Uint32Array;
  hitLeaves?: Uint32Array;
  error?: string;
}

/** The worker's side. */
export function runPointWordsJob(job: PointWordsJob): PointWordsReply {
  const counts = new Float64Array(job.counts.length);
  labelPointWords(job.tables, job.pw, job.p0, job.p1, { ...job.out, counts });
  for (let j = 0; j < counts.length; j++) if (counts[j] !== 0) Atomics.add(job.counts, j, counts[j]);
  if (!job.under) return { id: job.id };
  const hits = leafHits(job.tables.n, job.under, job.firstChild, job.maxLambda, job.tree, job.r0, job.r1);
  return { id: job.id, hitPoints: hits.points, hitLeaves: hits.leaves };
}

/**
 * The exemplar candidates of rows [r0, r1) in row order: point rows leaving a leaf at the leaf's largest λ, where
 * the leaf lies under a selected cluster (`under`; the leaves ExemplarCollector ranks), as points and leaf cluster
 * indices.
 */
export function leafHits(
  n: number,
  under: Uint8Array,
  firstChild: Int32Array,
  maxLambda: Float64Array,
  tree: Pick<CondensedTree, 'parent' | 'child' | 'lambda'>,
  r0: number,
  r1: number,
): { points: Uint32Array; leaves: Uint32Array } {
  const { parent, child, lambda } = tree;
  let points: Uint32Array = new Uint32Array(Math.min(r1 - r0, 1024));
  let leaves: Uint32Array = new Uint32Array(points.length);
  let hits = 0;
  for (let r = r0; r < r1; r++) {
    const c = parent[r] - n;
    if (under[c] === 0 || firstChild[c] >= 0) continue;
    const x = child[r];
    if (x >= n || lambda[r] !== maxLambda[c]) continue;
    if (hits === points.length) {
      const grown = Math.min(2 * hits, r1 - r0);
      points = growTo(points, grown);
      leaves = growTo(leaves, grown);
    }
    points[hits] = x;
    leaves[hits++] = c;
  }
  return { points: toShared(points.subarray(0, hits)), leaves: toShared(leaves.subarray(0, hits)) };
}

/**
 * A copy of `a` in shared memory: what crosses between threads as a reference, not a copy (the hits pass worker →
 * main → worker → main: ~10^6 of them at 10^7 blobs, host memory counted), and the tables every worker reads.
 */
function toShared<A extends Int32Array | Uint32Array | Float64Array>(a: A): A {
  const s = new (a.constructor as new (b: SharedArrayBuffer) => A)(new SharedArrayBuffer(a.byteLength));
  s.set(a);
  return s;
}

/** The exemplar candidates of every range (in range order) grouped by label on one worker (ExemplarCollector). */
export interface ExemplarsJob {
  kind: 'cluster-exemplars';
  id: number;
  n: number;
  firstChild: Int32Array;
  maxLambda: Float64Array;
  selected: Int32Array;
  hitPoints: Uint32Array[];
  hitLeaves: Uint32Array[];
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
  const collector = new ExemplarCollector(job.firstChild, job.maxLambda, job.selected, job.n);
  const { rankOf } = collector;
  for (let part = 0; part < job.hitPoints.length; part++) {
    const leaves = job.hitLeaves[part];
    const ranks = new Uint32Array(leaves.length);
    for (let h = 0; h < leaves.length; h++) ranks[h] = rankOf[leaves[h]];
    collector.addHits(job.hitPoints[part], ranks);
  }
  const lists = collector.result();
  const offsets = new Uint32Array(lists.length + 1);
  for (let j = 0; j < lists.length; j++) offsets[j + 1] = offsets[j] + lists[j].length;
  const flat = new Uint32Array(new SharedArrayBuffer(4 * offsets[lists.length]));
  for (let j = 0; j < lists.length; j++) flat.set(lists[j], offsets[j]);
  return { id: job.id, flat, offsets };
}

/** What `clusterPointsOnWorkers` answers: the selection, the point results and, when asked, the exemplars. */
export interface PointsOnWorkers extends PointResults {
  selected: Int32Array;
  /** The stabilities as the selection left them (Selection.stability). */
  stability: Float64Array;
  exemplars?: Uint32Array[];
}

/**
 * Selection, labels, probabilities, GLOSH, persistence and exemplars of a condensed tree with each point's own row
 * in point order (the GPU's), on worker threads, in three passes: one worker selects and builds the lookup tables
 * (in shared memory); the workers label ranges of points, add their label counts atomically into one shared array
 * and list ranges of rows' exemplar candidates; one worker groups the candidates by label. The calling thread only
 * posts and waits: its once-per-call loops ran at interpreter speed after a full collection on the H100's host
 * (~5 ms per 10^5 iterations), where the workers' stayed optimised (bench/RESULTS.md issue 17, ninth session).
 * The same results, bit for bit, as selectClusters then pointResults on one thread. Null where that is not possible
 * (no workers; the words, `into`, the rows, the facts or the stabilities not shared; fewer than `minPoints` points).
 */
export async function clusterPointsOnWorkers(
  tree: CondensedTree,
  info: ClusterTreeInfo,
  stability: Float64Array,
  options: ResolvedClusterOptions,
  withExemplars: boolean,
  pw: PointWords,
  into: Omit<PointOutputs, 'counts'>,
  threads: number,
  minPoints = THRESHOLDS.labelMinPoints,
): Promise<PointsOnWorkers | null> {
  const n = info.numPoints;
  const k = info.numClusters;
  const arrays = [pw.words, into.labels, into.probabilities, into.outlierScores, tree.parent, tree.child, tree.lambda];
  arrays.push(stability, info.parent, info.firstChild, info.maxLambda, info.size, info.birth);
  if (threads < 2 || n < Math.max(minPoints, 2) || k === 0) return null;
  if (!arrays.every((a) => a.buffer instanceof SharedArrayBuffer)) return null;
  const select: SelectJob = { kind: 'cluster-select', id: nextMessageId(), info, stability, options, withExemplars };
  const chosen = await splitOnWorkers(1, false, 'cluster::select', (pass) => pass<SelectReply>(() => select));
  if (chosen === null) return null;
  const { selected, stability: selectedStability, tables, under } = chosen[0] as Required<SelectReply>;
  // Ranges of at least min(minPoints, 2^16) points on the threads beside the calling one.
  const parts = Math.max(1, Math.min(threads - 1, Math.floor(n / Math.min(minPoints, 65536))));
  const bound = (j: number) => Math.floor((n * j) / parts);
  const rows = tree.parent.length;
  const rowBound = (j: number) => Math.floor((rows * j) / parts);
  const counts = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, selected.length)));
  const id = nextMessageId();
  const rowsOf = { parent: tree.parent, child: tree.child, lambda: tree.lambda };
  const job = (j: number): PointWordsJob => ({
    kind: 'cluster-point-words',
    id,
    tables,
    pw,
    out: into,
    counts,
    p0: bound(j),
    p1: bound(j + 1),
    tree: rowsOf,
    r0: rowBound(j),
    r1: rowBound(j + 1),
    under: withExemplars ? under : undefined,
    firstChild: info.firstChild,
    maxLambda: info.maxLambda,
  });
  const replies = await splitOnWorkers(parts, false, 'cluster::label', (pass) => pass<PointWordsReply>(job));
  if (replies === null) return null;
  const persistence = persistenceOf(info, selected, selectedStability, counts, rows);
  let exemplars: Uint32Array[] | undefined;
  if (withExemplars) {
    const group: ExemplarsJob = {
      kind: 'cluster-exemplars',
      id: nextMessageId(),
      n,
      firstChild: info.firstChild,
      maxLambda: info.maxLambda,
      selected,
      hitPoints: replies.map((r) => r.hitPoints!),
      hitLeaves: replies.map((r) => r.hitLeaves!),
    };
    const grouped = await splitOnWorkers(1, false, 'cluster::exemplars', (pass) => pass<ExemplarsReply>(() => group));
    if (grouped === null) return null;
    const { flat, offsets } = grouped[0];
    exemplars = [];
    for (let j = 0; j < selected.length; j++) exemplars.push(flat!.subarray(offsets![j], offsets![j + 1]));
  }
  pointThreadStats.runs++;
  pointThreadStats.workerRows += n;
  return { ...into, persistence, selected, stability: selectedStability, exemplars };
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
  return {
    ...t,
    labelMaxLambda: toShared(t.labelMaxLambda),
    ownerDeath: toShared(t.ownerDeath),
    wanted: t.wanted && toShared(t.wanted),
    maxLambda: toShared(t.maxLambda),
  };
}

/** The worker's side (src/worker.ts). */
export const pointResultsJobs = {
  'cluster-points': runPointRowsJob,
  'cluster-select': runSelectJob,
  'cluster-point-words': runPointWordsJob,
  'cluster-exemplars': runExemplarsJob,
} satisfies JobTable;
