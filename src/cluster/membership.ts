/**
 * Soft clustering, as hdbscan 0.8.43 defines it (`prediction.py`: `membership_vector`,
 * `all_points_membership_vectors`; `_prediction_utils.pyx`; McInnes, "Soft clustering for HDBSCAN*", hdbscan docs).
 * A point's membership in each of the k selected clusters combines three parts:
 *
 * - distance: 1 / (distance to the cluster's nearest exemplar), normalised over the clusters
 *   (`dist_membership_vector`, softmax=False; a distance of 0 weighs Number.MAX_VALUE / k);
 * - outlier: from the merge height, the λ at which the point's cluster and each selected cluster meet in the
 *   condensed tree (the point's own λ where one contains the other), against its cluster's largest λ
 *   (`per_cluster_scores`), then a softmax and normalised;
 * - prob_in_some_cluster: the largest merge height over the largest λ of that cluster (or the point's λ).
 *
 * hdbscan combines them differently for training points and new points, and we follow it:
 *
 * |                 | training points (`all_points_…`)          | new points (`membership_vector`)               |
 * | --------------- | ----------------------------------------- | ---------------------------------------------- |
 * | point's λ       | its condensed-tree row                    | approximatePredict's λ, capped at its nearest  |
 * |                 |                                           | neighbour's row λ                              |
 * | outlier score   | exp(−(λmax + 1e-8) / height)              | λmax / (λmax − height), height with λ rounded  |
 * |                 |                                           | to float32 (the Cython takes `np.float32_t`)   |
 * | softmax max     | over the whole n × k matrix               | over the row                                   |
 * | combination     | distance · outlier                        | √distance · outlier²                           |
 * | in some cluster | height / max(λmax of the nearest, λ)      | height / (max(λ, λmax of the nearest) + 1e-8)  |
 *
 * Each row is then normalised and multiplied by prob_in_some_cluster, so a row sums to that probability (≤ 1 up
 * to rounding), not to 1.
 * Checked against hdbscan 0.8.43's own outputs on the canonical MST (test/golden/hdbscan-extra): within 2.2e-16
 * from float64 MST weights, 8e-8 from float32 ones.
 *
 * The clusters are hdbscan's `_select_clusters()`: for each label the smallest condensed-tree id its points leave
 * from — the selected cluster itself unless no point leaves it directly (it splits at once); the exemplars, merge
 * heights and λmax are taken there, as hdbscan does. Columns follow the labels. Where the tree has no cluster rows
 * but one cluster is selected (allowSingleCluster, no split), hdbscan raises a KeyError; we use the root's λmax.
 *
 * Memory and time: O(n · k) output, no n × n matrix. Each point's distances to the E exemplars (a few per leaf) cost
 * O(E · d); merge heights are computed once per (condensed cluster, selected cluster) pair in a call (a table of at
 * most numClusters × k, freed when the call returns).
 * With `backend` 'gpu' (or 'auto' from THRESHOLDS.membershipGpuMinPoints points) the distances to the exemplars are
 * computed on the GPU in f32 (exemplars.distance.ts; its CPU twin exemplars.distance.cpu.ts gives the same bits),
 * within ~1e-7 of the float64 ones (test/gpu/cluster.membership.test.ts checks 1e-6 against the golden files).
 */
import { exemplars as exemplarIndices } from './exemplars.js';
import { bruteForceKnn } from '../knn/brute.cpu.js';
import type { HdbscanModel } from './model.js';
import { checkNewPoints, mutualReachabilityNeighbour, prepare, type ApproximatePredictOptions } from './predict.js';
import type { ClusterTreeInfo, PointRows } from './clusterTree.js';
import { nearestExemplarDistances, NO_EXEMPLAR, packExemplars } from './exemplars.distance.cpu.js';
import { exemplarDistances } from './exemplars.distance.js';
import { createGpuContext, type GpuContext } from '../gpu/context.js';
import { gpuElseCpu } from '../gpu/fallback.js';
import { THRESHOLDS } from '../host/thresholds.js';

