// Round 1 of a phase for a CSR graph (ECL's .egr layout): as populate_edges.wgsl, over CSR entries j of row v,
// keeping only the copy with v < neighbour (ECL-MST processes one direction; its position j is the edge id).
//
// ECL-MST balances load with a thread per low-degree vertex and a warp per high-degree one (seed 000, §3.2).
// We are edge-centric instead: workgroup g takes the tile of ITEMS·WG consecutive entries starting at
// g·ITEMS·WG, entry j = tile start + k·WG + lid (coalesced); two threads binary-search the tile's first and last
// rows, the workgroup copies those rows' offsets into workgroup memory (unless empty rows make the range longer
// than the tile), and each thread finds the row of its entries by binary search there, starting from its previous
// entry's row. Every entry costs the same whatever the degree distribution.
// Includes: common/grid, graph/common, graph/parent + unionfind/unionfind | graph/parent_ro, graph/min64 |
// graph/min32, graph/push.
// Constant ITEMS: entries per thread.

@group(0) @binding(4) var<storage, read_write> wl_out: array<u32>;
@group(0) @binding(5) var<storage, read> c_off: array<u32>;
@group(0) @binding(6) var<storage, read> c_nbr: array<u32>;
@group(0) @binding(7) var<storage, read> e_w: array<u32>;

var<workgroup> wg_rows: vec2u;
// c_off[first row + i] for the tile's rows.
var<workgroup> wg_off: array<u32, ITEMS * WG>;

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
  workgroupBarrier();
  let threshold = atomicLoad(&g_state[ST_THRESHOLD]);
  var v = rows.x;
  for (var k = 0u; k < ITEMS; k++) {
    let j = t0 + k * WG + lid;
    var keep = false;
    var p = 0u;
    var q = 0u;
    var key = 0u;
    if (j < P.slots) {
      if (cached) { v = row_of_cached(j, v, rows.y, rows.x); } else { v = row_of(j, v, rows.y); }
      let u = c_nbr[j];
      if (u > v) {
        key = weight_key(e_w[j]);
        if (in_phase(key, threshold)) {
          p = v;
          q = u;
          if (P.phase == PHASE_HEAVY) {
            p = uf_find(v);
            q = uf_find(u);
          }
          keep = p != q;
        }
      }
    }
    let at = wg_reserve(keep, lid, P.outSlot);
    if (keep) { push_edge(at, p, q, key, j); }
  }
}
