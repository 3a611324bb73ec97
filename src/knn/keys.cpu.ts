/**
 * The distance formula of treeline's CPU point-cloud code — the k-NN (neighbours.cpu.ts, knn.cpu.ts), the core
 * distances and the EMST's Borůvka keys (src/emst/distance.cpu.ts, nearest.cpu.ts) all compute it here; its GPU twin
 * is add_square() in shaders/knn/distance.wgsl:
 *
 *   key(q, box) = Σ over axes a, in axis order, of fround(g_a · g_a),  g_a = the gap from q_a to [lo_a, hi_a]
 *                 rounded to float32 (0 inside), every addition rounded to float32.
 *
 * A point is a box with lo = hi, so its gap is |q_a − x_a| rounded and a leaf's box key is the point's key bit for
 * bit: a core distance is exactly the key of the edge to that neighbour (issue 15 §4.9). Every step is monotone, so
 * a box key is a lower bound on the key of every point of the box in float32 arithmetic (no slack).
 *
 * The functions below are that one formula specialized for 2 and 3 dimensions and for periodic boxes (V8 inlines
 * these small functions into the loops that call them).
 *
 * Periodic boxes (`period` not null; points inside [0, L) per axis): the per-axis difference is the minimum image
 * t = min(|a − b|, L − |a − b|), each step rounded to float32 as the GPU rounds it (shaders/emst/distance.wgsl).
 * The box bound takes, on each axis, the smaller of the direct gap and the gap around the torus, each computed with
 * the same monotone float32 steps as the point key, so it stays a lower bound for every point of the box.
 */

import type { BvhCpu } from '../bvh/lbvh.cpu.js';

const f32 = Math.fround;

/** The minimum image of a float32 difference t on a periodic axis of length L: min(|t|, fround(L − |t|)). */
export function minImage(t: number, L: number): number {
  const a = Math.abs(t);
  const around = f32(L - a);
  return around < a ? around : a;
}

/**
 * Squared float32 distance between rows a and b of `xs` (row-major, `dim` columns), rounded step by step; with a
 * periodic `period` (points inside [0, L)) each axis takes the minimum image min(|t|, fround(L − |t|)).
 */
export function squaredDistance(
  xs: Float32Array,
  dim: number,
  a: number,
  b: number,
  period: Float32Array | null = null,
): number {
  let sq = 0;
  const oa = a * dim;
  const ob = b * dim;
  for (let k = 0; k < dim; k++) {
    let t = f32(xs[oa + k] - xs[ob + k]);
    if (period !== null) t = minImage(t, period[k]);
    sq = f32(sq + f32(t * t));
  }
  return sq;
}

/**
 * The key from q (dim values) to the open box whose lo is arr[lo … lo + dim) and hi arr[hi … hi + dim): the formula
 * above for any layout (the traversals use boxKey and pointKey).
 */
export function boxDistance2(q: ArrayLike<number>, arr: Float32Array, lo: number, hi: number, dim: number): number {
  let key = 0;
  for (let k = 0; k < dim; k++) {
    const t = gap(q[k], arr[lo + k], arr[hi + k]);
    key = f32(key + f32(t * t));
  }
  return key;
}

/**
 * Key between the query (x0, x1, x2) / `query` and row p of `xs`. Important! Keep this dispatcher and the 2D and 3D
 * kernels tiny: V8 inlines small functions only, and the traversals depend on an inlined key (bench/RESULTS.md).
 */
export function pointKey(
  xs: Float32Array,
  p: number,
  dim: number,
  query: Float64Array,
  x0: number,
  x1: number,
  x2: number,
  period: Float32Array | null,
): number {
  if (period !== null) return periodicPointKey(xs, p, dim, query, period);
  if (dim === 2) return pointKey2(xs, p, x0, x1);
  if (dim === 3) return pointKey3(xs, p, x0, x1, x2);
  return pointKeyN(xs, p, dim, query);
}

/** pointKey for 2 dimensions and an open box (for call sites that branch on the dimension themselves). */
export function pointKey2(xs: Float32Array, p: number, x0: number, x1: number): number {
  const a = f32(x0 - xs[2 * p]);
  const b = f32(x1 - xs[2 * p + 1]);
  return f32(f32(a * a) + f32(b * b));
}

function pointKey3(xs: Float32Array, p: number, x0: number, x1: number, x2: number): number {
  const a = f32(x0 - xs[3 * p]);
  const b = f32(x1 - xs[3 * p + 1]);
  const c = f32(x2 - xs[3 * p + 2]);
  return f32(f32(f32(a * a) + f32(b * b)) + f32(c * c));
}

function pointKeyN(xs: Float32Array, p: number, dim: number, query: Float64Array): number {
  let key = 0;
  const o = p * dim;
  for (let k = 0; k < dim; k++) {
    const t = f32(query[k] - xs[o + k]);
    key = f32(key + f32(t * t));
  }
  return key;
}

/** pointKey under minimum-image distances. */
function periodicPointKey(xs: Float32Array, p: number, dim: number, query: Float64Array, period: Float32Array): number {
  let key = 0;
  const o = p * dim;
  for (let k = 0; k < dim; k++) {
    const t = minImage(f32(query[k] - xs[o + k]), period[k]);
    key = f32(key + f32(t * t));
  }
  return key;
}

