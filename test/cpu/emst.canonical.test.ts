/**
 * The CPU twin of the GPU's canonical edge order (src/emst/canonical.cpu.ts): its integer square root against
 * Math.fround(Math.sqrt(x)) — the host's weight — on every edge case and millions of bit patterns, and its order
 * against edges.cpu.ts's sortEdgesCanonical of the host's weights on tie-heavy edge lists.
 */
import { describe, expect, it } from 'vitest';
import { canonicalEdgesCpu, endBits, hostWeightBits, sqrtRoundBits } from '../../src/emst/canonical.cpu.js';
import { sortEdgesCanonical } from '../../src/emst/edges.cpu.js';
import { mulberry32 } from '../helpers/random.js';
import { edgeCaseKeys } from '../helpers/floatBits.js';

const hex = (x: number) => `0x${(x >>> 0).toString(16)}`;
/** Any NaN (V8 gives negatives' square roots the sign bit; the shader gives 0x7fc00000: keys are never negative). */
const isNaNBits = (x: number) => (x & 0x7f800000) === 0x7f800000 && (x & 0x7fffff) !== 0;

/** Every pattern in `xs` where the twin and the host differ (at most 5 named). */
function mismatches(xs: Iterable<number>): string[] {
  const bad: string[] = [];
  for (const x of xs) {
    const got = sqrtRoundBits(x);
    const want = hostWeightBits(x);
    if (got !== want && !(isNaNBits(got) && isNaNBits(want)) && bad.length < 5) {
      bad.push(`${hex(x)}: ${hex(got)} vs ${hex(want)}`);
    }
  }
  return bad;
}

describe('sqrtRoundBits (the GPU weight, integer arithmetic) equals Math.fround(Math.sqrt(key))', () => {
  it('on zeros, subnormals, every exponent boundary, the largest finite, +∞, NaN and negatives', () => {
    expect(mismatches(edgeCaseKeys())).toEqual([]);
    expect(sqrtRoundBits(0x80000000)).toBe(0x80000000);
    expect(sqrtRoundBits(0x7f800000)).toBe(0x7f800000);
    expect(sqrtRoundBits(0xbf800000)).toBe(0x7fc00000);
  });

  it('on 4 million random non-negative finite patterns (seeded)', () => {
    const rand = mulberry32(17);
    const xs = Array.from({ length: 1 << 22 }, () => Math.floor(rand() * 0x7f800000));
    expect(mismatches(xs)).toEqual([]);
  });

  it('on every mantissa of an even and an odd exponent, and of the subnormals', () => {
    const all = (base: number) => Array.from({ length: 1 << 23 }, (_, i) => base + i);
    expect(mismatches(all(127 << 23))).toEqual([]); // [1, 2)
    expect(mismatches(all(128 << 23))).toEqual([]); // [2, 4)
    expect(mismatches(all(0))).toEqual([]); // subnormals
  });
});

describe('canonicalEdgesCpu (the GPU order) equals sortEdgesCanonical of the host weights', () => {
  /** Raw edges (a, b, key) with endpoints in either order and keys from few levels (many ties, equal weights). */
  function rawEdges(m: number, n: number, seed: number, levels: number): Uint32Array {
    const rand = mulberry32(seed);
    const raw = new Uint32Array(3 * m);
    const base = 0x3f000000 + Math.floor(rand() * 0x1000000);
    for (let e = 0; e < m; e++) {
      const a = Math.floor(rand() * n);
      let b = Math.floor(rand() * n);
      if (b === a) b = (a + 1) % n;
      raw[3 * e] = a;
      raw[3 * e + 1] = b;
      // Neighbouring patterns: sqrt maps 2 or 3 consecutive keys to one weight, so keys differ where weights tie.
      raw[3 * e + 2] = levels === 0 ? Math.floor(rand() * 0x7f800000) : base + Math.floor(rand() * levels);
    }
    return raw;
  }

  it.each([
    [0, 1, 0],
    [1, 2, 4],
    [2, 3, 1],
    [257, 300, 3],
    [5000, 5001, 16],
    [5000, 5001, 0],
    [20000, 40000, 2],
  ])('m=%i n=%i key levels=%i', (m, n, levels) => {
    const raw = rawEdges(m, n, 1000 + m + levels, levels);
    const got = canonicalEdgesCpu(raw, m);
    const host = {
      sources: Uint32Array.from({ length: m }, (_, e) => Math.min(raw[3 * e], raw[3 * e + 1])),
      targets: Uint32Array.from({ length: m }, (_, e) => Math.max(raw[3 * e], raw[3 * e + 1])),
      weights: Float32Array.from({ length: m }, (_, e) => Math.sqrt(new Float32Array(raw.buffer, 12 * e + 8, 1)[0])),
    };
    const want = sortEdgesCanonical(host);
    expect(got.sources).toEqual(want.sources);
    expect(got.targets).toEqual(want.targets);
    expect(new Uint32Array(got.weights.buffer)).toEqual(new Uint32Array(want.weights.buffer));
  });

  it('endBits(n) is the width of n − 1 (1 for n ≤ 2)', () => {
    expect([0, 1, 2, 3, 4, 5, 256, 257, 2 ** 24, 2 ** 32].map(endBits)).toEqual([1, 1, 1, 2, 2, 3, 8, 9, 24, 32]);
  });
});
