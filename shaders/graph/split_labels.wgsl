// Component labels on split arrays: parent[v] = find(v), the smallest vertex of v's set (graph/labels.wgsl's rule).
// Includes: common/grid, graph/base, graph/split_common, graph/split_uf; the parents in parts (bigarray.ts).

@compute @workgroup_size(WG)
fn labels(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
          @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i < P.n) { parent_store(i, uf_find(i)); }
}
