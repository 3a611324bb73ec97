/**
 * Issue 17 §4: emst()'s coordinate check and scaling on the GPU (src/emst/pointcheck.ts). The kernels against their
 * CPU twins (pointcheck.cpu.ts) on seeded words of degenerate and odd sizes; then emst() and hdbscan() on the GPU
 * against the host's rule: the same InputError text for NaN, ±Inf and out-of-range values at the first, a middle
 * and the last row (several bad values: the first is named; Float64Array values as the caller wrote them), and at
 * tiny and huge scales the same edges, bit for bit, as the host-scaled GPU path and the CPU backend.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { emst } from '../../src/emst/emst.js';
import { emstGpu } from '../../src/emst/pipeline.js';
import { createPointChecker } from '../../src/emst/pointcheck.js';
import { checkPointsCpu, MAX_COORDINATE_BITS, scaleBitsCpu } from '../../src/emst/pointcheck.cpu.js';
import { scaleInput, unscaleWeights } from '../../src/emst/scale.js';
import { validateEmstInput } from '../../src/emst/validate.js';
import { hdbscan } from '../../src/hdbscan.js';
import { mstStats } from '../../src/stats/mstStats.js';
import { InputError } from '../../src/errors.js';
import type { GpuContext } from '../../src/gpu/context.js';
import { cloud } from '../helpers/clouds.js';
import { edgeCaseKeys } from '../helpers/floatBits.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { mulberry32, randomU32 } from '../helpers/random.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

const bitsOf = (x: number) => new Uint32Array(new Float32Array([x]).buffer)[0];

/** Random words: half plain floats in ±1000, the rest raw bit patterns (NaNs, infinities, subnormals, huge). */
function words(n: number, seed: number): Uint32Array {
  const raw = randomU32(n, seed);
  const r = mulberry32(seed + 1);
  for (let i = 0; i < n; i++) if (r() < 0.5) raw[i] = bitsOf(r() * 2000 - 1000);
  return raw;
}

async function checkOnGpu(ctx: GpuContext, bits: Uint32Array, limit: number) {
  const checker = await createPointChecker(ctx);
  const points = ctx.upload('test::points', bits.length > 0 ? bits : new Uint32Array(1));
  const out = ctx.upload('test::out', new Uint32Array([0xdead, 0xbeef]));
  try {
    await ctx.submit('test::check', (rec) => checker.encodeCheck(rec, points, bits.length, out, limit));
    const [first, topBits] = new Uint32Array(await ctx.read(out, 0, 8));
    return { first: first === 0 ? -1 : ~first >>> 0, topBits };
  } finally {
    points.destroy();
    out.destroy();
  }
}

async function scaleOnGpu(ctx: GpuContext, bits: Uint32Array, exponent: number): Promise<Uint32Array> {
  const checker = await createPointChecker(ctx);
  const points = ctx.upload('test::points', bits.length > 0 ? bits : new Uint32Array(1));
  try {
    await ctx.submit('test::scale', (rec) => checker.encodeScale(rec, points, bits.length, exponent));
    return new Uint32Array(await ctx.read(points, 0, 4 * bits.length));
  } finally {
    points.destroy();
  }
}

/** The message emst() gives for `points` on `backend` (the CPU backend checks on the host). */
async function messageOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return (e as Error).message;
  }
  throw new Error('expected an InputError');
}

const times = (pts: Float32Array, f: number) => pts.map((x) => x * f);

