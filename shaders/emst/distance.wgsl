// Edge keys from coordinates (see emst/common.wgsl for the order).
// Contract: the including kernel declares `u: Params` (uniform), `points: array<f32>` (n × D, Morton order) and
// `core2: array<f32>` (n squared core distances in Morton order; any 1-element buffer when u.mr == 0), and D is a
// `const` prepended by the composer.

// Squared distance between Morton positions a and b: the sum over dimensions, in dimension order, of the squared
// f32 differences (the CPU twin rounds each step the same way; a GPU may fuse the multiply-add).
fn dist2(a: u32, b: u32) -> f32 {
  var s = 0.0;
  for (var k = 0u; k < D; k++) {
    let t = points[a * D + k] - points[b * D + k];
    s = s + t * t;
  }
  return s;
}

fn edge_key(a: u32, b: u32) -> u32 {
  var w = dist2(a, b);
  if (u.mr != 0u) {
    w = max(max(core2[a], core2[b]), w * u.ia2);
  }
  return bitcast<u32>(w);
}

