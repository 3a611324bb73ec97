// Second pass of the 32-bit minimum (see min32.wgsl): for each entry (p, q, id) of the round's worklist, keep the
// smallest id among the edges whose key equals the set's minimum key. After it, word 2s is the id and word 2s + 1
// the key of set s's lightest edge, exactly as min64.wgsl's single pass leaves them.
// Includes: common/grid, unionfind/unionfind, graph/base, graph/common, graph/parent.

@group(0) @binding(3) var<storage, read_write> g_min: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> wl: array<u32>;
@group(0) @binding(5) var<storage, read> e_w: array<u32>;

fn record_id(s: u32, key: u32, id: u32) {
  if (atomicLoad(&g_min[2u * s + 1u]) == key && atomicLoad(&g_min[2u * s]) > id) {
    atomicMin(&g_min[2u * s], id);
  }
}

@compute @workgroup_size(WG)
fn minIds(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
          @builtin(local_invocation_index) lid: u32) {
  let count = atomicLoad(&g_state[P.outSlot]);
  let stride = nwg.x * nwg.y * WG;
  for (var i = thread_index(wid, nwg, lid); i < count; i += stride) {
    let id = wl[wl_word(i, 2u)];
    let key = weight_key(e_w[id]);
    record_id(wl[wl_word(i, 0u)], key, id);
    record_id(wl[wl_word(i, 1u)], key, id);
  }
}
