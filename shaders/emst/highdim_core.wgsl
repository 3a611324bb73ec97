// Mutual reachability's squared core distances from the candidate lists (src/emst/highdim.ts): the key of the m-th
// entry of row j (m = min(minSamples, n − 1); the point itself is never in its list, a duplicate is, at key 0) is
// core²(j) exactly as the k-NN's 'kth' search finds it, already in Morton order. The CPU twin: coresCpu in
// src/emst/highdim.cpu.ts.
struct CoreParams {
  n: u32,
  // The core distance's neighbour, 1-based (at most K).
  m: u32,
  p0: u32,
  p1: u32,
}

@group(0) @binding(0) var<uniform> u: CoreParams;
@group(0) @binding(1) var<storage, read> lkeys: array<u32>;
@group(0) @binding(2) var<storage, read_write> core2: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let j = thread_index(wid, nwg, lid);
  if (j < u.n) { core2[j] = lkeys[j * K + u.m - 1u]; }
}
