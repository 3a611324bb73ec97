// Reduction (min, max or sum) of u32 or f32 to one value: block g combines its TILE = WG × ITEMS elements
// (strided loads, so every load instruction is coalesced) into dst[out_index + g]; src/primitives/reduce.ts
// repeats that over the block results until one block is left, whose result lands at the caller's index.
// A tree of blocks needs no communication between workgroups (Harris, "Optimizing Parallel Reduction in
// CUDA", 2007; Merrill & Garland 2016, NVR-2016-002, §3 for the multi-pass structure).
// Values travel as u32 bits; F32 reinterprets them. f32 sums are summed in a tree, not left to right, so they
// differ from a sequential sum by rounding. NaN inputs give an unspecified result.
// Composed after common/grid and reduce_wg_{subgroup,shared}.

const OP_SUM: u32 = 0u;
const OP_MIN: u32 = 1u;
const OP_MAX: u32 = 2u;

/** OP_SUM, OP_MIN or OP_MAX. */
override OP: u32 = 0u;
/** The values are f32 (else u32). */
override F32: bool = false;
/** Elements per block. */
override TILE: u32 = WG * ITEMS;

struct Params {
  /** Number of elements. */
  count: u32,
  /** Where block 0's result goes in dst. */
  out_index: u32,
  /** Number of blocks (the grid may hold more workgroups than that). */
  num_groups: u32,
  pad: u32,
}

@group(0) @binding(0) var<uniform> u: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

/** The identity of OP: 0, or the largest / smallest value (u32 max, ±Inf) for min / max. */
fn identity() -> u32 {
  if (OP == OP_SUM) {
    return 0u;
  }
  if (OP == OP_MIN) {
    return select(0xFFFFFFFFu, 0x7F800000u, F32);
  }
  return select(0u, 0xFF800000u, F32);
}

fn combine(a: u32, b: u32) -> u32 {
  if (F32) {
    let x = bitcast<f32>(a);
    let y = bitcast<f32>(b);
    if (OP == OP_SUM) {
      return bitcast<u32>(x + y);
    }
    if (OP == OP_MIN) {
      return bitcast<u32>(min(x, y));
    }
    return bitcast<u32>(max(x, y));
  }
  if (OP == OP_SUM) {
    return a + b;
  }
  if (OP == OP_MIN) {
    return min(a, b);
  }
  return max(a, b);
}

@compute @workgroup_size(WG)
fn reduce(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
          @builtin(local_invocation_index) lid: u32) {
  let g = group_index(wid, nwg);
  if (g >= u.num_groups) {
    return;
  }
  let base = g * TILE;
  var acc = identity();
  if (base + TILE <= u.count) {
    for (var i = 0u; i < ITEMS; i++) {
      acc = combine(acc, src[base + i * WG + lid]);
    }
  } else {
    for (var i = 0u; i < ITEMS; i++) {
      let k = base + i * WG + lid;
      if (k < u.count) {
        acc = combine(acc, src[k]);
      }
    }
  }
  let r = wg_reduce(lid, acc);
  if (lid == 0u) {
    dst[u.out_index + g] = r;
  }
}
