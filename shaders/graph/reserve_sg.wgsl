// Worklist / forest slot reservation with subgroup operations (feature 'subgroups'; the kernel enables
// `subgroups`): one global atomicAdd per subgroup and no workgroup barrier. Same contract as reserve_wg.wgsl:
// call in workgroup-uniform control flow; returns the slot, or NONE where !want.

fn wg_reserve(want: bool, lid: u32, slot: u32) -> u32 {
  let w = select(0u, 1u, want);
  let rank = subgroupExclusiveAdd(w);
  let total = subgroupAdd(w);
  var base = 0u;
  if (subgroupElect() && total > 0u) { base = atomicAdd(&g_state[slot], total); }
  base = subgroupBroadcastFirst(base);
  if (!want) { return NONE; }
  return base + rank;
}

var<workgroup> wg_tile: atomic<u32>;
var<workgroup> wg_tile_base: u32;

// Tile appends (populate_csr.wgsl, TILE_APPENDS = 1): reserves `mine` consecutive slots of counter g_state[slot]
// for every thread of the workgroup, with one global atomicAdd per workgroup (wg_reserve: one per subgroup and
// call). Call once per dispatch, in workgroup-uniform control flow. Returns the thread's first slot.
fn tile_reserve(mine: u32, lid: u32, slot: u32) -> u32 {
  let before = subgroupExclusiveAdd(mine);
  let total = subgroupAdd(mine);
  var off = 0u;
  if (subgroupElect() && total > 0u) { off = atomicAdd(&wg_tile, total); }
  off = subgroupBroadcastFirst(off);
  workgroupBarrier();
  if (lid == 0u) {
    let c = atomicLoad(&wg_tile);
    var base = 0u;
    if (c > 0u) { base = atomicAdd(&g_state[slot], c); }
    wg_tile_base = base;
  }
  return workgroupUniformLoad(&wg_tile_base) + off + before;
}
