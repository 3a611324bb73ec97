// Reading the BVH's box records in either format (bvh/box.wgsl, src/bvh/layout.ts "Box formats"): every traversal
// (emst/traverse.wgsl, knn/knn.wgsl) goes through box_interval. Constants from the composer: D, BOX16 (1: the u16
// format) and BOXW (u32 words a record: D for u16, 2·D for f32). The includer reads the words (its bindings): a
// record's, and with BOX16 the frame's (at box_frame_word).

// The word index of the frame in the box array of an n-point BVH: origins at + a, cells at + D + a.
fn box_frame_word(n: u32) -> u32 {
  return BOXW * max(n, 2u) - BOXW;
}

// Axis a's interval (lo, hi) of a box record from its words: `lo_word` (word a of the record) and `hi_word` (word
// D + a; the f32 format's only: u16 keeps both ends in word a); u16 also takes axis a's frame words (origin, cell
// bits), which the includer reads where it is used — from its binding (the same words for every thread: cached),
// not held in registers for the whole traversal (H100, issue 19: a frame in `var<private>` arrays made the 3D
// traversal 1.8x slower).
fn box_interval(lo_word: u32, hi_word: u32, origin_bits: u32, cell_bits: u32) -> vec2f {
  if (BOX16 != 0u) {
    let q = vec2f(f32(lo_word & 0xffffu), f32(lo_word >> 16u));
    return q * bitcast<f32>(cell_bits) + bitcast<f32>(origin_bits);
  }
  return vec2f(bitcast<f32>(lo_word), bitcast<f32>(hi_word));
}
