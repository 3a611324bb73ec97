// Radix sort pass, step 3, with subgroups: the same contract as radixsort_scatter, but each subgroup ranks its
// keys with warp-level multi-split (Adinets & Merrill 2022, "Onesweep: A Faster Least Significant Digit Radix
// Sort for GPUs", §3.3; Ashkiani et al. 2016, "GPU Multisplit"): RADIX_BITS ballots give each key the mask of
// the subgroup's lanes holding the same digit, the highest such lane adds their number to the subgroup's
// digit counter, and the rank within the subgroup is (counter before) + (peers on lower lanes). No per-thread
// counter table, so digits can be 8 bits wide (half the passes of the subgroup-free path).
//
// Subgroup w (numbered by arrival, so that nothing assumes how invocations map to subgroups) owns block
// positions [w·sg·KPT, (w + 1)·sg·KPT), lane l holding positions w·sg·KPT + j·sg + l: coalesced loads, and
// (subgroup, j, lane) order is block order, so the ranks are stable.
//
// Requires subgroup sizes ≤ 32 (ballots are read from .x) and MAX_WARPS ≥ WG / subgroup size (radixsort.ts
// checks the adapter's subgroupMinSize/MaxSize). Composed after radixsort_common and radixsort_scatter_common.

// Per subgroup, the packed (two digits per word) digit counters, then their exclusive scan over the subgroups
// plus the digit's start in the block.
var<workgroup> s_wh: array<atomic<u32>, MAX_WARPS * RS_HALF>;
var<workgroup> s_warps: atomic<u32>;
var<workgroup> s_part4: array<vec4u, 2u * RS_HALF>;

struct RsScan4 {
  excl: vec4u,
  total: vec4u,
}

// Exclusive scan over threads 0 … RS_HALF − 1 (Hillis & Steele); every thread calls it in uniform control flow.
fn rs_half_scan4(t: u32, x: vec4u) -> RsScan4 {
  let inScan = t < RS_HALF;
  var cur = 0u;
  var acc = x;
  if (inScan) { s_part4[t] = x; }
  workgroupBarrier();
  for (var off = 1u; off < RS_HALF; off = off << 1u) {
    if (inScan && t >= off) {
      acc = acc + s_part4[cur * RS_HALF + t - off];
    }
    cur = 1u - cur;
    if (inScan) { s_part4[cur * RS_HALF + t] = acc; }
    workgroupBarrier();
  }
  return RsScan4(acc - x, s_part4[cur * RS_HALF + RS_HALF - 1u]);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) t: u32, @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg: u32) {
  if (rs_skip(t)) { return; }
  // Blocks first, first + stride, … up to the window's end: one block per workgroup where stride = numBlocks
  // (radixsort.ts; a guarded sorter's fixed grid takes several).
  for (var blk = u.blockBase + group_index(wid, nwg); blk < u.blockEnd; blk += u.stride) {
    let base = blk * RS_B;
    let n = min(RS_B, u.count - base);
    // keysIn and valsIn start at key u.blockBase · RS_B (a window of blocks, radixsort.ts).
    let local = base - u.blockBase * RS_B;
    for (var i = t; i < MAX_WARPS * RS_HALF; i += WG) {
      atomicStore(&s_wh[i], 0u);
    }
    if (t == 0u) { atomicStore(&s_warps, 0u); }
    workgroupBarrier();
    var slot = 0u;
    if (lane == 0u) { slot = atomicAdd(&s_warps, 1u); }
    let w = subgroupBroadcast(slot, 0u);
    rs_hbase = w * sg * KPT + lane;
    rs_hstride = sg;

    // Slots past the end get this pass's largest digit: being last in the block they rank last and land at
    // sorted positions ≥ n, which are never stored.
    let maxDigit = (1u << u.bits) - 1u;
    var keys: array<Key, KPT>;
    var dig: array<u32, KPT>;
    for (var j = 0u; j < KPT; j++) {
      let p = rs_hbase + j * sg;
      dig[j] = maxDigit;
      if (p < n) {
        keys[j] = keysIn[local + p];
        dig[j] = rs_digit(keys[j], u.shift, u.bits);
      }
    }

    // Warp-level multi-split.
    let below = (1u << lane) - 1u;
    let row = w * RS_HALF;
    var rank: array<u32, KPT>;
    for (var j = 0u; j < KPT; j++) {
      let d = dig[j];
      var peers = subgroupBallot(true).x;
      // A constant trip count (unrolled); bits at and above u.bits are zero in every digit of the pass.
      for (var b = 0u; b < RADIX_BITS; b++) {
        let on = ((d >> b) & 1u) != 0u;
        let votes = subgroupBallot(on).x;
        peers &= select(~votes, votes, on);
      }
      let leader = firstLeadingBit(peers);
      let sh = (d / RS_HALF) * 16u;
      var before = 0u;
      if (lane == leader) {
        before = atomicAdd(&s_wh[row + d % RS_HALF], countOneBits(peers) << sh);
      }
      before = subgroupShuffle(before, leader);
      rank[j] = ((before >> sh) & 0xFFFFu) + countOneBits(peers & below);
    }
    workgroupBarrier();

    // Thread c < RS_HALF owns digits c and c + RS_HALF: scan their counters over the subgroups, then over the
    // digits together with the digit totals (global starts).
    let nw = WG / sg;
    var tot = 0u;
    var gLo = 0u;
    var gHi = 0u;
    if (t < RS_HALF) {
      for (var v = 0u; v < nw; v++) {
        let i = v * RS_HALF + t;
        let c = atomicLoad(&s_wh[i]);
        atomicStore(&s_wh[i], tot);
        tot += c;
      }
      gLo = totals[t];
      gHi = totals[t + RS_HALF];
    }
    let sc = rs_half_scan4(t, vec4u(tot, gLo, gHi, 0u));
    if (t < RS_HALF) {
      let startLo = sc.excl.x & 0xFFFFu;
      let startHi = (sc.excl.x >> 16u) + (sc.total.x & 0xFFFFu);
      let start = startLo | (startHi << 16u);
      for (var v = 0u; v < nw; v++) {
        let i = v * RS_HALF + t;
        atomicStore(&s_wh[i], atomicLoad(&s_wh[i]) + start);
      }
      s_off[t] = sc.excl.y + table[t * u.numBlocks + blk] - startLo;
      s_off[t + RS_HALF] = sc.total.y + sc.excl.z + table[(t + RS_HALF) * u.numBlocks + blk] - startHi;
    }
    workgroupBarrier();
    for (var j = 0u; j < KPT; j++) {
      let d = dig[j];
      rank[j] += (atomicLoad(&s_wh[row + d % RS_HALF]) >> ((d / RS_HALF) * 16u)) & 0xFFFFu;
    }
    rs_write_out(t, n, local, &rank, &keys, &dig);
    // The next block reuses the workgroup arrays.
    workgroupBarrier();
  }
}
