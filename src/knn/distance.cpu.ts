/**
 * The one distance formula of treeline's point-cloud modules, on the CPU (twin of `shaders/knn/distance.wgsl`):
 *
 *   dist²(q, box) = pairwise Σ over axes a of RN_f32(g_a · g_a),  g_a = max(RN_f32(lo_a − q_a), RN_f32(q_a − hi_a), 0)
 *
 * A point is a box with lo = hi, so its g_a is |q_a − x_a| rounded, and a leaf's box distance is its point
 * distance bit for bit. The sum is a fixed pairwise tree over the axes (w = 1, 2, 4, …: s[a] += s[a + w]),
 * every addition rounded to f32: it is sequential for d ≤ 3, and for d = 16 it keeps the plain distance within
 * ~1.2 ulps of the exact one where a sequential f32 sum strays past 2. Every step is monotone, so no box
 * distance exceeds the distance of a point inside the box (what pruning needs). GPUs may fuse a square into an
 * addition, so GPU distances may differ from these in the last ulp.
 */

const fr = Math.fround;

/**
 * Squared distance from q (dim values) to the box whose lo is arr[lo … lo + dim) and hi arr[hi … hi + dim);
 * `scratch` holds dim values.
 */
export function boxDistance2(
  q: Float64Array,
  arr: Float32Array,
  lo: number,
  hi: number,
  dim: number,
  scratch: Float64Array,
): number {
  if (dim <= 3) {
    let acc = 0;
    for (let a = 0; a < dim; a++) {
      const x = fr(arr[lo + a] - q[a]);
      const y = fr(q[a] - arr[hi + a]);
      const g = x > y ? (x > 0 ? x : 0) : y > 0 ? y : 0;
      acc = fr(acc + fr(g * g));
    }
    return acc;
  }
  for (let a = 0; a < dim; a++) {
    const x = fr(arr[lo + a] - q[a]);
    const y = fr(q[a] - arr[hi + a]);
    const g = x > y ? (x > 0 ? x : 0) : y > 0 ? y : 0;
    scratch[a] = fr(g * g);
  }
  return pairwiseSum(scratch, dim);
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
  const scratch = new Float64Array(dim);
  return (q, arr, lo, hi) => boxDistance2(q, arr, lo, hi, dim, scratch);
}

/** The pairwise f32 sum of s[0 … dim) (destroys s). */
export function pairwiseSum(s: Float64Array, dim: number): number {
  for (let w = 1; w < dim; w *= 2) {
    for (let a = 0; a + w < dim; a += 2 * w) s[a] = fr(s[a] + s[a + w]);
  }
  return dim > 0 ? s[0] : 0;
}
