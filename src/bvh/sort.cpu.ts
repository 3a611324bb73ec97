/**
 * CPU twin of the GPU radix sort as the BVH uses it: a stable LSD radix sort (16-bit digits) of 64-bit Morton
 * codes over their significant bits, carrying the original indices. Equal codes keep index order, as the GPU's
 * stable sort of (code, iota) does.
 */

export interface SortedCodes {
  /** n sorted codes as (low, high) u32 pairs. */
  codes: Uint32Array;
  /** n original indices, in sorted order. */
  order: Uint32Array;
}

/** Sorts codes (low, high pairs) by their bits [0, bits), stably, carrying indices 0 … n − 1. */
export function sortCodesCpu(codes: Uint32Array, n: number, bits: number): SortedCodes {
  let idx = new Uint32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  let tmp = new Uint32Array(n);
  const count = new Uint32Array(65536);
  for (let shift = 0; shift < bits; shift += 16) {
    const word = shift >= 32 ? 1 : 0;
    const s = shift & 31;
    count.fill(0);
    for (let i = 0; i < n; i++) count[(codes[2 * i + word] >>> s) & 0xffff]++;
    let sum = 0;
    for (let b = 0; b < 65536; b++) {
      const c = count[b];
      count[b] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const j = idx[i];
      tmp[count[(codes[2 * j + word] >>> s) & 0xffff]++] = j;
    }
    [idx, tmp] = [tmp, idx];
  }
  const sorted = new Uint32Array(2 * n);
  for (let i = 0; i < n; i++) {
    sorted[2 * i] = codes[2 * idx[i]];
    sorted[2 * i + 1] = codes[2 * idx[i] + 1];
  }
  return { codes: sorted, order: idx };
}