export type MembershipOptions = ApproximatePredictOptions;

/** What soft clustering needs beyond prediction's tree facts, built once per model. */
interface SoftTree {
  info: ClusterTreeInfo;
  rows: PointRows;
  /** Cluster index (id − n) behind each column: hdbscan's `_select_clusters()`, in label order. */
  clusters: Int32Array;
  /** Each column's exemplar coordinates in float64, row-major (count × dim). */
  exemplars: Float64Array[];
}

const softTrees = new WeakMap<HdbscanModel, SoftTree>();

function softTree(model: HdbscanModel): SoftTree {
  let s = softTrees.get(model);
  if (s) return s;
  const { info, rows } = prepare(model);
  const n = info.numPoints;
  const clusters = predictionClusters(model, rows);
  const dim = model.dim;
  const exemplars = exemplarIndices(
    model.condensedTree,
    Uint32Array.from(clusters, (c) => c + n),
  ).map((idx) => {
    const coords = new Float64Array(idx.length * dim);
    idx.forEach((p, e) => coords.set(model.points.subarray(p * dim, (p + 1) * dim), e * dim));
    return coords;
  });
  s = { info, rows, clusters, exemplars };
  softTrees.set(model, s);
  return s;
}

/**
 * hdbscan 0.8.43's `_select_clusters()` (plots.py), which its prediction data uses: per label, the smallest parent id
 * among its points' rows; the fit's selected cluster where a label has no point (never in a fit).
 */
function predictionClusters(model: HdbscanModel, rows: PointRows): Int32Array {
  const n = model.condensedTree.numPoints;
  const k = model.selectedClusters.length;
  const clusters = Int32Array.from(model.selectedClusters, (id) => id - n);
  const seen = new Uint8Array(k);
  for (let x = 0; x < n; x++) {
    const l = model.labels[x];
    if (!(l >= 0 && l < k)) continue;
    if (!seen[l] || rows.cluster[x] < clusters[l]) clusters[l] = rows.cluster[x];
    seen[l] = 1;
  }
  return clusters;
}

/** Merge heights from each condensed cluster to every column, filled on first use within one call. */
type MergeHeights = (Float64Array | undefined)[];

/**
 * hdbscan's `merge_height` from condensed cluster p to every column: walk the larger id up until both sides meet;
 * if both sides moved, the λ at which the last one moved joined the meeting cluster, else −1 (the point's own λ:
 * one cluster contains the other).
 */
function mergeHeights(s: SoftTree, heights: MergeHeights, p: number): Float64Array {
  const cached = heights[p];
  if (cached) return cached;
  const { parent, birth } = s.info;
  const h = new Float64Array(s.clusters.length);
  s.clusters.forEach((c, j) => {
    let left = p;
    let right = c;
    let tookLeft = false;
    let tookRight = false;
    let last = -1;
    while (left !== right) {
      if (left > right) {
        tookLeft = true;
        last = left;
        left = parent[left];
      } else {
        tookRight = true;
        last = right;
        right = parent[right];
      }
    }
    h[j] = tookLeft && tookRight ? birth[last] : -1;
  });
  heights[p] = h;
  return h;
}

/**
 * hdbscan's `dist_membership_vector` (softmax=False) from the distances in `out` (each column's nearest exemplar):
 * 1 / distance, Number.MAX_VALUE / k where it is 0, normalised to sum 1, in place.
 */
function distanceMembership(out: Float64Array): void {
  const k = out.length;
  let sum = 0;
  for (let j = 0; j < k; j++) {
    const best = out[j];
    out[j] = best !== 0 ? 1 / best : Number.MAX_VALUE / k;
    sum += out[j];
  }
  for (let j = 0; j < k; j++) out[j] /= sum;
}

