// Lock-free union-find over a parent array of atomics, shared by the EMST merge (Borůvka), the graph MSF
// (ECL-MST) and the dendrogram. Include it through KernelSpec.include, e.g.
//   include: ['common/grid', 'unionfind/unionfind']
//
// Contract. This module declares NO binding. The including kernel declares, at whatever binding it likes,
//   @group(0) @binding(K) var<storage, read_write> uf_parent: array<atomic<u32>>;
// (WGSL allows a module-scope variable to be used before its declaration), and guarantees that every index
// passed to uf_find / uf_union is below the number of initialised elements (parent[i] = i at init).
//
// Source: Fallin, Gonzalez, Seo, Burtscher, "A High-Performance MST Implementation for GPUs" (ECL-MST, SC'23;
// ../shared/seeds/000), §3.2: lock-free disjoint sets, union by atomicCAS. We differ in two ways: the SMALLER
// root becomes the root (ECL-MST keeps the larger), so that flattened labels are the smallest index of each
// set and equal the CPU twin's (src/unionfind/unionfind.cpu.ts) element for element; and find halves paths
// (ECL-MST relies on implicit path compression through its worklist instead).
//
// Correctness under any interleaving (WebGPU atomics are relaxed, with no ordering across workgroups):
// Important! Invariant: every value ever stored in uf_parent[x] is an element of x's set that is <= x, and
// equals x only while x is a root. It holds because
//   - a root changes only by atomicCompareExchangeWeak(&uf_parent[hi], hi, lo) with lo < hi: it succeeds only
//     if hi is still a root, and a root never becomes a root again (later values are all < hi);
//   - path halving writes with atomicMin(&uf_parent[x], grandparent) and only where x was seen not to be a
//     root: the grandparent is an element of x's set below x, and atomicMin never raises the pointer, so a
//     concurrent halving or a later flatten store of the root is never undone by a stale one.
// So pointers strictly decrease along every path (no cycles, find terminates), each tree's root is the
// smallest element of its tree, and each successful CAS merges two different sets (hi is the root of its own
// tree, and hi cannot be an ancestor of lo because ancestors are smaller): the number of unions that return
// true is exactly n − (number of sets). No spin locks: a failed CAS means another thread made progress, or it
// failed spuriously, and the loop re-finds.

// The root of x's set at some moment during the call (the final root when no union runs concurrently).
fn uf_find(x0: u32) -> u32 {
  var x = x0;
  loop {
    let p = atomicLoad(&uf_parent[x]);
    if (p == x) { return x; }
    let g = atomicLoad(&uf_parent[p]);
    if (g == p) { return p; }
    // Path halving: x skips its parent. atomicMin, not a store: never replaces a shorter link by a longer one.
    atomicMin(&uf_parent[x], g);
    x = g;
  }
}

// Merges the sets of a and b; true iff this call linked two different sets (false if they already were one).
// The smaller root becomes the root of the merged set.
fn uf_union(a: u32, b: u32) -> bool {
  var ra = a;
  var rb = b;
  loop {
    ra = uf_find(ra);
    rb = uf_find(rb);
    if (ra == rb) { return false; }
    let lo = min(ra, rb);
    let hi = max(ra, rb);
    // Important! Link only a root (expected value hi = "hi is still a root"), and always larger under smaller.
    let r = atomicCompareExchangeWeak(&uf_parent[hi], hi, lo);
    if (r.exchanged) { return true; }
    // Lost a race (hi was linked meanwhile) or failed spuriously: re-find from the old roots.
  }
}
