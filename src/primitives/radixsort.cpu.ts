/**
 * CPU twin of the GPU radix sort (src/primitives/radixsort.ts): a plain stable LSD radix sort of (key, value)
 * pairs, 8-bit digits, one counting sort per digit (Knuth, TAOCP vol. 3, §5.2.5). Same inputs, same bit-range
 * semantics and the same output as the GPU sort, which is what the seeded tests compare.
 *
 * Keys are u32 (`keyWords` 1) or 64-bit unsigned given as interleaved (low, high) u32 words (`keyWords` 2,
 * the `vec2u` layout: .x = low word, .y = high word). Only key bits [bitsLo, bitsHi) take part in the ordering;
 * the other bits are carried along unchanged. Equal keys keep their input order.
 */
import { InputError } from '../errors.js';

/** Which key bits order the pairs: [bitsLo, bitsHi), defaults 0 and 32 · keyWords. */
export interface BitRange {
  /** Lowest key bit that takes part in the ordering (default 0). */
  bitsLo?: number;
  /** One past the highest key bit that takes part in the ordering (default 32 · keyWords). */
  bitsHi?: number;
}

/** Sorted copies of the pairs. */
export interface SortedPairs {
  /** The keys in ascending order (interleaved low, high for 64-bit keys). */
  keys: Uint32Array;
  /** `values[i]` is the value that travelled with `keys[i]`. */
  values: Uint32Array;
}

/** Checks `keyWords` and the bit range, and returns the range with its defaults filled in. */
export function resolveBitRange(keyWords: number, bits: BitRange = {}): { bitsLo: number; bitsHi: number } {
  if (keyWords !== 1 && keyWords !== 2) throw new InputError(`Expected keyWords to be 1 or 2, got ${keyWords}.`);
  const max = 32 * keyWords;
  const bitsLo = bits.bitsLo ?? 0;
  const bitsHi = bits.bitsHi ?? max;
  if (!Number.isInteger(bitsLo) || bitsLo < 0 || bitsLo > max) {
    throw new InputError(`Expected bitsLo to be an integer in [0, ${max}], got ${bitsLo}.`);
  }
  if (!Number.isInteger(bitsHi) || bitsHi < bitsLo || bitsHi > max) {
    throw new InputError(`Expected bitsHi to be an integer in [bitsLo=${bitsLo}, ${max}], got ${bitsHi}.`);
  }
  return { bitsLo, bitsHi };
}

/** Checks that `keys` holds `keyWords` words per value; returns the number of pairs. */
export function pairCount(keys: Uint32Array, values: Uint32Array, keyWords: number): number {
  if (keys.length !== values.length * keyWords) {
    throw new InputError(
      `Expected keys.length to be values.length × keyWords = ${values.length} × ${keyWords}, got ${keys.length}.`,
    );
  }
  return values.length;
}

/** Bits [shift, shift + width) of the key whose low word is `lo` and high word `hi` (width ≤ 31). */
function digitOf(lo: number, hi: number, shift: number, width: number): number {
  let x: number;
  if (shift >= 32) x = hi >>> (shift - 32);
  else if (shift === 0) x = lo;
  else x = (lo >>> shift) | (hi << (32 - shift));
  return (x >>> 0) & ((1 << width) - 1);
}

const DIGIT_BITS = 8;

/**
 * Sorts (key, value) pairs by the key bits [bitsLo, bitsHi), ascending and stable; returns sorted copies.
 * `keys` is `array<u32>` for `keyWords` 1 and interleaved (low, high) words for `keyWords` 2.
 */
export function sortPairsCpu(
  keys: Uint32Array,
  values: Uint32Array,
  keyWords: 1 | 2,
  bits: BitRange = {},
): SortedPairs {
  const n = pairCount(keys, values, keyWords);
  const { bitsLo, bitsHi } = resolveBitRange(keyWords, bits);
  let k = Uint32Array.from(keys);
  let v = Uint32Array.from(values);
  let k2 = new Uint32Array(k.length);
  let v2 = new Uint32Array(n);
  const counts = new Uint32Array(1 << DIGIT_BITS);
  const digits = new Uint32Array(n);
  for (let shift = bitsLo; shift < bitsHi; shift += DIGIT_BITS) {
    const width = Math.min(DIGIT_BITS, bitsHi - shift);
    counts.fill(0);
    for (let i = 0; i < n; i++) {
      const d = keyWords === 1 ? digitOf(k[i], 0, shift, width) : digitOf(k[2 * i], k[2 * i + 1], shift, width);
      digits[i] = d;
      counts[d]++;
    }
    let sum = 0;
    for (let d = 0; d < counts.length; d++) {
      const c = counts[d];
      counts[d] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const to = counts[digits[i]]++;
      v2[to] = v[i];
      if (keyWords === 1) k2[to] = k[i];
      else {
        k2[2 * to] = k[2 * i];
        k2[2 * to + 1] = k[2 * i + 1];
      }
    }
    [k, k2] = [k2, k];
    [v, v2] = [v2, v];
  }
  return { keys: k, values: v };
}
