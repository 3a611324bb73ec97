// sorted[j] = points[order[j]]: the points in Morton order (copied as bit patterns).
// Host side: src/bvh/gather.ts. `order` and `sorted` are bound as the window [base, base + n) of each (one window
// when they fit a binding); `points`, read at any word, through points_get, which the composer generates with its
// bindings from @binding(3) on (src/gpu/bigarray.ts: the array whole, or in parts).

struct GatherParams { n: u32, pad0: u32, pad1: u32, pad2: u32 }
@group(0) @binding(0) var<uniform> gp: GatherParams;
@group(0) @binding(1) var<storage, read> order: array<u32>;
@group(0) @binding(2) var<storage, read_write> sorted: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let j = thread_index(wid, nwg, lid);
  if (j >= gp.n) { return; }
  let src = order[j] * D;
  for (var a = 0u; a < D; a++) { sorted[j * D + a] = points_get(src + a); }
}
