// Radix sort pass, step 3: each block ranks its keys stably by digit and writes every pair to
//   base(d) + table(d, block) + (its position among the block's keys of digit d),
// where base(d) is the exclusive scan of the digit totals from step 2.
//
// Ranking follows CUB's BlockRadixRank: thread t takes KPT CONSECUTIVE keys of the block (so that per-thread
// counts in (digit, thread) order give a stable rank), counts them in its column of the packed counter table,
// and the table's scan gives each key its rank. The block is then sorted by digit in workgroup memory and
// written out from there, so that consecutive threads write consecutive addresses within a digit's run.
//
//   global loads  : striped (key i of the block is read by thread i % WG: coalesced)
//   ranking       : blocked (thread t ranks keys t·KPT … t·KPT + KPT − 1), through a digit transpose
//   global stores : striped over the block's sorted order (sorted position p is written by thread p % WG)
@group(0) @binding(0) var<uniform> u: SortParams;
@group(0) @binding(1) var<storage, read> keysIn: array<Key>;
@group(0) @binding(2) var<storage, read> valsIn: array<u32>;
@group(0) @binding(3) var<storage, read> table: array<u32>;
@group(0) @binding(4) var<storage, read> totals: array<u32>;
@group(0) @binding(5) var<storage, read_write> keysOut: array<Key>;
@group(0) @binding(6) var<storage, read_write> valsOut: array<u32>;

// The exchange array: one word per key of the block, padded by one word in 32 against bank conflicts of the
// blocked accesses (thread t touching t·KPT + j).
var<workgroup> s_x: array<u32, RS_B + RS_B / 32u>;
// For each digit: its global start for this block minus its start within the block.
var<workgroup> s_off: array<u32, RS_DIGITS>;

fn xi(i: u32) -> u32 { return i + (i >> 5u); }

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) t: u32) {
  let blk = group_index(wid, nwg);
  if (blk >= u.numBlocks) { return; }
  let base = blk * RS_B;
  let n = min(RS_B, u.count - base);
  rs_counters_clear(t);

  // Striped loads. Slots past the end get the largest digit: being last in the block they rank last and land
  // at sorted positions ≥ n, which are never stored.
  var keys: array<Key, KPT>;
  var dig: array<u32, KPT>;
  for (var j = 0u; j < KPT; j++) {
    let p = j * WG + t;
    var d = RS_DIGITS - 1u;
    if (p < n) {
      keys[j] = keysIn[base + p];
      d = rs_digit(keys[j], u.shift, u.bits);
    }
    dig[j] = d;
    s_x[xi(p)] = d;
  }
  workgroupBarrier();

  // Blocked counting: key t·KPT + j is the j-th key of thread t.
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

  // Back to striped: the rank of each key this thread loaded.
  var rank: array<u32, KPT>;
  for (var j = 0u; j < KPT; j++) {
    rank[j] = s_x[xi(j * WG + t)];
  }
  workgroupBarrier();

  // Round 1: digits in sorted order give each sorted position its destination.
  for (var j = 0u; j < KPT; j++) {
    s_x[xi(rank[j])] = dig[j];
  }
  workgroupBarrier();
  var dst: array<u32, KPT>;
  for (var j = 0u; j < KPT; j++) {
    let p = j * WG + t;
    dst[j] = s_off[s_x[xi(p)]] + p;
  }
  workgroupBarrier();

  // Rounds 2 and 3: the key words.
  for (var j = 0u; j < KPT; j++) {
    s_x[xi(rank[j])] = key_lo(keys[j]);
  }
  workgroupBarrier();
  var lo: array<u32, KPT>;
  for (var j = 0u; j < KPT; j++) {
    lo[j] = s_x[xi(j * WG + t)];
  }
  var hi: array<u32, KPT>;
  if (KEY_WORDS == 2u) {
    workgroupBarrier();
    for (var j = 0u; j < KPT; j++) {
      s_x[xi(rank[j])] = key_hi(keys[j]);
    }
    workgroupBarrier();
    for (var j = 0u; j < KPT; j++) {
      hi[j] = s_x[xi(j * WG + t)];
    }
  }
  for (var j = 0u; j < KPT; j++) {
    if (j * WG + t < n) { keysOut[dst[j]] = make_key(lo[j], hi[j]); }
  }
  workgroupBarrier();

  // Round 4: the values, loaded only now (they are not needed before).
  for (var j = 0u; j < KPT; j++) {
    let p = j * WG + t;
    if (p < n) { s_x[xi(rank[j])] = valsIn[base + p]; }
  }
  workgroupBarrier();
  for (var j = 0u; j < KPT; j++) {
    let p = j * WG + t;
    if (p < n) { valsOut[dst[j]] = s_x[xi(p)]; }
  }
}
