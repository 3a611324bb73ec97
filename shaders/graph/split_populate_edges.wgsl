// Round 1 of a phase for an edge-list graph on split arrays: graph/populate_edges.wgsl over one window of edge
// slots [P.first, P.first + P.count), its three arrays bound as that window, appending to the window's worklist
// segment (capacity ≥ the window's slots). One thread per slot of the window; edge id = P.first + i.
// Includes: common/grid, graph/split_common, graph/split_find, graph/reserve_sg | reserve_wg,
// graph/split_push; the vertex arrays parent and g_key in parts (bigarray.ts).

@group(0) @binding(2) var<storage, read_write> wl_out: array<vec4u>;
@group(0) @binding(3) var<storage, read> e_src: array<u32>;
@group(0) @binding(4) var<storage, read> e_dst: array<u32>;
@group(0) @binding(5) var<storage, read> e_w: array<u32>;

@compute @workgroup_size(WG)
fn populateEdges(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
                 @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  let threshold = atomicLoad(&g_state[ST_THRESHOLD]);
  var keep = false;
  var p = 0u;
  var q = 0u;
  var key = 0u;
  if (i < P.count) {
    let s = e_src[i];
    let t = e_dst[i];
    if (s != t) {
      key = weight_key(e_w[i]);
      if (in_phase(key, threshold)) {
        p = s;
        q = t;
        if (P.phase == PHASE_HEAVY) {
          p = uf_find(s);
          q = uf_find(t);
        }
        keep = p != q;
      }
    }
  }
  let at = wg_reserve(keep, lid, P.outSlot);
  if (keep) { push_entry(at, p, q, P.first + i, key); }
}
