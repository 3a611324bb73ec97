// Component labels after a graph-MSF computation: parent[v] = find(v), the smallest vertex of v's set (the
// union-find links the larger root under the smaller).
// Includes: common/grid, unionfind/unionfind, graph/common, graph/parent.

@compute @workgroup_size(WG)
fn labels(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
          @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i < P.n) { atomicStore(&uf_parent[i], uf_find(i)); }
}
