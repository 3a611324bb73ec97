/**
 * Issue 19: the u16 box format's CPU twin (src/bvh/box.cpu.ts; shaders/bvh/box.wgsl). Checked against independent
 * arithmetic: every quantised box contains its f32 box (rounded outward), its cells lie in [0, 65535], the
 * dequantised ends are exact in f32 (so fused or unfused multiply-adds give them alike), and the frame is the
 * smallest power of two that fits — for random boxes and degenerate ones: one point, duplicates, scales 1e-30 and
 * 1e30, negative coordinates, ±1e38, subnormals.
 */
import { describe, expect, it } from 'vitest';
import { boxDequant, boxFrameCpu, boxQuantHi, boxQuantLo, quantiseBoxesCpu } from '../../src/bvh/box.cpu.js';
import { buildBvhCpu } from '../../src/bvh/lbvh.cpu.js';
import { boxFormatFor } from '../../src/bvh/layout.js';
import { checkBvhInvariants } from '../helpers/bvh.js';
import { mulberry32 } from '../helpers/random.js';

/** Axis bounds [lo, hi] (f32) of the cases below. */
const AXES: [number, number][] = [
  [0, 0],
  [1, 1],
  [-3, 5],
  [0, 1],
  [1e6, 1e6 + 1],
  [-1e-30, 1e-30],
  [1e-30, 2e-30],
  [-1e30, 1e30],
  [1e30, 1e30],
  [-1e38, 1e38],
  [1e38, 1e38],
  [-1e38, -1e38],
  [-1e-40, 1e-40],
  [-5e-45, 0],
  [-1e-30, 1e30],
].map(([a, b]) => [Math.fround(a), Math.fround(b)]);

/** Points of [lo, hi]: both ends, and seeded ones between (as f32). */
function within(lo: number, hi: number, seed: number): number[] {
  const r = mulberry32(seed);
  const xs = [lo, hi];
  for (let i = 0; i < 40; i++) xs.push(Math.fround(lo + (hi - lo) * r()));
  return xs.filter((x) => x >= lo && x <= hi);
}

