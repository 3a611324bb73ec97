import { describe, expect, it } from 'vitest';
import { mortonCodesCpu, mortonDigitsCpu, quantScale, sceneFrameCpu } from '../../src/bvh/morton.cpu.js';
import { codeDigit, digitShift } from '../../src/distributed/partition.js';
import { bitsPerAxis, codeBits, F32_MAX, maxCell } from '../../src/bvh/layout.js';
import { orderF32, unorderF32 } from '../../src/bvh/floatorder.js';
import { cloud } from '../helpers/clouds.js';
import { mulberry32 } from '../helpers/random.js';

/** RN_f32(2^bits / e) by exact integer arithmetic (no floating point): an independent oracle. */
function exactScale(bits: number, e: number): number {
  const f = new Float32Array([e]);
  const u = new Uint32Array(f.buffer)[0];
  let exp = (u >>> 23) & 0xff;
  let m = u & 0x7fffff;
  if (exp === 0) exp = 1;
  else m |= 0x800000;
  if (m === 0) return 0;
  // e = m · 2^(exp − 150); q = 2^(bits − exp + 150) / m. Find s with floor(q · 2^s) in [2^23, 2^24).
  const k = bits - exp + 150;
  let best = 0;
  for (let s = -400; s <= 400; s++) {
    const p = k + s;
    const num = p >= 0 ? 1n << BigInt(p) : 1n;
    const den = p >= 0 ? BigInt(m) : BigInt(m) << BigInt(-p);
    const q = num / den;
    if (q >= 1n << 23n && q < 1n << 24n) {
      const rem = num - q * den;
      let qq = q;
      if (2n * rem > den || (2n * rem === den && (q & 1n) === 1n)) qq += 1n;
      best = Number(qq) * 2 ** -s;
      break;
    }
  }
  if (best > F32_MAX) return F32_MAX;
  if (best < 2 ** -126) return 0;
  return Math.fround(best);
}

describe('bvh morton (CPU twin)', () => {
  it('quantScale(bits, extent) is the correctly rounded float of 2^bits / extent', () => {
    const r = mulberry32(7);
    const extents = [1, 2, 3, 0.1, 1e-30, 1e-38, 2e38, 1.5e-45, 7e-40, 12345.678];
    for (let i = 0; i < 3000; i++) extents.push(Math.fround(2 ** (r() * 200 - 100) * (1 + r())));
    for (const bits of [1, 4, 16, 21, 32]) {
      for (const e of extents) {
        const ef = Math.fround(e);
        expect(quantScale(bits, ef), `bits ${bits}, extent ${ef}`).toBe(exactScale(bits, ef));
      }
    }
    expect(quantScale(21, 0)).toBe(0);
  });

  it('mortonCodesCpu interleaves the quantised cells bit by bit (BigInt reference)', () => {
    for (const dim of [2, 3, 4, 5, 7, 16]) {
      const n = 200;
      const pts = cloud('normal', n, dim, dim);
      const frame = sceneFrameCpu(pts, n, dim);
      const codes = mortonCodesCpu(pts, n, dim, frame);
      const bits = bitsPerAxis(dim);
      for (let i = 0; i < n; i++) {
        let ref = 0n;
        for (let a = 0; a < dim; a++) {
          const t = Math.fround(Math.fround(pts[i * dim + a] - frame.lo[a]) * frame.scale[a]);
          const cell = BigInt(Math.min(Math.floor(t), maxCell(bits)));
          for (let b = 0; b < bits; b++) if ((cell >> BigInt(b)) & 1n) ref |= 1n << BigInt(b * dim + dim - 1 - a);
        }
        const got = (BigInt(codes[2 * i + 1]) << 32n) | BigInt(codes[2 * i]);
        expect(got, `d=${dim} point ${i}`).toBe(ref);
        expect(got >> BigInt(codeBits(dim))).toBe(0n);
      }
      // The extreme points reach cell 0 and the top cell on every axis.
      for (let a = 0; a < dim; a++) expect(frame.scale[a]).toBeGreaterThan(0);
    }
  });

  it('d = 1 uses the order-preserving image of the coordinate', () => {
    const pts = new Float32Array([3, -1, -0, 0, 2.5, -1e30]);
    const frame = sceneFrameCpu(pts, pts.length, 1);
    const codes = mortonCodesCpu(pts, pts.length, 1, frame);
    for (let i = 0; i < pts.length; i++) {
      expect(codes[2 * i]).toBe(orderF32(pts[i]));
      expect(codes[2 * i + 1]).toBe(0);
      expect(Object.is(unorderF32(codes[2 * i]), pts[i])).toBe(true);
    }
    expect(codes[2 * 2]).toBeLessThan(codes[2 * 3]);
  });

  it('sceneFrameCpu puts −0 below +0 and gives zero scale to flat axes', () => {
    const pts = new Float32Array([0, 5, -0, 5, 0, 5]);
    const f = sceneFrameCpu(pts, 3, 2);
    expect(Object.is(f.lo[0], -0)).toBe(true);
    expect(Object.is(f.hi[0], 0)).toBe(true);
    expect(f.scale[0]).toBe(0);
    expect(f.scale[1]).toBe(0);
  });
});

