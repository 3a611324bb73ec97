// Morton-order copy of a per-point array: out[j] = src[order[j]] (squared core distances for Borůvka).
// Host side: src/emst/gather.ts. `order` and `out` are bound as the window [base, base + n) of each (one window
// when they fit a binding), `src` — read at any index — through src_get, which the composer generates with its
// bindings from @binding(3) on (src/gpu/bigarray.ts: the array whole, or in parts).
struct GatherParams { n: u32, p0: u32, p1: u32, p2: u32 }
@group(0) @binding(0) var<uniform> g: GatherParams;
@group(0) @binding(1) var<storage, read> order: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let j = thread_index(wid, nwg, lid);
  if (j < g.n) { out[j] = src_get(order[j]); }
}
