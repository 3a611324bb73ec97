// The end of every round on split arrays, one worklist segment per dispatch: graph/min_ids.wgsl's second pass
// (`minIds`: among the edges whose key is its set's smallest, the smallest id) and graph/select.wgsl's join
// (`selectRound`: an edge recorded at either endpoint's set joins the two sets and enters the forest). Every
// segment's minIds runs before any segment's select, so each set's record is final when read. selectRound's first
// thread adds the segment's worklist size to the round's (g_state[ST_STATS + statsAt]) and zeroes the counter the
// segment's next round appends to. Grid-stride over the segment's count.
// Includes: common/grid, graph/split_common, graph/parent, unionfind/unionfind, graph/reserve_sg | reserve_wg.

@group(0) @binding(3) var<storage, read_write> keys: array<u32>;
@group(0) @binding(4) var<storage, read_write> ids: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read> wl: array<vec4u>;
@group(0) @binding(6) var<storage, read_write> forest: array<u32>;

fn record_id(s: u32, key: u32, id: u32) {
  if (keys[s] == key && atomicLoad(&ids[s]) > id) { atomicMin(&ids[s], id); }
}

@compute @workgroup_size(WG)
fn minIds(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
          @builtin(local_invocation_index) lid: u32) {
  let count = atomicLoad(&g_state[P.outSlot]);
  let stride = nwg.x * nwg.y * WG;
  for (var i = thread_index(wid, nwg, lid); i < count; i += stride) {
    let e = wl[i];
    record_id(e.x, e.w, e.z);
    record_id(e.y, e.w, e.z);
  }
}

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
      if (atomicLoad(&ids[e.x]) == id || atomicLoad(&ids[e.y]) == id) { joined = uf_union(e.x, e.y); }
    }
    let at = wg_reserve(joined, lid, ST_FOREST);
    if (joined) {
      if (at < P.forestCap) { forest[at] = id; } else { atomicStore(&g_state[ST_OVERFLOW], 1u); }
    }
  }
}
