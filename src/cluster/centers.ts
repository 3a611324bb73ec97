/**
 * Cluster centres as scikit-learn's `HDBSCAN(store_centers=…)` computes them (sklearn/cluster/_hdbscan/hdbscan.py,
 * `_weighted_cluster_center`; hdbscan 0.8.43's `weighted_cluster_centroid` / `weighted_cluster_medoid` are the same
 * per cluster). For each label c = 0 … k − 1, over its points x_i with membership probabilities p_i:
 *
 *   centroid_c = Σ p_i x_i / Σ p_i                     (np.average(data, weights=strength, axis=0))
 *   medoid_c   = x_m, m = argmin_i Σ_j ‖x_i − x_j‖ p_j  (pairwise_distances · strength, row sums, np.argmin)
 *
 * Note the medoid's distances are weighted by the *other* point's probability (scikit-learn multiplies the distance
 * matrix's columns by `strength`), and ties go to the first point in index order, as np.argmin's.
 *
 * What we changed: scikit-learn builds the n_c × n_c distance matrix (8 n_c² bytes: 80 GB at n_c = 10^5); here each
 * pair's distance is computed once, exactly (√Σ(a − b)², not the ‖a‖² + ‖b‖² − 2a·b expansion), and added to both
 * row sums, in tiles of TILE × TILE points, so memory is O(n_c · dim). The time stays O(n_c² · dim) per cluster, as
 * scikit-learn's: n_c²/2 distances, ~2·10^8 a second in 3D on one core (bench/RESULTS.md, issue 21): a second for
 * 20,000 points, half a minute for 10^5, most of an hour for 10^6.
 * Centroids are one O(n · dim) pass.
 */
import { InputError } from '../errors.js';

/** Which centres to compute (scikit-learn's `store_centers`). */
export type CenterKind = 'centroid' | 'medoid' | 'both';
const KINDS: readonly CenterKind[] = ['centroid', 'medoid', 'both'];

export interface ClusterCentersInput {
  /** Coordinates per point. */
  dim: number;
  /** Each point's label (< 0: noise, in no cluster); clusters are 0 … k − 1 with k = the largest label + 1. */
  labels: Int32Array;
  /** Each point's membership probability (the weights); omitted: every point weighs 1. */
  probabilities?: Float64Array;
  /** Which centres to compute. */
  centers: CenterKind;
}

export interface ClusterCenters {
  /** k × dim, row-major, in label order: each cluster's probability-weighted mean (with 'centroid' or 'both'). */
  centroids?: Float64Array;
  /** k × dim, row-major, in label order: each cluster's weighted medoid, one of its points (with 'medoid' or 'both'). */
  medoids?: Float64Array;
}

/** Points per side of a tile of the medoid's pair loop: 2 × 256 points × dim float64 stay in L1/L2. */
const TILE = 256;

/** Checks a `centers` option (hdbscan() does so before its MST). */
export function checkCenterKind(centers: unknown): asserts centers is CenterKind {
  if (!KINDS.includes(centers as CenterKind)) {
    throw new InputError(`Expected centers to be 'centroid', 'medoid' or 'both', got ${describe(centers)}.`);
  }
}

function describe(v: unknown): string {
  return typeof v === 'string' ? `'${v}'` : typeof v === 'object' && v !== null ? 'an object' : String(v);
}

/**
 * Centroids and/or medoids of the clusters of `points` (row-major n × dim) under `labels`, in float64 from the
 * coordinates as given. A cluster whose probabilities sum to 0 gets a NaN centroid (scikit-learn raises), a label
 * without points (only where the labels skip one) NaN rows.
 *
 * @throws InputError for mismatched lengths, a non-finite coordinate or an unknown `centers`.
 */
