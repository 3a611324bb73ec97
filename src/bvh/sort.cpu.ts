/**
 * CPU twin of the GPU radix sort as the BVH uses it: a stable LSD radix sort (11-bit digits) of 64-bit Morton
 * codes over their significant bits, carrying the original indices. Equal codes keep index order, as the GPU's
 * stable sort of (code, iota) does. Keys travel with the indices, so every pass reads sequentially.
 */

export interface SortedCodes {
  /** n sorted codes as (low, high) u32 pairs. */
  codes: Uint32Array;
  /** n original indices, in sorted order. */
  order: Uint32Array;
}

const DIGIT = 11;
const BUCKETS = 1 << DIGIT;

/** Sorts codes (low, high pairs) by their bits [0, bits), stably, carrying indices 0 … n − 1. */
export function sortCodesCpu(codes: Uint32Array, n: number, bits: number): SortedCodes {
  let lo = new Uint32Array(n);
  let hi = new Uint32Array(n);
  let idx = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    lo[i] = codes[2 * i];
    hi[i] = codes[2 * i + 1];
    idx[i] = i;
  }
  let lo2 = new Uint32Array(n);
  let hi2 = new Uint32Array(n);
  let idx2 = new Uint32Array(n);
  const count = new Uint32Array(BUCKETS);
  for (let shift = 0; shift < bits; shift += DIGIT) {
    // The digit of key i: bits [shift, shift + DIGIT) of (hi:lo), read as one 32-bit window.
    const word = shift >= 32 ? hi : lo;
    const s = shift & 31;
    const straddles = shift < 32 && shift + DIGIT > 32;
    const mask = BUCKETS - 1;
    count.fill(0);
    if (straddles) for (let i = 0; i < n; i++) count[((lo[i] >>> s) | (hi[i] << (32 - s))) & mask]++;
    else for (let i = 0; i < n; i++) count[(word[i] >>> s) & mask]++;
    let sum = 0;
    for (let b = 0; b < BUCKETS; b++) {
      const c = count[b];
      count[b] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const dgt = straddles ? ((lo[i] >>> s) | (hi[i] << (32 - s))) & mask : (word[i] >>> s) & mask;
      const p = count[dgt]++;
      lo2[p] = lo[i];
      hi2[p] = hi[i];
      idx2[p] = idx[i];
    }
    [lo, lo2] = [lo2, lo];
    [hi, hi2] = [hi2, hi];
    [idx, idx2] = [idx2, idx];
  }
  const sorted = new Uint32Array(2 * n);
  for (let i = 0; i < n; i++) {
    sorted[2 * i] = lo[i];
    sorted[2 * i + 1] = hi[i];
  }
  return { codes: sorted, order: idx };
}
