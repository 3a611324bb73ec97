// Start of a graph-MSF computation: every vertex its own set, both minimum-record arrays and the guard keys empty.
// Includes: common/grid, unionfind/unionfind, graph/base, graph/common, graph/parent.
// Bindings 3, 4: the two record arrays; 5: guard keys.

@group(0) @binding(3) var<storage, read_write> g_minA: array<vec2u>;
@group(0) @binding(4) var<storage, read_write> g_minB: array<vec2u>;
@group(0) @binding(5) var<storage, read_write> g_guard: array<u32>;

@compute @workgroup_size(WG)
fn init(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i < P.n) {
    atomicStore(&uf_parent[i], i);
    g_minA[i] = vec2u(NONE, NONE);
    g_minB[i] = vec2u(NONE, NONE);
    g_guard[i] = NONE;
  }
}
