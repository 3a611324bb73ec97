/**
 * The CPU twin of the BVH's prefix sort (src/bvh/prefixsort.cpu.ts) against the full stable sort (sort.cpu.ts) on
 * random codes: ties of the prefix, duplicates of the whole code, runs just under, at and over runMax, every code
 * width the GPU path takes (33 … 64 bits), sizes 0, 1, 2.
 */
import { describe, expect, it } from 'vitest';
import { codePrefix, prefixSortCodesCpu, RUN_MAX } from '../../src/bvh/prefixsort.cpu.js';
import { sortCodesCpu } from '../../src/bvh/sort.cpu.js';
import { mulberry32 } from '../helpers/random.js';

/** n random codes of `bits` bits whose prefixes take one of `prefixes` values (ties) and low bits one of `lows`. */
function codes(n: number, bits: number, prefixes: number, lows: number, seed: number): Uint32Array {
  const r = mulberry32(seed);
  const p = Array.from({ length: prefixes }, () => Math.floor(r() * 2 ** 32));
  const l = Array.from({ length: lows }, () => Math.floor(r() * 2 ** (bits - 32)));
  const out = new Uint32Array(2 * n);
  const s = bits - 32;
  for (let i = 0; i < n; i++) {
    // code = prefix · 2^s + low, as (lo, hi) words.
    const big = (BigInt(p[Math.floor(r() * prefixes)]) << BigInt(s)) | BigInt(l[Math.floor(r() * lows)]);
    out[2 * i] = Number(big & 0xffffffffn);
    out[2 * i + 1] = Number(big >> 32n);
  }
  return out;
}

describe('bvh prefix sort, CPU twin', () => {
  it('codePrefix takes bits [bits − 32, bits)', () => {
    expect(codePrefix(0x89abcdef, 0x01234567, 64)).toBe(0x01234567);
    expect(codePrefix(0x89abcdef, 0x01234567, 63)).toBe(0x02468acf);
    expect(codePrefix(0xffffffff, 0x1, 33)).toBe(0xffffffff);
  });

  it('equals the full stable sort, long runs or not', () => {
    let seed = 1;
    for (const bits of [33, 48, 60, 63, 64]) {
      for (const [n, prefixes, lows, runMax] of [
        [0, 1, 1, RUN_MAX],
        [1, 1, 1, RUN_MAX],
        [2, 1, 2, RUN_MAX],
        [2, 2, 2, RUN_MAX],
        [1000, 400, 50, RUN_MAX],
        [1000, 20, 1000, RUN_MAX],
        [1000, 1, 3, RUN_MAX],
        [999, 333, 7, 3],
        [500, 100, 500, 5],
      ]) {
        const c = codes(n, bits, prefixes, lows, seed++);
        const got = prefixSortCodesCpu(c, n, bits, runMax);
        const want = sortCodesCpu(c, n, bits);
        expect(Array.from(got.codes), `bits=${bits} n=${n}`).toEqual(Array.from(want.codes));
        expect(Array.from(got.order), `bits=${bits} n=${n}`).toEqual(Array.from(want.order));
        expect(got.long).toBe(got.longestRun > runMax);
      }
    }
  });

  it('reports a run of exactly runMax as short and runMax + 1 as long', () => {
    for (const len of [RUN_MAX, RUN_MAX + 1]) {
      const c = new Uint32Array(2 * len);
      // One prefix (hi word 7), descending low bits: the run must be reversed.
      for (let i = 0; i < len; i++) [c[2 * i], c[2 * i + 1]] = [len - i, 7];
      const got = prefixSortCodesCpu(c, len, 64);
      expect(got.longestRun).toBe(len);
      expect(got.long).toBe(len > RUN_MAX);
      expect(Array.from(got.order)).toEqual(Array.from({ length: len }, (_, i) => len - 1 - i));
    }
  });
});
