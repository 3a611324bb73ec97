// Edge keys from coordinates (see emst/common.wgsl for the order).
// Contract: the including kernel declares `u: Params` (uniform), `points: array<f32>` (n × D, Morton order) and
// `core2: array<f32>` (n squared core distances in Morton order; any 1-element buffer when u.mr == 0), and D is a
// `const` prepended by the composer.

// Squared distance between Morton positions a and b: the sum over dimensions, in dimension order, of the squared
// f32 differences, each step rounded (add_square, knn/distance.wgsl: no kernel may fuse them), exactly as the CPU
// twin (src/knn/keys.cpu.ts) and the k-NN kernel round them. In a periodic box (PERIODIC != 0) each difference is
// the minimum image min(|t|, L − |t|).
fn dist2(a: u32, b: u32) -> f32 {
  var s = 0.0;
  for (var k = 0u; k < D; k++) {
    var t = abs(points[a * D + k] - points[b * D + k]);
    if (PERIODIC != 0u) {
      t = min(t, period_of(k) - t);
    }
    s = add_square(s, t, u.one);
  }
  return s;
}

// Important! Mutual reachability ties massively at core distances: the edge from a to its minSamples-th neighbour
// must weigh exactly core(a). It does, bit for bit: the k-NN kernel found core²(a) with this very formula
// (add_square), so no snapping to the core distance is needed, and none is done — the CPU does none either, and a
// snap on one backend only gave different trees on tie-heavy data (issue 15 §4.9).
fn edge_key(a: u32, b: u32) -> u32 {
  var w = dist2(a, b);
  if (u.mr != 0u) {
    let m = max(core2[a], core2[b]);
    w = max(m, w * u.ia2);
  }
  return bitcast<u32>(w);
}

// edge_key(a, b) with point a's coordinates given (q, read once by the caller: emst/traverse.wgsl, QREG): the same
// steps, in the same order, on the same values.
fn edge_key_from(q: array<f32, D>, a: u32, b: u32) -> u32 {
  var w = 0.0;
  for (var k = 0u; k < D; k++) {
    var t = abs(q[k] - points[b * D + k]);
    if (PERIODIC != 0u) {
      t = min(t, period_of(k) - t);
    }
    w = add_square(w, t, u.one);
  }
  if (u.mr != 0u) {
    let m = max(core2[a], core2[b]);
    w = max(m, w * u.ia2);
  }
  return bitcast<u32>(w);
}
