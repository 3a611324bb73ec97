/**
 * The box array bound in several parts (src/bvh/layout.ts, "Box parts"): the H100 binds at most 2 GiB − 4 bytes,
 * and 10^8 3D points need 2.4 GB of boxes (n − 1 records of 2·d f32). Small parts (a few dozen records) exercise the same code paths with few
 * points: the build (karras zeroing, refit atomics), the k-NN traversal and the Borůvka traversal must give
 * exactly what the single-binding layout and the CPU twins give.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createBoxParts } from '../../src/bvh/boxparts.js';
import { allocateBvh, createBvhBuilder } from '../../src/bvh/lbvh.js';
import { buildBvhCpu } from '../../src/bvh/lbvh.cpu.js';
import { asBoxFormat, readBvh } from '../helpers/bvh.readback.js';
import { emst } from '../../src/emst/emst.js';
import { InputError } from '../../src/errors.js';
import type { GpuContext } from '../../src/gpu/context.js';
import { createKnnSearcher } from '../../src/knn/knn.js';
import { knnCpu } from '../../src/knn/knn.cpu.js';
import { cloud } from '../helpers/clouds.js';
import { gpuEmstOnce } from '../helpers/emst.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { periodicPoints } from '../helpers/periodic.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

const bits = (a: Float32Array | Uint32Array) => Array.from(new Uint32Array(a.buffer, a.byteOffset, a.length));

const gpuEmst = (
  ctx: GpuContext,
  pts: Float32Array,
  dim: number,
  minSamples: number,
  partRecords: number,
  period?: Float32Array,
) => gpuEmstOnce(ctx, pts, dim, minSamples, { period, layout: { boxPartRecords: partRecords } });

describe.skipIf(variants.length === 0).each(variants)('the box array in parts ($name)', ({ ctx }) => {
  it.each([
    [3, 32, 80, 'f32'],
    [3, 32, 70, 'f32'],
    [2, 64, 190, 'f32'],
    [5, 32, 66, 'f32'],
    [1, 32, 96, 'f32'],
    // u16 boxes (parts of multiples of 64 records; the frame's two records after the last box).
    [3, 64, 150, 'u16'],
    [3, 64, 127, 'u16'],
    [2, 64, 190, 'u16'],
    [5, 64, 100, 'u16'],
  ] as const)(
    'BVH build, d=%i, %i records per part, n=%i, %s boxes: the CPU twin exactly',
    async (dim, partRecords, n, boxes) => {
      const pts = cloud('clustered', n, dim, 5 + n);
      const builder = await createBvhBuilder(ctx, { maxCount: n, dim, boxPartRecords: partRecords, boxes });
      const bvh = allocateBvh(ctx, n, dim, { boxes });
      const input = ctx.upload('test::points', pts);
      try {
        await ctx.submit('test::build', (rec) => builder.encode(rec, input, n, bvh));
        const got = await readBvh(ctx, bvh);
        const want = asBoxFormat(buildBvhCpu(pts, dim), got.boxFormat);
        expect(bits(got.boxes)).toEqual(bits(want.boxes));
        expect(Array.from(got.links)).toEqual(Array.from(want.links));
      } finally {
        input.destroy();
        bvh.destroy();
        builder.destroy();
      }
    },
  );

  it('k-NN over a BVH in 3 parts equals the CPU twin', async () => {
    const dim = 3;
    const n = 150;
    const k = 5;
    const pts = cloud('normal', n, dim, 8);
    const builder = await createBvhBuilder(ctx, { maxCount: n, dim, boxPartRecords: 64 });
    // 384 words a part: 64 box records, as the build's; the points in 2 parts (gpu/bigarray.ts, issue 19).
    const searcher = await createKnnSearcher(ctx, { dim, k, maxCount: n, partElements: 384 });
    const bvh = allocateBvh(ctx, n, dim);
    const input = ctx.upload('test::points', pts);
    const indices = ctx.createBuffer('test::indices', 4 * n * k);
    const d2 = ctx.createBuffer('test::d2', 4 * n * k);
    try {
      await ctx.submit('test::knn', (rec) => {
        builder.encode(rec, input, n, bvh);
        searcher.encode(rec, bvh, { indices, squaredDistances: d2 });
      });
      const want = knnCpu(buildBvhCpu(pts, dim), k);
      expect(Array.from(new Uint32Array(await ctx.read(indices, 0, 4 * n * k)))).toEqual(Array.from(want.indices));
      expect(Array.from(new Float32Array(await ctx.read(d2, 0, 4 * n * k)))).toEqual(Array.from(want.squaredDistances));
    } finally {
      for (const b of [input, indices, d2]) b.destroy();
      bvh.destroy();
      builder.destroy();
      searcher.destroy();
    }
  });

  it.each([
    [3, 1, 150],
    [3, 5, 150],
    [2, 1, 100],
    [2, 15, 190],
  ])('EMST d=%i minSamples=%i n=%i with 64 records per part: identical to the CPU backend', async (dim, ms, n) => {
    const pts = cloud('grid', n, dim, 4);
    const got = await gpuEmst(ctx, pts, dim, ms, 64);
    const cpu = await emst(pts, { dim, minSamples: ms, backend: 'cpu' });
    expect(Array.from(got.sources)).toEqual(Array.from(cpu.sources));
    expect(Array.from(got.targets)).toEqual(Array.from(cpu.targets));
    expect(Array.from(got.weights)).toEqual(Array.from(cpu.weights));
  });

  it('periodic EMST with the box array in 3 parts: identical to the CPU backend', async () => {
    const box = [6, 5, 7];
    const pts = periodicPoints('grid', 180, box, 9);
    const got = await gpuEmst(ctx, pts, 3, 1, 64, Float32Array.from(box));
    const cpu = await emst(pts, { dim: 3, box, backend: 'cpu' });
    expect(Array.from(got.targets)).toEqual(Array.from(cpu.targets));
    expect(Array.from(got.weights)).toEqual(Array.from(cpu.weights));
  });

  it('more points than 3 parts hold is an InputError naming the limit', () => {
    const parts = createBoxParts(ctx, 3, 32);
    const boxes = ctx.createBuffer('test::boxes', 8 * 3 * 96);
    try {
      // 3 parts of 32 records hold the n − 1 = 96 records of 97 points.
      expect(() => parts.bind(boxes, 98)).toThrow(InputError);
      expect(() => parts.bind(boxes, 98)).toThrow(/at most 97 points/);
      expect(parts.bind(boxes, 97)).toHaveLength(3);
    } finally {
      boxes.destroy();
      parts.destroy();
    }
  });
});
