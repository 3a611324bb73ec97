/**
 * Issue 15 §4.9: both backends give the same edges. The GPU and the CPU compute mutual reachability from the same
 * float32 keys — the core distance of a point is the key of the edge to its minSamples-th neighbour, bit for bit —
 * so their edge lists are identical even on tie-heavy data (coordinates rounded to two decimals, whose equal
 * distances come out of float32 arithmetic a few ulps apart), and alpha ≠ 1 means the same on both backends.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { emst } from '../../src/emst/emst.js';
import { blobs } from '../../src/datasets/generate.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { cloud } from '../helpers/clouds.js';
import { primMst } from '../helpers/prim.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

/**
 * Seeded Gaussian blobs rounded to `decimals` decimals (np.round(blobs, decimals)): ties everywhere, a few ulps
 * apart. The case is 60,000 2D points at two decimals (1198 of 59,999 edges differed on lavapipe before the
 * fix, 109 on the H100); a few thousand points at one decimal are as dense in ties (285 and 87 edges differed in
 * 2D and 3D below before the fix, on lavapipe).
 */
function roundedBlobs(n: number, dim: number, seed: number, decimals: number): Float32Array {
  const xs = blobs({ n, dim, seed });
  const f = 10 ** decimals;
  for (let i = 0; i < xs.length; i++) xs[i] = Math.round(xs[i] * f) / f;
  return xs;
}

describe.skipIf(variants.length === 0).each(variants)('emst() on both backends ($name)', ({ ctx }) => {
  const same = async (
    pts: Float32Array,
    options: { dim: number; minSamples?: number; alpha?: number; threads?: number },
  ) => {
    const g = await emst(pts, { ...options, backend: 'gpu', gpu: ctx });
    const c = await emst(pts, { ...options, backend: 'cpu' });
    expect(g.backend).toBe('gpu');
    const diff = [...g.sources].filter((s, i) => s !== c.sources[i] || g.targets[i] !== c.targets[i]).length;
    expect(diff).toBe(0);
    expect([...g.weights]).toEqual([...c.weights]);
  };

  it.each([
    [3000, 2, 1, 10],
    [3000, 3, 1, 10],
    [3000, 2, 2, 10],
    [1500, 5, 2, 10],
  ])(
    'issue 15: emst(blobs n=%i d=%i rounded to %i decimals, { minSamples: %i }) gives identical edge lists',
    async (n, dim, decimals, ms) => {
      await same(roundedBlobs(n, dim, dim === 3 ? 1 : 7, decimals), { dim, minSamples: ms });
    },
  );

  it("issue 15: the issue's reproduction, 60,000 2D blobs rounded to two decimals, { minSamples: 10 }", async () => {
    await same(roundedBlobs(60000, 2, 1, 2), { dim: 2, minSamples: 10, threads: 1 });
  });

  it.each([
    [1, 0.5],
    [5, 0.5],
    [1, 2],
    [5, 2],
  ])(
    "issue 15: emst(points, { minSamples: %i, alpha: %f }) gives identical edge lists, hdbscan's total weight",
    async (ms, alpha) => {
      const pts = cloud('normal', 2000, 2, 11);
      await same(pts, { dim: 2, minSamples: ms, alpha });
      // hdbscan's mutual_reachability(min_points = m, alpha): core = the m-th other point (the nearest at m = 1),
      // weights max(core(a), core(b), d(a, b) / alpha) — the float64 Prim oracle computes exactly that.
      const g = await emst(pts, { dim: 2, minSamples: ms, alpha, backend: 'gpu', gpu: ctx });
      const want = primMst(pts, 2, { minSamples: ms, alpha });
      const total = (w: ArrayLike<number>) => Array.from(w).reduce((a, b) => a + b, 0);
      expect(Math.abs(total(g.weights) - total(want.weights)) / total(want.weights)).toBeLessThan(1e-6);
    },
  );

  it('issue 15: emst(points, { minSamples: 1, alpha: 0.5 }) weighs every edge twice the Euclidean one', async () => {
    const pts = cloud('uniform', 1500, 2, 5);
    const e = await emst(pts, { dim: 2, backend: 'gpu', gpu: ctx });
    const half = await emst(pts, { dim: 2, minSamples: 1, alpha: 0.5, backend: 'gpu', gpu: ctx });
    expect([...half.sources]).toEqual([...e.sources]);
    expect([...half.weights]).toEqual([...e.weights].map((w) => Math.fround(2 * w)));
  });
});
