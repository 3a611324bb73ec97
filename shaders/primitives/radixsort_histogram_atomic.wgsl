// Radix sort pass, step 1, for wide digits (the subgroup path's 8 bits): the digit histogram of each block of
// RS_B keys through workgroup atomics, written digit-major (table[d · numBlocks + block]). RS_REPL copies of
// the histogram (thread t adds to copy t % RS_REPL) spread the atomics of equal digits in one subgroup over
// several addresses; skewed keys (e.g. the high digits of Morton codes) would otherwise serialise.
@group(0) @binding(0) var<uniform> u: SortParams;
@group(0) @binding(1) var<storage, read> keys: array<Key>;
@group(0) @binding(2) var<storage, read_write> table: array<u32>;

const RS_REPL: u32 = 8u;
var<workgroup> s_h: array<atomic<u32>, RS_REPL * RS_DIGITS>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) t: u32) {
  if (rs_skip(t)) { return; }
  // Blocks first, first + stride, … up to the window's end: one block per workgroup where stride = numBlocks
  // (radixsort.ts; a guarded sorter's fixed grid takes several).
  for (var blk = u.blockBase + group_index(wid, nwg); blk < u.blockEnd; blk += u.stride) {
    for (var i = t; i < RS_REPL * RS_DIGITS; i += WG) {
      atomicStore(&s_h[i], 0u);
    }
    workgroupBarrier();
    let base = blk * RS_B;
    // `keys` starts at key kbase (a window of blocks, radixsort.ts).
    let kbase = u.blockBase * RS_B;
    let copy = (t % RS_REPL) * RS_DIGITS;
    for (var j = 0u; j < KPT; j++) {
      let i = base + j * WG + t;
      if (i < u.count) {
        atomicAdd(&s_h[copy + rs_digit(keys[i - kbase], u.shift, u.bits)], 1u);
      }
    }
    workgroupBarrier();
    for (var d = t; d < RS_DIGITS; d += WG) {
      var c = 0u;
      for (var r = 0u; r < RS_REPL; r++) {
        c += atomicLoad(&s_h[r * RS_DIGITS + d]);
      }
      table[d * u.numBlocks + blk] = c;
    }
    // The next block reuses the workgroup arrays.
    workgroupBarrier();
  }
}
