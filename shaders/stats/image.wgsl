// Displacements and lengths between points for the statistics, in float32 (included by walk.wgsl, lengths.wgsl).
// Contract: the includer declares `u: StatsParams` (uniform) and the accessor `points_get` of the n × D f32
// coordinates (generated: src/gpu/bigarray.ts, whole or in parts), and D and PERIODIC are prepended. On a periodic axis the displacement is the minimum image, computed without cancellation:
// across the face it is (L − the larger coordinate) + the smaller, where L − x is exact for x ≥ L/2 (Sterbenz), so
// a short edge across a face keeps float32's relative precision (min(|t|, L − |t|) would lose it).

struct StatsParams {
  // Edges: edge e joins sources[e · stride] and targets[e · stride + toff] (two arrays: stride 1, toff 0; the
  // EMST's | source | target | key | records bound as both: stride 3, toff 1).
  m: u32,
  stride: u32,
  toff: u32,
  p2: u32,
  // Periodic side lengths L_k = period[k / 4][k % 4] when PERIODIC != 0.
  period: array<vec4f, 4>,
}

// The displacement from point a to point b along axis k.
fn axis_step(a: u32, b: u32, k: u32) -> f32 {
  let xa = points_get(a * D + k);
  let xb = points_get(b * D + k);
  let d = xb - xa;
  if (PERIODIC == 0u) { return d; }
  let L = u.period[k / 4u][k % 4u];
  // At exactly ±L/2 both images are as short: −L/2 is taken, as the CPU twin's d − L·round(d / L) does.
  if (d >= 0.5 * L) { return -((L - xb) + xa); }
  if (d < -0.5 * L) { return (L - xa) + xb; }
  return d;
}

// The length of the edge between points a and b.
fn edge_length(a: u32, b: u32) -> f32 {
  var s = 0.0;
  for (var k = 0u; k < D; k++) {
    let t = axis_step(a, b, k);
    s += t * t;
  }
  return sqrt(s);
}
