// emst/upperbounds.wgsl's `main` over one window of points (issue 19; src/emst/roundsplit.ts): Morton neighbours at
// distance 1 and 2 in different components, and last round's candidates, bound their components' edges. `points`
// is bound from the window's first point on with a halo of the 2 points after its last (where they exist), `cand`
// is the window's range; the 4-byte arrays through generated accessors (core2_get, label_get, ub_min: in parts
// above one binding). The keys are emst/distance.wgsl's edge_key(j, k): the same
// operands, order and add_square.
@group(0) @binding(0) var<uniform> u: WinParams;
@group(0) @binding(1) var<storage, read> points: array<f32>;
@group(0) @binding(2) var<storage, read> cand: array<vec2u>;
// From binding 3: core2, label and ub (atomic) through generated accessors (src/gpu/bigarray.ts).

fn key_of(j: u32, k: u32) -> u32 {
  let a = j - u.first;
  let b = k - u.first;
  var w = 0.0;
  for (var i = 0u; i < D; i++) {
    var t = abs(points[a * D + i] - points[b * D + i]);
    if (PERIODIC != 0u) {
      t = min(t, period_of(i) - t);
    }
    w = add_square(w, t, u.one);
  }
  if (u.mr != 0u) {
    let m = max(core2_get(j), core2_get(k));
    w = max(m, w * u.ia2);
  }
  return bitcast<u32>(w);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  if (label_get(u.n) != 0u) { return; } // label[n]: the tree is complete (plan.wgsl)
  for (var t = thread_index(wid, nwg, lid); t < u.count; t += grid_threads(nwg)) {
    let j = u.first + t;
    let a = label_get(j);
    let c = cand[t];
    if (c.x != NONE && label_get(c.y) != a) {
      _ = ub_min(a, c.x);
    }
    for (var off = 1u; off <= 2u; off++) {
      let k = j + off;
      if (k >= u.n) { break; }
      let b = label_get(k);
      if (a != b) {
        let key = key_of(j, k);
        // Below the scale cut a pair is not an edge (as upperbounds.wgsl).
        if (u.cut != 0u && key < u.cut) { continue; }
        _ = ub_min(a, key);
        _ = ub_min(b, key);
      }
    }
  }
}
