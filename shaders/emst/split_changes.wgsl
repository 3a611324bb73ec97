// emst/changes.wgsl on split arrays (issue 19; src/emst/roundsplit.ts): chg[j] = 1 where Morton-adjacent leaves j,
// j + 1 lie in different components, else 0 — the labels and the changes through the accessors src/gpu/bigarray.ts
// generates after binding 0 (whole, or in parts above one binding). One dispatch over every point.
@group(0) @binding(0) var<uniform> u: WinParams;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  if (label_get(u.n) != 0u) { return; } // label[n]: the tree is complete (plan.wgsl)
  for (var j = thread_index(wid, nwg, lid); j < u.n; j += grid_threads(nwg)) {
    chg_set(j, select(0u, 1u, j + 1u < u.n && label_get(j) != label_get(j + 1u)));
  }
}
