// The quantisation frame: one thread per axis turns the bounds accumulator of bounds.wgsl into f32 bit patterns
// lo[D], hi[D], scale[D], where scale = RN_f32(2^bits / (hi − lo)) by an exact integer long division (WGSL's
// `/` is not correctly rounded). CPU twin: sceneFrameCpu / quantScale in src/bvh/morton.cpu.ts. Then the u16 boxes'
// frame origin[D], cell[D] (bvh/box.wgsl box_frame_of; twin boxFrameCpu in src/bvh/box.cpu.ts), which the build
// copies after the last box record (lbvh.ts) whichever format the boxes take.

struct FrameParams { bits: u32, pad0: u32, pad1: u32, pad2: u32 }
@group(0) @binding(0) var<uniform> u: FrameParams;
@group(0) @binding(1) var<storage, read> acc: array<u32>;
@group(0) @binding(2) var<storage, read_write> frame: array<u32>;

// RN_f32(2^bits / e) as bits for e > 0; 0 when the quotient is below 2^−126, F32_MAX above the float range.
fn quant_scale(bits: u32, e: f32) -> u32 {
  if (!(e > 0.0)) { return 0u; }
  let b = bitcast<u32>(e);
  var ex = i32((b >> 23u) & 0xffu);
  var m = b & 0x7fffffu;
  if (ex == 0) { ex = 1; } else { m = m | 0x800000u; }
  for (var k = 0u; k < 24u && m < 0x800000u; k++) { m = m << 1u; ex = ex - 1; }
  // e = m · 2^(ex − 150), m in [2^23, 2^24): 2^bits / e = (2^49 / m) · 2^(bits − ex + 101).
  var q = 0u;
  var r = 1u;
  for (var k = 0u; k < 49u; k++) {
    r = r << 1u;
    q = q << 1u;
    if (r >= m) { r = r - m; q = q | 1u; }
  }
  // q = floor(2^49 / m) in (2^25, 2^26]; round it to 24 bits, to nearest, ties to even.
  let sh = select(2u, 3u, q >= 0x4000000u);
  var mant = q >> sh;
  let rb = q & ((1u << sh) - 1u);
  let half = 1u << (sh - 1u);
  if (rb > half || (rb == half && (r != 0u || (mant & 1u) == 1u))) { mant = mant + 1u; }
  var e2 = i32(sh) + i32(bits) - ex + 101;
  if (mant == 0x1000000u) { mant = 0x800000u; e2 = e2 + 1; }
  let be = e2 + 150;
  if (be >= 255) { return 0x7f7fffffu; }
  if (be <= 0) { return 0u; }
  return (u32(be) << 23u) | (mant & 0x7fffffu);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let a = thread_index(wid, nwg, lid);
  if (a >= D) { return; }
  let lo = f32_unorder(~acc[a]);
  let hi = f32_unorder(acc[D + a]);
  frame[a] = lo;
  frame[D + a] = hi;
  frame[2u * D + a] = quant_scale(u.bits, bitcast<f32>(hi) - bitcast<f32>(lo));
  let f = box_frame_of(bitcast<f32>(lo), bitcast<f32>(hi));
  frame[3u * D + a] = bitcast<u32>(f.x);
  frame[4u * D + a] = bitcast<u32>(f.y);
}
