// The second pass of the lightest edge per set on split arrays, one worklist segment per dispatch
// (graph/min_ids.wgsl's rule): among the edges whose key is its set's smallest, keep the smallest id. Every
// segment's minIds runs after every segment's filter (or populate) and before any segment's select, so each set's key
// is final when read and its id when selected. Grid-stride over the segment's count.
// Includes: common/grid, graph/base, graph/split_common; the vertex arrays keys and ids in parts (bigarray.ts).

@group(0) @binding(2) var<storage, read> wl: array<vec4u>;

fn record_id(s: u32, key: u32, id: u32) {
  if (keys_get(s) == key && ids_load(s) > id) { _ = ids_min(s, id); }
}

@compute @workgroup_size(WG)
fn minIds(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
          @builtin(local_invocation_index) lid: u32) {
  let count = atomicLoad(&g_state[P.outSlot]);
  let stride = nwg.x * nwg.y * WG;
  for (var i = thread_index(wid, nwg, lid); i < count; i += stride) {
    let e = wl[i];
    record_id(e.x, e.w, e.z);
    record_id(e.y, e.w, e.z);
  }
}
