// emst/best32.wgsl over one window of points (issue 19; src/emst/roundsplit.ts): entry `key` takes the
// per-component minimum key (word 2·comp + 1 of best), then, in a later dispatch, entry `lo` the minimum min-index
// among the candidates with that key (word 2·comp). `cand` is the window's range; `best` (8 B a component, indexed
// by label) is bound in parts through the generated accessors best_min / best_load (gpu/bigarray.ts), and so are
// label and order (label_get, order_get: in parts above one binding). The 32-bit form on every device: the same minima as best64.wgsl's.
@group(0) @binding(0) var<uniform> u: WinParams;
@group(0) @binding(1) var<storage, read> cand: array<vec2u>;
// From binding 2: label, order (read) and best (atomic) through generated accessors (src/gpu/bigarray.ts).
// Bindings 4 … : best's parts (generated).

@compute @workgroup_size(WG)
fn key(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
       @builtin(local_invocation_index) lid: u32) {
  if (label_get(u.n) != 0u) { return; } // label[n]: the tree is complete (plan.wgsl)
  for (var t = thread_index(wid, nwg, lid); t < u.count; t += grid_threads(nwg)) {
    let c = cand[t];
    if (c.x == NONE) { continue; }
    _ = best_min(2u * label_get(u.first + t) + 1u, c.x);
  }
}

@compute @workgroup_size(WG)
fn lo(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
      @builtin(local_invocation_index) lid: u32) {
  if (label_get(u.n) != 0u) { return; } // label[n]: the tree is complete (plan.wgsl)
  for (var t = thread_index(wid, nwg, lid); t < u.count; t += grid_threads(nwg)) {
    let j = u.first + t;
    let c = cand[t];
    if (c.x == NONE) { continue; }
    let comp = label_get(j);
    if (best_load(2u * comp + 1u) == c.x) {
      _ = best_min(2u * comp, min(order_get(j), order_get(c.y)));
    }
  }
}
