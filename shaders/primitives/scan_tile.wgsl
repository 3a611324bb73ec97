// The block ("tile") of a scan: WG × ITEMS consecutive u32 staged in workgroup memory. Threads load and store
// it strided (element i·WG + lid, so each load and store instruction is coalesced) and scan it contiguous
// (thread lid owns elements lid·ITEMS … lid·ITEMS + ITEMS − 1): the transpose happens in workgroup memory,
// padded by one word per 32 so that neither access pattern has bank conflicts (for ITEMS a power of two).
// Needs wg_exclusive_scan (scan_wg_subgroup.wgsl or scan_wg_shared.wgsl) and the const ITEMS.

/** Elements per block. */
override TILE: u32 = WG * ITEMS;

var<workgroup> tile: array<u32, WG * ITEMS + (WG * ITEMS) / 32u>;

/** Workgroup-memory slot of the block's element k. */
fn tile_slot(k: u32) -> u32 {
  return k + (k >> 5u);
}

/**
 * Replaces the tile by its exclusive (or inclusive) scan plus `offset` and returns the tile's total.
 * Call after a barrier that follows the tile's loads; barrier again before reading other threads' results.
 */
fn scan_tile(lid: u32, offset: u32, inclusive: bool) -> u32 {
  var v: array<u32, ITEMS>;
  var sum = 0u;
  for (var j = 0u; j < ITEMS; j++) {
    v[j] = tile[tile_slot(lid * ITEMS + j)];
    sum += v[j];
  }
  let s = wg_exclusive_scan(lid, sum);
  var run = offset + s.exclusive;
  for (var j = 0u; j < ITEMS; j++) {
    let before = run;
    run += v[j];
    tile[tile_slot(lid * ITEMS + j)] = select(before, run, inclusive);
  }
  return s.total;
}
