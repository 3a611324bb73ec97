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
// Includes: common/grid, graph/common, graph/parent + unionfind/unionfind | graph/parent_ro, graph/min64 |
// graph/min32, graph/push.

@group(0) @binding(4) var<storage, read_write> wl_out: array<u32>;
@group(0) @binding(5) var<storage, read> wl_in: array<u32>;
@group(0) @binding(6) var<storage, read> e_w: array<u32>;
@group(0) @binding(7) var<storage, read_write> g_prev: array<vec2u>;

@compute @workgroup_size(WG)
fn filterRound(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
               @builtin(local_invocation_index) lid: u32) {
  let count = uniform_count(lid, P.inSlot);
  let stride = nwg.x * nwg.y * WG;
  let fill = FILL_RESETS == 1u && count >= (P.n >> 4u);
  if (fill) {
    for (var v = thread_index(wid, nwg, lid); v < P.n; v += stride) { g_prev[v] = vec2u(NONE, NONE); }
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
