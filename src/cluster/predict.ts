/**
 * Labels and membership probabilities of new points under a fitted model, as hdbscan's
 * `prediction.approximate_predict` (McInnes, "Predicting clusters for new points", hdbscan docs): the new point's
 * mutual-reachability nearest neighbour among its 2 · minSamples nearest training points gives a λ; the point joins
 * that neighbour's cluster, or the first ancestor cluster still alive at that λ; its label is that of the selected
 * cluster containing it (noise if none), its probability min(λ, λ_max) / λ_max of that selected cluster.
 *
 * Core distances, exactly as hdbscan 0.8.43 takes them (checked against its output): a training point's core
 * distance counts the point itself among its minSamples neighbours — one fewer than the fit does, i.e. its
 * (minSamples − 1)-th other neighbour, 0 for minSamples = 1 (see `predictionCoreDistances`); a new point's core
 * distance is its distance to its (minSamples + 1)-th nearest training point (hdbscan reads
 * `neighbor_distances[min_samples]` of the 2 · minSamples it queried). λ = Number.MAX_VALUE (numpy's finfo max)
 * where the mutual-reachability distance is 0.
 *
 * The clusters are the fit's selected clusters (epsilon and maxClusterSize included). hdbscan 0.8.43's prediction
 * data takes `condensed_tree_._select_clusters()` instead: per label, the smallest condensed-tree cluster its points
 * fall out of (membership.ts's `predictionClusters`). The two agree (checked on every golden case, ε, leaf and
 * maxClusterSize included) unless a selected cluster has no point falling out of it directly — with
 * allowSingleCluster and the root selected, hdbscan then predicts only the side of the root's first child that
 * holds such points. membership.ts follows hdbscan there (its golden outputs need it); approximatePredict keeps the
 * fit's selection.
 *
 * Input is checked at the door as hdbscan() checks its own (issue 15): the model by `validateModel` (once per model
 * object), the new points by the same coordinate rule (finite, within float32's range; the message names row and
 * column). A Float64Array of new points is rounded to float32 first, as hdbscan() rounds its input (DESIGN.md
 * "Data at the boundary"), so a point predicts exactly as its float32 rounding does.
 */
import { checkCoordinates } from '../emst/validate.js';
import { InputError } from '../errors.js';
import { clusterTreeInfo, pointRows, type ClusterTreeInfo, type PointRows } from './clusterTree.js';
import { bruteForceKnn, type KnnQueryResult, type KnnSearch } from '../knn/brute.cpu.js';
import { validateModel, type HdbscanModel } from './model.js';

export interface ApproximatePrediction {
  /** Predicted label of each new point (−1 noise). */
  labels: Int32Array;
  /** Membership probability of each new point (0 for noise). */
  probabilities: Float64Array;
}

export interface ApproximatePredictOptions {
  /** The k-NN search over the training points; default `bruteForceKnn` (O(m · n · d)). */
  knn?: KnnSearch;
}

export interface Prepared {
  info: ClusterTreeInfo;
  rows: PointRows;
  /** Label of the selected cluster at or above each cluster (−1 if none). */
  labelOf: Int32Array;
}

const prepared = new WeakMap<HdbscanModel, Prepared>();

/** The model validated (once per model object) and its tree facts; shared with membership.ts. */
export function prepare(model: HdbscanModel): Prepared {
  let p = prepared.get(model);
  if (p) return p;
  validateModel(model);
  const tree = model.condensedTree;
  const n = tree.numPoints;
  const info = clusterTreeInfo(tree);
  const labelOf = new Int32Array(info.numClusters).fill(-1);
  model.selectedClusters.forEach((id, label) => (labelOf[id - n] = label));
  // hdbscan maps every cluster below a selected one to its label (`_clusters_below`): top-down, parents first.
  for (let c = 1; c < info.numClusters; c++) if (labelOf[c] < 0) labelOf[c] = labelOf[info.parent[c]];
  p = { info, rows: pointRows(tree), labelOf };
  prepared.set(model, p);
  return p;
}

