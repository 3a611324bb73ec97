// The one distance formula of treeline's point-cloud kernels (twin: src/knn/distance.cpu.ts):
//   dist²(q, box) = pairwise Σ_a g_a²,  g_a = max(lo_a − q_a, q_a − hi_a, 0),
// the sum a fixed pairwise tree over the axes (sequential for D ≤ 3). A point is a box with lo = hi. Every step
// is monotone, so a box's distance never exceeds that of a point inside it.

// The pairwise sum of s[0 … D).
fn pairwise_sum(v: array<f32, D>) -> f32 {
  var s = v;
  for (var w = 1u; w < D; w = w * 2u) {
    for (var a = 0u; a + w < D; a = a + 2u * w) { s[a] = s[a] + s[a + w]; }
  }
  return s[0];
}

// The gap term g² of one axis.
fn gap2(lo: f32, hi: f32, q: f32) -> f32 {
  let g = max(max(lo - q, q - hi), 0.0);
  return g * g;
}
