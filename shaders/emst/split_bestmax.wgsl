// emst/bestmax.wgsl over one window of points (issue 19; src/emst/roundsplit.ts): per-component minimum max-index
// among the candidates equal to the component's best (key, min index), as the maximum of its complement in the upper
// bounds' buffer (bestmax.wgsl says why). `cand` is the window's range, `best` in parts
// (generated best_get over its u32 words: .x = word 2·comp, .y = word 2·comp + 1); the 4-byte arrays through
// generated accessors too (label_get, order_get, bestMax_max: in parts above one binding).
@group(0) @binding(0) var<uniform> u: WinParams;
@group(0) @binding(1) var<storage, read> cand: array<vec2u>;
// From binding 2: label, order (read), bestMax (atomic) and best through generated accessors (src/gpu/bigarray.ts).
// Bindings 5 … : best's parts (generated).

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  if (label_get(u.n) != 0u) { return; } // label[n]: the tree is complete (plan.wgsl)
  for (var t = thread_index(wid, nwg, lid); t < u.count; t += grid_threads(nwg)) {
    let j = u.first + t;
    let c = cand[t];
    if (c.x == NONE) { continue; }
    let comp = label_get(j);
    let a = order_get(j);
    let o = order_get(c.y);
    if (best_get(2u * comp + 1u) == c.x && best_get(2u * comp) == min(a, o)) {
      _ = bestMax_max(comp, ~max(a, o));
    }
  }
}
