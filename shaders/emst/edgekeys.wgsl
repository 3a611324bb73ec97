// Sort keys of the MST's edges for the canonical order on the GPU (pipeline.ts, readEdges): edge e = (a, b, key
// bits) (3 u32, merge.wgsl) becomes the 64-bit key | key bits (high word) | min(a, b) (low word) | with value max(a, b), so a radix
// sort of the 64-bit keys orders edges by (key, min) and the host only fixes runs of equal weight.
struct EdgeKeyParams { m: u32, p0: u32, p1: u32, p2: u32 }
@group(0) @binding(0) var<uniform> u: EdgeKeyParams;
@group(0) @binding(1) var<storage, read> edges: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys: array<vec2u>;
@group(0) @binding(3) var<storage, read_write> values: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let e = thread_index(wid, nwg, lid);
  if (e >= u.m) { return; }
  let a = edges[3u * e];
  let b = edges[3u * e + 1u];
  keys[e] = vec2u(min(a, b), edges[3u * e + 2u]);
  values[e] = max(a, b);
}
