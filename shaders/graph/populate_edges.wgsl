// Round 1 of a phase for an edge-list graph: ECL-MST's worklist initialisation fused with the first round's
// minimum recording (seed 000, Alg. 2 lines 1–11 and 19–21). One thread per edge: self loops and edges outside
// the phase are skipped; in the heavy phase, edges whose endpoints already share a set are filtered out and the
// others stored with their representatives. Light and unfiltered phases start from singletons (no find).
// The rule itself is graph/round1.wgsl's round1_edge (shared with split_populate_edges.wgsl).
// Includes: common/grid, graph/base, graph/common, graph/parent + unionfind/unionfind | graph/parent_ro,
// graph/min64 | graph/min32, graph/push, graph/round1.

@group(0) @binding(4) var<storage, read_write> wl_out: array<u32>;
@group(0) @binding(5) var<storage, read> e_src: array<u32>;
@group(0) @binding(6) var<storage, read> e_dst: array<u32>;
@group(0) @binding(7) var<storage, read> e_w: array<u32>;

@compute @workgroup_size(WG)
fn populateEdges(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
                 @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  let threshold = atomicLoad(&g_state[ST_THRESHOLD]);
  var e = vec4u(0u);
  if (i < P.slots) { e = round1_edge(e_src[i], e_dst[i], i, threshold); }
  let keep = e.w != 0u;
  let at = wg_reserve(keep, lid, P.outSlot);
  if (keep) { push_edge(at, e.x, e.y, e.z, i); }
}
