/**
 * Exact k nearest neighbours of every point by BVH traversal — the CPU backend, and the twin of
 * `shaders/knn/knn.wgsl` (same algorithm, same arithmetic, same answers up to the GPU's fused multiply-adds).
 *
 * Seed 002 §3 (ArborX's nearest query, Algorithm 2): a stack-based, nearest-child-first descent of the linear BVH
 * (layout in `../bvh/layout.ts`), pruning by the current k-th distance, queries in Morton order. Before the
 * descent the radius starts finite: the k-th smallest distance to the `window` points nearest in Morton order
 * (much faster than an infinite start: bench/RESULTS.md); the list is then emptied and the descent accepts anything within
 * that radius, so no candidate is counted twice.
 *
 * Order: ascending (squared distance, original index) — ties break on the smaller index, exactly, because
 * every subtree carries its smallest original index (minIndex) and pruning compares (distance, minIndex) with
 * the current k-th (distance, index) lexicographically. This also keeps all-duplicate inputs from being
 * quadratic. The point itself is excluded by index, so a duplicate is a neighbour at distance 0.
 *
 * Distances: squared Euclidean, by the one formula of `distance.cpu.ts` (f32 squares of the gaps to the box,
 * summed in axis order, `Math.fround` at every step — the EMST's keys, keys.cpu.ts); a leaf's box distance is its
 * point distance bit for bit, and no box distance exceeds a point distance inside it.
 */
import type { BvhCpu } from '../bvh/lbvh.cpu.js';
import { NONE, STACK_SIZE, boxWords } from '../bvh/layout.js';
import { InputError } from '../errors.js';
import { boxDistanceFor } from './distance.cpu.js';

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
  /** Candidates nearest in Morton order that set the initial radius (default k + 3). */
  window?: number;
}

/** The k best (squared distance, index) pairs so far, sorted, and the bound a candidate must beat. */
class KList {
  readonly d: Float64Array;
  readonly i: Float64Array;
  count = 0;
  worstD = Infinity;
  worstI = NONE;
  constructor(readonly k: number) {
    this.d = new Float64Array(k);
    this.i = new Float64Array(k);
  }
  /** Empties the list; candidates must then be within `radius` (inclusive). */
  reset(radius: number): void {
    this.count = 0;
    this.worstD = radius;
    this.worstI = NONE;
  }
  /** Whether (d, idx) precedes the current bound. */
  beats(d: number, idx: number): boolean {
    return d < this.worstD || (d === this.worstD && idx < this.worstI);
  }
  consider(d: number, idx: number): void {
    if (!(d < this.worstD || (d === this.worstD && idx < this.worstI))) return;
    const { k, d: bd, i: bi } = this;
    let pos = this.count < k ? this.count : k - 1;
    while (pos > 0 && (bd[pos - 1] > d || (bd[pos - 1] === d && bi[pos - 1] > idx))) {
      bd[pos] = bd[pos - 1];
      bi[pos] = bi[pos - 1];
      pos--;
    }
    bd[pos] = d;
    bi[pos] = idx;
    if (this.count < k) this.count++;
    if (this.count === k) {
      this.worstD = bd[k - 1];
      this.worstI = bi[k - 1];
    }
  }
}

/**
 * Runs the traversal for every point of `bvh`; `emit(point, list)` receives each point's (original index)
 * sorted list, valid until the next call.
 */
function traverse(bvh: BvhCpu, k: number, window: number, emit: (point: number, list: KList) => void): void {
  const { n, dim, sortedPoints: P, links, boxes, order } = bvh;
  const q = new Float64Array(dim);
  const list = new KList(k);
  const stackNode = new Int32Array(STACK_SIZE);
  const stackD = new Float64Array(STACK_SIZE);
  const dist = boxDistanceFor(dim);
  const w = boxWords(dim);
  const header = n - 1;
  const win = Math.min(window, n - 1);
  for (let t = 0; t < n; t++) {
    for (let a = 0; a < dim; a++) q[a] = P[t * dim + a];
    // Initial radius: the k-th distance among the `win` Morton neighbours.
    list.reset(Infinity);
    const s = Math.min(Math.max(t - (win >>> 1), 0), n - 1 - win);
    for (let p = s; p <= s + win; p++) {
      if (p !== t) list.consider(dist(q, P, p * dim, p * dim), order[p]);
    }
    list.reset(list.count === k ? list.d[k - 1] : Infinity);
    // Descent from the header record.
    const self = n - 1 + t;
    let node = header;
    let sp = 0;
    for (;;) {
      const l = links[4 * node];
      const r = links[4 * node + 1];
      const ml = links[4 * node + 2];
      const mr = links[4 * node + 3];
      // A child's box: an internal node's record, or a leaf's point (lo = hi; layout.ts).
      const dl = l >= header ? dist(q, P, (l - header) * dim, (l - header) * dim) : dist(q, boxes, l * w, l * w + dim);
      let goL = false;
      let goR = false;
      if (l >= header) {
        if (l !== self) list.consider(dl, ml);
      } else goL = list.beats(dl, ml);
      let dr = Infinity;
      if (r !== NONE) {
        dr = r >= header ? dist(q, P, (r - header) * dim, (r - header) * dim) : dist(q, boxes, r * w, r * w + dim);
        if (r >= header) {
          if (r !== self) list.consider(dr, mr);
        } else goR = list.beats(dr, mr);
      }
      if (goL && goR) {
        const leftFirst = dl < dr || (dl === dr && ml < mr);
        stackNode[sp] = leftFirst ? r : l;
        stackD[sp++] = leftFirst ? dr : dl;
        node = leftFirst ? l : r;
        continue;
      }
      if (goL || goR) {
        node = goL ? l : r;
        continue;
      }
      while (sp > 0 && stackD[sp - 1] > list.worstD) sp--;
      if (sp === 0) break;
      node = stackNode[--sp];
    }
    emit(order[t], list);
  }
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
export function knnCpu(bvh: BvhCpu, k: number, options: KnnCpuOptions = {}): KnnResult {
  checkK(k);
  const indices = new Uint32Array(bvh.n * k).fill(NONE);
  const squaredDistances = new Float32Array(bvh.n * k).fill(Infinity);
  traverse(bvh, k, options.window ?? defaultWindow(k), (point, list) => {
    for (let r = 0; r < list.count; r++) {
      indices[point * k + r] = list.i[r];
      squaredDistances[point * k + r] = list.d[r];
    }
  });
  return { k, indices, squaredDistances };
}

/** The squared distance of every point of `bvh` to its k-th nearest other point (+Infinity if n − 1 < k). */
export function kthSquaredDistancesCpu(bvh: BvhCpu, k: number, options: KnnCpuOptions = {}): Float32Array {
  checkKth(k);
  const out = new Float32Array(bvh.n).fill(Infinity);
  traverse(bvh, k, options.window ?? defaultWindow(k), (point, list) => {
    if (list.count === k) out[point] = list.d[k - 1];
  });
  return out;
}
