// Counts the roots of a union-find parent array (= its number of sets): total[0] += #{ i < n : parent[i] == i }.
// Run it between dispatches that change the parent array (it reads plain u32s). Driven by src/unionfind/unionfind.ts.

struct RootsParams { n: u32, pad0: u32, pad1: u32, pad2: u32 }

@group(0) @binding(0) var<uniform> roots_u: RootsParams;
@group(0) @binding(1) var<storage, read> roots_parent: array<u32>;
@group(0) @binding(2) var<storage, read_write> roots_total: array<atomic<u32>>;

// Workgroup memory starts zeroed.
var<workgroup> roots_group: atomic<u32>;

@compute @workgroup_size(WG)
fn countRoots(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
              @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i < roots_u.n && roots_parent[i] == i) { atomicAdd(&roots_group, 1u); }
  workgroupBarrier();
  if (lid == 0u) {
    let c = atomicLoad(&roots_group);
    if (c > 0u) { atomicAdd(&roots_total[0], c); }
  }
}
