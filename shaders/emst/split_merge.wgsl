// emst/merge.wgsl over one window of points (issue 19; src/emst/roundsplit.ts): the point holding its component's
// winning edge (win[t] = 1: emst/split_winner.wgsl's test, run just before) unions the two components, and appends
// the edge when the union merged two sets. `cand` and `win` are the window's ranges; label, order, the union-find's
// parent (atomic: graph/split_uf.wgsl) and edges (3 u32 an edge, written) through the accessors src/gpu/bigarray.ts
// generates from binding 4 on (whole, or in parts above one binding).
@group(0) @binding(0) var<uniform> u: WinParams;
@group(0) @binding(1) var<storage, read> cand: array<vec2u>;
@group(0) @binding(2) var<storage, read> win: array<u32>;
@group(0) @binding(3) var<storage, read_write> edgeCount: array<atomic<u32>>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  if (label_get(u.n) != 0u) { return; } // label[n]: the tree is complete (plan.wgsl)
  for (var t = thread_index(wid, nwg, lid); t < u.count; t += grid_threads(nwg)) {
    if (win[t] == 0u) { continue; }
    let j = u.first + t;
    let c = cand[t];
    let comp = label_get(j);
    let a = order_get(j);
    let o = order_get(c.y);
    if (uf_union(comp, label_get(c.y))) {
      let e = atomicAdd(&edgeCount[0], 1u);
      edges_set(3u * e, a);
      edges_set(3u * e + 1u, o);
      edges_set(3u * e + 2u, c.x);
    }
  }
}