describe('u16 boxes (box.cpu.ts)', () => {
  it('the frame is the smallest power-of-two cell that holds the axis within 65530 cells and ±2^23', () => {
    for (const [lo, hi] of AXES) {
      const { origin, cell } = boxFrameCpu(lo, hi);
      const e = Math.log2(cell);
      expect(Number.isInteger(e) && e >= -126 && e <= 112, `${lo}, ${hi}: cell ${cell}`).toBe(true);
      expect(origin, `${lo}, ${hi}`).toBe(Math.fround(origin));
      expect(origin <= lo, `${lo}, ${hi}: origin ${origin}`).toBe(true);
      const fits = (c: number) =>
        Math.ceil(hi / c) - Math.floor(lo / c) <= 65530 && Math.max(Math.abs(lo), Math.abs(hi)) / c <= 2 ** 23;
      expect(fits(cell), `${lo}, ${hi}`).toBe(true);
      // Normal magnitudes (the twin's flush of subnormal products aside): half the cell does not fit.
      if (e > -126 && Math.min(Math.abs(lo), Math.abs(hi)) * 2 ** -e >= 2 ** -126 && lo !== 0 && hi !== 0) {
        expect(fits(cell / 2), `${lo}, ${hi}: a smaller cell fits`).toBe(false);
      }
    }
  });

  it('cells round outward by at least one cell, lie in [0, 65535], and dequantise exactly in f32', () => {
    let seed = 1;
    for (const [lo, hi] of AXES) {
      const { origin, cell } = boxFrameCpu(lo, hi);
      for (const x of within(lo, hi, seed++)) {
        const ql = boxQuantLo(x, origin, cell);
        const qh = boxQuantHi(x, origin, cell);
        for (const q of [ql, qh]) expect(Number.isInteger(q) && q >= 0 && q <= 65535, `x=${x}: cell ${q}`).toBe(true);
        const dl = boxDequant(ql, origin, cell);
        const dh = boxDequant(qh, origin, cell);
        // Exact: the double (q·cell + origin) is already an f32, so any rounding of the multiply-add gives it.
        expect(dl, `x=${x}`).toBe(ql * cell + origin);
        expect(dh, `x=${x}`).toBe(qh * cell + origin);
        expect(dl <= x - cell || (Math.abs(x) < 2 ** -126 * cell && dl <= x), `x=${x}: lo ${dl}`).toBe(true);
        expect(dh >= x + cell || (Math.abs(x) < 2 ** -126 * cell && dh >= x), `x=${x}: hi ${dh}`).toBe(true);
        expect(Number.isFinite(dl) && Number.isFinite(dh)).toBe(true);
      }
    }
  });

  it("a CPU BVH's quantised boxes contain its f32 boxes; the frame follows the last record", () => {
    const r = mulberry32(7);
    const clouds: [string, Float32Array, number][] = [
      ['one point', Float32Array.from([-2, 3, 1e-30]), 3],
      ['two points', Float32Array.from([1, 1, 1, -1, -1, -1]), 3],
      ['duplicates', Float32Array.from({ length: 3 * 300 }, (_, i) => [0.5, -7, 1e30][i % 3]), 3],
      ['tiny', Float32Array.from({ length: 3 * 500 }, () => (r() - 0.5) * 1e-30), 3],
      ['huge', Float32Array.from({ length: 2 * 500 }, () => (r() - 0.5) * 2e30), 2],
      ['mixed scales', Float32Array.from({ length: 3 * 400 }, (_, i) => (i % 2 ? 1e-30 : 1e30) * (r() - 0.7)), 3],
      ['negative', Float32Array.from({ length: 1 * 999 }, () => -1e6 - r()), 1],
      ['5D', Float32Array.from({ length: 5 * 257 }, () => r() * 100 - 60), 5],
    ];
    for (const [what, pts, dim] of clouds) {
      const bvh = buildBvhCpu(pts, dim);
      checkBvhInvariants(pts, bvh);
      const n = bvh.n;
      const words = quantiseBoxesCpu(bvh.boxes, n, dim, bvh.frame);
      const records = Math.max(n - 1, 1);
      expect(words.length, what).toBe((records + 2) * dim);
      const frame = new Float32Array(words.buffer, 4 * records * dim, 2 * dim);
      for (let a = 0; a < dim; a++) {
        const f = boxFrameCpu(bvh.frame.lo[a], bvh.frame.hi[a]);
        expect([frame[a], frame[dim + a]], what).toEqual([f.origin, f.cell]);
      }
      for (let i = 0; i < n - 1; i++) {
        for (let a = 0; a < dim; a++) {
          const w = words[i * dim + a];
          const lo = boxDequant(w & 0xffff, frame[a], frame[dim + a]);
          const hi = boxDequant(w >>> 16, frame[a], frame[dim + a]);
          if (!(lo <= bvh.boxes[i * 2 * dim + a] && hi >= bvh.boxes[i * 2 * dim + dim + a])) {
            expect.fail(`${what}: node ${i} axis ${a}: [${lo}, ${hi}] does not contain the f32 box`);
          }
        }
      }
    }
  });

  it('boxFormatFor: f32 by default (DEFAULT_BOXES); TREELINE_BVH_BOXES picks one, else an error', () => {
    const saved = process.env.TREELINE_BVH_BOXES;
    try {
      delete process.env.TREELINE_BVH_BOXES;
      expect([1, 2, 3, 4, 16].map((d) => boxFormatFor(d))).toEqual(['f32', 'f32', 'f32', 'f32', 'f32']);
      expect(boxFormatFor(8, { given: 'u16' })).toBe('u16');
      process.env.TREELINE_BVH_BOXES = 'f32';
      expect(boxFormatFor(3)).toBe('f32');
      process.env.TREELINE_BVH_BOXES = 'u16';
      expect(boxFormatFor(8)).toBe('u16');
      expect(boxFormatFor(2, { given: 'f32' })).toBe('f32');
      process.env.TREELINE_BVH_BOXES = 'half';
      expect(() => boxFormatFor(3)).toThrow(/TREELINE_BVH_BOXES: expected f32 or u16, got 'half'/);
    } finally {
      if (saved === undefined) delete process.env.TREELINE_BVH_BOXES;
      else process.env.TREELINE_BVH_BOXES = saved;
    }
  });
});
