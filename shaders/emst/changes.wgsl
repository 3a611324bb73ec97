// Node label uniformity, step 1 (DESIGN.md): chg[j] = 1 where Morton-adjacent leaves j, j + 1 lie in different
// components. An internal node covering leaves [l, r] is then uniform iff the exclusive prefix sum S has
// S[r] == S[l] — no thread ever reads another thread's result within a dispatch.
@group(0) @binding(0) var<uniform> u: Params;
@group(0) @binding(1) var<storage, read> label: array<u32>;
@group(0) @binding(2) var<storage, read_write> chg: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  if (label[u.n] != 0u) { return; } // label[n]: the tree is complete (plan.wgsl)
  for (var j = thread_index(wid, nwg, lid); j < u.n; j += grid_threads(nwg)) {
    chg[j] = select(0u, 1u, j + 1u < u.n && label[j] != label[j + 1u]);
  }
}
