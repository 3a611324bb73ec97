// The packed per-thread digit counters of CUB's BlockRadixRank (Merrill & Grimshaw 2011, "High Performance and
// Scalable Radix Sorting", §4; CUB `block_radix_rank.cuh`): the subgroup-free ranking. The table has RS_HALF
// rows and one column per thread; digit d counts in row d % RS_HALF of its thread's column (packing above).

// Padding: one word per RS_HALF words, so that the raking reads of rs_counters_scan (thread t reads words
// t·RS_HALF … t·RS_HALF + RS_HALF − 1) fall in distinct banks.
var<workgroup> s_cnt: array<u32, (RS_HALF + 1u) * WG>;

fn rs_cnt_index(row: u32, t: u32) -> u32 {
  let l = row * WG + t;
  return l + l / RS_HALF;
}

// Zeroes thread t's column (no barrier needed: each thread touches only its own column until the scan).
fn rs_counters_clear(t: u32) {
  for (var r = 0u; r < RS_HALF; r++) {
    s_cnt[rs_cnt_index(r, t)] = 0u;
  }
}

// Counts one key of digit d for thread t; returns how many of thread t's earlier keys had digit d.
fn rs_counters_bump(t: u32, d: u32) -> u32 {
  let sh = (d / RS_HALF) * 16u;
  let i = rs_cnt_index(d % RS_HALF, t);
  let v = s_cnt[i];
  s_cnt[i] = v + (1u << sh);
  return (v >> sh) & 0xFFFFu;
}

// Exclusive scan of the counter table in row-major (digit-major, thread-minor) order, in place; scans `extra`
// across threads alongside. Every thread calls it in uniform control flow after its last rs_counters_bump.
// Afterwards, for digit d = h·RS_HALF + r, the low/high half of s_cnt(r, t) + h·(low half of total.x) is the
// number of keys of the block that precede thread t's keys of digit d in (digit, thread) order.
fn rs_counters_scan(t: u32, extra: u32) -> RsScan {
  workgroupBarrier();
  let first = t * RS_HALF;
  var sum = 0u;
  for (var i = 0u; i < RS_HALF; i++) {
    let l = first + i;
    sum += s_cnt[l + l / RS_HALF];
  }
  let sc = rs_wg_scan(t, vec2u(sum, extra));
  var run = sc.excl.x;
  for (var i = 0u; i < RS_HALF; i++) {
    let l = first + i;
    let v = s_cnt[l + l / RS_HALF];
    s_cnt[l + l / RS_HALF] = run;
    run += v;
  }
  workgroupBarrier();
  return RsScan(vec2u(sc.excl.y, 0u), sc.total);
}

// After rs_counters_scan: the position in the block's digit-sorted order of thread t's first key of digit d.
fn rs_counters_prefix(d: u32, t: u32, lowTotal: u32) -> u32 {
  let h = d / RS_HALF;
  return ((s_cnt[rs_cnt_index(d % RS_HALF, t)] >> (h * 16u)) & 0xFFFFu) + h * lowTotal;
}

// After rs_counters_scan: the number of the block's keys with a digit below d.
fn rs_digit_start(d: u32, lowTotal: u32) -> u32 {
  return rs_counters_prefix(d, 0u, lowTotal);
}
