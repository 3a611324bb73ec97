// The order-preserving map from f32 bit patterns to u32 (twin: src/bvh/floatorder.ts): for finite floats
// a < b ⇔ f32_order(a) < f32_order(b), and −0 orders just below +0. Bounds and boxes are max-reductions in this
// order, done on bit patterns (never on floats), so no GPU can flush or canonicalise them.

// order(bits): flip all bits of negatives, set the sign bit of non-negatives.
fn f32_order(bits: u32) -> u32 {
  return select(bits | 0x80000000u, ~bits, (bits & 0x80000000u) != 0u);
}

// The inverse of f32_order, as bits.
fn f32_unorder(u: u32) -> u32 {
  return select(~u, u & 0x7fffffffu, (u & 0x80000000u) != 0u);
}
