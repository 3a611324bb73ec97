/**
 * Exact k nearest neighbours of every point on the CPU, in the public layout (rows and neighbours by original
 * index) — a view of the one CPU k-NN search, `KnnSearch` (neighbours.cpu.ts, which the EMST's k-NN phase runs too),
 * and the twin of `shaders/knn/knn.wgsl` (same answers: both exact under the same order and keys).
 *
 * Order: ascending (squared distance, original index) — ties break on the smaller index, exactly. The point itself
 * is excluded by index, so a duplicate is a neighbour at distance 0.
 *
 * Distances: squared Euclidean, by the one formula of `keys.cpu.ts` (f32 squares of the gaps, summed in axis
 * order, `Math.fround` at every step — the EMST's keys), so a core distance is exactly an edge key.
 */
import type { BvhCpu } from '../bvh/lbvh.cpu.js';
import { NONE } from '../bvh/layout.js';
import { InputError } from '../errors.js';
import { KnnSearch } from './neighbours.cpu.js';

export interface KnnResult {
  /** Neighbours per point. */
  k: number;
  /** n × k original indices, nearest first (ties by smaller index); NONE (0xFFFFFFFF) past the n − 1 others. */
  indices: Uint32Array;
  /** n × k squared Euclidean distances (f32) matching `indices`; +Infinity past the n − 1 others. */
  squaredDistances: Float32Array;
}

/** The default Morton window: k + 3 candidates (± 2 for k = 1, as DESIGN.md measured). */
export const defaultWindow = (k: number): number => k + 3;

export interface KnnCpuOptions {
  /**
   * The GPU search's Morton window (knn.ts); the CPU search ignores it (it climbs from each point's leaf, so it
   * meets the Morton neighbours first), and the answer never depends on it.
   */
  window?: number;
}

/** Throws unless 1 ≤ k ≤ 64. */
export function checkK(k: number): void {
  if (!Number.isInteger(k) || k < 1 || k > KNN_PASS) {
    throw new InputError(`Expected k to be an integer in [1, ${KNN_PASS}], got ${k}.`);
  }
}

/** Neighbours one GPU pass holds (knn.wgsl's list capacity); the k-th distance alone takes any k, in passes. */
export const KNN_PASS = 64;

/** The k-th distance alone: any integer k ≥ 1 (the GPU runs k above KNN_PASS in passes). */
export function checkKth(k: number): void {
  if (!Number.isInteger(k) || k < 1) throw new InputError(`Expected k to be an integer >= 1, got ${k}.`);
}

/** The k nearest neighbours (self excluded) of every point of `bvh`, 1 ≤ k ≤ 64. */
export function knnCpu(bvh: BvhCpu, k: number, _options: KnnCpuOptions = {}): KnnResult {
  checkK(k);
  const indices = new Uint32Array(bvh.n * k).fill(NONE);
  const squaredDistances = new Float32Array(bvh.n * k).fill(Infinity);
  eachList(bvh, k, (point, best, size) => {
    for (let r = 0; r < size; r++) {
      indices[point * k + r] = best.idx[r];
      squaredDistances[point * k + r] = best.key[r];
    }
  });
  return { k, indices, squaredDistances };
}

/** The squared distance of every point of `bvh` to its k-th nearest other point (+Infinity if n − 1 < k). */
export function kthSquaredDistancesCpu(bvh: BvhCpu, k: number, _options: KnnCpuOptions = {}): Float32Array {
  checkKth(k);
  const out = new Float32Array(bvh.n).fill(Infinity);
  eachList(bvh, k, (point, best, size) => {
    if (size === k) out[point] = best.key[k - 1];
  });
  return out;
}

/**
 * Runs KnnSearch for every point of `bvh` with min(k, n − 1) neighbours; `emit(point, best, size)` receives each
 * point's (original index) sorted list, valid until the next call.
 */
function eachList(bvh: BvhCpu, k: number, emit: (point: number, best: KnnSearch['best'], size: number) => void): void {
  const kk = Math.min(k, bvh.n - 1);
  if (kk < 1) return;
  const search = new KnnSearch(bvh, kk, null);
  const { order } = bvh;
  for (let q = 0; q < bvh.n; q++) emit(order[q], search.best, search.search(q));
}
