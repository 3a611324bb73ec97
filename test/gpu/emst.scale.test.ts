/**
 * Issue 15 §4.1 on the GPU: coordinates ×1e30 gave every weight Infinity and ×1e-30 gave 0 (float32 squared
 * distances). emst() scales the points by a power of two first (src/emst/scale.ts), on both backends, and mstStats'
 * GPU path (which calls the GPU EMST directly) does the same: the tree is the unscaled data's tree.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { emst } from '../../src/emst/emst.js';
import { hdbscan } from '../../src/hdbscan.js';
import { mstStats } from '../../src/stats/mstStats.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { cloud } from '../helpers/clouds.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

const times = (pts: Float32Array, f: number) => pts.map((x) => x * f);
const pairs = (t: { sources: Uint32Array; targets: Uint32Array }) =>
  [...t.sources].map((s, i) => `${s}-${t.targets[i]}`);

describe.skipIf(variants.length === 0).each(variants)('emst() at extreme scales on the GPU ($name)', ({ ctx }) => {
  const pts = cloud('uniform', 1500, 3, 6);

  it.each([2 ** 100, 2 ** -100])(
    'issue 15: emst(points × %d, { backend: gpu }) is the unscaled tree, weights scaled exactly',
    async (f) => {
      for (const minSamples of [1, 5]) {
        const want = await emst(pts, { dim: 3, minSamples, backend: 'gpu', gpu: ctx });
        const got = await emst(times(pts, f), { dim: 3, minSamples, backend: 'gpu', gpu: ctx });
        const cpu = await emst(times(pts, f), { dim: 3, minSamples, backend: 'cpu' });
        expect(pairs(got)).toEqual(pairs(want));
        expect([...got.weights]).toEqual([...want.weights].map((w) => Math.fround(w * f)));
        expect(pairs(got)).toEqual(pairs(cpu));
        expect([...got.weights]).toEqual([...cpu.weights]);
      }
    },
  );

  it.each([1e30, 1e-30])(
    'issue 15: emst(points × %d, { backend: gpu }) has finite, non-zero weights within rounding',
    async (f) => {
      const want = await emst(pts, { dim: 3, backend: 'gpu', gpu: ctx });
      const got = await emst(times(pts, f), { dim: 3, backend: 'gpu', gpu: ctx });
      expect(pairs(got)).toEqual(pairs(want));
      got.weights.forEach((w, i) => expect(Math.abs(w / f - want.weights[i]) / want.weights[i]).toBeLessThan(1e-4));
    },
  );

  it('issue 15: hdbscan and mstStats on the GPU at × 2^100 match the unscaled data', async () => {
    const blobs = cloud('clustered', 1200, 2, 4);
    const f = 2 ** 100;
    const want = await hdbscan(blobs, { dim: 2, minClusterSize: 15, backend: 'gpu', gpu: ctx });
    const got = await hdbscan(times(blobs, f), { dim: 2, minClusterSize: 15, backend: 'gpu', gpu: ctx });
    expect([...got.labels]).toEqual([...want.labels]);
    const s0 = await mstStats(blobs, { dim: 2, backend: 'gpu', gpu: ctx });
    const s1 = await mstStats(times(blobs, f), { dim: 2, backend: 'gpu', gpu: ctx });
    expect(s1.backend).toBe('gpu');
    expect([...s1.edgeSources]).toEqual([...s0.edgeSources]);
    expect([...s1.edgeLengths]).toEqual([...s0.edgeLengths].map((l) => l * f));
    expect([...s1.branchLengths]).toEqual([...s0.branchLengths].map((l) => l * f));
  });
});
