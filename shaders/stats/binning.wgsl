// Histogram counts of one statistic against float64 bin edges turned into float32 (or integer) thresholds on the
// host, exactly as the host's float64 histograms count (src/stats/binning.cpu.ts explains why; its binCountsCpu is
// this kernel's CPU twin). Value i is words[i · stride + offset], kept where mask[i] ≠ 0 when `masked`:
//   MODE_U32   degrees, compared as integers
//   MODE_F32   float32 lengths
//   MODE_SHAPE √((L − e) / L) of a branch, L = the float32 words, e = other[i]; a value within SHAPE_TOLERANCE of a
//              threshold, or a pair outside the range where the float32 arithmetic is safe, is not counted but
//              appended to `ambiguous` as its (L, e) bits, for the host to bin (ambiguous[0] = how many were found;
//              only the first `capacity` are stored).
// thresholds[tbase …]: | T[0] … T[bins] (rounded up) | U (top edge rounded down) |; v counts iff T[0] ≤ v ≤ U, in the
// largest bin b < bins with T[b] ≤ v (numpy's rule, the last bin closed). counts[cbase + b] accumulate.
//
// Important! Nothing here may hinge on a subnormal float32: WGSL lets a device flush them to zero, and the H100 does
// (lavapipe does not). Issue 17: a branch of length L = 2^−149 read as L = 0 and was dropped, one count short in the
// first or last bin. So float32 values are ordered through their bits (`key`, exact for every value on every device),
// a branch is classified by the bits of L and e, and float arithmetic runs only where no operand or result is
// subnormal and the division's error is bounded (L in [2^−95, 2^94)).
struct BinParams {
  count: u32, stride: u32, offset: u32, masked: u32,
  bins: u32, mode: u32, capacity: u32, tbase: u32,
  cbase: u32, p0: u32, p1: u32, p2: u32,
}
@group(0) @binding(0) var<uniform> u: BinParams;
@group(0) @binding(1) var<storage, read> words: array<u32>;
@group(0) @binding(2) var<storage, read> mask: array<u32>;
@group(0) @binding(3) var<storage, read> other: array<f32>;
@group(0) @binding(4) var<storage, read> thresholds: array<u32>;
@group(0) @binding(5) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> ambiguous: array<atomic<u32>>;

const MODE_U32 = 0u;
const MODE_F32 = 1u;
const MODE_SHAPE = 2u;
const SHAPE_TOLERANCE = 1e-5;
// Exponent fields (biased, read with the sign bit: a negative L is above) of the branch lengths the kernel bins itself:
// L ≥ 2^−95 keeps L − e ≥ ulp(L) ≥ 2^−118 normal; L < 2^94 keeps L inside [2^−126, 2^126], where WGSL bounds the
// division's error (2.5 ulp). binning.cpu.ts SHAPE_EXPONENTS.
const SHAPE_EXP_MIN = 32u;
const SHAPE_EXP_MAX = 220u;
const ONE_BITS = 0x3f800000u; // 1.0
// bin_of's answers besides a bin.
const NO_BIN = -1;
const TO_HOST = -2;
// Bins counted in workgroup memory first (more go straight to `counts`).
const LOCAL_BINS = 1024u;
var<workgroup> local: array<atomic<u32>, LOCAL_BINS>;

// Float32 bits as a u32 that orders as the floats do (−0 = +0; NaNs beyond ±∞, so outside every range of finite
// thresholds): an integer comparison, which no device flushes.
fn key(w: u32) -> u32 {
  if (w == 0x80000000u) { return 0x80000000u; }
  if ((w & 0x80000000u) != 0u) { return ~w; }
  return w | 0x80000000u;
}

// Threshold j as compared: the integer (degrees) or the key of the float32.
fn th(j: u32) -> u32 {
  let w = thresholds[u.tbase + j];
  if (u.mode == MODE_U32) { return w; }
  return key(w);
}

// Threshold j as a float32 (the tolerance test only).
fn tf(j: u32) -> f32 { return bitcast<f32>(thresholds[u.tbase + j]); }

// Largest b < bins with T[b] ≤ v, given T[0] ≤ v: a binary search (edges need not be evenly spaced).
fn search(v: u32) -> u32 {
  var a = 0u;
  var b = u.bins;
  while (b - a > 1u) {
    let mid = (a + b) / 2u;
    if (th(mid) <= v) { a = mid; } else { b = mid; }
  }
  return a;
}

