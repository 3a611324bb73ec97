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
// The thread's subgroup's slots counted so far in the current tile (tile_rank).
var<private> tile_acc: u32;

// Tile appends (populate_csr.wgsl and filter.wgsl with tiles): a thread calls tile_rank once per item of a tile
// (workgroup-uniform control flow), keeps the ranks of its wanted items, then calls tile_commit once; item slot =
// commit's base + rank. One global atomicAdd per workgroup and tile (wg_reserve: one per subgroup and item), and
// each item's wanted slots stay contiguous within a subgroup (coalesced stores).
fn tile_rank(want: bool) -> u32 {
  let w = select(0u, 1u, want);
  let r = tile_acc + subgroupExclusiveAdd(w);
  tile_acc += subgroupAdd(w);
  return r;
}

// Reserves the tile's slots of counter g_state[slot]; returns the base of the thread's subgroup (see tile_rank).
fn tile_commit(lid: u32, slot: u32) -> u32 {
  var off = 0u;
  if (subgroupElect() && tile_acc > 0u) { off = atomicAdd(&wg_tile, tile_acc); }
  off = subgroupBroadcastFirst(off);
  tile_acc = 0u;
  workgroupBarrier();
  if (lid == 0u) {
    let c = atomicLoad(&wg_tile);
    atomicStore(&wg_tile, 0u);
    var base = 0u;
    if (c > 0u) { base = atomicAdd(&g_state[slot], c); }
    wg_tile_base = base;
  }
  return workgroupUniformLoad(&wg_tile_base) + off;
}
