/**
 * The whole GPU EMST pipeline (GPU BVH build, GPU core distances, GPU Borůvka, canonical read-back) against the
 * float64 brute-force Prim oracle and against the CPU backend. Integer coordinates make every f32 key exact, so the
 * edge lists must be identical there (sources, targets and weights, in order).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { emst } from '../../src/emst/emst.js';
import { gpuEmstOnce } from '../helpers/emst.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { cloud, type CloudKind } from '../helpers/clouds.js';
import { primMst } from '../helpers/prim.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

describe.skipIf(variants.length === 0).each(variants)('GpuEmst end to end ($name)', ({ ctx }) => {
  const cases: [CloudKind, number, number, number][] = [
    ['grid', 3000, 2, 1],
    ['grid', 2000, 3, 1],
    ['grid', 600, 4, 1],
    ['grid', 1500, 2, 5],
    ['grid', 1000, 3, 15],
    ['duplicates', 300, 3, 1],
    ['duplicates', 300, 2, 5],
  ];
  it.each(cases)('%s n=%i d=%i minSamples=%i: identical to the CPU backend and to Prim', async (kind, n, dim, ms) => {
    const pts = cloud(kind, n, dim, 3);
    const got = await gpuEmstOnce(ctx, pts, dim, ms);
    const cpu = await emst(pts, { dim, minSamples: ms, backend: 'cpu' });
    expect([...got.sources]).toEqual([...cpu.sources]);
    expect([...got.targets]).toEqual([...cpu.targets]);
    expect([...got.weights]).toEqual([...cpu.weights]);
    const want = primMst(pts, dim, ms > 1 ? { minSamples: ms } : {});
    const key = (a: number, b: number) => `${a}-${b}`;
    expect(new Set([...got.sources].map((s, i) => key(s, got.targets[i])))).toEqual(
      new Set([...want.sources].map((s, i) => key(s, want.targets[i]))),
    );
  });

  it.each([
    ['uniform', 4000, 2, 1],
    ['normal', 3000, 3, 1],
    ['clustered', 3000, 3, 5],
    ['normal', 500, 8, 2],
  ] as [CloudKind, number, number, number][])(
    "%s n=%i d=%i minSamples=%i: Prim's total weight within 1e-6",
    async (kind, n, dim, ms) => {
      const pts = cloud(kind, n, dim, 9);
      const got = await gpuEmstOnce(ctx, pts, dim, ms);
      const want = primMst(pts, dim, ms > 1 ? { minSamples: ms } : {});
      expect(got.sources.length).toBe(n - 1);
      const total = got.weights.reduce((s, w) => s + w, 0);
      const wantTotal = want.weights.reduce((s, w) => s + w, 0);
      expect(Math.abs(total - wantTotal) / wantTotal).toBeLessThan(1e-6);
    },
  );

  it("emst(points, { backend: 'gpu' }) returns the CPU backend's edge list, with timings", async () => {
    const pts = cloud('grid', 1200, 3, 4);
    const g = await emst(pts, { dim: 3, minSamples: 4, backend: 'gpu', gpu: ctx });
    const c = await emst(pts, { dim: 3, minSamples: 4, backend: 'cpu' });
    expect(g.backend).toBe('gpu');
    expect([...g.sources]).toEqual([...c.sources]);
    expect([...g.targets]).toEqual([...c.targets]);
    expect([...g.weights]).toEqual([...c.weights]);
    expect(g.timings?.['emst::total']).toBeGreaterThan(0);
  });

  it('minSamples above n − 1 is clamped, and n = 2 gives one edge', async () => {
    const pts = cloud('grid', 6, 2, 1);
    const got = await gpuEmstOnce(ctx, pts, 2, 10);
    const cpu = await emst(pts, { dim: 2, minSamples: 10, backend: 'cpu' });
    expect([...got.weights]).toEqual([...cpu.weights]);
    expect((await gpuEmstOnce(ctx, cloud('uniform', 2, 3, 1), 3)).sources.length).toBe(1);
  });
});
