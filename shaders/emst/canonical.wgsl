// The canonical edge order on the GPU (src/emst/canonical.ts; CPU twin src/emst/canonical.cpu.ts): MST edges
// (a, b, key bits) (3 u32, merge.wgsl) become, in place in (keys, values), the edge list sorted by
// (weight, min, max) with weight = RN_f32(sqrt(key)) — exactly Math.fround(Math.sqrt(key)), the host's weight.
// Two stable radix sorts around two maps (LSD order: the last sort is the most significant key):
//   `pairs`    keys[e] = | min(a, b) << B | max(a, b) | (one 2B-bit integer, B = bits of n − 1), values[e] = key
//   sort on bits [0, 2B)        → ascending (min, max)
//   `weights`  keys[j] = vec2u(min, weight bits), values[j] = max
//   sort on bits [32, 64) (.y)  → ascending weight, equal weights keep (min, max) order
// Important! the second sort must be stable (src/primitives/radixsort.ts is: LSD with stable scatters), and the
// weight must be the correctly rounded square root: WGSL's sqrt is not (2.5 ulp or more), and two keys that round
// to one weight must tie on it, as on the host, or the order (and so every dendrogram id) differs.

struct CanonicalParams {
  /** Edges. */
  m: u32,
  /** B: bits of the largest point id (1 … 32). */
  bits: u32,
  p0: u32,
  p1: u32,
}
@group(0) @binding(0) var<uniform> u: CanonicalParams;
@group(0) @binding(1) var<storage, read> edges: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys: array<vec2u>;
@group(0) @binding(3) var<storage, read_write> values: array<u32>;

// | high word | low word | of lo · 2^B + hi, for lo, hi < 2^B.
fn pack_pair(lo: u32, hi: u32, b: u32) -> vec2u {
  if (b >= 32u) { return vec2u(hi, lo); }
  return vec2u(hi | (lo << b), lo >> (32u - b));
}

// (lo, hi) of pack_pair's key.
fn unpack_pair(k: vec2u, b: u32) -> vec2u {
  if (b >= 32u) { return vec2u(k.y, k.x); }
  let mask = (1u << b) - 1u;
  return vec2u((k.x >> b) | (k.y << (32u - b)), k.x & mask);
}

// a · b as (low word, high word).
fn mul_wide(a: u32, b: u32) -> vec2u {
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  let p00 = a0 * b0;
  let p01 = a0 * b1;
  let p10 = a1 * b0;
  let p11 = a1 * b1;
  let mid = p01 + p10;
  let mid_carry = select(0u, 0x10000u, mid < p01);
  let lo = p00 + (mid << 16u);
  let lo_carry = select(0u, 1u, lo < p00);
  return vec2u(lo, p11 + (mid >> 16u) + mid_carry + lo_carry);
}

// x > y for (low, high) pairs.
fn greater_wide(x: vec2u, y: vec2u) -> bool {
  return x.y > y.y || (x.y == y.y && x.x > y.x);
}

// RN_f32(sqrt(x)) as bits, for the f32 x of bits `xb` (keys are ≥ 0; ±0, +∞ and NaN come back as they are, other
// negatives as NaN). x = M · 2^e with M in [2^23, 2^24) (subnormals normalised first: the H100 flushes them);
// N = M · 2^23 or M · 2^24 (whichever makes the exponent left even) is an integer in [2^46, 2^48) with
// sqrt(x) = sqrt(N) · 2^s; the answer's 24-bit mantissa is r = round(sqrt(N)), the integer with
// r(r − 1) < N ≤ r(r + 1) (no ties: (2r + 1)² / 4 is never an integer). An f32 sqrt gives r to a few units; exact
// 64-bit comparisons (u32 pairs) fix it.
fn sqrt_rn_bits(xb: u32) -> u32 {
  if ((xb & 0x7fffffffu) == 0u || xb >= 0x7f800000u) {
    return select(xb, 0x7fc00000u, xb > 0x80000000u);
  }
  let ex = (xb >> 23u) & 0xffu;
  var m = xb & 0x7fffffu;
  var e: i32;
  if (ex == 0u) {
    let z = countLeadingZeros(m) - 8u;
    m = m << z;
    e = -149 - i32(z);
  } else {
    m = m | 0x800000u;
    e = i32(ex) - 150;
  }
  let odd = (e & 1) != 0;
  let k = select(24u, 23u, odd);
  let n = vec2u(m << k, m >> (32u - k));
  let s = (e - i32(k)) / 2;
  var r = u32(round(sqrt(f32(m) * select(16777216.0, 8388608.0, odd))));
  r = clamp(r, 0x800000u, 0xffffffu);
  for (var i = 0u; i < 16u && greater_wide(n, mul_wide(r, r + 1u)); i++) { r = r + 1u; }
  for (var i = 0u; i < 16u && !greater_wide(n, mul_wide(r, r - 1u)); i++) { r = r - 1u; }
  // r < 2^24 always (sqrt(N) < 2^24 − 1/2); s + 150 is the biased exponent of r · 2^s.
  return (u32(s + 150) << 23u) | (r - 0x800000u);
}

@compute @workgroup_size(WG)
fn pairs(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
         @builtin(local_invocation_index) lid: u32) {
  let e = thread_index(wid, nwg, lid);
  if (e >= u.m) { return; }
  let a = edges[3u * e];
  let b = edges[3u * e + 1u];
  keys[e] = pack_pair(min(a, b), max(a, b), u.bits);
  values[e] = edges[3u * e + 2u];
}

@compute @workgroup_size(WG)
fn weights(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
           @builtin(local_invocation_index) lid: u32) {
  let j = thread_index(wid, nwg, lid);
  if (j >= u.m) { return; }
  let ends = unpack_pair(keys[j], u.bits);
  keys[j] = vec2u(ends.x, sqrt_rn_bits(values[j]));
  values[j] = ends.y;
}