/** The largest height (the point's λ standing for −1) and its first column, as numpy's max and argmax. */
function highest(h: Float64Array, lambda: number): { height: number; column: number } {
  let height = -Infinity;
  let column = 0;
  for (let j = 0; j < h.length; j++) {
    const v = h[j] < 0 ? lambda : h[j];
    if (v > height) {
      height = v;
      column = j;
    }
  }
  return { height, column };
}

/** Which backend computes the distances to the exemplars (the O(n · E · d) part) of `allPointsMembershipVectors`. */
export interface SoftBackendOptions {
  /**
   * 'cpu': float64 distances, as hdbscan; 'gpu': f32 distances on the GPU (shaders/cluster/exemplar_distance.wgsl;
   * memberships within ~1e-7 of the float64 ones); 'auto' (default): the GPU from THRESHOLDS.membershipGpuMinPoints
   * points on, falling back to the CPU where there is no usable GPU (gpuElseCpu).
   */
  backend?: 'auto' | 'gpu' | 'cpu';
  /** A GPU context to use (else one is created, and destroyed after the call). */
  gpu?: GpuContext;
}

/**
 * Soft cluster memberships of the training points (hdbscan's `all_points_membership_vectors`): n × k, row-major,
 * columns in label order; each row sums to the point's probability of being in some cluster. n × 0 (empty) when
 * there are no clusters (hdbscan returns n zeros). Without options it runs on the CPU and returns the array; with
 * options (`backend`, `gpu`) it returns a promise and may compute the distances on the GPU.
 */
export function allPointsMembershipVectors(model: HdbscanModel): Float64Array;
export function allPointsMembershipVectors(model: HdbscanModel, options: SoftBackendOptions): Promise<Float64Array>;
export function allPointsMembershipVectors(
  model: HdbscanModel,
  options?: SoftBackendOptions,
): Float64Array | Promise<Float64Array> {
  const s = softTree(model);
  const cpu = () =>
    allPointsFrom(model, s, (x, out) =>
      nearestExemplarDistances(s.exemplars, model.points, x * model.dim, model.dim, out),
    );
  if (!options) return cpu();
  const backend = options.backend ?? 'auto';
  const n = s.info.numPoints;
  if (backend === 'cpu' || s.clusters.length === 0 || (backend === 'auto' && n < THRESHOLDS.membershipGpuMinPoints)) {
    return Promise.resolve().then(cpu);
  }
  const onGpu = async () => {
    const ctx = options.gpu ?? (await createGpuContext({ hardwareOnly: backend === 'auto' }));
    try {
      const k = s.clusters.length;
      const table = await exemplarDistances(ctx, model.points, model.dim, packExemplars(s.exemplars, model.dim));
      return allPointsFrom(model, s, (x, out) => {
        for (let j = 0; j < k; j++) {
          const d2 = table[x * k + j];
          out[j] = d2 === NO_EXEMPLAR ? Number.MAX_VALUE : Math.sqrt(d2);
        }
      });
    } finally {
      if (!options.gpu) await ctx.destroy();
    }
  };
  return gpuElseCpu('allPointsMembershipVectors', backend, onGpu, cpu);
}

