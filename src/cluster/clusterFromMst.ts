/**
 * HDBSCAN* after the MST (Campello, Moulavi & Sander 2013; hdbscan's `_tree_to_labels`): canonical edge order →
 * single linkage → condensed tree → stability → selection → labels, probabilities, GLOSH, persistence. Everything
 * is linear in n except the edge sort, which is skipped when the MST already comes in canonical order (treeline's
 * EMST does). Reproduces scikit-learn-contrib hdbscan 0.8.43 on the same MST (DESIGN.md, "HDBSCAN* semantics").
 *
 * One path (`clustering` below) for every entry point: on the calling thread alone (`clusterFromMst`, synchronous)
 * or on a host's threads and shared buffers (`clusterOnHost`, hdbscan()'s), where the passes that pay run on worker
 * threads (linkage.threads.ts, condense.threads.ts, pointResults.threads.ts; same results). The thresholds from
 * which they do are src/host/thresholds.ts's.
 *
 * To sweep minClusterSize, the selection method or ε on one MST, build the single linkage once
 * (`canonicalMst` + `singleLinkage`) and call `clusterFromSingleLinkage` per setting.
 */
import { startClock } from '../host/clock.js';
import type { ClusterTreeInfo } from './clusterTree.js';
import { ONE_THREAD, type Host } from '../host/host.js';
import { maxCondensedRows, type ClusterBuffers } from './buffers.js';
import { condense, fillRunts } from './condense.js';
import { fillRuntsThreaded, layOutThreaded } from './condense.threads.js';
import { canonicalMst } from './edgeOrder.js';
import { ExemplarCollector } from './exemplars.js';
import { queuedCounts, singleLinkage, type QueuedCounts } from './linkage.js';
import { singleLinkageThreaded } from './linkage.threads.js';
import { checkLinkageShape, checkMstShape, resolveClusterOptions } from './options.js';
import {
  pointResults,
  pointResultsFromWords,
  type PointOutputs,
  type PointResults,
  type PointWords,
} from './pointResults.js';
import { clusterPointsOnWorkers, pointResultsThreaded } from './pointResults.threads.js';
import { selectClusters } from './select.js';
import type {
  ClusterOptions,
  ClusterResult,
  CondensedTree,
  MstEdges,
  ResolvedClusterOptions,
  SingleLinkageTree,
} from './types.js';

/** The host the clustering runs on: threads and thresholds (src/host/host.ts), and hdbscan()'s buffers. */
export interface ClusterHost extends Host {
  /** Every array the clustering writes, allocated (and touched) ahead for these n and minClusterSize (buffers.ts). */
  buffers?: ClusterBuffers;
  /**
   * The MST is `emst()`'s own result for n points (n − 1 edges, canonical order, endpoints < n), so the pass that
   * checks it is skipped (~0.1–0.3 s at 10^7 points). Only `hdbscan()` says so.
   */
  fromEmst?: boolean;
}

/** A clustering and each selected cluster's exemplars (`exemplarsMs`: the time spent grouping them). */
export interface Clustering {
  result: ClusterResult;
  exemplars: Uint32Array[];
  exemplarsMs: number;
}

/**
 * Clusters n points from their MST (Euclidean or mutual-reachability weights, any edge order). Throws InputError
 * for bad options or an MST that is not a spanning tree of n points.
 */
export function clusterFromMst(mst: MstEdges, n: number, options: ClusterOptions): ClusterResult {
  return onCallingThread(clustering(mst, n, resolveClusterOptions(options), ONE_THREAD, false)).result;
}

/**
 * `clusterFromMst` plus each selected cluster's exemplars (what `exemplars(result.condensedTree,
 * result.selectedClusters)` returns), gathered during the labelling pass instead of two more passes over the rows.
 */
export function clusterFromMstWithExemplars(mst: MstEdges, n: number, options: ClusterOptions): Clustering {
  return onCallingThread(clustering(mst, n, resolveClusterOptions(options), ONE_THREAD, true));
}

/**
 * `clusterFromMstWithExemplars` on `host`: its threads where Node's worker threads are at hand and the tree is
 * large, its buffers where given. The labels, probabilities, outlier scores and condensed tree then lie in
 * SharedArrayBuffers. For `hdbscan()`.
 */
export async function clusterOnHost(
  mst: MstEdges,
  n: number,
  options: ClusterOptions,
  host: ClusterHost,
): Promise<Clustering> {
  const resolved = resolveClusterOptions(options);
  const { buffers } = host;
  if (buffers && (buffers.n !== n || buffers.rowCapacity < maxCondensedRows(n, resolved.minClusterSize))) {
    throw new Error(`cluster: buffers for ${buffers.n} points given for ${n} points at this minClusterSize.`);
  }
  return onThreads(clustering(mst, n, resolved, host, true));
}

/** One step of the pipeline that may wait for worker threads: `yield* wait(promise)` is its `await`. */
type Steps<T> = Generator<Promise<unknown>, T, unknown>;

function* wait<T>(promise: Promise<T>): Steps<T> {
  return (yield promise) as T;
}

