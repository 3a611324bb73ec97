// Worklist / forest slot reservation through workgroup memory (the portable path; reserve_sg.wgsl is the
// subgroup one). Included after graph/common by the kernels that append (populate_*, filter, select).

var<workgroup> wg_count: atomic<u32>;
var<workgroup> wg_base: u32;

// Reserves one slot of counter g_state[slot] for each thread with `want`, aggregated per workgroup: one global
// atomicAdd per workgroup instead of one per thread, and a workgroup's entries land next to each other.
// Call in workgroup-uniform control flow. Returns the slot, or NONE where !want.
fn wg_reserve(want: bool, lid: u32, slot: u32) -> u32 {
  var mine = 0u;
  if (want) { mine = atomicAdd(&wg_count, 1u); }
  workgroupBarrier();
  if (lid == 0u) {
    let c = atomicLoad(&wg_count);
    atomicStore(&wg_count, 0u);
    var base = 0u;
    if (c > 0u) { base = atomicAdd(&g_state[slot], c); }
    wg_base = base;
  }
  workgroupBarrier();
  if (!want) { return NONE; }
  return wg_base + mine;
}

// The thread's slots counted so far in the current tile (tile_rank).
var<private> tile_acc: u32;

// Tile appends (populate_csr.wgsl and filter.wgsl with tiles), as in reserve_sg.wgsl: tile_rank per item, then
// tile_commit once per tile; item slot = commit's base + rank. Here each thread's slots are contiguous.
fn tile_rank(want: bool) -> u32 {
  let r = tile_acc;
  if (want) { tile_acc += 1u; }
  return r;
}

fn tile_commit(lid: u32, slot: u32) -> u32 {
  var off = 0u;
  if (tile_acc > 0u) { off = atomicAdd(&wg_count, tile_acc); }
  tile_acc = 0u;
  workgroupBarrier();
  if (lid == 0u) {
    let c = atomicLoad(&wg_count);
    atomicStore(&wg_count, 0u);
    var base = 0u;
    if (c > 0u) { base = atomicAdd(&g_state[slot], c); }
    wg_base = base;
  }
  return workgroupUniformLoad(&wg_base) + off;
}
