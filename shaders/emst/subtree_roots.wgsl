// The roots of the subtree windows of Borůvka's split traversal (issue 19; src/emst/nearestsplit.ts, nearest_split.wgsl):
// the Morton positions are cut into tree windows of `step` leaves, [w·step, (w + 1)·step), and window w's roots are
// the maximal subtrees whose leaves all lie in it. A subtree of the Karras hierarchy (src/bvh/layout.ts) covering
// leaves [a, b] holds only internal nodes of indices in [a, b], so a window binds its range of every BVH array and
// its roots' subtrees never leave that range.
//
// A node is a root of a window iff its range lies in that window and its parent's does not: every internal node
// whose range straddles two windows looks at its two children, left [a, γ], right [γ + 1, b], where γ is the split
// (the left child is internal node γ, or leaf γ when a = γ: bvh/karras.cpu.ts, linkNode). The tree's root (internal
// node 0) is the root of window 0 when all n leaves lie in it.
//
// roots: ROOT_STRIDE words per window, | count | roots … | (atomicAdd order: the traversal's result does not depend on
// the order it visits them). A window's roots number at most 2·STACK_SIZE (bvh/layout.ts): each has a parent that
// straddles one of the window's two ends, those parents lie on the two root-to-leaf paths through the ends, and each
// such parent has at most one child inside. The caller clears `roots`, then dispatches this kernel once per tree
// window over its internal nodes [first, first + count), whose `links` and `ranges` are bound from `first` on.
// CPU twin: src/emst/nearestsplit.cpu.ts (subtreeRootsCpu).

struct RootParams {
  n: u32,
  // Leaves per tree window (every window but the last).
  step: u32,
  first: u32,
  count: u32,
}
@group(0) @binding(0) var<uniform> p: RootParams;
@group(0) @binding(1) var<storage, read> links: array<vec2u>;
@group(0) @binding(2) var<storage, read> ranges: array<u32>;
@group(0) @binding(3) var<storage, read_write> roots: array<atomic<u32>>;

const ROOT_STRIDE: u32 = 256u;

// Appends node c, whose leaves start at position a, to the roots of a's window.
fn add_root(c: u32, a: u32) {
  let w = a / p.step;
  let slot = atomicAdd(&roots[w * ROOT_STRIDE], 1u);
  // Never reached with a valid BVH (at most 2·96 roots a window, above): the count still grows, and the host fails
  // loudly on a count above ROOT_STRIDE − 1 (emst/splitroots.ts) — the guard only keeps the write in bounds.
  if (slot < ROOT_STRIDE - 1u) { atomicStore(&roots[w * ROOT_STRIDE + 1u + slot], c); }
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let t = thread_index(wid, nwg, lid);
  if (t >= p.count) { return; }
  let i = p.first + t;
  let r = node_range(i, ranges[t]);
  if (r.x / p.step == r.y / p.step) {
    // Inside one window: a root only if it has no parent (the whole tree in window 0).
    if (i == 0u) { add_root(0u, 0u); }
    return;
  }
  let l = links[t];
  let leaf0 = p.n - 1u;
  let split = select(l.x, l.x - leaf0, l.x >= leaf0);
  if (r.x / p.step == split / p.step) { add_root(l.x, r.x); }
  if ((split + 1u) / p.step == r.y / p.step) { add_root(l.y, split + 1u); }
}
