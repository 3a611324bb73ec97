// The reported branches in edge order (walk.wgsl): kept[i] = e + 1 of the i-th reporting start edge.
struct GatherParams { count: u32, p0: u32, p1: u32, p2: u32 }
// Big arrays (issue 19, src/stats/branches.ts): kept, outRec and outE2e are a window of `count` branches; rec and
// e2e are read through rec_get and e2e_get (generated from @binding(4) on: whole, or in parts).
@group(0) @binding(0) var<uniform> u: GatherParams;
@group(0) @binding(1) var<storage, read> kept: array<u32>;
@group(0) @binding(2) var<storage, read_write> outRec: array<vec4u>;
@group(0) @binding(3) var<storage, read_write> outE2e: array<f32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i >= u.count) { return; }
  let e = kept[i] - 1u;
  outRec[i] = rec_get(e);
  outE2e[i] = e2e_get(e);
}
