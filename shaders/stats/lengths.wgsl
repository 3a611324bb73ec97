// Every edge's length in float32 from the coordinates (stats/image.wgsl: the minimum image without cancellation in
// a periodic box). CPU twin: src/stats/lengths.ts (float64).
// Big arrays (issue 19, src/stats/branches.ts): sources, targets and lengths are a window of m edges; the points are
// read through points_get (generated from @binding(4) on: whole, or in parts).
@group(0) @binding(0) var<uniform> u: StatsParams;
@group(0) @binding(1) var<storage, read> sources: array<u32>;
@group(0) @binding(2) var<storage, read> targets: array<u32>;
@group(0) @binding(3) var<storage, read_write> lengths: array<f32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let e = thread_index(wid, nwg, lid);
  if (e >= u.m) { return; }
  lengths[e] = edge_length(sources[e * u.stride], targets[e * u.stride + u.toff]);
}
