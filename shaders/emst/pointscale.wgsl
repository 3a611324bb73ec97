// Points multiplied in place by 2^e (src/emst/scale.ts: brings the largest |coordinate| into [1, 2)), on bit
// patterns, rounding exactly as the host's Math.fround(x · 2^e): the exponent moves; where the result is subnormal
// the significand is shifted right with round-half-to-even; subnormal inputs are normalised first. GPU float
// arithmetic may flush subnormals to zero, so no float operation is used. Host side: src/emst/pointcheck.ts; CPU
// twin: src/emst/pointcheck.cpu.ts. Inputs are finite (pointcheck.wgsl ran first) and e never takes
// the largest magnitude past [1, 2), so nothing overflows.
struct ScaleParams { count: u32, exponent: i32, p0: u32, p1: u32 }
@group(0) @binding(0) var<uniform> u: ScaleParams;
@group(0) @binding(1) var<storage, read_write> points: array<u32>;

// | sign (1) | biased exponent E (8) | fraction (23) |: value = 1.f × 2^(E − 127) for E ≥ 1, 0.f × 2^−126 for E = 0.
fn scale_bits(bits: u32, e: i32) -> u32 {
  let sign = bits & 0x80000000u;
  let mag = bits & 0x7fffffffu;
  if (mag == 0u) { return bits; }
  // The value as m × 2^(E − 150) with bit 23 of m set.
  var E = i32(mag >> 23u);
  var m = mag & 0x7fffffu;
  if (E == 0) {
    let s = countLeadingZeros(m) - 8u;
    m = m << s;
    E = 1 - i32(s);
  } else {
    m = m | 0x800000u;
  }
  E = E + e;
  if (E >= 255) { return sign | 0x7f800000u; }
  if (E >= 1) { return sign | (u32(E) << 23u) | (m & 0x7fffffu); }
  // Subnormal: q × 2^−149 with q = m / 2^s, s = 1 − E, rounded half to even (q may carry into the smallest normal,
  // which the same bits encode).
  let s = u32(1 - E);
  if (s > 24u) { return sign; }
  let q = m >> s;
  let rem = m & ((1u << s) - 1u);
  let half = 1u << (s - 1u);
  let up = rem > half || (rem == half && (q & 1u) == 1u);
  return sign | (q + select(0u, 1u, up));
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let threads = nwg.x * nwg.y * WG;
  for (var i = thread_index(wid, nwg, lid); i < u.count; i += threads) {
    points[i] = scale_bits(points[i], u.exponent);
  }
}
