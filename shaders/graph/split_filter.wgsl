// Rounds 2, 3, … of a phase on split arrays, one worklist segment per dispatch: graph/filter.wgsl's rule (find
// both representatives; append (rep p, rep q, id, key) where they differ and record the key at both sets), reading
// segment s of the previous round's worklist and appending to segment s of this round's (an entry never moves to
// another segment, so a segment never holds more than it started the phase with). It also empties the previous
// round's records at the entries' sets (two record arrays alternate by round, as in filter.wgsl); together the
// segments' dispatches cover every entry, and no kernel reads those records again. Grid-stride over the count.
// Includes: common/grid, graph/base, graph/split_common, graph/split_find, graph/reserve_sg | reserve_wg,
// graph/split_push; the vertex arrays parent, g_key, prevKey and prevId in parts (bigarray.ts).

@group(0) @binding(2) var<storage, read_write> wl_out: array<vec4u>;
@group(0) @binding(3) var<storage, read> wl_in: array<vec4u>;

@compute @workgroup_size(WG)
fn filterRound(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
               @builtin(local_invocation_index) lid: u32) {
  let count = uniform_count(lid, P.inSlot);
  let stride = nwg.x * nwg.y * WG;
  for (var base = group_index(wid, nwg) * WG; base < count; base += stride) {
    let i = base + lid;
    var keep = false;
    var e = vec4u(0u);
    var p = 0u;
    var q = 0u;
    if (i < count) {
      e = wl_in[i];
      prevKey_set(e.x, NONE);
      prevId_set(e.x, NONE);
      prevKey_set(e.y, NONE);
      prevId_set(e.y, NONE);
      p = uf_find(e.x);
      q = uf_find(e.y);
      keep = p != q;
    }
    let at = wg_reserve(keep, lid, P.outSlot);
    if (keep) { push_entry(at, p, q, e.z, e.w); }
  }
}
