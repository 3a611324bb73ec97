// Shared by the radix sort kernels (src/primitives/radixsort.ts): digit extraction, a workgroup scan, and the
// packed per-thread digit counters of CUB's BlockRadixRank (Merrill & Grimshaw 2011, "High Performance and
// Scalable Radix Sorting", §4; CUB `block_radix_rank.cuh`).
//
// Composed after `const RADIX_BITS` (bits per digit), `const KPT` (keys per thread) and a key module
// (radixsort_key32 / radixsort_key64, defining `Key`, `key_lo`, `key_hi`).

const RS_DIGITS: u32 = 1u << RADIX_BITS;
// The counter table has RS_HALF rows: digit d counts in row d % RS_HALF, in the low 16 bits when d < RS_HALF
// and in the high 16 bits otherwise.
//
//   s_cnt row r, column t:  | 16 bits: count of digit r + RS_HALF | 16 bits: count of digit r |   (thread t)
//
// Important! A 16-bit half must never carry into the other: every half-sum is at most a block's key count,
// so blocks hold fewer than 65536 keys (checked in radixsort.ts).
const RS_HALF: u32 = RS_DIGITS >> 1u;
// Keys per block: WG threads × KPT keys.
override RS_B: u32 = WG * KPT;

struct SortParams {
  // Number of (key, value) pairs.
  count: u32,
  // Lowest key bit of this pass's digit (0..63).
  shift: u32,
  // Digit width of this pass (1..RADIX_BITS): the last pass of a bit range may be narrower.
  bits: u32,
  // Number of blocks of RS_B keys.
  numBlocks: u32,
}

// Bits [shift, shift + bits) of a key (bits ≤ 31).
fn rs_digit(k: Key, shift: u32, bits: u32) -> u32 {
  let lo = key_lo(k);
  let hi = key_hi(k);
  var x: u32;
  if (shift >= 32u) {
    x = hi >> (shift - 32u);
  } else if (shift == 0u) {
    x = lo;
  } else {
    // WGSL takes shift amounts modulo 32, so shift = 0 must not reach `32u - shift`.
    x = (lo >> shift) | (hi << (32u - shift));
  }
  return x & ((1u << bits) - 1u);
}

// ---- workgroup exclusive scan of a vec2u per thread (Hillis & Steele, double-buffered) ----

var<workgroup> s_part: array<vec2u, 2u * WG>;

struct RsScan {
  // Sum of the values of threads 0 .. t-1.
  excl: vec2u,
  // Sum over the workgroup.
  total: vec2u,
}

// Must be called by every thread in uniform control flow. Important! s_part is read until the function
// returns: callers put a workgroupBarrier() between two calls.
fn rs_wg_scan(t: u32, x: vec2u) -> RsScan {
  var cur = 0u;
  var acc = x;
  s_part[t] = x;
  workgroupBarrier();
  for (var off = 1u; off < WG; off = off << 1u) {
    if (t >= off) {
      acc = acc + s_part[cur * WG + t - off];
    }
    cur = 1u - cur;
    s_part[cur * WG + t] = acc;
    workgroupBarrier();
  }
  return RsScan(acc - x, s_part[cur * WG + WG - 1u]);
}

// ---- packed per-thread digit counters ----

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