/**
 * Gap from x to [lo, hi] on a periodic axis of length L (x, lo, hi in [0, L)): the direct gap or the gap around
 * the torus, whichever is smaller. For x < lo and y in [lo, hi] the point key's axis term is
 * min(fround(y − x), fround(L − fround(y − x))) ≥ min(fround(lo − x), fround(L − fround(hi − x))) (monotone steps).
 */
function periodicGap(x: number, lo: number, hi: number, L: number): number {
  if (x < lo) {
    const g = f32(lo - x);
    const around = f32(L - f32(hi - x));
    return around < g ? around : g;
  }
  if (x > hi) {
    const g = f32(x - hi);
    const around = f32(L - f32(x - lo));
    return around < g ? around : g;
  }
  return 0;
}

/** Gap from x to the interval [lo, hi], rounded to float32 (0 inside). */
function gap(x: number, lo: number, hi: number): number {
  return x < lo ? f32(lo - x) : x > hi ? f32(x - hi) : 0;
}

/**
 * Key lower bound between the query and the box lo = boxes[base …], hi = boxes[base + dim …] (tiny: see pointKey).
 * For lo = hi = a point it is that point's pointKey bit for bit (the gap is the difference's magnitude): the
 * traversals take a leaf's point key where its box would be (a leaf has no box record, bvh/layout.ts).
 */
export function boxKey(
  boxes: Float32Array,
  base: number,
  dim: number,
  query: Float64Array,
  x0: number,
  x1: number,
  x2: number,
  period: Float32Array | null,
): number {
  if (period !== null) return periodicBoxKey(boxes, base, dim, query, period);
  if (dim === 2) return boxKey2(boxes, base, x0, x1);
  if (dim === 3) return boxKey3(boxes, base, x0, x1, x2);
  return boxKeyN(boxes, base, dim, query);
}

/** boxKey for 2 dimensions and an open box. */
export function boxKey2(boxes: Float32Array, base: number, x0: number, x1: number): number {
  const a = gap(x0, boxes[base], boxes[base + 2]);
  const b = gap(x1, boxes[base + 1], boxes[base + 3]);
  return f32(f32(a * a) + f32(b * b));
}

function boxKey3(boxes: Float32Array, base: number, x0: number, x1: number, x2: number): number {
  const a = gap(x0, boxes[base], boxes[base + 3]);
  const b = gap(x1, boxes[base + 1], boxes[base + 4]);
  const c = gap(x2, boxes[base + 2], boxes[base + 5]);
  return f32(f32(f32(a * a) + f32(b * b)) + f32(c * c));
}

function boxKeyN(boxes: Float32Array, base: number, dim: number, query: Float64Array): number {
  let key = 0;
  for (let k = 0; k < dim; k++) {
    const t = gap(query[k], boxes[base + k], boxes[base + dim + k]);
    key = f32(key + f32(t * t));
  }
  return key;
}

function periodicBoxKey(
  boxes: Float32Array,
  base: number,
  dim: number,
  query: Float64Array,
  period: Float32Array,
): number {
  let key = 0;
  for (let k = 0; k < dim; k++) {
    const t = periodicGap(query[k], boxes[base + k], boxes[base + dim + k], period[k]);
    key = f32(key + f32(t * t));
  }
  return key;
}

/**
 * A lower bound on the key from the query — a point of internal node `node`'s subtree — to every point *outside*
 * that subtree: the smallest gap from the query to a face of the node's box, squared; 0 when no bound holds.
 *
 * Important! BVH boxes overlap, so a point outside a subtree may lie inside its box. The bound holds only when the
 * subtree is a whole Morton cell: its first and last codes differ, so (radix tree) every point with the node's code
 * prefix is inside it, and a point outside has, on some axis, a quantized coordinate beyond the cell's and hence
 * (quantization is monotone) a coordinate beyond the box's. A subtree split among equal codes (duplicates, or
 * points closer than the quantization step) is not a cell, and gets 0.
 *
 * The bound holds on a periodic axis too (points and boxes in [0, L)): for y beyond the face hi the way around the
 * torus is L − (y − x) > x − lo because y < L and lo ≥ 0, and symmetrically beyond lo; y < L by at least one ulp
 * of y also covers the rounding of fround(y − x).
 */
export function escapeKey(bvh: BvhCpu, node: number, query: Float64Array): number {
  const { dim, codes, ranges, boxes } = bvh;
  if (!isCell(codes, ranges, node)) return 0;
  const base = node * 2 * dim;
  let g = Infinity;
  for (let k = 0; k < dim; k++) {
    const x = query[k];
    const lo = x - boxes[base + k];
    const hi = boxes[base + dim + k] - x;
    if (lo < g) g = lo;
    if (hi < g) g = hi;
  }
  const t = f32(g);
  return f32(t * t);
}

/** escapeKey for 2 dimensions, the query at (x0, x1). */
export function escapeKey2(bvh: BvhCpu, node: number, x0: number, x1: number): number {
  if (!isCell(bvh.codes, bvh.ranges, node)) return 0;
  const base = node * 4;
  const boxes = bvh.boxes;
  const g = Math.min(x0 - boxes[base], x1 - boxes[base + 1], boxes[base + 2] - x0, boxes[base + 3] - x1);
  const t = f32(g);
  return f32(t * t);
}

/** Whether internal node `node` is a whole Morton cell: its first and last codes differ. */
function isCell(codes: Uint32Array, ranges: Uint32Array, node: number): boolean {
  const f = ranges[2 * node];
  const l = ranges[2 * node + 1];
  return codes[2 * f] !== codes[2 * l] || codes[2 * f + 1] !== codes[2 * l + 1];
}
