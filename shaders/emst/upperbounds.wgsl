// Upper bounds on every component's shortest outgoing edge (seed 002 §3, "Optimization 2"): Morton neighbours at
// distance 1 and 2 in different components bound both components' edges. Starting every traversal with a finite
// radius is worth ~18× (DESIGN.md). Beyond the paper: a point's candidate from the previous round whose other end
// still lies in another component is a real outgoing edge too, and a much tighter bound in late rounds, when
// Morton neighbours across a component boundary can be far apart.
@group(0) @binding(0) var<uniform> u: Params;
@group(0) @binding(1) var<storage, read> points: array<f32>;
@group(0) @binding(2) var<storage, read> core2: array<f32>;
@group(0) @binding(3) var<storage, read> label: array<u32>;
@group(0) @binding(4) var<storage, read_write> ub: array<atomic<u32>>;
// The previous round's candidates (key NONE where none; all NONE before the first round).
@group(0) @binding(5) var<storage, read> cand: array<vec2u>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  if (label[u.n] != 0u) { return; } // label[n]: the tree is complete (plan.wgsl)
  for (var j = thread_index(wid, nwg, lid); j < u.n; j += grid_threads(nwg)) {
    let a = label[j];
    let c = cand[j];
    if (c.x != NONE && label[c.y] != a) {
      atomicMin(&ub[a], c.x);
    }
    for (var off = 1u; off <= 2u; off++) {
      let k = j + off;
      if (k >= u.n) { break; }
      let b = label[k];
      if (a != b) {
        let key = edge_key(j, k);
        // Below the scale cut a pair is not an edge. The traversal recomputes this key bit for bit (edge_key), so a
        // pair at or above the cut here is an edge there too (emst/common.wgsl, SLACK).
        if (u.cut != 0u && key < u.cut) { continue; }
        atomicMin(&ub[a], key);
        atomicMin(&ub[b], key);
      }
    }
  }
}

// Entry `grouped` (boruvka.ts, RoundPasses.groupMin): the same bounds, with the offers to the component of the
// workgroup's first point folded in workgroup memory first and sent as one atomicMin (late rounds: a workgroup's
// 256 Morton-consecutive points mostly share one large component, whose slot every one of them would hit). A
// minimum is a minimum in any order: the bounds are the same bit for bit.
var<workgroup> wgDone: u32;
var<workgroup> wgLabel: u32;
var<workgroup> wgMin: atomic<u32>;

fn offer_bound(c: u32, key: u32) {
  if (c == wgLabel) {
    atomicMin(&wgMin, key);
  } else {
    atomicMin(&ub[c], key);
  }
}

@compute @workgroup_size(WG)
fn grouped(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
           @builtin(local_invocation_index) lid: u32) {
  // label[n]: the tree is complete (plan.wgsl); read once, uniformly, as barriers follow.
  if (lid == 0u) { wgDone = label[u.n]; }
  if (workgroupUniformLoad(&wgDone) != 0u) { return; }
  // Tiles of WG points, striding by the grid (emst/common.wgsl, grid_threads).
  for (var base = group_index(wid, nwg) * WG; base < u.n; base += grid_threads(nwg)) {
    let j = base + lid;
    if (lid == 0u) {
      wgLabel = label[base];
      atomicStore(&wgMin, NONE);
    }
    workgroupBarrier();
    if (j < u.n) {
      let a = label[j];
      let c = cand[j];
      if (c.x != NONE && label[c.y] != a) {
        offer_bound(a, c.x);
      }
      for (var off = 1u; off <= 2u; off++) {
        let k = j + off;
        if (k >= u.n) { break; }
        let b = label[k];
        if (a != b) {
          let key = edge_key(j, k);
          if (u.cut != 0u && key < u.cut) { continue; }
          offer_bound(a, key);
          offer_bound(b, key);
        }
      }
    }
    workgroupBarrier();
    if (lid == 0u) {
      let m = atomicLoad(&wgMin);
      if (m != NONE) { atomicMin(&ub[wgLabel], m); }
    }
  }
}

// Entry `first` (boruvka.ts, RoundPasses.firstRound): the first round's bounds, when every point is its own
// component and no point holds a candidate yet. A point's slot then takes exactly the offers `main` would send it —
// its pairs with the Morton neighbours at distance 1 and 2 on either side, each key formed as `main` forms it (the
// lower position first) — gathered by the point itself, with no atomic read-modify-write: no other thread writes it.
fn first_offer(m: u32, a: u32, b: u32) -> u32 {
  let key = edge_key(a, b);
  if (u.cut != 0u && key < u.cut) { return m; }
  return min(m, key);
}

@compute @workgroup_size(WG)
fn first(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
         @builtin(local_invocation_index) lid: u32) {
  if (label[u.n] != 0u) { return; } // label[n]: the tree is complete (plan.wgsl)
  for (var j = thread_index(wid, nwg, lid); j < u.n; j += grid_threads(nwg)) {
    let a = label[j];
    var m = atomicLoad(&ub[a]);
    for (var off = 1u; off <= 2u; off++) {
      if (j + off < u.n) { m = first_offer(m, j, j + off); }
      if (j >= off) { m = first_offer(m, j - off, j); }
    }
    atomicStore(&ub[a], m);
  }
}
