// Reading the BVH's box records in either format (bvh/box.wgsl, src/bvh/layout.ts "Box formats"): every traversal
// (emst/traverse.wgsl, knn/knn.wgsl) goes through box_interval. Constants from the composer: D, BOX16 (1: the u16
// format) and BOXW (u32 words a record: D for u16, 2·D for f32). The includer reads the words (its bindings), and
// with BOX16 sets the frame once per thread (box_frame_set, from the words at box_frame_word).

// The readers' copy of the frame (BOX16 only), set once per thread by box_frame_set.
var<private> box_origin: array<f32, D>;
var<private> box_cell: array<f32, D>;

// The word index of the frame in the box array of an n-point BVH: origins at + a, cells at + D + a.
fn box_frame_word(n: u32) -> u32 {
  return BOXW * max(n, 2u) - BOXW;
}

// Sets axis a of the readers' frame from its two words.
fn box_frame_set(a: u32, origin_bits: u32, cell_bits: u32) {
  box_origin[a] = bitcast<f32>(origin_bits);
  box_cell[a] = bitcast<f32>(cell_bits);
}

// Axis a's interval (lo, hi) of a box record from its words: `lo_word` (word a of the record) and `hi_word` (word
// D + a; the f32 format's only: u16 keeps both ends in word a).
fn box_interval(lo_word: u32, hi_word: u32, a: u32) -> vec2f {
  if (BOX16 != 0u) {
    return vec2f(f32(lo_word & 0xffffu), f32(lo_word >> 16u)) * box_cell[a] + box_origin[a];
  }
  return vec2f(bitcast<f32>(lo_word), bitcast<f32>(hi_word));
}
