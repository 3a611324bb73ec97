// Merge (seed 002 §3, "Merging components together", through the shared union-find instead of chain following):
// the point holding its component's winning edge unions the two components; the edge is appended only when the
// union merged two sets, so the edge two components chose mutually is added once. Under the strict
// (key, min, max) order the round's winning edges form a forest plus such mutual pairs, so nothing else is lost.
@group(0) @binding(0) var<uniform> u: Params;
@group(0) @binding(1) var<storage, read> label: array<u32>;
@group(0) @binding(2) var<storage, read> order: array<u32>;
@group(0) @binding(3) var<storage, read> cand: array<vec2u>;
@group(0) @binding(4) var<storage, read> best: array<vec2u>;
@group(0) @binding(5) var<storage, read> bestMax: array<u32>;
@group(0) @binding(6) var<storage, read_write> uf_parent: array<atomic<u32>>;
@group(0) @binding(7) var<storage, read_write> edgeCount: array<atomic<u32>>;
// | source original index | target original index | key | per MST edge (3 u32, 12 bytes), in the order found.
// Important! array<u32> with stride 3: a vec3u would be padded to 16 bytes in storage.
@group(0) @binding(8) var<storage, read_write> edges: array<u32>;
// The round's holders of a candidate (emst/holders.wgsl).
@group(0) @binding(9) var<storage, read> activeList: array<u32>;
@group(0) @binding(10) var<storage, read> activeCount: array<u32>;

// FIRST = 1 (boruvka.ts, RoundPasses.firstRound): the first round, where every component is a single point, whose
// candidate is then its component's best edge: nothing to check against (best64/best32 and bestmax do not run).
override FIRST: u32 = 0u;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  if (label[u.n] != 0u) { return; } // label[n]: the tree is complete (plan.wgsl)
  let end = holder_count();
  for (var t = thread_index(wid, nwg, lid); t < end; t += grid_threads(nwg)) {
    let j = holder_at(t);
    let c = cand[j];
    if (c.x == NONE) { continue; }
    let comp = label[j];
    if (FIRST == 0u) {
      let b = best[comp];
      let a = order[j];
      let o = order[c.y];
      if (b.y != c.x || b.x != min(a, o) || ~bestMax[comp] != max(a, o)) { continue; }
    }
    if (uf_union(comp, label[c.y])) {
      let e = atomicAdd(&edgeCount[0], 1u);
      edges[3u * e] = order[j];
      edges[3u * e + 1u] = order[c.y];
      edges[3u * e + 2u] = c.x;
    }
  }
}
