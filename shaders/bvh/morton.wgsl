// 64-bit Morton codes (vec2u, .x low word) of n points, and the identity permutation the sort carries.
// CPU twin: src/bvh/morton.cpu.ts; layout: src/bvh/layout.ts. Host side: src/bvh/codes.ts, which binds the window
// [base, base + n) of points, codes and values (src/gpu/bigarray.ts; base 0 and everything whole when it fits).
//   d = 1: the order-preserving image of the coordinate.
//   d ≥ 2: cell = min(floor((x − lo) · scale), maxCell) per axis — subtract, multiply, floor only, each
//          correctly rounded, so the codes equal the CPU's bit for bit — and bit t of axis a's cell goes to code
//          bit t·D + (D − 1 − a).

struct MortonParams { n: u32, bits: u32, max_cell: f32, base: u32 }
@group(0) @binding(0) var<uniform> mp: MortonParams;
@group(0) @binding(1) var<storage, read> points: array<u32>;
@group(0) @binding(2) var<storage, read> frame: array<u32>;
@group(0) @binding(3) var<storage, read_write> codes: array<vec2u>;
@group(0) @binding(4) var<storage, read_write> values: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = thread_index(wid, nwg, lid);
  if (i >= mp.n) { return; }
  values[i] = mp.base + i;
  codes[i] = morton_code(i);
}

// The code of point i (of the bound window); also called by bvh/prefix.wgsl (src/bvh/prefixsort.ts).
fn morton_code(i: u32) -> vec2u {
  if (D == 1u) {
    return vec2u(f32_order(points[i]), 0u);
  }
  if (D == 3u && mp.bits == 21u) {
    return morton3(i);
  }
  if (D == 2u && MORTON2 == 1u && mp.bits == 32u) {
    return morton2(i);
  }
  var lo = 0u;
  var hi = 0u;
  for (var a = 0u; a < D; a++) {
    let x = bitcast<f32>(points[i * D + a]);
    let t = (x - bitcast<f32>(frame[a])) * bitcast<f32>(frame[2u * D + a]);
    let cell = u32(min(floor(t), mp.max_cell));
    for (var b = 0u; b < mp.bits; b++) {
      let bit = (cell >> b) & 1u;
      let p = b * D + (D - 1u - a);
      lo = lo | select(0u, bit << (p & 31u), p < 32u);
      hi = hi | select(bit << (p & 31u), 0u, p < 32u);
    }
  }
  return vec2u(lo, hi);
}

// Every bit of a 10-bit value moved to every third bit (bit b → bit 3b), by the usual magic masks.
fn spread3(v: u32) -> u32 {
  var x = v & 0x3ffu;
  x = (x | (x << 16u)) & 0x030000ffu;
  x = (x | (x << 8u)) & 0x0300f00fu;
  x = (x | (x << 4u)) & 0x030c30c3u;
  x = (x | (x << 2u)) & 0x09249249u;
  return x;
}

// The 3D fast path (21 bits per axis): the same code as the generic loop, bit t of axis a at code bit
// 3t + (2 − a), built from three spread chunks of the cell (bits 0–9, 10–19, 20) per axis.
fn morton3(i: u32) -> vec2u {
  var lo = 0u;
  var hi = 0u;
  for (var a = 0u; a < 3u; a++) {
    let x = bitcast<f32>(points[i * 3u + a]);
    let t = (x - bitcast<f32>(frame[a])) * bitcast<f32>(frame[6u + a]);
    let cell = u32(min(floor(t), mp.max_cell));
    // S = spread(bits 0–9) | spread(bits 10–19) << 30 | bit 20 << 60, as (sl, sh) 32-bit halves.
    let s0 = spread3(cell);
    let s1 = spread3(cell >> 10u);
    let sl = s0 | (s1 << 30u);
    let sh = (s1 >> 2u) | (((cell >> 20u) & 1u) << 28u);
    // Shift the 64-bit S left by k = 2 − a.
    let k = 2u - a;
    if (k == 0u) {
      lo = lo | sl;
      hi = hi | sh;
    } else {
      lo = lo | (sl << k);
      hi = hi | (sh << k) | (sl >> (32u - k));
    }
  }
  return vec2u(lo, hi);
}

// Every bit of a 16-bit value moved to every second bit (bit b → bit 2b), by the usual magic masks.
fn spread2(v: u32) -> u32 {
  var x = v & 0xffffu;
  x = (x | (x << 8u)) & 0x00ff00ffu;
  x = (x | (x << 4u)) & 0x0f0f0f0fu;
  x = (x | (x << 2u)) & 0x33333333u;
  x = (x | (x << 1u)) & 0x55555555u;
  return x;
}

// The 2D fast path (32 bits per axis; MORTON2, a constant from src/bvh/codes.ts): the same code as the generic
// loop, bit t of axis a at code bit 2t + (1 − a) — cell bits 0–15 in the low word, 16–31 in the high word.
fn morton2(i: u32) -> vec2u {
  var cell: array<u32, 2>;
  for (var a = 0u; a < 2u; a++) {
    let x = bitcast<f32>(points[i * 2u + a]);
    let t = (x - bitcast<f32>(frame[a])) * bitcast<f32>(frame[4u + a]);
    cell[a] = u32(min(floor(t), mp.max_cell));
  }
  let lo = (spread2(cell[0]) << 1u) | spread2(cell[1]);
  let hi = (spread2(cell[0] >> 16u) << 1u) | spread2(cell[1] >> 16u);
  return vec2u(lo, hi);
}
