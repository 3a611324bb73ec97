// Degree and XOR link of every node of a tree on the GPU (CPU twin: src/stats/branches.cpu.ts, nodeLinks): edge e =
// (sources[e], targets[e]) adds 1 to the degree of both ends and XORs e into their links. At a degree-2 node the link
// XOR one incident edge is the other, so a branch walk needs no adjacency lists. Both arrays start at 0. Edge e's
// ends are sources[e · stride] and targets[e · stride + toff] (StatsParams in stats/image.wgsl).
// Big arrays (issue 19, src/stats/branches.ts): the edges are a window of edges [base, base + m) (sources and
// targets bound at the window's records), deg and link atomic arrays reached through generated accessors (deg_add,
// link_xor: whole, or in parts) from @binding(3) on.
struct DegreeParams { m: u32, stride: u32, toff: u32, base: u32 }
@group(0) @binding(0) var<uniform> u: DegreeParams;
@group(0) @binding(1) var<storage, read> sources: array<u32>;
@group(0) @binding(2) var<storage, read> targets: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let e = thread_index(wid, nwg, lid);
  if (e >= u.m) { return; }
  let a = sources[e * u.stride];
  let b = targets[e * u.stride + u.toff];
  deg_add(a, 1u);
  deg_add(b, 1u);
  link_xor(a, u.base + e);
  link_xor(b, u.base + e);
}
