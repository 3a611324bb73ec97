/**
 * The CPU twin of the BVH's radix sort (src/bvh/sort.cpu.ts) against a comparison sort by (code, index): all its
 * paths (the LSD radix sort below 2^17 keys or for clustered keys, the most-significant-digit pass with insertion and
 * LSD buckets for spread-out ones),
 * on spread-out, clustered, duplicated and few-distinct codes, for the code widths of d = 1, 2, 3, 5, 16.
 */
import { describe, expect, it } from 'vitest';
import { sortCodesCpu } from '../../src/bvh/sort.cpu.js';
import { codeBits } from '../../src/bvh/layout.js';
import { mulberry32 } from '../helpers/random.js';

function reference(codes: Uint32Array, n: number, bits: number): { codes: Uint32Array; order: Uint32Array } {
  const keep = (lo: number, hi: number) => {
    // Bits [0, bits) of (hi:lo).
    if (bits >= 64) return [lo, hi];
    if (bits >= 32) return [lo, bits === 32 ? 0 : hi & (2 ** (bits - 32) - 1)];
    return [lo & (2 ** bits - 1), 0];
  };
  const idx = Array.from({ length: n }, (_, i) => i);
  const key = idx.map((i) => keep(codes[2 * i], codes[2 * i + 1]));
  idx.sort((a, b) => key[a][1] - key[b][1] || key[a][0] - key[b][0] || a - b);
  const out = new Uint32Array(2 * n);
  idx.forEach((i, j) => {
    out[2 * j] = codes[2 * i];
    out[2 * j + 1] = codes[2 * i + 1];
  });
  return { codes: out, order: Uint32Array.from(idx) };
}

type Kind = 'spread' | 'mostly-spread' | 'clustered' | 'few' | 'all-equal';

function makeCodes(kind: Kind, n: number, bits: number, seed: number): Uint32Array {
  const rand = mulberry32(seed);
  const u32 = () => Math.floor(rand() * 2 ** 32) >>> 0;
  const codes = new Uint32Array(2 * n);
  const centres = Array.from({ length: 5 }, () => [u32(), u32()]);
  for (let i = 0; i < n; i++) {
    let lo = u32();
    let hi = u32();
    if (kind === 'mostly-spread' && i % 20 === 0) {
      // 5 % of the keys share their top 20 bits: the MSD pass with one large bucket, sorted by the LSD path.
      hi = (centres[0][1] & 0xfffff000) | (hi & 0xfff);
    } else if (kind === 'clustered') {
      // Most keys share their top 20 bits with one of five centres: a few huge MSD buckets.
      const c = centres[i % 5];
      hi = (c[1] & 0xfffff000) | (hi & 0xfff);
    } else if (kind === 'few') {
      const v = Math.floor(rand() * 7);
      lo = v * 977;
      hi = v;
    } else if (kind === 'all-equal') {
      lo = 12345;
      hi = 678;
    }
    // Codes are bottom-aligned: bits at or above `bits` are zero.
    if (bits < 64) hi = bits <= 32 ? 0 : hi & (2 ** (bits - 32) - 1);
    if (bits < 32) lo &= 2 ** bits - 1;
    codes[2 * i] = lo >>> 0;
    codes[2 * i + 1] = hi >>> 0;
  }
  return codes;
}

describe("sortCodesCpu (the BVH sort's CPU twin)", () => {
  it('equals a comparison sort by (code, index) on both paths, every code width and key shape', () => {
    for (const dim of [1, 2, 3, 5, 16]) {
      const bits = codeBits(dim);
      for (const kind of ['spread', 'mostly-spread', 'clustered', 'few', 'all-equal'] as Kind[]) {
        for (const n of [0, 1, 2, 1000, (1 << 17) + 5]) {
          const codes = makeCodes(kind, n, bits, 7 * dim + n);
          const got = sortCodesCpu(codes, n, bits);
          const want = reference(codes, n, bits);
          const what = `d=${dim} ${kind} n=${n}`;
          const i = got.order.findIndex((v, j) => v !== want.order[j]);
          if (i !== -1) expect.fail(`${what}: order[${i}] = ${got.order[i]}, expected ${want.order[i]}`);
          expect(got.codes.length, what).toBe(2 * n);
          expect(
            got.codes.every((v, j) => v === want.codes[j]),
            what,
          ).toBe(true);
        }
      }
    }
  });
});