export function clusterCenters(points: Float32Array | Float64Array, input: ClusterCentersInput): ClusterCenters {
  if (input === null || typeof input !== 'object') {
    throw new InputError(`Expected { dim, labels, probabilities?, centers }, got ${describe(input)}.`);
  }
  const { dim, labels, probabilities, centers } = input;
  checkCenterKind(centers);
  if (!(points instanceof Float32Array) && !(points instanceof Float64Array)) {
    throw new InputError(`Expected points to be a Float32Array or Float64Array, got ${describe(points)}.`);
  }
  if (typeof dim !== 'number' || !Number.isInteger(dim) || dim < 1 || points.length % dim !== 0) {
    throw new InputError(`Expected dim to be an integer ≥ 1 dividing points.length=${points.length}, got ${dim}.`);
  }
  const n = points.length / dim;
  if (!(labels instanceof Int32Array) || labels.length !== n) {
    throw new InputError(`Expected labels to be an Int32Array of the ${n} points, got ${describe(labels?.length)}.`);
  }
  if (probabilities !== undefined && (!(probabilities instanceof Float64Array) || probabilities.length !== n)) {
    throw new InputError(
      `Expected probabilities to be a Float64Array of the ${n} points, got ${describe(probabilities?.length)}.`,
    );
  }
  for (let i = 0; i < points.length; i++) {
    if (!Number.isFinite(points[i])) {
      throw new InputError(
        `Expected finite coordinates, got ${points[i]} at row ${Math.floor(i / dim)}, column ${i % dim}.`,
      );
    }
  }
  const members = membersByLabel(labels);
  const weight = (i: number): number => (probabilities ? probabilities[i] : 1);
  const result: ClusterCenters = {};
  if (centers !== 'medoid') result.centroids = centroids(points, dim, members, weight);
  if (centers !== 'centroid') result.medoids = medoids(points, dim, members, weight);
  return result;
}

/** Point indices of each label 0 … k − 1, ascending (a counting sort). */
function membersByLabel(labels: Int32Array): Uint32Array[] {
  let k = 0;
  for (const l of labels) if (l + 1 > k) k = l + 1;
  const counts = new Uint32Array(k);
  for (const l of labels) if (l >= 0) counts[l]++;
  const members = Array.from(counts, (c) => new Uint32Array(c));
  counts.fill(0);
  labels.forEach((l, i) => {
    if (l >= 0) members[l][counts[l]++] = i;
  });
  return members;
}

function centroids(
  points: Float32Array | Float64Array,
  dim: number,
  members: Uint32Array[],
  weight: (i: number) => number,
): Float64Array {
  const out = new Float64Array(members.length * dim);
  members.forEach((idx, c) => {
    const row = out.subarray(c * dim, (c + 1) * dim);
    let total = 0;
    for (const i of idx) {
      const w = weight(i);
      total += w;
      for (let d = 0; d < dim; d++) row[d] += w * points[i * dim + d];
    }
    for (let d = 0; d < dim; d++) row[d] /= total; // 0/0 = NaN where the weights sum to 0
  });
  return out;
}

function medoids(
  points: Float32Array | Float64Array,
  dim: number,
  members: Uint32Array[],
  weight: (i: number) => number,
): Float64Array {
  const out = new Float64Array(members.length * dim);
  members.forEach((idx, c) => {
    const m = idx.length > 0 ? medoidOf(points, dim, idx, weight) : -1;
    for (let d = 0; d < dim; d++) out[c * dim + d] = m < 0 ? NaN : points[m * dim + d];
  });
  return out;
}

/** The member minimising Σ_j ‖x_i − x_j‖ p_j (first in index order on ties). O(n_c²·dim) time, O(n_c·dim) memory. */
function medoidOf(
  points: Float32Array | Float64Array,
  dim: number,
  idx: Uint32Array,
  weight: (i: number) => number,
): number {
  const m = idx.length;
  // The cluster's coordinates and weights gathered contiguously, in float64.
  const x = new Float64Array(m * dim);
  const p = new Float64Array(m);
  for (let a = 0; a < m; a++) {
    p[a] = weight(idx[a]);
    for (let d = 0; d < dim; d++) x[a * dim + d] = points[idx[a] * dim + d];
  }
  const sums = new Float64Array(m);
  // Each pair a < b once, tile by tile: its distance goes into both row sums. Important! every row sum receives its
  // terms one at a time in ascending b (tiles ascend, and within a tile rows before a add theirs first), so duplicate
  // points get bitwise-equal sums and tie, as their identical rows of scikit-learn's matrix do.
  for (let a0 = 0; a0 < m; a0 += TILE) {
    const a1 = Math.min(m, a0 + TILE);
    for (let b0 = a0; b0 < m; b0 += TILE) {
      const b1 = Math.min(m, b0 + TILE);
      for (let a = a0; a < a1; a++) {
        const pa = p[a];
        const oa = a * dim;
        let sa = sums[a]; // holds its terms b < a already; continues them in order
        for (let b = Math.max(b0, a + 1); b < b1; b++) {
          const ob = b * dim;
          let s = 0;
          for (let d = 0; d < dim; d++) {
            const t = x[oa + d] - x[ob + d];
            s += t * t;
          }
          const dist = Math.sqrt(s);
          sa += dist * p[b];
          sums[b] += dist * pa;
        }
        sums[a] = sa;
      }
    }
  }
  let best = 0;
  for (let a = 1; a < m; a++) if (sums[a] < sums[best]) best = a;
  return idx[best];
}
