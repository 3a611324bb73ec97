// Start of a graph-MSF computation on split arrays, per window of vertices [P.first, P.first + P.count): every
// vertex its own set, both record arrays (keys and ids) empty. Includes: common/grid, graph/base, graph/split_common.

@group(0) @binding(2) var<storage, read_write> parent: array<u32>;
@group(0) @binding(3) var<storage, read_write> keyA: array<u32>;
@group(0) @binding(4) var<storage, read_write> idA: array<u32>;
@group(0) @binding(5) var<storage, read_write> keyB: array<u32>;
@group(0) @binding(6) var<storage, read_write> idB: array<u32>;

@compute @workgroup_size(WG)
fn init(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i < P.count) {
    parent[i] = P.first + i;
    keyA[i] = NONE;
    idA[i] = NONE;
    keyB[i] = NONE;
    idB[i] = NONE;
  }
}
