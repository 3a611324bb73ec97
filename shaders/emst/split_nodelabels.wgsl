// emst/nodelabels.wgsl's `main` over one window of records (issue 19; src/emst/roundsplit.ts): for both children of
// every record, the component all its leaves share, or NONE. `links`, `ranges` and `childLabel` are the window's
// ranges; a child's leaves come from its parent's range and split (Karras: left [a, γ], right [γ + 1, b], the left
// child being internal node γ or leaf γ; bvh/karras.cpu.ts), so no child's record is read. The header record (n − 1)
// has no range: its left child, the root, covers every leaf.
@group(0) @binding(0) var<uniform> u: WinParams;
@group(0) @binding(1) var<storage, read> links: array<vec2u>;
@group(0) @binding(2) var<storage, read> ranges: array<u32>;
@group(0) @binding(3) var<storage, read_write> childLabel: array<vec2u>;
// From binding 4: label and prefix through generated accessors (src/gpu/bigarray.ts).

// The label leaves [a, b] share, or NONE (the scanned changes: emst/changes.wgsl).
fn range_label(a: u32, b: u32) -> u32 {
  return select(NONE, label_get(a), prefix_get(b) == prefix_get(a));
}

// Child c covering leaves [a, b]: a leaf's own label, or its range's.
fn child_label(c: u32, a: u32, b: u32) -> u32 {
  if (c >= u.n - 1u) { return label_get(c - (u.n - 1u)); }
  return range_label(a, b);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  if (label_get(u.n) != 0u) { return; } // label[n]: the tree is complete (plan.wgsl)
  let leaf0 = u.n - 1u;
  for (var t = thread_index(wid, nwg, lid); t < u.count; t += grid_threads(nwg)) {
    let r = u.first + t;
    let l = links[t];
    var out = vec2u(NONE, NONE);
    if (r == leaf0) {
      // The header: its left child is the root, its right child NONE.
      out.x = child_label(l.x, 0u, leaf0);
    } else {
      let g = node_range(r, ranges[t]);
      var split = l.x;
      if (l.x >= leaf0) { split = l.x - leaf0; }
      out.x = child_label(l.x, g.x, split);
      out.y = child_label(l.y, split + 1u, g.y);
    }
    childLabel[t] = out;
  }
}
