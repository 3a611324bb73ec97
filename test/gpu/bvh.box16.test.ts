/**
 * Issue 19: u16 boxes (src/bvh/layout.ts "Box formats", shaders/bvh/box.wgsl). The GPU build (the frame kernel's
 * box frame, Karras zeroing BOXW words, the copy of the frame after the last record, the refit's quantisation and
 * word-wise atomic unions) writes the CPU twin's quantised boxes (box.cpu.ts) bit for bit, also over stale boxes and
 * through the atomic walk alone; and every reader (Borůvka's traversal, the k-NN, mutual reachability's core
 * distances, periodic boxes) gives with u16 boxes exactly what it gives with f32 boxes and the CPU backend — at
 * degenerate sizes and inputs: one point, duplicates, scales 1e-30 and 1e30, negative coordinates.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { allocateBvh, createBvhBuilder } from '../../src/bvh/lbvh.js';
import { buildBvhCpu } from '../../src/bvh/lbvh.cpu.js';
import type { BoxFormat } from '../../src/bvh/layout.js';
import { emst } from '../../src/emst/emst.js';
import { knn } from '../../src/knn/knn.js';
import { asBoxFormat, readBvh } from '../helpers/bvh.readback.js';
import { checkBvhInvariants } from '../helpers/bvh.js';
import { cloud } from '../helpers/clouds.js';
import { gpuEmstOnce } from '../helpers/emst.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { periodicPoints } from '../helpers/periodic.js';
import { mulberry32 } from '../helpers/random.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

const bits = (a: Float32Array) => Array.from(new Uint32Array(a.buffer, a.byteOffset, a.length));

/**
 * Seeded degenerate and extreme clouds: [name, points, dim]. `small` (1e-30, 1e30) for the build; the traversals take
 * 1e-9 and 1e9: they run GpuEmst directly, without emst()'s power-of-two scaling (src/emst/scale.ts, tested in
 * emst.scale), so their largest coordinates stay inside the range emst() leaves unscaled, [2^-32, 2^32], where every
 * squared per-axis difference is a normal float. At 1e-15 a per-axis difference of ~1e-20 squares to a subnormal that
 * the H100 flushes and the CPU keeps (weights differed in the 5th digit there, f32 and u16 boxes alike; 2026-11-27).
 */
function clouds(tiny = 1e-30, huge = 1e30): [string, Float32Array, number][] {
  const r = mulberry32(11);
  const f = (n: number, g: (i: number) => number) => Float32Array.from({ length: n }, (_, i) => g(i));
  return [
    ['one point', Float32Array.from([-2, 3, tiny]), 3],
    ['two points', Float32Array.from([1, 1, 1, -1, -1, -1]), 3],
    ['duplicates', f(3 * 300, (i) => [0.5, -7, huge][i % 3]), 3],
    ['tiny', f(3 * 500, () => (r() - 0.5) * tiny), 3],
    ['huge', f(2 * 257, () => (r() - 0.5) * 2 * huge), 2],
    ['mixed scales', f(3 * 400, (i) => (i % 2 ? tiny : huge) * (r() - 0.7)), 3],
    ['negative 1D', f(999, () => -1e6 - r()), 1],
    ['5D', f(5 * 255, () => r() * 100 - 60), 5],
    ['normal 3D', cloud('normal', 2001, 3, 3), 3],
    ['clustered 2D', cloud('clustered', 2048, 2, 4), 2],
  ];
}

/** Runs `fn` with TREELINE_BVH_BOXES set to `format` (GpuEmst and knn() read it at creation). */
async function withBoxes<T>(format: BoxFormat, fn: () => Promise<T>): Promise<T> {
  const saved = process.env.TREELINE_BVH_BOXES;
  process.env.TREELINE_BVH_BOXES = format;
  try {
    return await fn();
  } finally {
    if (saved === undefined) delete process.env.TREELINE_BVH_BOXES;
    else process.env.TREELINE_BVH_BOXES = saved;
  }
}

