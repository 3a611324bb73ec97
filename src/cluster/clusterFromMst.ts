/**
 * HDBSCAN* after the MST (Campello, Moulavi & Sander 2013; hdbscan's `_tree_to_labels`): canonical edge order →
 * single linkage → condensed tree → stability → selection → labels, probabilities, GLOSH, persistence. Everything
 * is linear in n except the edge sort, which is skipped when the MST already comes in canonical order (treeline's
 * EMST does). Reproduces scikit-learn-contrib hdbscan 0.8.43 on the same MST (DESIGN.md, "HDBSCAN* semantics").
 *
 * To sweep minClusterSize, the selection method or ε on one MST, build the single linkage once
 * (`canonicalMst` + `singleLinkage`) and call `clusterFromSingleLinkage` per setting.
 */
import { condense } from './condense.js';
import { canonicalMst } from './edgeOrder.js';
import { ExemplarCollector } from './exemplars.js';
import { singleLinkage } from './linkage.js';
import { checkLinkageShape, checkMstShape, resolveClusterOptions } from './options.js';
import { pointResults } from './pointResults.js';
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

function clusterMst(mst: MstEdges, n: number, options: ClusterOptions, withExemplars: boolean): Clustered {
  const resolved = resolveClusterOptions(options);
  const isCanonical = checkMstShape(mst, n);
  const t0 = now();
  const sorted = canonicalMst(mst, isCanonical);
  const t1 = now();
  const linkage = singleLinkage(sorted, n);
  const t2 = now();
  const clustered = clusterLinkage(linkage, n, resolved, sorted, withExemplars);
  const timings = clustered.result.timings;
  timings.sort = t1 - t0;
  timings.linkage = t2 - t1;
  timings.total += t2 - t0;
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
): Clustered {
  const t0 = now();
  // The condensed tree comes with the per-cluster facts and stabilities (one pass, no re-reading of its rows).
  const { tree: condensedTree, info, stability } = condense(linkage, n, resolved.minClusterSize);
  const t1 = now();
  const selection = selectClusters(info, stability, resolved);
  const t2 = now();
  // Labels, probabilities, GLOSH and persistence (and exemplars' point rows) in one pass over the rows.
  const collector = withExemplars
    ? new ExemplarCollector(info.firstChild, info.maxLambda, selection.selected, n)
    : undefined;
  const { labels, probabilities, outlierScores: scores, persistence } = pointResults(
    condensedTree,
    info,
    selection.selected,
    selection.stability,
    resolved,
    collector,
  );
  const t3 = now();
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