/** The pipeline, once. On a host of one thread it never waits, so the synchronous entry points can run it. */
function* clustering(
  mst: MstEdges,
  n: number,
  resolved: ResolvedClusterOptions,
  host: ClusterHost,
  withExemplars: boolean,
): Steps<Clustering> {
  const { threads, buffers, thresholds: at } = host;
  const mcs = resolved.minClusterSize;
  const isCanonical = host.fromEmst && mst.sources.length === Math.max(0, n - 1) ? true : checkMstShape(mst, n);
  const clock = startClock();
  const sorted = canonicalMst(mst, isCanonical);
  clock.lap('sort');
  const { linkage, counts } = yield* link(sorted, n, mcs, host);
  clock.lap('linkage');
  // Condensing (its layout, the level sweep, the runts' points) on the threads where everything is shared.
  const shared = threads > 1 && n >= at.labelMinPoints;
  const onThreads = shared && buffers !== undefined && counts !== undefined && threads >= at.linkageMinThreads;
  const layout = onThreads
    ? ((yield* wait(layOutThreaded(linkage, n, counts, buffers, threads, at.linkageChunks))) ?? undefined)
    : undefined;
  const layoutMs = clock.lap('layout');
  const deferRunts = shared && buffers !== undefined;
  const {
    tree: condensedTree,
    info,
    stability,
    runts,
    layoutMs: own = 0,
  } = condense(linkage, n, mcs, { shared, buffers, counts, deferRunts, layout });
  const sweepMs = clock.lap('sweep');
  if (
    runts &&
    !(yield* wait(
      fillRuntsThreaded(condensedTree.child, runts, linkage.left, linkage.right, n, mcs, threads, at.minRuntsPerThread),
    ))
  ) {
    fillRunts(condensedTree.child, runts, 0, runts.count, linkage.left, linkage.right, n, mcs);
  }
  const runtsMs = clock.lap('runts');
  const clustering = yield* fromCondensed({ tree: condensedTree, info, stability }, resolved, host, withExemplars, {
    linkage,
    mst: sorted,
    shared,
  });
  const { result } = clustering;
  const t = clock.laps;
  const condenseMs = layoutMs + sweepMs + runtsMs;
  result.timings.sort = t.sort;
  result.timings.linkage = t.linkage;
  result.timings.condense = condenseMs;
  result.timings.total += t.sort + t.linkage + condenseMs;
  // Condensing's parts: the layout inside condense when not on the threads is condense's own measure.
  if (host !== ONE_THREAD)
    result.timings.condenseParts = { layout: layoutMs + own, sweep: sweepMs - own, runts: runtsMs };
  return clustering;
}

/**
 * Everything after the condensed tree — selection, then labels, probabilities, GLOSH, persistence and the
 * exemplars' rows in one pass over the rows (on the host's threads when `shared`: the rows' arrays are shared) —
 * and the result, whose timings hold `select` and `label` (the caller adds its own phases). The GPU-resident
 * pipeline (resident.ts) enters here with the tree condensed on the GPU.
 */
function* fromCondensed(
  condensed: { tree: CondensedTree; info: ClusterTreeInfo; stability: Float64Array },
  resolved: ResolvedClusterOptions,
  host: ClusterHost,
  withExemplars: boolean,
  pass: {
    linkage: SingleLinkageTree;
    mst?: MstEdges;
    shared: boolean;
    into?: Omit<PointOutputs, 'counts'>;
    /** Each point's own row in point order (the GPU's): the labelling then runs in point order. */
    pointWords?: PointWords;
  },
): Steps<Clustering> {
  const { tree: condensedTree, info, stability } = condensed;
  const { threads, buffers, thresholds: at } = host;
  const n = info.numPoints;
  const clock = startClock();
  const into = pass.into ?? buffers;
  const pw = pass.pointWords;
  clock.lap('select'); // ~0: on the workers the selection is part of `label`
  // The selection and everything per point on the workers, the calling thread waiting (all in `label`).
  const onWorkers =
    pass.shared && pw && into
      ? yield* wait(
          clusterPointsOnWorkers(
            condensedTree,
            info,
            stability,
            resolved,
            withExemplars,
            pw,
            into,
            threads,
            at.labelMinPoints,
          ),
        )
      : null;
  let selection: { selected: Int32Array; stability: Float64Array };
  let points: PointResults;
  let collector: ExemplarCollector | undefined;
  if (onWorkers !== null) {
    selection = onWorkers;
    points = onWorkers;
  } else {
    selection = selectClusters(info, stability, resolved);
    clock.lap('select');
    collector = withExemplars
      ? new ExemplarCollector(info.firstChild, info.maxLambda, selection.selected, n)
      : undefined;
    const args = [condensedTree, info, selection.selected, selection.stability, resolved, collector] as const;
    const threaded =
      pass.shared && !(pw && into)
        ? yield* wait(pointResultsThreaded(...args, threads, at.labelMinPoints, into))
        : null;
    points = threaded ?? (pw ? pointResultsFromWords(...args, pw, into) : pointResults(...args));
  }
  const { selected } = selection;
  clock.lap('label');
  const exemplars = onWorkers?.exemplars ?? collector?.result() ?? [];
  const exemplarsMs = clock.lap('exemplars');
  const result = assemble(condensedTree, stability, selected, points, pass.linkage, n, resolved, pass.mst);
  const t = clock.laps;
  result.timings = { sort: 0, linkage: 0, condense: 0, select: t.select, label: t.label, total: t.select + t.label };
  return { result, exemplars, exemplarsMs };
}

