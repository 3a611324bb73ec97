/**
 * CPU twin of the GPU radix sort as the BVH uses it: a stable sort of 64-bit Morton codes over their significant
 * bits, carrying the original indices. Equal codes keep index order, as the GPU's stable sort of (code, iota) does,
 * so the result is the GPU's exactly. Large inputs of spread-out points take one most-significant-digit pass (the
 * top 16 bits: 65536 buckets of ~n / 65536 keys) and finish each bucket by insertion sort, or by the LSD radix sort
 * where a bucket is large; the rest (small inputs, clustered points whose buckets are mostly large) take the LSD
 * radix sort (11-bit digits, constant digits skipped). Keys travel with the indices, so passes read sequentially.
 */

export interface SortedCodes {
  /** n sorted codes as (low, high) u32 pairs. */
  codes: Uint32Array;
  /** n original indices, in sorted order. */
  order: Uint32Array;
}

const DIGIT = 11;
const BUCKETS = 1 << DIGIT;

/** Keys from which the MSD pass pays (below, its 65536 buckets cost more than they save). */
const MSD_MIN_KEYS = 1 << 17;
const TOP = 16;
/** Buckets up to this size are finished by insertion sort, larger ones by the LSD radix sort. */
const INSERTION_MAX = 64;
/** The MSD pass is taken only when at most this share of the keys falls in buckets beyond INSERTION_MAX. */
const MSD_MAX_LARGE = 0.1;

/**
 * Sorts codes (low, high pairs) by their bits [0, bits), stably, carrying indices 0 … n − 1. The bits at and above
 * `bits` must be zero (Morton codes are bottom-aligned): both paths may read them.
 */
export function sortCodesCpu(codes: Uint32Array, n: number, bits: number): SortedCodes {
  if (n < MSD_MIN_KEYS || bits <= TOP + DIGIT) return sortCodesLsd(codes, n, bits);
  // The MSD pass: bucket by bits [bits − 16, bits), in index order (stable).
  const shift = bits - TOP;
  const counts = new Uint32Array(1 << TOP);
  for (let i = 0; i < n; i++) counts[digitOf(codes[2 * i], codes[2 * i + 1], shift) & 0xffff]++;
  // Clustered points fill many buckets beyond INSERTION_MAX, where the per-bucket LSD sort costs more than one LSD
  // sort of everything (bench/RESULTS.md): the MSD pass only where nearly all keys sit in small
  // buckets (spread-out points).
  let inLarge = 0;
  for (let b = 0; b < 1 << TOP; b++) if (counts[b] > INSERTION_MAX) inLarge += counts[b];
  if (inLarge > n * MSD_MAX_LARGE) return sortCodesLsd(codes, n, bits);
  const starts = new Uint32Array((1 << TOP) + 1);
  for (let b = 0; b < 1 << TOP; b++) starts[b + 1] = starts[b] + counts[b];
  counts.set(starts.subarray(0, 1 << TOP));
  const lo = new Uint32Array(n);
  const hi = new Uint32Array(n);
  const idx = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const l = codes[2 * i];
    const h = codes[2 * i + 1];
    const q = counts[digitOf(l, h, shift) & 0xffff]++;
    lo[q] = l;
    hi[q] = h;
    idx[q] = i;
  }
  // Each bucket by the remaining bits [0, bits − 16); large ones share one scratch.
  const keys: Keys = { lo, hi, idx };
  let largest = 0;
  for (let b = 0; b < 1 << TOP; b++) largest = Math.max(largest, starts[b + 1] - starts[b]);
  const scratch = largest > INSERTION_MAX ? lsdScratch(largest, shift) : null;
  for (let b = 0; b < 1 << TOP; b++) {
    const a = starts[b];
    const e = starts[b + 1];
    if (e - a <= 1) continue;
    if (e - a <= INSERTION_MAX) insertionSort(lo, hi, idx, a, e);
    else lsdRange(keys, a, e, shift, scratch!);
  }
  const sorted = new Uint32Array(2 * n);
  for (let i = 0; i < n; i++) {
    sorted[2 * i] = lo[i];
    sorted[2 * i + 1] = hi[i];
  }
  return { codes: sorted, order: idx };
}

/** Stable insertion sort of entries [a, e) by the key (hi, lo), unsigned. */
function insertionSort(lo: Uint32Array, hi: Uint32Array, idx: Uint32Array, a: number, e: number): void {
  for (let i = a + 1; i < e; i++) {
    const l = lo[i];
    const h = hi[i];
    const x = idx[i];
    let j = i;
    while (j > a && (hi[j - 1] > h || (hi[j - 1] === h && lo[j - 1] > l))) {
      lo[j] = lo[j - 1];
      hi[j] = hi[j - 1];
      idx[j] = idx[j - 1];
      j--;
    }
    lo[j] = l;
    hi[j] = h;
    idx[j] = x;
  }
}

