/**
 * GPU memory of the EMST (issue 4: bytes per point beyond the input) and the arrays Borůvka borrows from the BVH,
 * the radix sorter and the k-NN (emst/boruvka.ts, BoruvkaBorrow): the live bytes GpuEmst.create allocates stay
 * under a bound that only holds with the sharing, and a GpuEmst run several times — its borrowed arrays holding
 * the last run's leftovers — keeps giving the CPU backend's tree (exactly where distances are exact in f32).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { GpuEmst } from '../../src/emst/pipeline.js';
import { emst } from '../../src/emst/emst.js';
import { cloud } from '../helpers/clouds.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { PlainUnionFind } from '../helpers/unionfind.js';
import { metricOf } from '../../src/emst/metric.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

describe.skipIf(variants.length === 0).each(variants)('EMST memory ($name)', ({ ctx }) => {
  it('GpuEmst.create allocates at most 125 bytes per point in 3D (129 with minSamples), 157 without the sharing', async () => {
    // 124.5 and 128.5 (the budget in emst/boruvka.ts, BoruvkaBorrow): issue 4's Must is ≤ 128 beyond the input.
    const n = 100_000;
    for (const [minSamples, bound] of [
      [1, 125],
      [16, 129],
    ] as const) {
      const before = ctx.memory.liveBytes;
      const e = await GpuEmst.create(ctx, n, 3, metricOf(minSamples));
      const perPoint = (ctx.memory.liveBytes - before) / n;
      e.destroy();
      expect(ctx.memory.liveBytes).toBe(before);
      if (perPoint > bound)
        expect.fail(`minSamples=${minSamples}: ${perPoint.toFixed(1)} bytes per point, expected ≤ ${bound}`);
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
