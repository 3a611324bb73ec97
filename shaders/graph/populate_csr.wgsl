// Round 1 of a phase for a CSR graph (ECL's .egr layout): as populate_edges.wgsl, over CSR entries j of row v,
// keeping only the copy with v < neighbour (ECL-MST processes one direction; its position j is the edge id).
//
// ECL-MST balances load with a thread per low-degree vertex and a warp per high-degree one (seed 000, §3.2).
// We are edge-centric instead: workgroup g takes the tile of ITEMS·WG consecutive entries starting at
// g·ITEMS·WG, entry j = tile start + k·WG + lid (coalesced); two threads binary-search the tile's first and last
// rows, the workgroup copies those rows' offsets into workgroup memory (unless empty rows make the range longer
// than the tile), and each thread finds the row of its entries by binary search there, starting from its previous
// entry's row. Every entry costs the same whatever the degree distribution.
//
// Row minima (ROW_MINIMA = 1; 64-bit minima, rows sorted by neighbour): in the light and the unfiltered phase,
// round 1 starts from singletons, so each vertex's lightest edge is the lightest entry of its own row (both
// directions). The workgroup reduces each row of its tile in workgroup memory — the smallest key, then the
// smallest edge id among the entries with that key — and records it with one 64-bit atomic per row and tile
// (rows cut by a tile border get one from each tile; the minimum combines them), instead of two guarded
// atomics per edge at scattered vertices. A down entry (neighbour < v) is the mirror of edge id j' in the
// neighbour's row; its id is looked up (binary search, mirror_id) only where its key ties the row's minimum.
// Tiles whose rows do not fit the workgroup's cache record each of their entries' ids at their row's vertex
// through record_min instead. Worklist appends are unchanged.
// Tile appends (TILE_APPENDS = 1): a thread keeps its ITEMS entries' (p, q, key) and slot ranks in registers and
// the workgroup reserves all of the tile's slots with one global atomicAdd (graph/reserve_*'s tile_rank and
// tile_commit) instead of one per subgroup and item.
// Plain entries (no row minima) follow graph/round1.wgsl's round1_edge for their up copy (shared with
// populate_edges.wgsl and split_populate_csr.wgsl).
// Includes: common/grid, graph/base, graph/common, graph/parent + unionfind/unionfind | graph/parent_ro,
// graph/min64 | graph/min32, graph/reserve_sg | graph/reserve_wg, graph/push, graph/round1.
// Constants ITEMS: entries per thread; ROW_MINIMA: 0 or 1 (1 needs graph/min64); TILE_APPENDS: 0 or 1.

@group(0) @binding(4) var<storage, read_write> wl_out: array<u32>;
@group(0) @binding(5) var<storage, read> c_off: array<u32>;
@group(0) @binding(6) var<storage, read> c_nbr: array<u32>;
@group(0) @binding(7) var<storage, read> e_w: array<u32>;

var<workgroup> wg_rows: vec2u;
// c_off[first row + i] for the tile's rows.
var<workgroup> wg_off: array<u32, ITEMS * WG>;
// ROW_MINIMA: each cached row's smallest key, then the smallest id among its entries with that key.
// (One element when ROW_MINIMA = 0.)
var<workgroup> wg_key: array<atomic<u32>, (ITEMS * WG - 1u) * ROW_MINIMA + 1u>;
var<workgroup> wg_id: array<atomic<u32>, (ITEMS * WG - 1u) * ROW_MINIMA + 1u>;

// The row holding entry j: the last r in [lo, hi] with c_off[r] <= j (empty rows share offsets; the last one
// with c_off[r] <= j is the non-empty row that holds j).
fn row_of(j: u32, lo0: u32, hi0: u32) -> u32 {
  var lo = lo0;
  var hi = hi0;
  while (lo < hi) {
    let mid = hi - ((hi - lo) >> 1u);
    if (c_off[mid] <= j) { lo = mid; } else { hi = mid - 1u; }
  }
  return lo;
}

// row_of over the cached offsets wg_off[r − base].
fn row_of_cached(j: u32, lo0: u32, hi0: u32, base: u32) -> u32 {
  var lo = lo0;
  var hi = hi0;
  while (lo < hi) {
    let mid = hi - ((hi - lo) >> 1u);
    if (wg_off[mid - base] <= j) { lo = mid; } else { hi = mid - 1u; }
  }
  return lo;
}

// The id of the edge whose down entry in row v has neighbour u < v and weight key `key`: the first entry of row
// u with neighbour v and that key (its smallest id among parallel edges of equal weight; rows sorted by neighbour).
fn mirror_id(u: u32, v: u32, key: u32) -> u32 {
  var lo = c_off[u];
  var hi = c_off[u + 1u];
  while (lo < hi) {
    let mid = (lo + hi) >> 1u;
    if (c_nbr[mid] < v) { lo = mid + 1u; } else { hi = mid; }
  }
  let end = c_off[u + 1u];
  for (var j = lo; j < end && c_nbr[j] == v; j++) {
    if (weight_key(e_w[j]) == key) { return j; }
  }
  return NONE; // unreachable for a symmetric CSR (validate.ts checks it)
}