/** Predicts labels and probabilities of `newPoints` (row-major, model.dim columns). */
export function approximatePredict(
  model: HdbscanModel,
  newPoints: Float32Array | Float64Array,
  options: ApproximatePredictOptions = {},
): ApproximatePrediction {
  const { info, rows, labelOf } = prepare(model);
  const queries = checkNewPoints(newPoints, model.dim);
  const m = queries.length / model.dim;
  const labels = new Int32Array(m).fill(-1);
  const probabilities = new Float64Array(m);
  const n = model.condensedTree.numPoints;
  // No cluster rows: hdbscan predicts noise for everything.
  if (info.numClusters <= 1 || n === 0) return { labels, probabilities };

  const knn = (options.knn ?? bruteForceKnn)(model.points, model.dim, queries, 2 * model.minSamples);
  const neighbour = { index: 0, lambda: 0 };
  for (let q = 0; q < m; q++) {
    mutualReachabilityNeighbour(model, knn, q, neighbour);
    const best = neighbour.index;
    let lambda = neighbour.lambda;
    let cluster = rows.cluster[best];
    if (rows.lambda[best] > lambda) {
      // The new point is not dense enough to stay with its neighbour: climb to the cluster alive at its λ.
      while (cluster > 0 && info.birth[cluster] >= lambda) cluster = info.parent[cluster];
    }
    const label = labelOf[cluster];
    labels[q] = label;
    if (label >= 0) {
      const maxLambda = info.maxLambda[model.selectedClusters[label] - n];
      if (maxLambda > 0) {
        lambda = Math.min(maxLambda, lambda);
        probabilities[q] = lambda / maxLambda;
      } else {
        probabilities[q] = 1;
      }
    }
  }
  return { labels, probabilities };
}

/**
 * New points checked at the door (a Float32Array or Float64Array of whole rows of `dim`, coordinates finite and in
 * float32's range; the message names row and column) and rounded to float32, as hdbscan() rounds its input.
 */
export function checkNewPoints(newPoints: Float32Array | Float64Array, dim: number): Float32Array {
  if (!(newPoints instanceof Float32Array) && !(newPoints instanceof Float64Array)) {
    throw new InputError(`Expected newPoints to be a Float32Array or Float64Array.`);
  }
  if (newPoints.length % dim !== 0) {
    throw new InputError(
      `Expected newPoints.length to be a multiple of the model's dim=${dim}, got ${newPoints.length}.`,
    );
  }
  try {
    checkCoordinates(newPoints, dim);
  } catch (e) {
    throw e instanceof InputError ? new InputError(`newPoints: ${e.message}`) : e;
  }
  return newPoints instanceof Float64Array ? new Float32Array(newPoints) : newPoints;
}

/**
 * hdbscan's `_find_neighbor_and_lambda` for query q of `knn` (its 2 · minSamples nearest training points): the
 * nearest neighbour in mutual reachability (the first of equals, as numpy's argmin) and λ = 1 / that distance
 * (Number.MAX_VALUE where it is 0). Written into `out` (one object reused over the queries).
 */
export function mutualReachabilityNeighbour(
  model: HdbscanModel,
  knn: KnnQueryResult,
  q: number,
  out: { index: number; lambda: number },
): void {
  const k = knn.k;
  const base = q * k;
  // hdbscan 0.8.43 reads neighbor_distances[min_samples]: the (minSamples + 1)-th nearest training point.
  const pointCore = knn.distances[base + Math.min(model.minSamples, k - 1)];
  const core = model.predictionCoreDistances;
  let best = -1;
  let bestMr = Infinity;
  for (let j = 0; j < k; j++) {
    const idx = knn.indices[base + j];
    const mr = Math.max(core[idx], pointCore, knn.distances[base + j]);
    if (mr < bestMr || best < 0) {
      bestMr = mr;
      best = idx;
    }
  }
  out.index = best;
  out.lambda = bestMr > 0 ? 1 / bestMr : Number.MAX_VALUE;
}
