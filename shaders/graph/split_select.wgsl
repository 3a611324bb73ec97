// The end of every round on split arrays, one worklist segment per dispatch: graph/select.wgsl's join (an edge
// recorded at either endpoint's set, split_min_ids.wgsl's final id, joins the two sets and enters the forest). The
// first thread adds the segment's worklist size to the round's (g_state[ST_STATS + statsAt]) and zeroes the counter
// the segment's next round appends to. Grid-stride over the segment's count.
// Includes: common/grid, graph/base, graph/split_common, graph/split_uf, graph/reserve_sg | reserve_wg; the vertex
// arrays parent, ids and forest in parts (bigarray.ts).

@group(0) @binding(2) var<storage, read> wl: array<vec4u>;

@compute @workgroup_size(WG)
fn selectRound(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
               @builtin(local_invocation_index) lid: u32) {
  let count = uniform_count(lid, P.outSlot);
  if (thread_index(wid, nwg, lid) == 0u) {
    atomicAdd(&g_state[ST_STATS + P.statsAt], count);
    atomicStore(&g_state[P.inSlot], 0u);
  }
  let stride = nwg.x * nwg.y * WG;
  for (var base = group_index(wid, nwg) * WG; base < count; base += stride) {
    let i = base + lid;
    var joined = false;
    var id = 0u;
    if (i < count) {
      let e = wl[i];
      id = e.z;
      if (ids_load(e.x) == id || ids_load(e.y) == id) { joined = uf_union(e.x, e.y); }
    }
    let at = wg_reserve(joined, lid, ST_FOREST);
    if (joined) {
      if (at < P.forestCap) { forest_set(at, id); } else { atomicStore(&g_state[ST_OVERFLOW], 1u); }
    }
  }
}
