// The end of every round: ECL-MST's kernel2 (seed 000, Alg. 2 lines 27–33). An edge recorded as the lightest of
// either endpoint's set joins the two sets (the shared union-find, unionfind/unionfind.wgsl) and enters the
// forest. Because every record is a minimum in the strict (weight key, edge id) order, the recorded edges form
// a forest over the sets (Borůvka's argument), so every such union links two different sets.
//
// Thread 0 also prepares the next round without a host round-trip: it records this round's worklist size,
// zeroes the counter the next round appends to, and writes the next round's indirect dispatch arguments.
// Includes: common/grid, unionfind/unionfind, graph/common, graph/parent, graph/reserve_sg | graph/reserve_wg.
// Constant SELECT_ITEMS: 0, or entries per thread and chunk (selectTiles below).

@group(0) @binding(3) var<storage, read> g_min: array<vec2u>;
@group(0) @binding(4) var<storage, read> wl: array<u32>;
@group(0) @binding(5) var<storage, read_write> forest: array<u32>;
@group(0) @binding(6) var<storage, read_write> args_next: array<u32>;
// min64.wgsl's guard keys, emptied here where this round wrote them (at the entries' sets), for the next round
// (untagged guards only: GUARD_TAGGED = 1 needs no emptying).
@group(0) @binding(7) var<storage, read_write> g_guard: array<u32>;

// selectTiles' register arrays (at least one element where SELECT_ITEMS = 0).
const SELECT_SLOTS: u32 = max(SELECT_ITEMS, 1u);

@compute @workgroup_size(WG)
fn selectRound(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
               @builtin(local_invocation_index) lid: u32) {
  let count = uniform_count(lid, P.outSlot);
  if (thread_index(wid, nwg, lid) == 0u) {
    atomicStore(&g_state[ST_STATS + P.statsAt], count);
    atomicStore(&g_state[P.inSlot], 0u);
    let groups = max(1u, (count + WG - 1u) / WG);
    let y = (groups + P.maxDim - 1u) / P.maxDim;
    args_next[0] = (groups + y - 1u) / y;
    args_next[1] = y;
    args_next[2] = 1u;
  }
  if (SELECT_ITEMS > 0u) {
    selectTiles(wid, nwg, lid, count);
    return;
  }
  let stride = nwg.x * nwg.y * WG;
  for (var base = group_index(wid, nwg) * WG; base < count; base += stride) {
    let i = base + lid;
    var joined = false;
    var id = 0u;
    if (i < count) {
      let p = wl[wl_word(i, 0u)];
      let q = wl[wl_word(i, 1u)];
      id = wl[wl_word(i, 2u)];
      if (GUARD_TAGGED == 0u) {
        g_guard[p] = NONE;
        g_guard[q] = NONE;
      }
      if (g_min[p].x == id || g_min[q].x == id) {
        joined = uf_union(p, q);
      }
    }
    let at = wg_reserve(joined, lid, ST_FOREST);
    if (joined) {
      if (at < P.forestCap) { forest[at] = id; } else { atomicStore(&g_state[ST_OVERFLOW], 1u); }
    }
  }
}

// SELECT_ITEMS > 0 (option selectTiles): as filter.wgsl's filterTiles, chunks of up to SELECT_ITEMS · WG entries
// per workgroup, the forest slots of a chunk's joins reserved with one global atomicAdd (graph/reserve_*'s
// tile_rank and tile_commit) instead of one per subgroup and item.
fn selectTiles(wid: vec3u, nwg: vec3u, lid: u32, count: u32) {
  let groups = nwg.x * nwg.y;
  let items = clamp(count / (groups * WG), 1u, SELECT_SLOTS);
  let chunk = items * WG;
  var joins: u32;
  var kid: array<u32, SELECT_SLOTS>;
  var krank: array<u32, SELECT_SLOTS>;
  for (var base = group_index(wid, nwg) * chunk; base < count; base += groups * chunk) {
    joins = 0u;
    for (var k = 0u; k < items; k++) {
      let i = base + k * WG + lid;
      var joined = false;
      if (i < count) {
        let p = wl[wl_word(i, 0u)];
        let q = wl[wl_word(i, 1u)];
        let id = wl[wl_word(i, 2u)];
        if (GUARD_TAGGED == 0u) {
          g_guard[p] = NONE;
          g_guard[q] = NONE;
        }
        if (g_min[p].x == id || g_min[q].x == id) {
          joined = uf_union(p, q);
        }
        if (joined) {
          joins |= 1u << k;
          kid[k] = id;
        }
      }
      krank[k] = tile_rank(joined);
    }
    let at = tile_commit(lid, ST_FOREST);
    for (var k = 0u; k < items; k++) {
      if ((joins & (1u << k)) != 0u) {
        let slot = at + krank[k];
        if (slot < P.forestCap) { forest[slot] = kid[k]; } else { atomicStore(&g_state[ST_OVERFLOW], 1u); }
      }
    }
  }
}
