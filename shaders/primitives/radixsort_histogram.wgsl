// Radix sort pass, step 1: the digit histogram of each block of RS_B keys, written digit-major
// (table[d · numBlocks + block]) so that step 2 scans each digit's row over the blocks.
@group(0) @binding(0) var<uniform> u: SortParams;
@group(0) @binding(1) var<storage, read> keys: array<Key>;
@group(0) @binding(2) var<storage, read_write> table: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) t: u32) {
  if (rs_skip(t)) { return; }
  // Blocks first, first + stride, … up to the window's end: one block per workgroup where stride = numBlocks
  // (radixsort.ts; a guarded sorter's fixed grid takes several).
  for (var blk = u.blockBase + group_index(wid, nwg); blk < u.blockEnd; blk += u.stride) {
    rs_counters_clear(t);
    // Striped (coalesced) loads: the order in which a block's keys are counted does not matter here.
    let base = blk * RS_B;
    // `keys` starts at key kbase (a window of blocks, radixsort.ts).
    let kbase = u.blockBase * RS_B;
    for (var j = 0u; j < KPT; j++) {
      let i = base + j * WG + t;
      if (i < u.count) {
        rs_counters_bump(t, rs_digit(keys[i - kbase], u.shift, u.bits));
      }
    }
    let sc = rs_counters_scan(t, 0u);
    let lowTotal = sc.total.x & 0xFFFFu;
    let n = lowTotal + (sc.total.x >> 16u);
    for (var d = t; d < RS_DIGITS; d += WG) {
      var next = n;
      if (d + 1u < RS_DIGITS) { next = rs_digit_start(d + 1u, lowTotal); }
      table[d * u.numBlocks + blk] = next - rs_digit_start(d, lowTotal);
    }
    // The next block reuses the workgroup arrays.
    workgroupBarrier();
  }
}
