// The second half of a radix sort scatter kernel, shared by the subgroup-free (radixsort_scatter) and the
// subgroup (radixsort_scatter_sg) ranking: once every key of the block has its rank (its position in the
// block's stable digit order) and s_off holds, per digit, (global start of the digit for this block) − (start
// of the digit within the block), the block is sorted in workgroup memory one word at a time and each word
// is stored from there, so that consecutive threads store consecutive addresses within a digit's run:
//
//   sorted position p (= j·WG + t, thread t's j-th) goes to  s_off[digit of p] + p.
//
// Each thread holds KPT keys; its j-th held key sits at block position rs_hbase + j·rs_hstride (set by the
// kernel: striped for the subgroup-free ranking, warp-striped for the subgroup ranking).
@group(0) @binding(0) var<uniform> u: SortParams;
@group(0) @binding(1) var<storage, read> keysIn: array<Key>;
@group(0) @binding(2) var<storage, read> valsIn: array<u32>;
// Row-scanned block histograms: table[d · numBlocks + block] = keys of digit d in earlier blocks.
@group(0) @binding(3) var<storage, read> table: array<u32>;
// Keys of each digit over all blocks.
@group(0) @binding(4) var<storage, read> totals: array<u32>;
// keysOut and valsOut, written at any index, follow from @binding(5) on, declared with their accessors
// keysOut_set / valsOut_set by the composer (src/gpu/bigarray.ts: each array whole, or in parts).

// The exchange array: one word per key of the block, padded by one word in 32 against bank conflicts of
// blocked accesses (thread t touching t·KPT + j).
var<workgroup> s_x: array<u32, RS_B + RS_B / 32u>;
var<workgroup> s_off: array<u32, RS_DIGITS>;

var<private> rs_hbase: u32;
var<private> rs_hstride: u32;

fn xi(i: u32) -> u32 { return i + (i >> 5u); }

// Moves word w[j] of every held key to its sorted position rank[j]; returns in out[j] the word at sorted
// position j·WG + t. Every thread calls it in uniform control flow.
fn rs_exchange(t: u32, rank: ptr<function, array<u32, KPT>>, w: ptr<function, array<u32, KPT>>,
               out: ptr<function, array<u32, KPT>>) {
  workgroupBarrier();
  for (var j = 0u; j < KPT; j++) {
    s_x[xi((*rank)[j])] = (*w)[j];
  }
  workgroupBarrier();
  for (var j = 0u; j < KPT; j++) {
    (*out)[j] = s_x[xi(j * WG + t)];
  }
}

// Stores the block's n pairs (held keys `keys` with digits `dig` and ranks `rank`; values are loaded here, from
// valsIn[base + …]: `base` is the block's first key within the bound window of valsIn).
// Rounds: the key word holding the digit (its sorted copy gives every sorted position its digit, hence its
// destination), the other key word, the values; a digit across the word boundary costs one more round.
fn rs_write_out(t: u32, n: u32, base: u32, rank: ptr<function, array<u32, KPT>>,
                keys: ptr<function, array<Key, KPT>>, dig: ptr<function, array<u32, KPT>>) {
  let straddle = u.shift < 32u && u.shift + u.bits > 32u;
  let hiFirst = u.shift >= 32u;
  var w: array<u32, KPT>;
  var s1: array<u32, KPT>;
  var s2: array<u32, KPT>;
  var dst: array<u32, KPT>;
  if (straddle) {
    rs_exchange(t, rank, dig, &s1);
    for (var j = 0u; j < KPT; j++) {
      dst[j] = s_off[s1[j]] + j * WG + t;
    }
  }
  for (var j = 0u; j < KPT; j++) {
    w[j] = select(key_lo((*keys)[j]), key_hi((*keys)[j]), hiFirst);
  }
  rs_exchange(t, rank, &w, &s1);
  if (!straddle) {
    let s = select(u.shift, u.shift - 32u, hiFirst);
    for (var j = 0u; j < KPT; j++) {
      dst[j] = s_off[rs_word_digit(s1[j], s, u.bits)] + j * WG + t;
    }
  }
  if (KEY_WORDS == 2u) {
    for (var j = 0u; j < KPT; j++) {
      w[j] = select(key_hi((*keys)[j]), key_lo((*keys)[j]), hiFirst);
    }
    rs_exchange(t, rank, &w, &s2);
  }
  for (var j = 0u; j < KPT; j++) {
    if (j * WG + t < n) {
      keysOut_set(dst[j], select(make_key(s1[j], s2[j]), make_key(s2[j], s1[j]), hiFirst));
    }
  }
  // The values are loaded only now: they are not needed before.
  for (var j = 0u; j < KPT; j++) {
    let p = rs_hbase + j * rs_hstride;
    w[j] = 0u;
    if (p < n) { w[j] = valsIn[base + p]; }
  }
  rs_exchange(t, rank, &w, &s1);
  for (var j = 0u; j < KPT; j++) {
    if (j * WG + t < n) { valsOut_set(dst[j], s1[j]); }
  }
}
