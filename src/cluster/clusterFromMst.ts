/**
 * HDBSCAN* after the MST (Campello, Moulavi & Sander 2013; hdbscan's `_tree_to_labels`): canonical edge order →
 * single linkage → condensed tree → stability → selection → labels, probabilities, GLOSH, persistence. Everything
 * is linear in n except the edge sort, which is skipped when the MST already comes in canonical order (treeline's
 * EMST does). Reproduces scikit-learn-contrib hdbscan 0.8.43 on the same MST (DESIGN.md, "HDBSCAN* semantics").
 *
 * To sweep minClusterSize, the selection method or ε on one MST, build the single linkage once
 * (`canonicalMst` + `singleLinkage`) and call `clusterFromSingleLinkage` per setting.
 */
import { maxCondensedRows, type ClusterBuffers } from './buffers.js';
import { condense, fillRunts, type Condensed } from './condense.js';
import { fillRuntsThreaded, layOutThreaded } from './condense.threads.js';
import { canonicalMst } from './edgeOrder.js';
import { ExemplarCollector } from './exemplars.js';
import { queuedCounts, singleLinkage, type QueuedCounts } from './linkage.js';
import { singleLinkageThreaded } from './linkage.threads.js';
import { checkLinkageShape, checkMstShape, resolveClusterOptions } from './options.js';
import { pointResults, type PointResults } from './pointResults.js';
import { pointResultsThreaded } from './pointResults.threads.js';
import { selectClusters } from './select.js';
import type { ClusterOptions, ClusterResult, MstEdges, ResolvedClusterOptions, SingleLinkageTree } from './types.js';

const now = (): number => globalThis.performance.now();

/**
 * Clusters n points from their MST (Euclidean or mutual-reachability weights, any edge order). Throws InputError
 * for bad options or an MST that is not a spanning tree of n points.
 */
export function clusterFromMst(mst: MstEdges, n: number, options: ClusterOptions): ClusterResult {
  return clusterMst(mst, n, options, false).result;
}

/**
 * `clusterFromMst` plus each selected cluster's exemplars (what `exemplars(result.condensedTree,
 * result.selectedClusters)` returns), gathered during the labelling pass instead of two more passes over the rows.
 * `exemplarsMs`: the time spent grouping them (gathering is inside `timings.label`).
 */
export function clusterFromMstWithExemplars(
  mst: MstEdges,
  n: number,
  options: ClusterOptions,
): { result: ClusterResult; exemplars: Uint32Array[]; exemplarsMs: number } {
  const { result, exemplars, exemplarsMs } = clusterMst(mst, n, options, true);
  return { result, exemplars: exemplars!, exemplarsMs };
}

/** How `clusterFromMstWithExemplarsThreaded` runs. */
export interface ThreadedClustering {
  /** Threads for the labelling pass (the main thread included). */
  threads: number;
  /**
   * The MST is `emst()`'s own result for n points (n − 1 edges, canonical order, endpoints < n), so the pass that
   * checks it is skipped (~0.1–0.3 s at 10^7 points). Only `hdbscan()` says so.
   */
  fromEmst: boolean;
  /** Every array the clustering writes, allocated (and touched) ahead for these n and minClusterSize (buffers.ts). */
  buffers?: ClusterBuffers;
  /** Points from which the labelling pass is split (default 2^19; tests pass less). */
  minPoints?: number;
  /** Points from which the linkage gathers condensing's counts (default 2^21; tests pass less). */
  gatherMinPoints?: number;
  /** Runts per thread from which condensing's last pass is split (default 4096; tests pass less). */
  minRunts?: number;
  /**
   * Points from which single linkage runs on the threads, by chunks of edges, when every array is shared (default
   * 2^19; tests pass less). Needs `buffers` and ≥ 6 threads.
   */
  linkageMinPoints?: number;
  /** Its chunks, and the layout's (default: 2 per thread, ≥ 2^16 edges each; tests pass others). */
  linkageChunks?: number;
}

/**
 * `clusterFromMstWithExemplars` with the labelling pass on several threads where Node's worker threads are at hand
 * and the tree is large (pointResults.threads.ts; same results). Its labels, probabilities, outlier scores and
 * condensed tree then lie in SharedArrayBuffers (as everything from `buffers` does). For `hdbscan()`.
 */