// The edge id of entry j (row v, neighbour u ≠ v, weight key `key`): j itself for an up entry, else its mirror's.
fn entry_id(j: u32, u: u32, v: u32, key: u32) -> u32 {
  if (u > v) { return j; }
  return mirror_id(u, v, key);
}

@compute @workgroup_size(WG)
fn populateCsr(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
               @builtin(local_invocation_index) lid: u32) {
  let tile = ITEMS * WG;
  let t0 = group_index(wid, nwg) * tile;
  if (t0 < P.slots) {
    if (lid == 0u) { wg_rows.x = row_of(t0, 0u, P.n - 1u); }
    if (lid == 1u || WG == 1u) { wg_rows.y = row_of(min(t0 + tile, P.slots) - 1u, 0u, P.n - 1u); }
  }
  let rows = workgroupUniformLoad(&wg_rows);
  let span = rows.y - rows.x + 1u;
  let cached = span <= tile;
  if (cached) {
    for (var i = lid; i < span; i += WG) { wg_off[i] = c_off[rows.x + i]; }
  }
  // Row minima: singletons (no heavy phase) and 64-bit records only.
  let rowMinima = ROW_MINIMA == 1u && P.phase != PHASE_HEAVY;
  let reduce = rowMinima && cached;
  if (reduce) {
    for (var i = lid; i < span; i += WG) {
      atomicStore(&wg_key[i], NONE);
      atomicStore(&wg_id[i], NONE);
    }
  }
  workgroupBarrier();
  let threshold = atomicLoad(&g_state[ST_THRESHOLD]);
  var v = rows.x;
  // TILE_APPENDS: the kept entries (bit k of `kept` for item k), their fields and slot ranks.
  var kept = 0u;
  var kp: array<u32, ITEMS>;
  var kq: array<u32, ITEMS>;
  var kkey: array<u32, ITEMS>;
  var krank: array<u32, ITEMS>;
  for (var k = 0u; k < ITEMS; k++) {
    let j = t0 + k * WG + lid;
    var keep = false;
    var p = 0u;
    var q = 0u;
    var key = 0u;
    if (j < P.slots && rowMinima) {
      if (cached) { v = row_of_cached(j, v, rows.y, rows.x); } else { v = row_of(j, v, rows.y); }
      let u = c_nbr[j];
      if (u != v) {
        key = weight_key(e_w[j]);
        if (in_phase(key, threshold)) {
          if (reduce) {
            atomicMin(&wg_key[v - rows.x], key);
          } else {
            record_min(v, key, entry_id(j, u, v, key));
          }
          keep = u > v;
          p = v;
          q = u;
        }
      }
    } else if (j < P.slots) {
      if (cached) { v = row_of_cached(j, v, rows.y, rows.x); } else { v = row_of(j, v, rows.y); }
      let u = c_nbr[j];
      if (u > v) {
        let e = round1_edge(v, u, j, threshold);
        p = e.x;
        q = e.y;
        key = e.z;
        keep = e.w != 0u;
      }
    }
    if (TILE_APPENDS == 1u) {
      krank[k] = tile_rank(keep);
      if (keep) {
        kept |= 1u << k;
        kp[k] = p;
        kq[k] = q;
        kkey[k] = key;
      }
      continue;
    }
    let at = wg_reserve(keep, lid, P.outSlot);
    if (keep) {
      if (rowMinima) { push_entry(at, p, q, j); } else { push_edge(at, p, q, key, j); }
    }
  }
  if (TILE_APPENDS == 1u) {
    let base = tile_commit(lid, P.outSlot);
    for (var k = 0u; k < ITEMS; k++) {
      let has = (kept & (1u << k)) != 0u;
      let j = t0 + k * WG + lid;
      var rec = vec2<bool>(false, false);
      if (!rowMinima) { rec = hot_record(has, kp[k], kq[k], kkey[k], j); }
      if (has) {
        let at = base + krank[k];
        if (rowMinima) { push_entry(at, kp[k], kq[k], j); } else { push_edge_rec(at, kp[k], kq[k], kkey[k], j, rec); }
      }
    }
  }
  if (!reduce) { return; }
  workgroupBarrier();
  // The smallest id among each row's entries with the row's smallest key.
  v = rows.x;
  for (var k = 0u; k < ITEMS; k++) {
    let j = t0 + k * WG + lid;
    if (j < P.slots) {
      v = row_of_cached(j, v, rows.y, rows.x);
      let u = c_nbr[j];
      if (u != v) {
        let key = weight_key(e_w[j]);
        if (in_phase(key, threshold) && key == atomicLoad(&wg_key[v - rows.x])) {
          atomicMin(&wg_id[v - rows.x], entry_id(j, u, v, key));
        }
      }
    }
  }
  workgroupBarrier();
  for (var i = lid; i < span; i += WG) {
    let id = atomicLoad(&wg_id[i]);
    if (id != NONE) { record_row_min(rows.x + i, atomicLoad(&wg_key[i]), id); }
  }
}
