// emst()'s door check of the coordinates on the GPU (issue 17 §4): the first offending word in row-major order
// and the largest |coordinate|, on bit patterns only (never on floats, so no GPU can flush subnormals or
// canonicalise NaNs). Host side and the message: src/emst/pointcheck.ts; CPU twin: src/emst/pointcheck.cpu.ts;
// the host rule it reproduces: src/emst/validate.ts's coordinate check.
//
// Word i is flagged when (bits & 0x7fffffff) > u.limit: NaN and ±Inf lie above every finite magnitude, so one
// comparison finds them and the out-of-range values. u.limit is LIMIT_BITS for float32 input; for input
// rounded from float64 one less (candidates: the host confirms in float64, pointcheck.ts).
//   out[0] = ~(first flagged index) (atomicMax of the complement: the smallest index wins, 0 = none; count < 2^32 − 1)
//   out[1] = max |bits| over words ≤ LIMIT_BITS (0 for none)
// Both are atomicMax with 0 as the identity, so the caller clears `out` with zeros. Points larger than one binding
// are checked window by window (src/gpu/bigarray.ts): `points` is then the window [u.base, u.base + u.count).
struct CheckParams { count: u32, limit: u32, base: u32, p1: u32 }
@group(0) @binding(0) var<uniform> u: CheckParams;
@group(0) @binding(1) var<storage, read> points: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<atomic<u32>>;

// LIMIT_BITS (a `const` the host prepends, pointcheck.ts): the bits of fround(1e38), the largest coordinate in
// float32; for a float32 x, |x| ≤ 1e38 ⇔ |bits| ≤ LIMIT_BITS.

var<workgroup> wfirst: atomic<u32>;
var<workgroup> wtop: atomic<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  if (lid == 0u) {
    atomicStore(&wfirst, 0u);
    atomicStore(&wtop, 0u);
  }
  workgroupBarrier();
  // A grid-stride loop: each thread's indices ascend, so its first flagged word is its smallest.
  let threads = nwg.x * nwg.y * WG;
  var first = 0u;
  var top = 0u;
  for (var i = thread_index(wid, nwg, lid); i < u.count; i += threads) {
    let a = points[i] & 0x7fffffffu;
    if (a > u.limit && first == 0u) { first = ~(u.base + i); }
    if (a <= LIMIT_BITS) { top = max(top, a); }
  }
  if (first != 0u) { atomicMax(&wfirst, first); }
  if (top != 0u) { atomicMax(&wtop, top); }
  workgroupBarrier();
  if (lid == 0u) {
    let f = atomicLoad(&wfirst);
    let t = atomicLoad(&wtop);
    if (f != 0u) { atomicMax(&out[0], f); }
    if (t != 0u) { atomicMax(&out[1], t); }
  }
}
