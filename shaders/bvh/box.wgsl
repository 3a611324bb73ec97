// The BVH's box formats (src/bvh/layout.ts, "Box formats"; issue 19's memory), in one place for the build (frame.wgsl
// sets the frame, refit.wgsl quantises); the readers (emst/traverse.wgsl, knn/knn.wgsl; the split traversal's BVHs
// keep f32) read records through bvh/boxget.wgsl. CPU twin: src/bvh/box.cpu.ts. No constants needed.
//
// u16: axis a of a box is the word | hi 16 bits | lo 16 bits | of cells of the BVH's frame (origin_a, cell_a): the
// interval [origin + lo·cell, origin + hi·cell]. cell = 2^e, the smallest e in [−126, 112] for which the scene's
// [lo, hi] on that axis scaled by 2^−e lies within ±2^23 and spans at most 65530 cells (box_frame_of; 2^112 always
// does for |x| ≤ 1e38), and origin = (⌊lo·2^−e⌋ − 1)·2^e. The frame's two records follow the last box record.
//
// Important! Rounded outward, and exact where it matters, so a u16 box always contains the f32 one and every GPU
// reads the same interval:
//  - dequantisation: q·2^e is exact, and origin + q·2^e = (base + q)·2^e with |base + q| < 2^24 is a float, so the
//    sum is exact whether or not a GPU fuses the multiply-add (box_interval);
//  - quantisation: x·2^−e is exact (a power of two, the result within ±2^23) unless it falls below the smallest
//    normal float, where GPUs may or may not flush it: box_ftz sets such values to 0 on every GPU and in the twin;
//  - one extra cell of margin each side (⌊x·2^−e⌋ − 1, ⌈x·2^−e⌉ + 1) keeps the interval around x even where
//    box_ftz moved x·2^−e to 0, and against any rounding step a reader might add.

const BOX_F32_MIN_NORMAL: f32 = 1.17549435e-38;

// x, with magnitudes below the smallest normal float set to 0 (so that GPUs that flush and GPUs that do not agree).
fn box_ftz(x: f32) -> f32 {
  return select(x, 0.0, abs(x) < BOX_F32_MIN_NORMAL);
}

// 2^e as an f32, e in [−126, 127].
fn box_pow2(e: i32) -> f32 {
  return bitcast<f32>(u32(e + 127) << 23u);
}

// e of a cell 2^e (its f32 bits).
fn box_cell_exp(cell: f32) -> i32 {
  return i32((bitcast<u32>(cell) >> 23u) & 0xffu) - 127;
}

// Whether cells of 2^e hold [lo, hi] with the margins: scaled ends within ±2^23, at most 65530 cells apart.
fn box_cells_fit(lo: f32, hi: f32, e: i32) -> bool {
  let s = box_pow2(-e);
  let a = box_ftz(lo * s);
  let b = box_ftz(hi * s);
  return abs(a) <= 8388608.0 && abs(b) <= 8388608.0 && ceil(b) - floor(a) <= 65530.0;
}

// The u16 frame (origin, cell) of an axis whose points lie in [lo, hi]: a bisection over e (box_cells_fit is
// monotone in e) that keeps `good` fitting; e = 112 is taken when nothing smaller fits.
fn box_frame_of(lo: f32, hi: f32) -> vec2f {
  var bad = -127;
  var good = 112;
  loop {
    if (good - bad <= 1) { break; }
    let mid = (good + bad) / 2;
    if (box_cells_fit(lo, hi, mid)) { good = mid; } else { bad = mid; }
  }
  let cell = box_pow2(good);
  let base = floor(box_ftz(lo * box_pow2(-good))) - 1.0;
  return vec2f(base * cell, cell);
}

// The lower cell of x (≥ the frame's lo) in the frame (origin, cell), rounded down with one cell of margin.
fn box_quant_lo(x: f32, origin: f32, cell: f32) -> u32 {
  let s = box_pow2(-box_cell_exp(cell));
  return u32(floor(box_ftz(x * s)) - 1.0 - origin * s);
}

// The upper cell of x (≤ the frame's hi), rounded up with one cell of margin.
fn box_quant_hi(x: f32, origin: f32, cell: f32) -> u32 {
  let s = box_pow2(-box_cell_exp(cell));
  return u32(ceil(box_ftz(x * s)) + 1.0 - origin * s);
}

// The u32 word of axis a's cells [qlo, qhi] as the refit accumulates it: | qhi | 0xffff − qlo |, so that the
// componentwise max of two words is the union's; never 0 (qhi ≥ qlo), the refit's "no contribution yet".
fn box_acc16(qlo: u32, qhi: u32) -> u32 {
  return (qhi << 16u) | (0xffffu - qlo);
}

// The componentwise max of two accumulated words (the union of their intervals).
fn box_union16(x: u32, y: u32) -> u32 {
  return max(x & 0xffff0000u, y & 0xffff0000u) | max(x & 0xffffu, y & 0xffffu);
}

// The stored word (| qhi | qlo |) of an accumulated one.
fn box_store16(acc: u32) -> u32 {
  return acc ^ 0xffffu;
}
