/**
 * CPU twin of the BVH's prefix sort (prefixsort.ts, shaders/bvh/prefix.wgsl), step for step: a stable sort of the
 * codes' top 32 bits carrying the identity, the runs of equal prefixes of at most RUN_MAX points sorted by the full
 * code (stable insertion sort), longer runs left in index order and reported — where the GPU then runs the full
 * sort, done here by sort.cpu.ts. The result equals sortCodesCpu's (the tests' oracle) bit for bit.
 */
import { sortCodesCpu, type SortedCodes } from './sort.cpu.js';

/** The longest run of equal prefixes that bvh::runs sorts itself (longer: the guarded full sort). */
export const RUN_MAX = 32;

export interface PrefixSortedCodes extends SortedCodes {
  /** Whether some run of equal prefixes was longer than runMax (the GPU's flag: its guarded full sort ran). */
  long: boolean;
  /** The longest run of equal prefixes. */
  longestRun: number;
}

/** Bits [bits − 32, bits) of code (lo, hi) (bits in 33 … 64), as bvh/prefix.wgsl's code_prefix. */
export function codePrefix(lo: number, hi: number, bits: number): number {
  const s = bits - 32;
  if (s === 32) return hi >>> 0;
  return ((lo >>> s) | (hi << (32 - s))) >>> 0;
}

/**
 * Sorts n codes (low, high pairs, bottom-aligned to `bits` > 32 significant bits) as the GPU's prefix sort does,
 * carrying indices 0 … n − 1; `runMax` (default RUN_MAX) as the kernel's constant.
 */
export function prefixSortCodesCpu(codes: Uint32Array, n: number, bits: number, runMax = RUN_MAX): PrefixSortedCodes {
  if (bits <= 32 || bits > 64) throw new Error(`prefixSortCodesCpu: expected 33 … 64 bits, got ${bits}`);
  const prefix = new Uint32Array(n);
  for (let i = 0; i < n; i++) prefix[i] = codePrefix(codes[2 * i], codes[2 * i + 1], bits);
  // The stable 32-bit sort from the identity: by prefix, then index.
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => prefix[a] - prefix[b] || a - b);
  const sorted = new Uint32Array(2 * n);
  for (let k = 0; k < n; k++) {
    sorted[2 * k] = codes[2 * order[k]];
    sorted[2 * k + 1] = codes[2 * order[k] + 1];
  }
  let long = false;
  let longestRun = 0;
  for (let s = 0; s < n;) {
    const p = prefix[order[s]];
    let e = s + 1;
    while (e < n && prefix[order[e]] === p) e++;
    longestRun = Math.max(longestRun, e - s);
    if (e - s > runMax) long = true;
    else insertionSort(sorted, order, s, e);
    s = e;
  }
  if (long) {
    // The full stable sort of the sequence as it stands (equal codes lie in one run, in index order).
    const again = sortCodesCpu(sorted, n, bits);
    const o = new Uint32Array(n);
    for (let k = 0; k < n; k++) o[k] = order[again.order[k]];
    return { codes: again.codes, order: o, long, longestRun };
  }
  return { codes: sorted, order, long, longestRun };
}

/** Stable insertion sort of entries [s, e) by code (hi, lo), as the kernel's. */
function insertionSort(codes: Uint32Array, order: Uint32Array, s: number, e: number): void {
  for (let k = s + 1; k < e; k++) {
    const lo = codes[2 * k];
    const hi = codes[2 * k + 1];
    const v = order[k];
    let m = k;
    while (m > s && (codes[2 * m - 1] > hi || (codes[2 * m - 1] === hi && codes[2 * m - 2] > lo))) {
      codes[2 * m] = codes[2 * m - 2];
      codes[2 * m + 1] = codes[2 * m - 1];
      order[m] = order[m - 1];
      m--;
    }
    codes[2 * m] = lo;
    codes[2 * m + 1] = hi;
    order[m] = v;
  }
}
