// The nearest point in a different component, for every point (seed 002 §3, Algorithm 2): a stack traversal of
// the BVH (layout: src/bvh/layout.ts) from the header record, nearer child first, that
//  - skips subtrees whose leaves all lie in the query's component ("Optimization 1", childLabel),
//  - prunes by the radius, which starts at the component's upper bound and shrinks to the best key found, keeping
//    `<=` so that candidates equal to the radius still reach the (key, min index, max index) tie-break,
//  - for mutual reachability prunes by max(box distance² / alpha², own core², smallest core² in the subtree), as
//    fast_hdbscan does.
// Writes cand[j] = (key, other Morton position), key NONE for none (the original indices of the edge's ends are
// order[j] and order[other]: later kernels take min and max of them).
//
// Beyond the paper: points whose previous candidate is still outgoing keep it (see main), and bounded points skip
// the traversal. A point's distance to the nearest point of another
// component never decreases from round to round (its component only grows, the others only shrink), so the final
// radius of its last traversal (the key it found, or the radius it searched in vain) bounds this round's from
// below; when that exceeds its component's current upper bound, the point cannot hold the component's shortest
// edge and is left out of the active list (u.skip = 1; emst/active.wgsl; `pointBound` keeps the bounds). The stack also keeps each pushed node's
// lower bound, so nodes that fell outside the shrinking radius are dropped without reading their record.
// The traversal itself is emst/traverse.wgsl, shared with nearest_lite.wgsl.
// Bindings 0–10 are declared by emst/traverse.wgsl.
@group(0) @binding(11) var<storage, read_write> pointBound: array<u32>;
// The points to traverse (emst/active.wgsl); their count, then the counter of points taken (both zeroed every
// round); u.skip = 0 traverses every point.
@group(0) @binding(12) var<storage, read> activeList: array<u32>;
@group(0) @binding(13) var<storage, read_write> activeCount: array<atomic<u32>>;
// The second and third box parts (bvh/boxread.wgsl).
@group(0) @binding(14) var<storage, read> boxes1: array<u32>;
@group(0) @binding(15) var<storage, read> boxes2: array<u32>;

var<workgroup> wgWord: u32;

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32) {
  // label[n]: the tree is complete (plan.wgsl). Read once, uniformly: barriers follow.
  if (lid == 0u) { wgWord = label[u.n]; }
  if (workgroupUniformLoad(&wgWord) != 0u) { return; }
  // Important! Only the points emst/active.wgsl kept (u.skip = 1): the others either keep last round's candidate —
  // whose other end still lies in another component, so it is still their nearest other-component point (last
  // round's search was exact within its radius, and the other components have only lost points since) — or are
  // bounded below their component's upper bound (their candidate was set to NONE there).
  if (lid == 0u) { wgWord = select(u.n, atomicLoad(&activeCount[0]), u.skip != 0u); }
  let count = workgroupUniformLoad(&wgWord);
  // A fixed grid (a direct dispatch: plan.wgsl says why not an indirect one sized to the count) whose workgroups
  // take the next WG points from a counter (activeCount[1], zeroed every round) until none are left: traversals
  // differ in length, and taking work as it frees balances them as a grid sized to the count would.
  loop {
    if (lid == 0u) { wgWord = atomicAdd(&activeCount[1], WG); }
    let base = workgroupUniformLoad(&wgWord);
    if (base >= count) { break; }
    let t = base + lid;
    if (t < count) {
      var j = t;
      if (u.skip != 0u) { j = activeList[t]; }
      let found = nearest_of(j);
      cand[j] = vec2u(found.key, found.other);
      pointBound[j] = found.radius;
    }
  }
}
