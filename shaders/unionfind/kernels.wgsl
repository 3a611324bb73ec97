// Union-find kernels (driven by src/unionfind/unionfind.ts). Included modules: common/grid, unionfind/unionfind.
// Each entry point uses a prefix of these bindings:
//   init, flatten:     0 uniform, 1 parent
//   unionPairs:        0 uniform, 1 parent, 2 a, 3 b
//   unionPairsMerged:  0 uniform, 1 parent, 2 a, 3 b, 4 merged

struct UfParams {
  // Number of elements (init, flatten).
  n: u32,
  // Number of pairs (unionPairs*).
  count: u32,
  // init: the window's first element (issue 19: src/unionfind/unionfind.ts binds parent from there where it
  // exceeds one storage binding; 0 otherwise).
  first: u32,
  pad1: u32,
}

@group(0) @binding(0) var<uniform> uf_u: UfParams;
// The union-find module's parent array (see unionfind.wgsl for the contract).
@group(0) @binding(1) var<storage, read_write> uf_parent: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read> uf_a: array<u32>;
@group(0) @binding(3) var<storage, read> uf_b: array<u32>;
// merged[i] = 1 if pair i linked two sets, else 0.
@group(0) @binding(4) var<storage, read_write> uf_merged: array<u32>;

// parent[i] = i for i < n: every element its own set (element first + i of a window bound from `first`).
@compute @workgroup_size(WG)
fn init(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i < uf_u.n) { atomicStore(&uf_parent[i], uf_u.first + i); }
}

// uf_union(a[i], b[i]) for i < count.
@compute @workgroup_size(WG)
fn unionPairs(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
              @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i < uf_u.count) { _ = uf_union(uf_a[i], uf_b[i]); }
}

// uf_union(a[i], b[i]) for i < count, recording merged[i].
@compute @workgroup_size(WG)
fn unionPairsMerged(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
                    @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i < uf_u.count) { uf_merged[i] = select(0u, 1u, uf_union(uf_a[i], uf_b[i])); }
}

// parent[i] = root of i for i < n. With no union running, afterwards parent[i] is the smallest index of i's set.
// Stores of roots race only with path-halving atomicMin's, which cannot raise a pointer above the root.
@compute @workgroup_size(WG)
fn flatten(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
           @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i < uf_u.n) { atomicStore(&uf_parent[i], uf_find(i)); }
}
