// The distance formula of treeline's point-cloud kernels, on the GPU (its CPU twin: src/knn/keys.cpu.ts):
//   dist²(q, box) = Σ_a g_a², summed in axis order,  g_a = max(lo_a − q_a, q_a − hi_a, 0),
// every square and every addition rounded to f32. A point is a box with lo = hi (g_a = |q_a − x_a|). Every step
// is monotone, so a box's distance never exceeds that of a point inside it.
//
// Important! Every kernel that forms a squared distance adds its terms with add_square(): a GPU compiler may fuse
// `s + t * t` into one fma (no rounding of the square) in one kernel and not in another (DESIGN.md: seen on the
// H100), and then the core distance found by the k-NN kernel and the same pair's key in the Borůvka kernels differ
// by an ulp. `one` is a uniform 1.0 the compiler cannot see through: the square is rounded by its own multiply, and
// fusing the `* one` into the addition changes nothing, so every kernel, and the CPU, round the same steps.
// add_square() is the one function of that formula: its loops (knn.wgsl's box and point distances, emst/distance.wgsl's
// dist2, emst/traverse.wgsl's box_d2) differ only in where their operands come from (WGSL passes no storage pointers
// to functions) and, in a periodic box, in the minimum image of each gap.
fn add_square(s: f32, t: f32, one: f32) -> f32 {
  return s + (t * t) * one;
}

// The gap g of one axis: 0 inside [lo, hi].
fn axis_gap_of(lo: f32, hi: f32, q: f32) -> f32 {
  return max(max(lo - q, q - hi), 0.0);
}
