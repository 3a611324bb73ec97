// End of a round: every point's label becomes its union-find root, and every component slot is reset for the
// next round (upper bound +inf, best edge and best max index NONE). Also run once before the first round.
@group(0) @binding(0) var<uniform> u: Params;
@group(0) @binding(1) var<storage, read_write> uf_parent: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> label: array<u32>;
@group(0) @binding(3) var<storage, read_write> ub: array<u32>;
@group(0) @binding(4) var<storage, read_write> best: array<vec2u>;
@group(0) @binding(5) var<storage, read_write> bestMax: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i >= u.n || label[u.n] != 0u) { return; } // label[n]: the tree is complete (plan.wgsl)
  label[i] = uf_find(i);
  ub[i] = INF_KEY;
  best[i] = vec2u(NONE, NONE);
  bestMax[i] = NONE;
}
