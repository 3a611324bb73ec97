// Shared by every radix sort kernel (src/primitives/radixsort.ts): pass parameters, digit extraction and a
// workgroup scan. Composed after `const RADIX_BITS` (bits per digit), `const KPT` (keys per thread) and a key
// module (radixsort_key32 / radixsort_key64, defining `Key`, `key_lo`, `key_hi`, `make_key`).

const RS_DIGITS: u32 = 1u << RADIX_BITS;
// Digit counts are packed two per u32, digit d in word d % RS_HALF, in the low 16 bits when d < RS_HALF and
// in the high 16 bits otherwise (CUB's trick):
//
//   | 16 bits: count of digit r + RS_HALF | 16 bits: count of digit r |
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
  // The first block of this dispatch (src/gpu/bigarray.ts windows): the block kernels bind the keys and values
  // from key blockBase · RS_B on and index them relative to it; 0 where everything fits one binding.
  blockBase: u32,
  // Blocks between one block of a workgroup and its next: numBlocks (one block each), or a guarded sorter's grid.
  stride: u32,
  // One past the last block of this dispatch's window (numBlocks for one window). The block kernels stop there,
  // not at numBlocks: a 2D grid may hold a few more workgroups than the window's blocks (src/gpu/recorder.ts,
  // gridFor), and those must not take the next window's blocks through this window's bindings (issue 19: the
  // H100's 3·10^8-point sort, windows of 131,071 blocks on 43,691 × 3 grids).
  blockEnd: u32,
  p2: u32,
}

// Bits [s, s + bits) of one key word (s ≤ 31, bits ≤ 31).
fn rs_word_digit(w: u32, s: u32, bits: u32) -> u32 {
  return (w >> s) & ((1u << bits) - 1u);
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

