// Round 1 of a phase for an edge-list graph on split arrays: graph/populate_edges.wgsl over one window of edge
// slots [P.first, P.first + P.count), its three arrays bound as that window, appending to the window's worklist
// segment (capacity ≥ the window's slots). One thread per slot of the window; edge id = P.first + i. The rule is
// graph/round1.wgsl's round1_edge (shared with populate_edges.wgsl).
// Includes: common/grid, graph/base, graph/split_common, graph/split_find, graph/reserve_sg | reserve_wg,
// graph/split_push, graph/round1; the vertex arrays parent and g_key in parts (bigarray.ts).

@group(0) @binding(2) var<storage, read_write> wl_out: array<vec4u>;
@group(0) @binding(3) var<storage, read> e_src: array<u32>;
@group(0) @binding(4) var<storage, read> e_dst: array<u32>;
@group(0) @binding(5) var<storage, read> e_w: array<u32>;

@compute @workgroup_size(WG)
fn populateEdges(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
                 @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  let threshold = atomicLoad(&g_state[ST_THRESHOLD]);
  var e = vec4u(0u);
  if (i < P.count) { e = round1_edge(e_src[i], e_dst[i], i, threshold); }
  let keep = e.w != 0u;
  let at = wg_reserve(keep, lid, P.outSlot);
  if (keep) { push_entry(at, e.x, e.y, P.first + i, e.z); }
}
