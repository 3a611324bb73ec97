// emst/merge.wgsl over one window of points (issue 19; src/emst/roundsplit.ts): the point holding its component's
// winning edge unions the two components, and appends the edge when the union merged two sets. `cand` is the
// window's range; `best` (read) and `edges` (3 u32 an edge, written) in parts through the generated accessors
// best_get / edges_set; the 4-byte arrays through generated accessors too (label_get, order_get, bestMax_get, and
// the union-find's parent_*: in parts above one binding).
@group(0) @binding(0) var<uniform> u: WinParams;
@group(0) @binding(1) var<storage, read> cand: array<vec2u>;
@group(0) @binding(2) var<storage, read_write> edgeCount: array<atomic<u32>>;
// From binding 3: label, order, bestMax (read), the union-find's parent (atomic: graph/split_uf.wgsl), best and
// edges through generated accessors (src/gpu/bigarray.ts).
// Bindings 7 … : best's parts, then edges' (generated).

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  if (label_get(u.n) != 0u) { return; } // label[n]: the tree is complete (plan.wgsl)
  for (var t = thread_index(wid, nwg, lid); t < u.count; t += grid_threads(nwg)) {
    let j = u.first + t;
    let c = cand[t];
    if (c.x == NONE) { continue; }
    let comp = label_get(j);
    let a = order_get(j);
    let o = order_get(c.y);
    if (best_get(2u * comp + 1u) != c.x || best_get(2u * comp) != min(a, o) || ~bestMax_get(comp) != max(a, o)) {
      continue;
    }
    if (uf_union(comp, label_get(c.y))) {
      let e = atomicAdd(&edgeCount[0], 1u);
      edges_set(3u * e, a);
      edges_set(3u * e + 1u, o);
      edges_set(3u * e + 2u, c.x);
    }
  }
}