export async function clusterFromMstWithExemplarsThreaded(
  mst: MstEdges,
  n: number,
  options: ClusterOptions,
  how: ThreadedClustering,
): Promise<{ result: ClusterResult; exemplars: Uint32Array[]; exemplarsMs: number }> {
  const { threads, buffers, minPoints = THREADED_MIN_POINTS } = how;
  const resolved = resolveClusterOptions(options);
  if (buffers && (buffers.n !== n || buffers.rowCapacity < maxCondensedRows(n, resolved.minClusterSize))) {
    throw new Error(`cluster: buffers for ${buffers.n} points given for ${n} points at this minClusterSize.`);
  }
  const { sorted, linkage, counts, t0, t1, t2 } = await linkMstThreaded(mst, n, resolved, how);
  const shared = threads > 1 && n >= minPoints;
  const t3 = now();
  const mcs = resolved.minClusterSize;
  // With the counts gathered, condensing's layout runs on the threads too (condense.layout.ts).
  const layout =
    shared && buffers && counts && threads >= THREADED_STEPS_MIN_THREADS
      ? ((await layOutThreaded(linkage, n, counts, buffers, threads, how.linkageChunks)) ?? undefined)
      : undefined;
  const deferRunts = shared && buffers !== undefined;
  const tc = now();
  const condensed = condense(linkage, n, mcs, { shared, buffers, counts, deferRunts, layout });
  const td = now();
  // With every array shared, the runts' points are filled on the threads too.
  const runts = condensed.runts;
  if (runts) {
    const child = condensed.tree.child;
    const { left, right } = linkage;
    const filled = await fillRuntsThreaded(child, runts, left, right, n, mcs, threads, how.minRunts);
    if (!filled) fillRunts(child, runts, 0, runts.count, left, right, n, mcs);
  }
  // The layout inside condense when not on the threads: its share is condense's own measure.
  const own = condensed.layoutMs ?? 0;
  const parts = { layout: tc - t3 + own, sweep: td - tc - own, runts: now() - td };
  const pre = selectAfter(condensed, n, resolved, true, t3);
  const threaded = await pointResultsThreaded(
    pre.condensedTree,
    pre.info,
    pre.selection.selected,
    pre.selection.stability,
    resolved,
    pre.collector,
    shared ? threads : 1,
    minPoints,
    buffers,
  );
  const points =
    threaded ??
    pointResults(pre.condensedTree, pre.info, pre.selection.selected, pre.selection.stability, resolved, pre.collector);
  const clustered = assemble(pre, points, linkage, n, resolved, sorted);
  stampLinkage(clustered.result, t0, t1, t2);
  clustered.result.timings.condenseParts = parts;
  return { result: clustered.result, exemplars: clustered.exemplars!, exemplarsMs: clustered.exemplarsMs };
}

/**
 * Points from which the linkage gathers condensing's counts (no extra pass with random reads): its union-find
 * records grow from 8 to 16 bytes, which costs more than it saves while 8-byte ones still fit the TLB's reach
 * (10^6 points: linkage 100 → 140–190 ms on the 2-core machine, 61 → 173 ms on the H100's host).
 */
const GATHER_MIN_POINTS = 1 << 21;

/**
 * Points from which single linkage runs on the threads (linkage.threads.ts), as hdbscan() prepares its buffers:
 * at 10^6 points on the H100's host, 8–16 threads, the linkage 90–98 → 56–92 ms and the whole clustering after
 * the MST 208–245 → 156–200 ms (its counts gathered for condensing; scripts/bench-cluster.mjs --linkage-min).
 */
const LINKAGE_THREADS_MIN_POINTS = 1 << 19;

/**
 * Threads from which single linkage and condensing's layout run on them: the chunked linkage does ~2.5× the
 * sequential union-find's work, so fewer threads lose (10^7 points on the H100's host: 1.1–1.3 s on one thread;
 * 1.8–2.0 s on 2, 0.87–1.1 s on 4, 0.50–0.66 s on 8, 0.34–0.42 s on 16).
 */
const THREADED_STEPS_MIN_THREADS = 6;

/** `linkMst`, with single linkage on the threads where `how` allows it (same rows and counts). */
async function linkMstThreaded(mst: MstEdges, n: number, resolved: ResolvedClusterOptions, how: ThreadedClustering) {
  const { threads, buffers, linkageMinPoints = LINKAGE_THREADS_MIN_POINTS } = how;
  if (buffers === undefined || threads < THREADED_STEPS_MIN_THREADS || n < linkageMinPoints) {
    return linkMst(mst, n, resolved, how.fromEmst, buffers, how.gatherMinPoints);
  }
  const { sorted, t0, t1 } = sortMst(mst, n, how.fromEmst);
  const counts = countsIn(buffers, resolved.minClusterSize);
  const into = { linkage: buffers.linkage, unionFind: buffers.unionFind, payload: buffers.payload };
  const linkage = await singleLinkageThreaded(sorted, n, counts, threads, into, how.linkageChunks);
  // Not on the threads (no workers, or an array not shared): the one-thread path, as below the thresholds.
  if (linkage === null) return linkMst(sorted, n, resolved, true, buffers, how.gatherMinPoints);
  const t2 = now();
  return { sorted, linkage, counts, t0, t1, t2 };
}

/** The MST in canonical order (checked first unless it is emst()'s own), and when the sort started and ended. */
function sortMst(mst: MstEdges, n: number, fromEmst: boolean) {
  const isCanonical = fromEmst && mst.sources.length === Math.max(0, n - 1) ? true : checkMstShape(mst, n);
  const t0 = now();
  const sorted = canonicalMst(mst, isCanonical);
  return { sorted, t0, t1: now() };
}

/** Queued counts for this minClusterSize in the buffers' arrays. */
function countsIn(buffers: ClusterBuffers, minClusterSize: number): QueuedCounts {
  return { minClusterSize, q: buffers.queued, ql: buffers.queuedLeft, qr: buffers.queuedRight, splits: 0 };
}

