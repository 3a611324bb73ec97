// emst/active.wgsl over one query window of Borůvka's split traversal (issue 19; src/emst/nearestsplit.ts): a point
// keeps last round's candidate while that candidate's other end is still in another component, its candidate
// becomes NONE when its bound from earlier rounds exceeds its component's upper bound, and otherwise it searches:
// the searching points are appended, in workgroup order, to the window's list (their positions in the window, t),
// so that the traversal's threads take only them. `pointBound`, `cand` and `list` are the window's ranges (the list
// in the changes buffer, free from nodelabels to the next round's changes); counts[u.p0] is the window's count,
// cleared by the caller once a round.
@group(0) @binding(0) var<uniform> u: WinParams;
@group(0) @binding(1) var<storage, read> pointBound: array<u32>;
@group(0) @binding(2) var<storage, read_write> cand: array<vec2u>;
@group(0) @binding(3) var<storage, read_write> list: array<u32>;
@group(0) @binding(4) var<storage, read_write> counts: array<atomic<u32>>;
// From binding 5: label and ub through generated accessors (label_get, ub_get: whole, or in parts above one binding).

var<workgroup> wgCount: atomic<u32>;
var<workgroup> wgBase: u32;
var<workgroup> wgDone: u32;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  // label[n]: the tree is complete (plan.wgsl); read once, uniformly, as barriers follow.
  if (lid == 0u) { wgDone = label_get(u.n); }
  if (workgroupUniformLoad(&wgDone) != 0u) { return; }
  for (var base = group_index(wid, nwg) * WG; base < u.count; base += grid_threads(nwg)) {
    if (lid == 0u) { atomicStore(&wgCount, 0u); }
    workgroupBarrier();
    let t = base + lid;
    var needs = false;
    if (t < u.count) {
      let comp = label_get(u.first + t);
      let prev = cand[t];
      if (!(prev.x != NONE && label_get(prev.y) != comp)) {
        // Keys against keys, exactly (as active.wgsl).
        if (pointBound[t] > ub_get(comp)) {
          cand[t] = vec2u(NONE, NONE);
        } else {
          needs = true;
        }
      }
    }
    var slot = 0u;
    if (needs) { slot = atomicAdd(&wgCount, 1u); }
    workgroupBarrier();
    if (lid == 0u) { wgBase = atomicAdd(&counts[u.p0], atomicLoad(&wgCount)); }
    workgroupBarrier();
    if (needs) { list[wgBase + slot] = t; }
  }
}
