/**
 * Brute-force k nearest neighbours on the CPU, O(m · n · d), for prediction (src/cluster/predict.ts, model.ts).
 * Kept beside the one BVH k-NN (neighbours.cpu.ts) for a reason: it answers queries outside the tree in float64, as
 * hdbscan's approximate_predict and PredictionData do; the float32 search would round distances differently.
 * Neighbours come sorted by (distance, index).
 */
import { InputError } from '../errors.js';

/** k neighbours per query, row-major `queries × k`. */
export interface KnnQueryResult {
  /** Neighbour indices into the reference points, nearest first. */
  indices: Uint32Array;
  /** Their Euclidean distances (float64). */
  distances: Float64Array;
  /** Neighbours per query. */
  k: number;
}

/** A pluggable k-NN search over fixed reference points (what `approximatePredict` calls). */
export type KnnSearch = (
  points: Float32Array,
  dim: number,
  queries: Float32Array | Float64Array,
  k: number,
) => KnnQueryResult;

/** The k nearest reference points of every query, by brute force. `k` is clamped to the number of points. */
export const bruteForceKnn: KnnSearch = (points, dim, queries, k) => {
  if (!Number.isInteger(dim) || dim < 1) throw new InputError(`Expected dim to be an integer ≥ 1, got ${dim}.`);
  if (points.length % dim !== 0) {
    throw new InputError(`Expected points.length to be a multiple of dim=${dim}, got ${points.length}.`);
  }
  if (queries.length % dim !== 0) {
    throw new InputError(`Expected queries.length to be a multiple of dim=${dim}, got ${queries.length}.`);
  }
  const n = points.length / dim;
  const m = queries.length / dim;
  const kk = Math.max(0, Math.min(k, n));
  const indices = new Uint32Array(m * kk);
  const distances = new Float64Array(m * kk);
  const bestD = new Float64Array(kk);
  const bestI = new Uint32Array(kk);
  for (let q = 0; q < m; q++) {
    let count = 0;
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < dim; j++) {
        const d = queries[q * dim + j] - points[i * dim + j];
        s += d * d;
      }
      const dist = Math.sqrt(s);
      // Insert into the sorted list of the k best (ties keep the smaller index first: i only grows).
      if (count < kk) count++;
      else if (!(dist < bestD[kk - 1])) continue;
      let p = count - 1;
      while (p > 0 && bestD[p - 1] > dist) {
        bestD[p] = bestD[p - 1];
        bestI[p] = bestI[p - 1];
        p--;
      }
      bestD[p] = dist;
      bestI[p] = i;
    }
    indices.set(bestI.subarray(0, kk), q * kk);
    distances.set(bestD.subarray(0, kk), q * kk);
  }
  return { indices, distances, k: kk };
};

/**
 * hdbscan's prediction core distances (`PredictionData`: `tree.query(data, k=min_samples)[0][:, -1]`): the
 * distance to the minSamples-th neighbour *counting the point itself* — one neighbour fewer than the fit's core
 * distance (0 for minSamples = 1). Brute force, O(n² d).
 */
export function predictionCoreDistances(points: Float32Array, dim: number, minSamples: number): Float64Array {
  const n = points.length / dim;
  const k = Math.min(minSamples, n);
  const core = new Float64Array(n);
  if (k <= 1) return core;
  const { distances } = bruteForceKnn(points, dim, points, k);
  for (let i = 0; i < n; i++) core[i] = distances[i * k + k - 1];
  return core;
}
