// Per round: every component's upper bound to +inf, its best edge and best max endpoint to NONE.
@group(0) @binding(0) var<uniform> u: Params;
@group(0) @binding(1) var<storage, read_write> ub: array<u32>;
@group(0) @binding(2) var<storage, read_write> best: array<vec2u>;
@group(0) @binding(3) var<storage, read_write> bestMax: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i >= u.n) { return; }
  ub[i] = INF_KEY;
  best[i] = vec2u(NONE, NONE);
  bestMax[i] = NONE;
}