/** `allPointsMembershipVectors` with each point's distances to the columns' nearest exemplars from `distances`. */
function allPointsFrom(
  model: HdbscanModel,
  s: SoftTree,
  distances: (x: number, out: Float64Array) => void,
): Float64Array {
  const { info, rows, clusters } = s;
  const n = info.numPoints;
  const k = clusters.length;
  const out = new Float64Array(n * k);
  if (k === 0) return out;
  const heights: MergeHeights = new Array(info.numClusters);
  // Pass 1 (`all_points_per_cluster_scores`): exp(−(λmax + 1e-8) / height) into `out`, and their nanmax.
  let top = -Infinity;
  for (let x = 0; x < n; x++) {
    const p = rows.cluster[x];
    const h = mergeHeights(s, heights, p);
    const maxLambda = info.maxLambda[p] + 1e-8;
    for (let j = 0; j < k; j++) {
      const v = Math.exp(-(maxLambda / (h[j] < 0 ? rows.lambda[x] : h[j])));
      out[x * k + j] = v;
      if (v > top) top = v;
    }
  }
  // Pass 2, point by point: softmax against the matrix's max, times the distance part, normalised, times
  // prob_in_some_cluster.
  const dist = new Float64Array(k);
  for (let x = 0; x < n; x++) {
    const row = out.subarray(x * k, (x + 1) * k);
    let sum = 0;
    for (let j = 0; j < k; j++) sum += row[j] = Math.exp(row[j] - top);
    distances(x, dist);
    distanceMembership(dist);
    let total = 0;
    for (let j = 0; j < k; j++) total += row[j] = dist[j] * (row[j] / sum);
    const p = rows.cluster[x];
    const lambda = rows.lambda[x];
    const { height, column } = highest(mergeHeights(s, heights, p), lambda);
    const best = info.maxLambda[clusters[column]];
    const inSome = height / (lambda > best ? lambda : best);
    for (let j = 0; j < k; j++) row[j] = (row[j] / total) * inSome;
  }
  return out;
}

/**
 * Soft cluster memberships of new points under a fitted model (hdbscan's `membership_vector`): m × k, row-major,
 * columns in label order; each row sums to the point's probability of being in some cluster. `newPoints` are
 * checked and rounded to float32 as `approximatePredict` does, and found in the model the same way.
 */
export function membershipVector(
  model: HdbscanModel,
  newPoints: Float32Array | Float64Array,
  options: MembershipOptions = {},
): Float64Array {
  const s = softTree(model);
  const { info, rows, clusters } = s;
  const queries = checkNewPoints(newPoints, model.dim);
  const m = queries.length / model.dim;
  const k = clusters.length;
  const out = new Float64Array(m * k);
  if (k === 0 || m === 0) return out;
  const knn = (options.knn ?? bruteForceKnn)(model.points, model.dim, queries, 2 * model.minSamples);
  const neighbour = { index: 0, lambda: 0 };
  const dist = new Float64Array(k);
  const heights: MergeHeights = new Array(info.numClusters);
  for (let q = 0; q < m; q++) {
    mutualReachabilityNeighbour(model, knn, q, neighbour);
    const p = rows.cluster[neighbour.index];
    const lambda = Math.min(neighbour.lambda, rows.lambda[neighbour.index]);
    const h = mergeHeights(s, heights, p);
    const row = out.subarray(q * k, (q + 1) * k);
    // Outlier part (`per_cluster_scores`, whose λ argument is a float32): λmax / (λmax − height), a denominator
    // ≤ 0 taken as 1e-8, then a softmax against the row's nanmax.
    const lambda32 = Math.fround(lambda);
    const maxLambda = info.maxLambda[p];
    let top = -Infinity;
    for (let j = 0; j < k; j++) {
      const den = maxLambda - (h[j] < 0 ? lambda32 : h[j]);
      row[j] = maxLambda / (den <= 0 ? 1e-8 : den);
      if (row[j] > top) top = row[j];
    }
    let sum = 0;
    for (let j = 0; j < k; j++) sum += row[j] = Math.exp(row[j] - top);
    nearestExemplarDistances(s.exemplars, queries, q * model.dim, model.dim, dist);
    distanceMembership(dist);
    let total = 0;
    for (let j = 0; j < k; j++) {
      const outlier = row[j] / sum;
      total += row[j] = Math.sqrt(dist[j]) * outlier * outlier;
    }
    const { height, column } = highest(h, lambda);
    const best = info.maxLambda[clusters[column]];
    const inSome = height / ((best > lambda ? best : lambda) + 1e-8);
    for (let j = 0; j < k; j++) row[j] = (row[j] / total) * inSome;
  }
  return out;
}
