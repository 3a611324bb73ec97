// Binding 2 read-only, for the kernels that only find (populate, filter; option finds: 'plain'), instead of
// graph/parent + unionfind/unionfind. No union runs during these dispatches, so the parents do not change while
// they run and plain loads see the same values as atomic ones — but they may be served from the SM's cache,
// while an atomic load goes to L2 every time: late rounds send millions of finds to the same few roots.
// ECL-MST's find is the same loop (seed 000, source `find`): no path halving, the worklist's representatives
// (implicit path compression) keep the walks short.

@group(0) @binding(2) var<storage, read> uf_parent: array<u32>;

// The root of x's set (parents strictly decrease along every path: unionfind/unionfind.wgsl's invariant).
fn uf_find(x0: u32) -> u32 {
  var x = x0;
  loop {
    let p = uf_parent[x];
    if (p == x) { return x; }
    x = p;
  }
}