describe.skipIf(variants.length === 0).each(variants)('emst::check and emst::scale on the GPU ($name)', ({ ctx }) => {
  it.each([0, 1, 2, 255, 257, 4099, 600_000])('emst::check equals its twin on %i seeded words', async (n) => {
    for (const seed of [1, 2]) {
      const mixed = words(n, 31 * n + seed);
      // Mostly in range with one planted bad word (or none), so the maximum and a late first index are tested too.
      const r = mulberry32(n + seed);
      const clean = new Uint32Array(n).map(() => bitsOf((r() - 0.5) * 10 ** (1 + 30 * r())));
      if (n > 0 && seed === 2) clean[Math.floor(r() * n)] = 0x7fc00000;
      for (const bits of [mixed, clean]) {
        for (const limit of [MAX_COORDINATE_BITS, MAX_COORDINATE_BITS - 1]) {
          expect(await checkOnGpu(ctx, bits, limit)).toEqual(checkPointsCpu(bits, limit));
        }
      }
    }
  });

  it('emst::check on edge-case patterns (subnormals, ±0, the limit and one above, NaN payloads)', async () => {
    const bits = new Uint32Array([...edgeCaseKeys(), MAX_COORDINATE_BITS, MAX_COORDINATE_BITS + 1]);
    for (const from of [0, 500, bits.length - 3]) {
      const b = bits.slice(from);
      expect(await checkOnGpu(ctx, b, MAX_COORDINATE_BITS)).toEqual(checkPointsCpu(b, MAX_COORDINATE_BITS));
    }
  });

  it('emst::scale equals its twin (and so Math.fround(x · 2^e)) on seeded finite words, subnormals included', async () => {
    const finite = [...edgeCaseKeys(), ...randomU32(30_000, 7)].filter((b) => (b & 0x7f800000) !== 0x7f800000);
    const bits = new Uint32Array(finite);
    for (const e of [-149, -127, -100, -33, 1, 33, 100, 127, 149]) {
      // Only words the scaling keeps finite: the kernel is never asked for more (scale.ts: the largest lands in [1, 2)).
      const keep = bits.filter((b) => ((b >>> 23) & 0xff) + e < 255);
      const want = keep.map((b) => scaleBitsCpu(b, e));
      expect(await scaleOnGpu(ctx, keep, e)).toEqual(want);
    }
    expect(await scaleOnGpu(ctx, new Uint32Array(0), 5)).toEqual(new Uint32Array(0));
    expect(await scaleOnGpu(ctx, new Uint32Array([bitsOf(3)]), 2)).toEqual(new Uint32Array([bitsOf(12)]));
  });

  it('uploadFloat32 rounds a Float64Array in staging as new Float32Array() does (sizes 0, 1, odd, many chunks)', async () => {
    const r = mulberry32(21);
    const special = [
      0,
      -0,
      1e-46,
      7e-46,
      1e-40,
      -1e-39,
      1e39,
      -1e39,
      3.4028235677973366e38,
      NaN,
      Infinity,
      1 + 2 ** -24,
    ];
    const sample = (n: number) =>
      Float64Array.from({ length: n }, (_, i) =>
        i % 7 === 0 ? special[(i / 7) % special.length] : (r() - 0.5) * 10 ** (60 * r() - 30),
      );
    const sizes = [0, 1, 3, 1001, 70_001, 300_000];
    for (const chunkBytes of [undefined, 64]) {
      if (chunkBytes) ctx.configureStaging({ chunkBytes, slots: 2 });
      try {
        for (const n of sizes.filter((k) => !chunkBytes || k < 5000)) {
          const data = sample(n);
          const buffer = await ctx.uploadFloat32('test::rounded', data);
          try {
            const got = n > 0 ? new Uint32Array(await ctx.read(buffer, 0, 4 * n)) : new Uint32Array(0);
            expect(got).toEqual(new Uint32Array(new Float32Array(data).buffer));
          } finally {
            buffer.destroy();
          }
        }
      } finally {
        if (chunkBytes) ctx.configureStaging({});
      }
    }
  });

  describe('emst() on the GPU rejects bad coordinates with the host check’s message', () => {
    const n = 777;
    const base = cloud('uniform', n, 3, 5);
    const placed: [string, number, number][] = [
      ['the first row', 0, 0],
      ['a middle row', 388, 1],
      ['the last row', n - 1, 2],
    ];
    const values: [string, number][] = [
      ['NaN', NaN],
      ['Infinity', Infinity],
      ['-Infinity', -Infinity],
      ['2e38', 2e38],
    ];
    it.each(placed)('a bad value in %s', async (_where, row, column) => {
      for (const [, value] of values) {
        for (const Type of [Float32Array, Float64Array]) {
          const p = Type.from(base);
          p[row * 3 + column] = value;
          const want = await messageOf(emst(p, { dim: 3, backend: 'cpu' }));
          expect(want).toContain(`at row ${row}, column ${column}.`);
          expect(await messageOf(emst(p, { dim: 3, backend: 'gpu', gpu: ctx }))).toBe(want);
        }
      }
    });

    it('Float64Array values beyond float32 (1e39, -1e300) and just above 1e38 are named as the caller wrote them', async () => {
      for (const value of [1e39, -1e300, 1.00000001e38, -1.0000000000001e38]) {
        const p = Float64Array.from(base);
        p[400] = value;
        const want = await messageOf(emst(p, { dim: 3, backend: 'cpu' }));
        expect(want).toContain(`got ${value} at row 133, column 1.`);
        expect(await messageOf(emst(p, { dim: 3, backend: 'gpu', gpu: ctx }))).toBe(want);
      }
    });

    it('several bad values: the first in row-major order is named, whichever thread finds it', async () => {
      const before = ctx.memory.liveBuffers;
      const r = mulberry32(11);
      for (let trial = 0; trial < 4; trial++) {
        const p = Float64Array.from(base);
        for (let k = 0; k < 20; k++) p[Math.floor(r() * p.length)] = [NaN, Infinity, -3e38, 1e39][k % 4];
        const want = await messageOf(emst(p, { dim: 3, backend: 'cpu' }));
        expect(await messageOf(emst(p, { dim: 3, backend: 'gpu', gpu: ctx }))).toBe(want);
        expect(await messageOf(hdbscan(p, { dim: 3, minClusterSize: 5, backend: 'gpu', gpu: ctx }))).toBe(want);
      }
      // A rejected call frees what it made (points, the check's result, the pipeline's buffers).
      expect(ctx.memory.liveBuffers).toBe(before);
    });

    it('a Float64Array at exactly fround(1e38) (a candidate the host clears) runs like a Float32Array', async () => {
      const p = Float64Array.from(base);
      p[5] = Math.fround(1e38);
      p[100] = -Math.fround(1e38);
      const got = await emst(p, { dim: 3, backend: 'gpu', gpu: ctx });
      const want = await emst(Float32Array.from(p), { dim: 3, backend: 'gpu', gpu: ctx });
      expect(got.weights).toEqual(want.weights);
      expect(got.sources).toEqual(want.sources);
    });
  });

  describe('scaled on the GPU: the host-scaled path’s edges, bit for bit', () => {
    /** The GPU path as it was: checked and scaled on the host, then emstGpu and the weights brought back. */
    async function hostScaled(points: Float32Array | Float64Array, dim: number, minSamples = 1) {
      const { input, exponent } = scaleInput(validateEmstInput(points, { dim, minSamples }));
      const r = await emstGpu(input.points, dim, { metric: input.metric, ctx });
      unscaleWeights(r, exponent);
      return r;
    }
    const pts = cloud('uniform', 1500, 3, 6);
    // Huge and tiny scales; some coordinates far below the largest so that scaling makes (or starts from) subnormals.
    const withTiny = (p: Float32Array, f: number) =>
      p.map((x, i) => (i % 97 === 0 ? x * f * 2 ** -120 : i % 89 === 0 ? 0 : x * f));
    it.each([
      ['× 2^100', times(pts, 2 ** 100)],
      ['× 2^-100', times(pts, 2 ** -100)],
      ['× 1e30 with coordinates 2^-120 of it', withTiny(pts, 1e30)],
      ['× 2^-130 (subnormal inputs)', times(pts, 2 ** -130)],
      ['× 3e-39 with zeros', withTiny(pts, 3e-39)],
    ])('%s', async (_name, p) => {
      for (const minSamples of [1, 4]) {
        const got = await emst(p, { dim: 3, minSamples, backend: 'gpu', gpu: ctx });
        const want = await hostScaled(p, 3, minSamples);
        const cpu = await emst(p, { dim: 3, minSamples, backend: 'cpu' });
        expect(got.sources).toEqual(want.sources);
        expect(got.targets).toEqual(want.targets);
        expect(new Uint32Array(got.weights.buffer)).toEqual(new Uint32Array(want.weights.buffer));
        expect(new Uint32Array(got.weights.buffer)).toEqual(new Uint32Array(cpu.weights.buffer));
        expect(got.timings).toHaveProperty('emst::check');
        expect(got.timings).toHaveProperty('emst::validate');
      }
    });

    it('a Float64Array at a huge scale equals its float32 rounding', async () => {
      const p = Float64Array.from(pts, (x) => x * 1e35);
      const got = await emst(p, { dim: 3, backend: 'gpu', gpu: ctx });
      const want = await hostScaled(p, 3);
      expect(got.sources).toEqual(want.sources);
      expect(new Uint32Array(got.weights.buffer)).toEqual(new Uint32Array(want.weights.buffer));
    });

    it('mstStats() on the GPU (tree read back or kept there) at × 2^100 and a NaN: as the host-checked path', async () => {
      const blobs = cloud('clustered', 900, 2, 4);
      const f = 2 ** 100;
      for (const arrays of [true, false]) {
        const s0 = await mstStats(blobs, { dim: 2, backend: 'gpu', gpu: ctx, arrays });
        const s1 = await mstStats(times(blobs, f), { dim: 2, backend: 'gpu', gpu: ctx, arrays });
        expect(s1.backend).toBe('gpu');
        expect(s1.timings).toHaveProperty('emst::check');
        expect([...s1.edgeLengths]).toEqual([...s0.edgeLengths].map((l) => l * f));
        expect([...s1.branchLengths]).toEqual([...s0.branchLengths].map((l) => l * f));
        for (const k of ['degree', 'edgeLength', 'branchLength', 'branchShape'] as const) {
          expect(s1.histograms[k].counts).toEqual(s0.histograms[k].counts);
        }
        expect([...s1.histograms.edgeLength.edges]).toEqual([...s0.histograms.edgeLength.edges].map((e) => e * f));
      }
      const bad = Float64Array.from(blobs);
      bad[1001] = NaN;
      bad[1500] = 1e39;
      const want = await messageOf(mstStats(bad, { dim: 2, backend: 'cpu' }));
      expect(want).toContain('got NaN at row 500, column 1.');
      expect(await messageOf(mstStats(bad, { dim: 2, backend: 'gpu', gpu: ctx }))).toBe(want);
    });

    it('degenerate sizes: 0, 1 and 2 points', async () => {
      for (const n of [0, 1, 2]) {
        const p = new Float32Array(2 * n).map((_, i) => (i + 1) * 2 ** 90);
        const got = await emst(p, { dim: 2, backend: 'gpu', gpu: ctx });
        const cpu = await emst(p, { dim: 2, backend: 'cpu' });
        expect(got.weights).toEqual(cpu.weights);
        expect(got.sources).toEqual(cpu.sources);
      }
    });
  });
});
