// emst/relabel.wgsl's `main` over one window of points (issue 19; src/emst/roundsplit.ts): every point's label
// becomes its union-find root and its component slot is reset (upper bound +inf, best edge NONE; the best max index
// shares the upper bounds' buffer: emst/bestmax.wgsl).
// `best` (8 B a point) is the window's range; the 4-byte arrays (the union-find's `parent`, label, ub) are reached
// through the accessors src/gpu/bigarray.ts generates after binding 1 (whole, or in parts above one binding);
// graph/split_uf.wgsl is the union-find over them.
@group(0) @binding(0) var<uniform> u: WinParams;
@group(0) @binding(1) var<storage, read_write> best: array<vec2u>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  if (label_get(u.n) != 0u) { return; } // label[n]: the tree is complete (plan.wgsl)
  for (var t = thread_index(wid, nwg, lid); t < u.count; t += grid_threads(nwg)) {
    let i = u.first + t;
    label_set(i, uf_find(i));
    ub_set(i, INF_KEY);
    best[t] = vec2u(NONE, NONE);
  }
}