/**
 * `clusterOnHost` from a condensed tree made elsewhere (the GPU: resident.ts): selection, point results and
 * exemplars on `host`. `linkage` and `mst` are passed through to the result (empty arrays where not read back).
 */
export async function clusterFromCondensedOnHost(
  condensed: { tree: CondensedTree; info: ClusterTreeInfo; stability: Float64Array },
  options: ClusterOptions,
  host: ClusterHost,
  pass: {
    linkage: SingleLinkageTree;
    mst?: MstEdges;
    shared: boolean;
    into?: Omit<PointOutputs, 'counts'>;
    pointWords?: PointWords;
  },
): Promise<Clustering> {
  return onThreads(fromCondensed(condensed, resolveClusterOptions(options), host, true, pass));
}

/**
 * Single linkage of the sorted MST, with condensing's queued counts where the linkage gathers them
 * (thresholds.gatherMinPoints; always when on the threads, which need the host's buffers).
 */
function* link(
  sorted: MstEdges,
  n: number,
  mcs: number,
  host: ClusterHost,
): Steps<{ linkage: SingleLinkageTree; counts?: QueuedCounts }> {
  const { threads, buffers, thresholds: at } = host;
  if (buffers !== undefined && threads >= at.linkageMinThreads && n >= at.linkageMinPoints) {
    const counts = countsIn(buffers, mcs);
    const into = { linkage: buffers.linkage, unionFind: buffers.unionFind, payload: buffers.payload };
    const linkage = yield* wait(singleLinkageThreaded(sorted, n, counts, threads, into, at.linkageChunks));
    // Not on the threads (no workers, or an array not shared): the one-thread path, as below the thresholds.
    if (linkage !== null) return { linkage, counts };
  }
  const gather = n >= at.gatherMinPoints;
  const counts = !gather ? undefined : buffers ? countsIn(buffers, mcs) : queuedCounts(n, mcs);
  return { linkage: singleLinkage(sorted, n, buffers, counts), counts };
}

/** Queued counts for this minClusterSize in the buffers' arrays. */
function countsIn(buffers: ClusterBuffers, minClusterSize: number): QueuedCounts {
  return { minClusterSize, q: buffers.queued, ql: buffers.queuedLeft, qr: buffers.queuedRight, splits: 0 };
}

/** Runs the pipeline on the calling thread: a host of one thread never waits. */
function onCallingThread<T>(steps: Steps<T>): T {
  const next = steps.next();
  if (!next.done) throw new Error('cluster: a threaded step on the calling thread alone.');
  return next.value;
}

/** Runs the pipeline, awaiting each step that waits for worker threads. */
async function onThreads<T>(steps: Steps<T>): Promise<T> {
  let next = steps.next();
  while (!next.done) next = steps.next(await next.value);
  return next.value;
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
  const clock = startClock();
  const { tree: condensedTree, info, stability } = condense(linkage, n, resolved.minClusterSize);
  const condenseMs = clock.lap('condense');
  const selection = selectClusters(info, stability, resolved);
  const selectMs = clock.lap('select');
  const points = pointResults(condensedTree, info, selection.selected, selection.stability, resolved, undefined);
  const labelMs = clock.lap('label');
  const result = assemble(condensedTree, stability, selection.selected, points, linkage, n, resolved, mst);
  const total = condenseMs + selectMs + labelMs;
  result.timings = { sort: 0, linkage: 0, condense: condenseMs, select: selectMs, label: labelMs, total };
  return result;
}

/** The result from the condensed tree, the selection and the point results (timings filled in by the caller). */
function assemble(
  condensedTree: CondensedTree,
  stability: Float64Array,
  selected: Int32Array,
  points: PointResults,
  linkage: SingleLinkageTree,
  n: number,
  resolved: ResolvedClusterOptions,
  mst: MstEdges | undefined,
): ClusterResult {
  const selectedClusters = new Uint32Array(selected.length);
  for (let k = 0; k < selectedClusters.length; k++) selectedClusters[k] = selected[k] + n;
  return {
    labels: points.labels,
    probabilities: points.probabilities,
    outlierScores: points.outlierScores,
    mst: mst ?? { sources: new Uint32Array(0), targets: new Uint32Array(0), weights: new Float32Array(0) },
    singleLinkage: linkage,
    condensedTree,
    selectedClusters,
    clusterPersistence: points.persistence,
    stability,
    options: resolved,
    timings: { sort: 0, linkage: 0, condense: 0, select: 0, label: 0, total: 0 },
  };
}