/** Points from which `clusterFromMstWithExemplarsThreaded` labels on several threads. */
const THREADED_MIN_POINTS = 1 << 19;

function linkMst(
  mst: MstEdges,
  n: number,
  resolved: ResolvedClusterOptions,
  fromEmst: boolean,
  buffers?: ClusterBuffers,
  gatherMinPoints = GATHER_MIN_POINTS,
) {
  const { sorted, t0, t1 } = sortMst(mst, n, fromEmst);
  // The queued counts condensing needs, gathered by the linkage where that pays (GATHER_MIN_POINTS).
  const mcs = resolved.minClusterSize;
  const gather = n >= gatherMinPoints;
  const counts = !gather ? undefined : buffers ? countsIn(buffers, mcs) : queuedCounts(n, mcs);
  const linkage = singleLinkage(sorted, n, buffers, counts);
  const t2 = now();
  return { sorted, linkage, counts, t0, t1, t2 };
}

function stampLinkage(result: ClusterResult, t0: number, t1: number, t2: number): void {
  const timings = result.timings;
  timings.sort = t1 - t0;
  timings.linkage = t2 - t1;
  timings.total += t2 - t0;
}

function clusterMst(mst: MstEdges, n: number, options: ClusterOptions, withExemplars: boolean): Clustered {
  const resolved = resolveClusterOptions(options);
  const { sorted, linkage, counts, t0, t1, t2 } = linkMst(mst, n, resolved, false);
  const clustered = clusterLinkage(linkage, n, resolved, sorted, withExemplars, counts);
  stampLinkage(clustered.result, t0, t1, t2);
  return clustered;
}

/**
 * Everything after the single linkage: the cheap part to repeat per parameter setting. `mst` is only passed
 * through to the result (an empty edge list if omitted).
 */
export function clusterFromSingleLinkage(
  linkage: SingleLinkageTree,
  n: number,
  options: ClusterOptions,
  mst?: MstEdges,
): ClusterResult {
  const resolved = resolveClusterOptions(options);
  checkLinkageShape(linkage, n);
  return clusterLinkage(linkage, n, resolved, mst, false).result;
}

interface Clustered {
  result: ClusterResult;
  exemplars?: Uint32Array[];
  exemplarsMs: number;
}

function clusterLinkage(
  linkage: SingleLinkageTree,
  n: number,
  resolved: ResolvedClusterOptions,
  mst: MstEdges | undefined,
  withExemplars: boolean,
  counts?: QueuedCounts,
): Clustered {
  const t0 = now();
  // The condensed tree comes with the per-cluster facts and stabilities (one pass, no re-reading of its rows).
  const pre = selectAfter(condense(linkage, n, resolved.minClusterSize, { counts }), n, resolved, withExemplars, t0);
  const { condensedTree, info, selection, collector } = pre;
  // Labels, probabilities, GLOSH and persistence (and exemplars' point rows) in one pass over the rows.
  const points = pointResults(condensedTree, info, selection.selected, selection.stability, resolved, collector);
  return assemble(pre, points, linkage, n, resolved, mst);
}

/** The selection and the exemplar collector (when wanted) after condensing, which started at `t0`. */
function selectAfter(condensed: Condensed, n: number, resolved: ResolvedClusterOptions, withExemplars: boolean, t0: number) {
  const { tree: condensedTree, info, stability } = condensed;
  const t1 = now();
  const selection = selectClusters(info, stability, resolved);
  const t2 = now();
  const collector = withExemplars
    ? new ExemplarCollector(info.firstChild, info.maxLambda, selection.selected, n)
    : undefined;
  return { condensedTree, info, stability, selection, collector, t0, t1, t2 };
}

/** The result from the condensed tree, the selection and the point results (timed up to now). */
function assemble(
  pre: ReturnType<typeof selectAfter>,
  points: PointResults,
  linkage: SingleLinkageTree,
  n: number,
  resolved: ResolvedClusterOptions,
  mst: MstEdges | undefined,
): Clustered {
  const { condensedTree, stability, selection, collector, t0, t1, t2 } = pre;
  const t3 = now();
  const { labels, probabilities, outlierScores: scores, persistence } = points;
  const exemplars = collector?.result();
  const t4 = now();
  const selectedClusters = new Uint32Array(selection.selected.length);
  for (let k = 0; k < selectedClusters.length; k++) selectedClusters[k] = selection.selected[k] + n;
  const result: ClusterResult = {
    labels,
    probabilities,
    outlierScores: scores,
    mst: mst ?? { sources: new Uint32Array(0), targets: new Uint32Array(0), weights: new Float32Array(0) },
    singleLinkage: linkage,
    condensedTree,
    selectedClusters,
    clusterPersistence: persistence,
    stability,
    options: resolved,
    timings: { sort: 0, linkage: 0, condense: t1 - t0, select: t2 - t1, label: t3 - t2, total: t3 - t0 },
  };
  return { result, exemplars, exemplarsMs: t4 - t3 };
}
