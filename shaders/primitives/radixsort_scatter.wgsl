// Radix sort pass, step 3, subgroup-free: each block ranks its keys stably by digit and writes every pair to
//   base(d) + table(d, block) + (its position among the block's keys of digit d),
// where base(d) is the exclusive scan of the digit totals from step 2.
//
// Ranking follows CUB's BlockRadixRank (radixsort_counters): thread t ranks KPT CONSECUTIVE keys of the block
// (so that per-thread counts in (digit, thread) order give a stable rank). Keys are loaded striped
// (coalesced) and only their digits are transposed to the blocked order and the ranks back:
//
//   global loads : striped — thread t holds block positions j·WG + t
//   ranking      : blocked — thread t ranks block positions t·KPT + j
//   stores       : radixsort_scatter_common (a local sort in workgroup memory, then coalesced runs)
//
// Composed after radixsort_common, radixsort_counters and radixsort_scatter_common.

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) t: u32) {
  if (rs_skip(t)) { return; }
  // Blocks first, first + stride, … up to the window's end: one block per workgroup where stride = numBlocks
  // (radixsort.ts; a guarded sorter's fixed grid takes several).
  for (var blk = u.blockBase + group_index(wid, nwg); blk < u.blockEnd; blk += u.stride) {
    let base = blk * RS_B;
    let n = min(RS_B, u.count - base);
    // keysIn and valsIn start at key u.blockBase · RS_B (a window of blocks, radixsort.ts).
    let local = base - u.blockBase * RS_B;
    rs_hbase = t;
    rs_hstride = WG;
    rs_counters_clear(t);

    // Striped loads. Slots past the end get the largest digit: being last in the block they rank last and land
    // at sorted positions ≥ n, which are never stored.
    var keys: array<Key, KPT>;
    var dig: array<u32, KPT>;
    for (var j = 0u; j < KPT; j++) {
      let p = j * WG + t;
      var d = RS_DIGITS - 1u;
      if (p < n) {
        keys[j] = keysIn[local + p];
        d = rs_digit(keys[j], u.shift, u.bits);
      }
      dig[j] = d;
      s_x[xi(p)] = d;
    }
    workgroupBarrier();

    // Blocked counting: block position t·KPT + j is the j-th key thread t ranks.
    var bdig: array<u32, KPT>;
    var run: array<u32, KPT>;
    for (var j = 0u; j < KPT; j++) {
      bdig[j] = s_x[xi(t * KPT + j)];
      run[j] = rs_counters_bump(t, bdig[j]);
    }
    var total = 0u;
    if (t < RS_DIGITS) { total = totals[t]; }
    // Barriers inside: every blocked read of s_x above is done before the writes below.
    let sc = rs_counters_scan(t, total);
    let lowTotal = sc.total.x & 0xFFFFu;
    for (var j = 0u; j < KPT; j++) {
      s_x[xi(t * KPT + j)] = rs_counters_prefix(bdig[j], t, lowTotal) + run[j];
    }
    if (t < RS_DIGITS) {
      // sc.excl.x is the exclusive scan of the digit totals: the global start of digit t.
      s_off[t] = sc.excl.x + table[t * u.numBlocks + blk] - rs_digit_start(t, lowTotal);
    }
    workgroupBarrier();

    // Back to striped: the rank of each held key.
    var rank: array<u32, KPT>;
    for (var j = 0u; j < KPT; j++) {
      rank[j] = s_x[xi(j * WG + t)];
    }
    rs_write_out(t, n, local, &rank, &keys, &dig);
    // The next block reuses the workgroup arrays.
    workgroupBarrier();
  }
}