// The bin of v (an integer or a key), or NO_BIN out of range.
fn bin_in_range(v: u32) -> i32 {
  if (v < th(0u) || v > th(u.bins + 1u)) { return NO_BIN; }
  return i32(search(v));
}

// Whether a float32 v ≥ 2^−13 is within SHAPE_TOLERANCE of threshold j. A subnormal threshold, flushed or not,
// is far from v either way.
fn near(v: f32, j: u32) -> bool { return abs(v - tf(j)) <= SHAPE_TOLERANCE * v; }

// Mode 'shape': the bin of branch (L, e) as the host bins √(1 − e / L) in float64, NO_BIN, or TO_HOST.
fn shape_bin(lw: u32, ew: u32) -> i32 {
  // L = ±0: the host's s = e / L is NaN or ±∞, √(1 − s) NaN or +∞, in no bin (edges are finite).
  if ((lw & 0x7fffffffu) == 0u) { return NO_BIN; }
  // L negative, NaN, ±∞, subnormal or outside [2^−95, 2^94); e negative, −0, subnormal, NaN or ±∞: the host's.
  // Real branches never are (lengths and distances, ≥ 0); only such pairs could meet a subnormal below.
  let le = lw >> 23u;
  let ee = ew >> 23u;
  if (le < SHAPE_EXP_MIN || le > SHAPE_EXP_MAX || (ew != 0u && (ee == 0u || ee > 254u))) { return TO_HOST; }
  // Both non-negative and finite, so their bits order as they do. e > L: s > 1 in float64 too, NaN on the host.
  if (ew > lw) { return NO_BIN; }
  // e = L and e = 0: s = 1 and s = 0 exactly on the host, √(1 − s) = 0 and 1, binned exactly by their keys.
  if (ew == lw) { return bin_in_range(key(0u)); }
  if (ew == 0u) { return bin_in_range(key(ONE_BITS)); }
  let L = bitcast<f32>(lw);
  let e = bitcast<f32>(ew);
  // (L − e) / L ≥ 2^−24 and v ≥ 2^−12 (less a few ulp): normal. Within a few ulp of the host's value (binning.cpu.ts),
  // far inside the tolerance.
  let v = sqrt((L - e) / L);
  let k = key(bitcast<u32>(v));
  if (near(v, 0u) || near(v, u.bins + 1u)) { return TO_HOST; }
  let b = bin_in_range(k);
  if (b >= 0 && (near(v, u32(b)) || near(v, u32(b) + 1u))) { return TO_HOST; }
  return b;
}

// The bin of value i, or NO_BIN (out of range, NaN on the host), or TO_HOST (listed for the host to bin).
fn bin_of(i: u32) -> i32 {
  let w = words[i * u.stride + u.offset];
  if (u.mode == MODE_U32) { return bin_in_range(w); }
  if (u.mode == MODE_F32) { return bin_in_range(key(w)); }
  let ew = bitcast<u32>(other[i]);
  let b = shape_bin(w, ew);
  if (b == TO_HOST) {
    let j = atomicAdd(&ambiguous[0], 1u);
    if (j < u.capacity) {
      atomicStore(&ambiguous[1u + 2u * j], w);
      atomicStore(&ambiguous[2u + 2u * j], ew);
    }
  }
  return b;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let inLocal = u.bins <= LOCAL_BINS;
  if (inLocal) {
    for (var j = lid; j < u.bins; j += WG) { atomicStore(&local[j], 0u); }
  }
  workgroupBarrier();
  let threads = nwg.x * nwg.y * WG;
  for (var i = thread_index(wid, nwg, lid); i < u.count; i += threads) {
    if (u.masked != 0u && mask[i] == 0u) { continue; }
    let b = bin_of(i);
    if (b < 0) { continue; }
    if (inLocal) {
      atomicAdd(&local[u32(b)], 1u);
    } else {
      atomicAdd(&counts[u.cbase + u32(b)], 1u);
    }
  }
  // Important! Uniform control flow around the barrier: `inLocal` comes from the uniform block.
  workgroupBarrier();
  if (inLocal) {
    for (var j = lid; j < u.bins; j += WG) {
      let c = atomicLoad(&local[j]);
      if (c > 0u) { atomicAdd(&counts[u.cbase + j], c); }
    }
  }
}
