/**
 * GPU memory of the EMST (issues 4 and 19: bytes per point beyond the input) and the arrays Borůvka borrows from the
 * BVH, the radix sorter and the k-NN (emst/boruvka.ts, BoruvkaBorrow): the live bytes GpuEmst.create allocates stay
 * under a bound that only holds with the sharing, and a GpuEmst run several times — its borrowed arrays holding
 * the last run's leftovers — keeps giving the CPU backend's tree (exactly where distances are exact in f32). Issue
 * 19: an in-place build (the input's buffer holds the sorted points) gives the same tree edge for edge, puts the
 * points back bit for bit; with one end of each range kept (src/bvh/layout.ts), 8-byte links (their minIndex words
 * in Borůvka's edges until its first merge) and bestMax in the upper bounds' buffer (emst/bestmax.wgsl) emst()'s peak
 * is 96.5 bytes a point beyond the input in 3D (108.5 with mutual reachability: minCore2's 8 bytes during the run),
 * and 84.5 with the opt-in u16 boxes (issue 19's Must: ≤ 100, by default).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { GpuEmst } from '../../src/emst/pipeline.js';
import { generate } from '../../src/datasets/generate.js';
import { emstPeakBytesPerPoint } from '../../src/bvh/capacity.js';
import { emst } from '../../src/emst/emst.js';
import { cloud } from '../helpers/clouds.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { PlainUnionFind } from '../helpers/unionfind.js';
import { metricOf } from '../../src/emst/metric.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

describe.skipIf(variants.length === 0).each(variants)('EMST memory ($name)', ({ ctx }) => {
  it("GpuEmst.create allocates capacity.ts's model (in place 3D 96.5, minSamples 16 100.5 before the run's minCore2; with a sorted copy 108.5, 112.5)", async () => {
    // 96.5 (+ 8 for the k-th and core distances; minCore2's 8 come with the run) in place, 108.5 (112.5) with a
    // sorted copy: capacity.ts, emstPeakBytesPerPoint; issue 19's Must is ≤ 100 beyond the input.
    const n = 100_000;
    for (const [minSamples, inPlace, bound] of [
      [1, true, emstPeakBytesPerPoint(3) + 0.5],
      [16, true, emstPeakBytesPerPoint(3, { mutualReachability: true }) - 8 + 0.5],
      [1, false, emstPeakBytesPerPoint(3, { inPlace: false }) + 0.5],
      [16, false, emstPeakBytesPerPoint(3, { mutualReachability: true, inPlace: false }) - 8 + 0.5],
    ] as const) {
      const before = ctx.memory.liveBytes;
      const e = await GpuEmst.create(ctx, n, 3, metricOf(minSamples), false, { inPlace });
      const perPoint = (ctx.memory.liveBytes - before) / n;
      e.destroy();
      expect(ctx.memory.liveBytes).toBe(before);
      if (perPoint > bound)
        expect.fail(
          `minSamples=${minSamples} inPlace=${inPlace}: ${perPoint.toFixed(1)} bytes per point, expected ≤ ${bound}`,
        );
    }
  });

  it("issue 19: emst()'s peak is capacity.ts's model (3D 96.5 bytes a point beyond the input, 108.5 with minSamples 16, 2D 88.5; u16 boxes 3D 84.5; ≤ 100 in 3D)", async () => {
    const n = 20_000;
    const saved = process.env.TREELINE_BVH_BOXES;
    try {
      for (const [dim, minSamples, boxes] of [
        [3, 1, 'f32'],
        [3, 16, 'f32'],
        [2, 1, 'f32'],
        [3, 1, 'u16'],
      ] as const) {
        // The box format (bvh/layout.ts): f32 by default, u16 opt-in (TREELINE_BVH_BOXES).
        process.env.TREELINE_BVH_BOXES = boxes;
        const pts = generate('normal', { n, dim, seed: 3 });
        await emst(pts, { dim, minSamples, backend: 'gpu', gpu: ctx }); // compiled
        const before = ctx.memory.liveBytes;
        ctx.buffers.resetPeak();
        await emst(pts, { dim, minSamples, backend: 'gpu', gpu: ctx });
        expect(ctx.memory.liveBytes).toBe(before);
        const beyond = (ctx.memory.peakBytes - before) / n - 4 * dim;
        const model = emstPeakBytesPerPoint(dim, { mutualReachability: minSamples > 1, boxes });
        // The model leaves out a few KiB of uniforms and counters and rounds the digit table and the boxes' n − 1
        // records: within 0.5 bytes a point at n = 20,000.
        const tag = `${dim}D minSamples=${minSamples} ${boxes} boxes: ${beyond.toFixed(2)} B/point, model ${model}`;
        expect(Math.abs(beyond - model), tag).toBeLessThanOrEqual(0.5);
        // Issue 19's Must, ≤ 100 bytes a point beyond the input for the 3D EMST: by default (f32 boxes) too.
        if (dim === 3 && minSamples === 1) expect(beyond, tag).toBeLessThanOrEqual(100);
      }
    } finally {
      if (saved === undefined) delete process.env.TREELINE_BVH_BOXES;
      else process.env.TREELINE_BVH_BOXES = saved;
    }
  });

  it('issue 19: an in-place run gives the tree of a run with a sorted copy and restorePoints puts the points back', async () => {
    for (const [dim, minSamples] of [
      [3, 1],
      [2, 5],
    ] as const) {
      const copy = await GpuEmst.create(ctx, 1500, dim, metricOf(minSamples), false, { inPlace: false });
      const inPlace = await GpuEmst.create(ctx, 1500, dim, metricOf(minSamples), false, { inPlace: true });
      try {
        for (const [kind, n, seed] of [
          ['clustered', 1500, 1],
          ['duplicates', 1499, 2],
          ['grid', 257, 3],
          ['grid', 2, 4],
          ['grid', 1, 5],
        ] as const) {
          const pts = cloud(kind, n, dim, seed);
          const tag = `${dim}D minSamples ${minSamples} ${kind} n=${n}`;
          const a = ctx.upload('test::points', pts);
          const b = ctx.upload('test::points', pts);
          try {
            const want = await copy.readEdges(await copy.run(a, n));
            const got = await inPlace.readEdges(await inPlace.run(b, n));
            expect([...got.sources], tag).toEqual([...want.sources]);
            expect([...got.targets], tag).toEqual([...want.targets]);
            expect([...got.weights], tag).toEqual([...want.weights]);
            await inPlace.restorePoints();
            const back = new Uint32Array(await ctx.read(b, 0, 4 * n * dim));
            expect(back, tag).toEqual(new Uint32Array(pts.buffer, pts.byteOffset, n * dim));
          } finally {
            a.destroy();
            b.destroy();
          }
        }
        const range = ctx.upload('test::points', cloud('grid', 100, dim, 6));
        try {
          await expect(inPlace.run({ buffer: range, offset: 0, size: 400 * dim }, 100)).rejects.toThrow(
            /whole buffer of at least .* got a range of one/,
          );
        } finally {
          range.destroy();
        }
      } finally {
        copy.destroy();
        inPlace.destroy();
      }
    }
  });

  it("one GpuEmst run on several inputs in turn gives the CPU backend's tree each time", async () => {
    const e = await GpuEmst.create(ctx, 3000, 3, metricOf(5));
    try {
      for (const [kind, n, seed] of [
        ['grid', 3000, 1],
        ['clustered', 2500, 2],
        ['duplicates', 3000, 3],
        ['grid', 1200, 4],
      ] as const) {
        const pts = cloud(kind, n, 3, seed);
        const buf = ctx.upload('test::points', pts);
        try {
          const got = await e.readEdges(await e.run(buf, n));
          const want = await emst(pts, { dim: 3, minSamples: 5, backend: 'cpu' });
          if (kind === 'clustered') {
            // Distances not exact in f32: a GPU may fuse multiply-adds differently from the CPU (issue 4's
            // acceptance), so the same total weight within 1e-6 (the H100 differs here by an ulp on a few edges).
            const sum = (w: Float32Array) => w.reduce((a, x) => a + x, 0);
            expect(got.sources.length, `${kind} n=${n}`).toBe(n - 1);
            const uf = new PlainUnionFind(n);
            for (let i = 0; i < n - 1; i++) {
              const a = uf.find(got.sources[i]);
              const b = uf.find(got.targets[i]);
              if (a === b) expect.fail(`${kind} n=${n}: edge ${i} closes a cycle`);
              uf.unionRoots(a, b);
            }
            expect(Math.abs(sum(got.weights) - sum(want.weights)) / sum(want.weights), `${kind} n=${n}`).toBeLessThan(
              1e-6,
            );
            continue;
          }
          expect([...got.sources], `${kind} n=${n}`).toEqual([...want.sources]);
          expect([...got.targets], `${kind} n=${n}`).toEqual([...want.targets]);
          expect([...got.weights], `${kind} n=${n}`).toEqual([...want.weights]);
        } finally {
          buf.destroy();
        }
      }
    } finally {
      e.destroy();
    }
  });
});
