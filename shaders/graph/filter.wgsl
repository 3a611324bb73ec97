// Rounds 2, 3, … of a phase: ECL-MST's kernel1 (seed 000, Alg. 2 lines 14–22). For each worklist entry
// (p, q, id) of the previous round: find both representatives; if they differ, append (rep p, rep q, id) to the
// next worklist (implicit path compression) and record the edge in both sets' minima. Grid-stride over the
// input count, so the same code serves an indirect dispatch sized from the count and a fixed grid.
//
// It also empties the previous round's minimum records: those were written at exactly the (p, q) of this
// round's input entries, and select.wgsl finished reading them in the previous dispatch. Two record arrays
// alternate by round, so no separate reset pass is needed (ECL-MST's kernel3).
// Emptying by fill (FILL_RESETS = 1): where the input holds at least n / 16 entries, their 2 scattered 8-byte
// stores each cost more than writing the whole array once, coalesced; the dispatch then empties all n records
// first (the ones no entry touched are empty already) and skips the per-entry stores.
// Includes: common/grid, graph/base, graph/common, graph/parent + unionfind/unionfind | graph/parent_ro, graph/min64 |
// graph/min32, graph/reserve_sg | graph/reserve_wg, graph/push. Constant FILTER_ITEMS: 0, or entries per thread
// and chunk (filterTiles below).

@group(0) @binding(4) var<storage, read_write> wl_out: array<u32>;
@group(0) @binding(5) var<storage, read> wl_in: array<u32>;
@group(0) @binding(6) var<storage, read> e_w: array<u32>;
@group(0) @binding(7) var<storage, read_write> g_prev: array<vec2u>;

// filterTiles' register arrays (at least one element where FILTER_ITEMS = 0).
const FILTER_SLOTS: u32 = max(FILTER_ITEMS, 1u);

@compute @workgroup_size(WG)
fn filterRound(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
               @builtin(local_invocation_index) lid: u32) {
  let count = uniform_count(lid, P.inSlot);
  let stride = nwg.x * nwg.y * WG;
  let fill = FILL_RESETS == 1u && count >= (P.n >> 4u);
  if (fill) {
    for (var v = thread_index(wid, nwg, lid); v < P.n; v += stride) { g_prev[v] = vec2u(NONE, NONE); }
  }
  if (FILTER_ITEMS > 0u) {
    filterTiles(wid, nwg, lid, count, fill);
    return;
  }
  for (var base = group_index(wid, nwg) * WG; base < count; base += stride) {
    let i = base + lid;
    var keep = false;
    var p = 0u;
    var q = 0u;
    var id = 0u;
    var key = 0u;
    if (i < count) {
      let p0 = wl_in[wl_word(i, 0u)];
      let q0 = wl_in[wl_word(i, 1u)];
      id = wl_in[wl_word(i, 2u)];
      if (!fill) {
        g_prev[p0] = vec2u(NONE, NONE);
        g_prev[q0] = vec2u(NONE, NONE);
      }
      p = uf_find(p0);
      q = uf_find(q0);
      if (p != q) {
        keep = true;
        key = weight_key(e_w[id]);
      }
    }
    let at = wg_reserve(keep, lid, P.outSlot);
    if (keep) { push_edge(at, p, q, key, id); }
  }
}

// FILTER_ITEMS > 0 (option tileAppends): chunks of `items` · WG entries per workgroup (item k of a thread: chunk
// start + k · WG + lid, coalesced), their kept entries held in registers and their slots reserved with one global
// atomicAdd per chunk (graph/reserve_*'s tile_rank and tile_commit) instead of one per subgroup and item. `items`
// (≤ FILTER_ITEMS) shrinks with the round so that small rounds still spread over every workgroup.
fn filterTiles(wid: vec3u, nwg: vec3u, lid: u32, count: u32, fill: bool) {
  let groups = nwg.x * nwg.y;
  let items = clamp(count / (groups * WG), 1u, FILTER_SLOTS);
  let chunk = items * WG;
  var kept: u32;
  var kp: array<u32, FILTER_SLOTS>;
  var kq: array<u32, FILTER_SLOTS>;
  var kid: array<u32, FILTER_SLOTS>;
  var kkey: array<u32, FILTER_SLOTS>;
  var krank: array<u32, FILTER_SLOTS>;
  for (var base = group_index(wid, nwg) * chunk; base < count; base += groups * chunk) {
    kept = 0u;
    for (var k = 0u; k < items; k++) {
      let i = base + k * WG + lid;
      var keep = false;
      if (i < count) {
        let p0 = wl_in[wl_word(i, 0u)];
        let q0 = wl_in[wl_word(i, 1u)];
        let id = wl_in[wl_word(i, 2u)];
        if (!fill) {
          g_prev[p0] = vec2u(NONE, NONE);
          g_prev[q0] = vec2u(NONE, NONE);
        }
        let p = uf_find(p0);
        let q = uf_find(q0);
        if (p != q) {
          keep = true;
          kept |= 1u << k;
          kp[k] = p;
          kq[k] = q;
          kid[k] = id;
          kkey[k] = weight_key(e_w[id]);
        }
      }
      krank[k] = tile_rank(keep);
    }
    let at = tile_commit(lid, P.outSlot);
    for (var k = 0u; k < items; k++) {
      let has = (kept & (1u << k)) != 0u;
      let rec = hot_record(has, kp[k], kq[k], kkey[k], kid[k]);
      if (has) { push_edge_rec(at + krank[k], kp[k], kq[k], kkey[k], kid[k], rec); }
    }
  }
}
