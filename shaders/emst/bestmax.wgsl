// Per-component minimum max-index among the candidates equal to the component's best (key, min index), kept as the
// maximum of its complement ~max. Issue 19's memory: bestMax is the upper bounds' buffer (emst/boruvka.ts), which the
// traversal is done with, and is not reset for it: a component's slot holds its upper bound, a key ≤ INF_KEY
// (0x7f800000, relabel.wgsl), and every ~max exceeds that (indices < 2^31), so the first atomicMax replaces it and the
// slot ends as ~(the minimum max-index) exactly; merge.wgsl reads it back complemented. Relabel resets it to INF_KEY.
@group(0) @binding(0) var<uniform> u: Params;
@group(0) @binding(1) var<storage, read> label: array<u32>;
@group(0) @binding(2) var<storage, read> cand: array<vec2u>;
@group(0) @binding(3) var<storage, read> best: array<vec2u>;
@group(0) @binding(4) var<storage, read_write> bestMax: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read> order: array<u32>;
// The round's holders of a candidate (emst/holders.wgsl).
@group(0) @binding(6) var<storage, read> activeList: array<u32>;
@group(0) @binding(7) var<storage, read> activeCount: array<u32>;

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
    let b = best[comp];
    let a = order[j];
    let o = order[c.y];
    if (b.y == c.x && b.x == min(a, o)) {
      atomicMax(&bestMax[comp], ~max(a, o));
    }
  }
}
