// Edge keys from coordinates (see emst/common.wgsl for the order).
// Contract: the including kernel declares `u: Params` (uniform), `points: array<f32>` (n × D, Morton order) and
// `core2: array<f32>` (n squared core distances in Morton order; any 1-element buffer when u.mr == 0), and D is a
// `const` prepended by the composer.

// Squared distance between Morton positions a and b: the sum over dimensions, in dimension order, of the squared
// f32 differences (the CPU twin rounds each step the same way; a GPU may fuse the multiply-add). In a periodic box
// (PERIODIC != 0) each difference is the minimum image min(|t|, L − |t|) (src/emst/keys.cpu.ts).
fn dist2(a: u32, b: u32) -> f32 {
  var s = 0.0;
  for (var k = 0u; k < D; k++) {
    var t = points[a * D + k] - points[b * D + k];
    if (PERIODIC != 0u) {
      t = abs(t);
      t = min(t, period_of(k) - t);
    }
    s = s + t * t;
  }
  return s;
}

// Ulps within which a mutual-reachability distance counts as equal to the larger core distance (see edge_key).
const MR_SNAP: u32 = D + 2u;

fn edge_key(a: u32, b: u32) -> u32 {
  var w = dist2(a, b);
  if (u.mr != 0u) {
    let m = max(core2[a], core2[b]);
    let w2 = w * u.ia2;
    // Important! Mutual reachability ties massively at core distances: the edge from a to its minSamples-th
    // neighbour must weigh exactly core(a). The core distances come from the k-NN kernel, where the GPU compiler
    // may fuse the multiply-adds of the same distance differently than here (seen on the H100), so a distance a
    // few ulps above the larger core distance is snapped to it; on the CPU (no fusion) the two are bit-equal.
    w = select(max(m, w2), m, bitcast<u32>(w2) <= bitcast<u32>(m) + MR_SNAP);
  }
  return bitcast<u32>(w);
}

