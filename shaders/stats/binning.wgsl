// Histogram counts of one statistic against float64 bin edges turned into float32 (or integer) thresholds on the
// host, exactly as the host's float64 histograms count (src/stats/binning.cpu.ts explains why; its binCountsCpu is
// this kernel's CPU twin). Value i is words[i · stride + offset], kept where mask[i] ≠ 0 when `masked`:
//   MODE_U32   degrees, compared as integers
//   MODE_F32   float32 lengths
//   MODE_SHAPE √((L − e) / L) of a branch, L = the float32 words, e = other[i]; a value within SHAPE_TOLERANCE of a
//              threshold is not counted but appended to `ambiguous` as its (L, e) bits, for the host to bin
//              (ambiguous[0] = how many were found; only the first `capacity` are stored).
// thresholds[tbase …]: | T[0] … T[bins] (rounded up) | U (top edge rounded down) |; v counts iff T[0] ≤ v ≤ U, in the
// largest bin b < bins with T[b] ≤ v (numpy's rule, the last bin closed). counts[cbase + b] accumulate.
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
// Bins counted in workgroup memory first (more go straight to `counts`).
const LOCAL_BINS = 1024u;
var<workgroup> local: array<atomic<u32>, LOCAL_BINS>;

// Threshold j as a float (the float modes).
fn tf(j: u32) -> f32 { return bitcast<f32>(thresholds[u.tbase + j]); }

// Largest b < bins with T[b] ≤ v, given T[0] ≤ v: a binary search (edges need not be evenly spaced).
fn search_f(v: f32) -> u32 {
  var a = 0u;
  var b = u.bins;
  while (b - a > 1u) {
    let mid = (a + b) / 2u;
    if (tf(mid) <= v) { a = mid; } else { b = mid; }
  }
  return a;
}

fn search_u(v: u32) -> u32 {
  var a = 0u;
  var b = u.bins;
  while (b - a > 1u) {
    let mid = (a + b) / 2u;
    if (thresholds[u.tbase + mid] <= v) { a = mid; } else { b = mid; }
  }
  return a;
}

// The bin of value i, or -1 (out of range, NaN on the host, or left to the host).
fn bin_of(i: u32) -> i32 {
  let w = words[i * u.stride + u.offset];
  if (u.mode == MODE_U32) {
    if (w < thresholds[u.tbase] || w > thresholds[u.tbase + u.bins + 1u]) { return -1; }
    return i32(search_u(w));
  }
  var v = bitcast<f32>(w);
  let hi = tf(u.bins + 1u);
  if (u.mode == MODE_SHAPE) {
    let L = v;
    let e = other[i];
    // s = e / L > 1, or 0 / 0: NaN on the host, in no bin.
    if (!(L > 0.0) || !(e <= L)) { return -1; }
    v = 0.0;
    if (e != L) { v = sqrt((L - e) / L); }
    if (v > 0.0) {
      let tol = SHAPE_TOLERANCE * v;
      var doubt = abs(v - tf(0u)) <= tol || abs(v - hi) <= tol;
      if (!doubt && v >= tf(0u) && v <= hi) {
        let b = search_f(v);
        doubt = abs(v - tf(b)) <= tol || abs(v - tf(b + 1u)) <= tol;
      }
      if (doubt) {
        let j = atomicAdd(&ambiguous[0], 1u);
        if (j < u.capacity) {
          atomicStore(&ambiguous[1u + 2u * j], w);
          atomicStore(&ambiguous[2u + 2u * j], bitcast<u32>(e));
        }
        return -1;
      }
    }
  }
  if (!(v >= tf(0u) && v <= hi)) { return -1; }
  return i32(search_f(v));
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
