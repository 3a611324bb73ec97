/**
 * The one distance formula of treeline's point-cloud modules, on the CPU (twin of `shaders/knn/distance.wgsl`):
 *
 *   dist²(q, box) = Σ over axes a, in axis order, of RN_f32(g_a · g_a),  g_a = max(RN_f32(lo_a − q_a), RN_f32(q_a − hi_a), 0)
 *
 * every addition rounded to f32. A point is a box with lo = hi, so its g_a is |q_a − x_a| rounded, and a leaf's
 * box distance is its point distance bit for bit — and the EMST's key of the pair (src/emst/keys.cpu.ts), so a core
 * distance is exactly the key of the edge to that neighbour. (A pairwise sum over the axes was used here before;
 * one formula for the k-NN and the Borůvka keys is what lets both backends give the same mutual-reachability
 * edges, issue 15 §4.9.) Every step is monotone, so no box distance exceeds the distance of a point inside the box
 * (what pruning needs). The GPU rounds the same steps (add_square keeps a compiler from fusing them).
 */

const fr = Math.fround;

/**
 * Squared distance from q (dim values) to the box whose lo is arr[lo … lo + dim) and hi arr[hi … hi + dim).
 * `scratch` is no longer needed (the sum is sequential) and is ignored.
 */
export function boxDistance2(
  q: Float64Array,
  arr: Float32Array,
  lo: number,
  hi: number,
  dim: number,
  _scratch?: Float64Array,
): number {
  let acc = 0;
  for (let a = 0; a < dim; a++) {
    const x = fr(arr[lo + a] - q[a]);
    const y = fr(q[a] - arr[hi + a]);
    const g = x > y ? (x > 0 ? x : 0) : y > 0 ? y : 0;
    acc = fr(acc + fr(g * g));
  }
  return acc;
}

/** Squared distance from q to a box (lo at arr[lo …], hi at arr[hi …]): `boxDistance2` specialised to dim. */
export type BoxDistance = (q: Float64Array, arr: Float32Array, lo: number, hi: number) => number;

/** `boxDistance2` for a fixed dim, unrolled for 2 and 3 (same arithmetic, same results). */
export function boxDistanceFor(dim: number): BoxDistance {
  if (dim === 3) {
    return (q, arr, lo, hi) => {
      let x = fr(arr[lo] - q[0]);
      let y = fr(q[0] - arr[hi]);
      let g = x > y ? (x > 0 ? x : 0) : y > 0 ? y : 0;
      let acc = fr(g * g);
      x = fr(arr[lo + 1] - q[1]);
      y = fr(q[1] - arr[hi + 1]);
      g = x > y ? (x > 0 ? x : 0) : y > 0 ? y : 0;
      acc = fr(acc + fr(g * g));
      x = fr(arr[lo + 2] - q[2]);
      y = fr(q[2] - arr[hi + 2]);
      g = x > y ? (x > 0 ? x : 0) : y > 0 ? y : 0;
      return fr(acc + fr(g * g));
    };
  }
  if (dim === 2) {
    return (q, arr, lo, hi) => {
      let x = fr(arr[lo] - q[0]);
      let y = fr(q[0] - arr[hi]);
      let g = x > y ? (x > 0 ? x : 0) : y > 0 ? y : 0;
      const acc = fr(g * g);
      x = fr(arr[lo + 1] - q[1]);
      y = fr(q[1] - arr[hi + 1]);
      g = x > y ? (x > 0 ? x : 0) : y > 0 ? y : 0;
      return fr(acc + fr(g * g));
    };
  }
  return (q, arr, lo, hi) => boxDistance2(q, arr, lo, hi, dim);
}
