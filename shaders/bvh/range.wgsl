// Internal node i's leaf range [first, last] from the one end the BVH stores (src/bvh/layout.ts, "Ranges"): Karras
// 2012 — every internal node i covers a range of which leaf position i is one end, so only the other is kept.
fn node_range(i: u32, other: u32) -> vec2u {
  return vec2u(min(i, other), max(i, other));
}

// The end of [first, last] that the BVH stores for internal node i (the one that is not i).
fn range_other(i: u32, first: u32, last: u32) -> u32 {
  return select(first, last, first == i);
}