/** Keys with their indices, as parallel arrays. */
interface Keys {
  lo: Uint32Array;
  hi: Uint32Array;
  idx: Uint32Array;
}

/** Scratch for lsdRange over up to `m` keys of `bits` bits: the ping-pong arrays and every pass's counters. */
function lsdScratch(m: number, bits: number): { tmp: Keys; counts: Uint32Array } {
  return {
    tmp: { lo: new Uint32Array(m), hi: new Uint32Array(m), idx: new Uint32Array(m) },
    counts: new Uint32Array(Math.max(Math.ceil(bits / DIGIT), 1) * BUCKETS),
  };
}

/** The LSD radix sort of all n keys by bits [0, bits). */
function sortCodesLsd(codes: Uint32Array, n: number, bits: number): SortedCodes {
  const lo = new Uint32Array(n);
  const hi = new Uint32Array(n);
  const idx = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    lo[i] = codes[2 * i];
    hi[i] = codes[2 * i + 1];
    idx[i] = i;
  }
  lsdRange({ lo, hi, idx }, 0, n, bits, lsdScratch(n, bits));
  const sorted = new Uint32Array(2 * n);
  for (let i = 0; i < n; i++) {
    sorted[2 * i] = lo[i];
    sorted[2 * i + 1] = hi[i];
  }
  return { codes: sorted, order: idx };
}

/**
 * Sorts entries [a, e) of `keys` in place, stably, by bits [0, bits): LSD radix with 11-bit digits, every pass's
 * histogram taken in one read, a digit all the keys share skipped.
 */
function lsdRange(keys: Keys, a: number, e: number, bits: number, scratch: { tmp: Keys; counts: Uint32Array }): void {
  const m = e - a;
  const passes = Math.ceil(bits / DIGIT);
  const mask = BUCKETS - 1;
  const { counts } = scratch;
  counts.fill(0, 0, passes * BUCKETS);
  const { lo: klo, hi: khi } = keys;
  for (let i = a; i < e; i++) {
    const l = klo[i];
    const h = khi[i];
    for (let p = 0; p < passes; p++) counts[p * BUCKETS + (digitOf(l, h, p * DIGIT) & mask)]++;
  }
  // src[sOff + i] → dst[dOff + q], then the two swap.
  let src = keys;
  let sOff = a;
  let dst = scratch.tmp;
  let dOff = 0;
  for (let p = 0; p < passes; p++) {
    const shift = p * DIGIT;
    const base = p * BUCKETS;
    let constant = false;
    let sum = 0;
    for (let b = 0; b < BUCKETS; b++) {
      const c = counts[base + b];
      if (c === m) constant = true;
      counts[base + b] = sum;
      sum += c;
    }
    if (constant) continue;
    // The digit of a key: bits [shift, shift + DIGIT) of (hi:lo), read as one 32-bit window.
    const s = shift & 31;
    const { lo, hi, idx } = src;
    const { lo: lo2, hi: hi2, idx: idx2 } = dst;
    // Counters start at dOff, so a counter is the destination index itself.
    if (dOff !== 0) for (let b = 0; b < BUCKETS; b++) counts[base + b] += dOff;
    const end = sOff + m;
    if (shift < 32 && shift + DIGIT > 32) {
      for (let i = sOff; i < end; i++) {
        const l = lo[i];
        const h = hi[i];
        const q = counts[base + (((l >>> s) | (h << (32 - s))) & mask)]++;
        lo2[q] = l;
        hi2[q] = h;
        idx2[q] = idx[i];
      }
    } else {
      const word = shift >= 32 ? hi : lo;
      for (let i = sOff; i < end; i++) {
        const q = counts[base + ((word[i] >>> s) & mask)]++;
        lo2[q] = lo[i];
        hi2[q] = hi[i];
        idx2[q] = idx[i];
      }
    }
    [src, dst] = [dst, src];
    [sOff, dOff] = [dOff, sOff];
  }
  if (src !== keys) {
    keys.lo.set(src.lo.subarray(0, m), a);
    keys.hi.set(src.hi.subarray(0, m), a);
    keys.idx.set(src.idx.subarray(0, m), a);
  }
}

/** Bits [shift, shift + 32) of the 64-bit key (hi:lo), as a u32 (only the low DIGIT bits are used). */
function digitOf(lo: number, hi: number, shift: number): number {
  if (shift >= 32) return hi >>> (shift - 32);
  if (shift === 0) return lo;
  return (lo >>> shift) | (hi << (32 - shift));
}
