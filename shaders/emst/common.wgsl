// Edge keys of the single-tree Borůvka (seed 002 §3), shared by its kernels.
//
// A key is the f32 bit pattern of the squared Euclidean distance, or of the squared mutual reachability
// distance max(core²(a), core²(b), d²(a, b) / alpha²). Non-negative floats order like their u32 bit patterns, so
// keys compare as u32. Important! Edges are ordered by (key, min original index, max original index): ties
// broken any other way can form cycles among equal edges.

struct Params {
  n: u32,
  // 1 for mutual reachability, 0 for Euclidean.
  mr: u32,
  // 1 / alpha², computed on the host (WGSL division is not correctly rounded).
  ia2: f32,
  // 1: points whose bound from earlier rounds exceeds their component's upper bound skip the traversal.
  skip: u32,
  // The scale cut: keys below it are not edges (0: no cut; Euclidean only).
  cut: u32,
  // 1.0, for add_square (knn/distance.wgsl): a factor the compiler cannot fold keeps squares from being fused.
  one: f32,
  pad1: u32,
  pad2: u32,
  // Periodic side lengths L_k = period[k / 4][k % 4] when PERIODIC != 0 (points inside [0, L_k)).
  period: array<vec4f, 4>,
}

// The side length of periodic axis k.
fn period_of(k: u32) -> f32 {
  return u.period[k / 4u][k % 4u];
}

const NONE: u32 = 0xffffffffu;
// Ulps of slack for the box test of the traversal only (traverse.wgsl: a subtree is pruned when its box bound
// exceeds the radius by more than SLACK). Keys are compared with keys exactly, with no slack: every key comes from
// edge_key() (emst/distance.wgsl), whose squares add_square() keeps from being fused, so the upper bounds, the
// candidates, the radius, the scale cut and the core distances (the k-NN's add_square) agree bit for bit in every
// kernel, as on the CPU. Important! The box bound is a different computation — max(lo − x, x − hi, 0) on box
// corners, and on a periodic axis L − (hi − x), against abs(a − b) and L − |a − b| on points — and is a lower bound
// on the key of every point of the box only because each of its steps is a monotone, correctly rounded f32 operation
// (src/knn/keys.cpu.ts; the CPU prunes with no slack). Nothing checks that a GPU compiler keeps those two shapes of
// code equally unfused; a bound rounded above a key would prune a subtree holding the best edge and give a wrong
// tree, while SLACK costs a few extra box visits. Kept there until a GPU run without it is measured (issue 16).
const SLACK: u32 = 4u * D + 8u;
// The bit pattern of +inf: larger than every finite key, smaller than NONE.
const INF_KEY: u32 = 0x7f800000u;

// Threads of the dispatch grid: the per-point round kernels stride over their items by it, so that the host may
// dispatch them over a grid smaller than n (RoundPasses.strided: a round that is over, or nearly, then costs a few
// workgroups instead of n / WG; with n threads each runs once).
fn grid_threads(nwg: vec3u) -> u32 {
  return nwg.x * nwg.y * WG;
}

// (key, lo, hi) < (bkey, blo, bhi) lexicographically.
fn edge_less(key: u32, lo: u32, hi: u32, bkey: u32, blo: u32, bhi: u32) -> bool {
  if (key != bkey) { return key < bkey; }
  if (lo != blo) { return lo < blo; }
  return hi < bhi;
}

// The label changes as tiles (RoundPasses.tileScan; relabel.wgsl entry `tiles`, nodelabels.wgsl entry `tiles`), in
// the changes buffer: | tile counts, T = ⌈n / 256⌉ words (exclusive prefix sums once scanned) | pad to 8 words |
// change bits, 8 words per tile of 256 points, bit j % 32 of word j / 32 set when points j, j + 1 lie in different
// components |. Important! Tiles are 256 points: these kernels run with WG = 256 (boruvka.ts).
fn tile_count(n: u32) -> u32 {
  return (n + 255u) / 256u;
}
fn tile_bits(n: u32) -> u32 {
  return (tile_count(n) + 7u) / 8u * 8u;
}
