// points[order[j]] = sorted[j]: the inverse of the gather (gather.wgsl), putting points left in Morton order by an
// in-place build (lbvh.ts, allocateBvh's `inPlace`) back in their own order, bit patterns unchanged.
// Host side: src/bvh/scatter.ts; CPU twin: scatter.cpu.ts. `order` and `sorted` (a scratch copy of the points in
// Morton order) are bound as the window [base, base + n) of each (one window when they fit a binding); `points`,
// written at any word, through points_set, which the composer generates with its bindings from @binding(3) on
// (src/gpu/bigarray.ts: the array whole, or in parts).

struct ScatterParams { n: u32, pad0: u32, pad1: u32, pad2: u32 }
@group(0) @binding(0) var<uniform> sp: ScatterParams;
@group(0) @binding(1) var<storage, read> order: array<u32>;
@group(0) @binding(2) var<storage, read> sorted: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let j = thread_index(wid, nwg, lid);
  if (j >= sp.n) { return; }
  let dst = order[j] * D;
  for (var a = 0u; a < D; a++) { points_set(dst + a, sorted[j * D + a]); }
}
