// Round 1 of a phase for a CSR graph on split arrays: graph/populate_csr.wgsl's rule (keep the copy of an edge in
// the row of its smaller endpoint; its entry position j is the edge id) over one window of entries
// [P.first, P.first + P.count), the neighbours and weights bound as that window, the row starts c_off (n + 1) a
// vertex array like the union-find's. One thread per entry: the workgroup finds the rows of its first and last entries by
// binary search over all rows, each thread its own row within those. Appends to the window's worklist segment. An
// up entry follows graph/round1.wgsl's round1_edge (shared with populate_csr.wgsl's plain entries).
// Includes: common/grid, graph/base, graph/split_common, graph/split_find, graph/reserve_sg | reserve_wg,
// graph/split_push, graph/round1; the vertex arrays parent, g_key and c_off in parts (bigarray.ts).

@group(0) @binding(2) var<storage, read_write> wl_out: array<vec4u>;
@group(0) @binding(3) var<storage, read> c_nbr: array<u32>;
@group(0) @binding(4) var<storage, read> e_w: array<u32>;

var<workgroup> wg_rows: vec2u;

// The row holding entry j: the last r in [lo, hi] with c_off[r] <= j (graph/populate_csr.wgsl's row_of).
fn row_of(j: u32, lo0: u32, hi0: u32) -> u32 {
  var lo = lo0;
  var hi = hi0;
  while (lo < hi) {
    let mid = hi - ((hi - lo) >> 1u);
    if (c_off_get(mid) <= j) { lo = mid; } else { hi = mid - 1u; }
  }
  return lo;
}

@compute @workgroup_size(WG)
fn populateCsr(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
               @builtin(local_invocation_index) lid: u32) {
  let i0 = group_index(wid, nwg) * WG;
  if (i0 < P.count) {
    if (lid == 0u) { wg_rows.x = row_of(P.first + i0, 0u, P.n - 1u); }
    if (lid == 1u || WG == 1u) { wg_rows.y = row_of(P.first + min(i0 + WG, P.count) - 1u, 0u, P.n - 1u); }
  }
  let rows = workgroupUniformLoad(&wg_rows);
  let threshold = atomicLoad(&g_state[ST_THRESHOLD]);
  let i = i0 + lid;
  var e = vec4u(0u);
  if (i < P.count) {
    let v = row_of(P.first + i, rows.x, rows.y);
    let u = c_nbr[i];
    if (u > v) { e = round1_edge(v, u, i, threshold); }
  }
  let keep = e.w != 0u;
  let at = wg_reserve(keep, lid, P.outSlot);
  if (keep) { push_entry(at, e.x, e.y, P.first + i, e.z); }
}
