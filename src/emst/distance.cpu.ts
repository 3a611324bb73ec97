/**
 * Edge keys of point-cloud MSTs on the CPU, computed exactly as the GPU computes them (shaders/emst/distance.wgsl,
 * shaders/emst/common.wgsl), and the canonical order.
 *
 * A key is a float32 *squared* weight, so the algorithm never takes a square root:
 *   Euclidean:           key(a, b) = Σ_k fround(fround(a_k − b_k)²), summed in dimension order, rounded after
 *                        every step (DESIGN.md, floating point) — src/knn/keys.cpu.ts computes it, for the k-NN too;
 *   mutual reachability: key(a, b) = max(core²(a), core²(b), fround(key_E(a, b) · ia2)), ia2 = fround(1 / alpha²)
 *                        (Campello et al. 2015; seed 002 §4.5), core² the squared core distance.
 * The weight returned to the caller is fround(sqrt(key)): for alpha = 1 that is exactly max(core(a), core(b),
 * d(a, b)) with d the float32 distance, because fround ∘ sqrt is monotone.
 *
 * The same steps applied to the gap between a point and a box give a lower bound on the key of every point in the
 * box *in float32 arithmetic*: every step is a monotone function of its inputs, so no slack is needed and ties
 * stay exact. A leaf's box is its point, and then the bound is the key itself.
 *
 * Canonical order: (key, min(u, v), max(u, v)) ascending on original indices. Important! Borůvka's per-component
 * minimum must use exactly this order, or equal weights can form a cycle.
 */

const f32 = Math.fround;

/**
 * The scale cut in key space: the smallest float32 key whose weight fround(sqrt(key)) is ≥ fround(minLength), so
 * that "weight ≥ minLength" (MiSTree keeps edges with length ≥ scale_cut_length) is exactly "key ≥ cutKey".
 * 0 for no cut.
 */
export function cutKey(minLength: number): number {
  const L = f32(minLength);
  if (!(L > 0)) return 0;
  const bits = new Uint32Array(1);
  const asFloat = new Float32Array(bits.buffer);
  asFloat[0] = f32(L * L);
  while (bits[0] > 0 && weightOfKey(asFloat[0]) >= L) bits[0]--;
  while (weightOfKey(asFloat[0]) < L) bits[0]++;
  return asFloat[0];
}

/** The float32 reciprocal of alpha², as the GPU receives it. */
export function inverseAlphaSquared(alpha: number): number {
  return f32(1 / (alpha * alpha));
}

/** Mutual reachability key from a Euclidean key and two squared core distances. */
export function reachabilityKey(key: number, core2a: number, core2b: number, ia2: number): number {
  const s = ia2 === 1 ? key : f32(key * ia2);
  return Math.max(s, core2a, core2b);
}

/** The weight of a key: fround(sqrt(key)). */
export function weightOfKey(key: number): number {
  return f32(Math.sqrt(key));
}

/** True when edge (k1, lo1, hi1) precedes edge (k2, lo2, hi2) in the canonical order (lo < hi on both). */
export function edgeLess(k1: number, lo1: number, hi1: number, k2: number, lo2: number, hi2: number): boolean {
  return k1 < k2 || (k1 === k2 && (lo1 < lo2 || (lo1 === lo2 && hi1 < hi2)));
}