describe.skipIf(variants.length === 0).each(variants)('u16 boxes ($name)', ({ ctx }) => {
  it('the GPU build writes the CPU twin quantised, bit for bit, over stale boxes and through the atomic walk alone', async () => {
    for (const [what, pts, dim] of clouds()) {
      const n = pts.length / dim;
      for (const refitDirect of [32, 1]) {
        const builder = await createBvhBuilder(ctx, { maxCount: n, dim, boxes: 'u16', refitDirect });
        const bvh = allocateBvh(ctx, n, dim, { boxes: 'u16' });
        // Karras zeroes only the records the refit accumulates: the others must be stored outright.
        ctx.device.queue.writeBuffer(bvh.boxes, 0, new Uint32Array(bvh.boxes.size / 4).fill(0x7f7fffff));
        const input = ctx.upload('test::points', pts);
        try {
          await ctx.submit('test::build', (rec) => builder.encode(rec, input, n, bvh));
          const got = await readBvh(ctx, bvh);
          expect(got.boxFormat).toBe('u16');
          const twin = buildBvhCpu(pts, dim);
          expect(bits(got.boxes), `${what} direct ${refitDirect}`).toEqual(bits(asBoxFormat(twin, 'u16').boxes));
          expect(Array.from(got.links), what).toEqual(Array.from(twin.links));
          checkBvhInvariants(pts, got);
        } finally {
          input.destroy();
          bvh.destroy();
          builder.destroy();
        }
      }
    }
  });

  it('a builder refuses a BVH of the other box format, naming both', async () => {
    const builder = await createBvhBuilder(ctx, { maxCount: 10, dim: 3, boxes: 'u16' });
    const bvh = allocateBvh(ctx, 10, 3, { boxes: 'f32' });
    const input = ctx.upload('test::points', cloud('normal', 10, 3, 1));
    try {
      await expect(ctx.submit('test::build', (rec) => builder.encode(rec, input, 10, bvh))).rejects.toThrow(
        /Expected a BVH with u16 boxes \(the builder's\), got f32/,
      );
    } finally {
      input.destroy();
      bvh.destroy();
      builder.destroy();
    }
  });

  it("EMST (Euclidean, minSamples 5) and k-NN: u16 boxes give the f32 boxes' results and the CPU backend's", async () => {
    for (const [what, pts, dim] of clouds(1e-9, 1e9)) {
      if (dim > 3) continue;
      // Mutual reachability (the k-NN's core distances on u16 boxes too) on two clouds: the test's time.
      for (const ms of what === 'normal 3D' || what === 'mixed scales' ? [1, 5] : [1]) {
        const [a, b] = [
          await withBoxes('u16', () => gpuEmstOnce(ctx, pts, dim, ms)),
          await withBoxes('f32', () => gpuEmstOnce(ctx, pts, dim, ms)),
        ];
        const cpu = await emst(pts, { dim, minSamples: ms, backend: 'cpu' });
        for (const got of [a, b]) {
          expect(Array.from(got.sources), `${what} ms=${ms}`).toEqual(Array.from(cpu.sources));
          expect(Array.from(got.targets), `${what} ms=${ms}`).toEqual(Array.from(cpu.targets));
          expect(Array.from(got.weights), `${what} ms=${ms}`).toEqual(Array.from(cpu.weights));
        }
      }
      const k = Math.min(4, pts.length / dim);
      const [ku, kf] = [
        await withBoxes('u16', () => knn(pts, { dim, k, gpu: ctx })),
        await withBoxes('f32', () => knn(pts, { dim, k, gpu: ctx })),
      ];
      const kc = await knn(pts, { dim, k, backend: 'cpu' });
      for (const got of [ku, kf]) {
        expect(Array.from(got.indices), what).toEqual(Array.from(kc.indices));
        expect(bits(got.squaredDistances), what).toEqual(bits(kc.squaredDistances));
      }
    }
  });

  it('periodic EMST on u16 boxes: the CPU backend exactly', async () => {
    const box = [6, 5, 7];
    const pts = periodicPoints('grid', 500, box, 9);
    const got = await withBoxes('u16', () => gpuEmstOnce(ctx, pts, 3, 1, { period: Float32Array.from(box) }));
    const cpu = await emst(pts, { dim: 3, box, backend: 'cpu' });
    expect(Array.from(got.targets)).toEqual(Array.from(cpu.targets));
    expect(Array.from(got.weights)).toEqual(Array.from(cpu.weights));
  });
});