describe('mortonDigitsCpu: the top 16 bits of mortonCodesCpu, without the whole code', () => {
  const cases: [string, (dim: number) => Float32Array][] = [
    ['uniform', (dim) => cloud('uniform', 5000, dim, 71)],
    ['clustered', (dim) => cloud('clustered', 5000, dim, 72)],
    [
      'extreme scales, a flat axis, copies and the box corners',
      (dim) => {
        const r = mulberry32(73);
        const out = new Float32Array(3000 * dim);
        for (let i = 0; i < 3000; i++) {
          for (let a = 0; a < dim; a++) {
            const big = a === 0 ? 1e30 : a === 1 ? 1e-30 : 0;
            out[i * dim + a] =
              i % 7 === 0 ? out[(i - 1 > 0 ? i - 1 : 0) * dim + a] : big * (r() - 0.5) + (a === 2 ? 5 : 0);
          }
        }
        // The corners: the largest cell (clamped) and the smallest.
        for (let a = 0; a < dim; a++) {
          out[a] = -F32_MAX / 4;
          out[dim + a] = F32_MAX / 4;
        }
        return out;
      },
    ],
  ];
  for (const [name, make] of cases) {
    for (const dim of [2, 3]) {
      it(`${name}, ${dim}D`, () => {
        const points = make(dim);
        const n = points.length / dim;
        const frame = sceneFrameCpu(points, n, dim);
        const codes = mortonCodesCpu(points, n, dim, frame);
        const shift = digitShift(codeBits(dim));
        const digits = new Uint16Array(n);
        const counts = new Uint32Array(65536);
        // In two ranges, as the threads call it.
        expect(mortonDigitsCpu(points, 0, 1234, dim, frame, digits, counts)).toBe(true);
        expect(mortonDigitsCpu(points, 1234, n, dim, frame, digits, counts)).toBe(true);
        const want = Uint16Array.from({ length: n }, (_, i) => codeDigit(codes, i, shift));
        expect(digits).toEqual(want);
        const wantCounts = new Uint32Array(65536);
        for (const d of want) wantCounts[d]++;
        expect(counts).toEqual(wantCounts);
        // Not all in one bucket (the test would be weak; the extreme case's corners crowd its points into a few).
        expect(new Set(want).size).toBeGreaterThan(name.startsWith('extreme') ? 1 : 1000);
      });
    }
  }
  it('other dims: false, nothing written', () => {
    const points = cloud('uniform', 100, 4, 74);
    const digits = new Uint16Array(100).fill(7);
    expect(mortonDigitsCpu(points, 0, 100, 4, sceneFrameCpu(points, 100, 4), digits, new Uint32Array(65536))).toBe(
      false,
    );
    expect(digits.every((d) => d === 7)).toBe(true);
  });
});
