/**
 * Issue 7: MiSTree's scale cut on the GPU backend — the forest of the complete graph without pairs shorter than the
 * cut — against the CPU backend (identical) and Kruskal over the kept pairs, integer grids included.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { emst } from '../../src/emst/emst.js';
import { cloud } from '../helpers/clouds.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { periodicPoints } from '../helpers/periodic.js';
import { scaleCutKruskal } from '../helpers/scalecut.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

const rows = (t: { sources: Uint32Array; targets: Uint32Array; weights: Float32Array }) =>
  Array.from(t.sources, (s, i) => [s, t.targets[i], t.weights[i]]);

describe.skipIf(variants.length === 0).each(variants)(
  'emst(points, { minEdgeLength }) on the GPU ($name)',
  ({ ctx }) => {
    it.each([
      ['grid', 2, 500, 1.5],
      ['grid', 3, 400, 1],
      ['clustered', 3, 600, 0.2],
      ['normal', 2, 500, 0.1],
    ] as const)(
      '%s d=%i n=%i, cut %d: identical to the CPU backend; integer grids to Kruskal',
      async (kind, dim, n, cut) => {
        const p = cloud(kind, n, dim, 7 + dim);
        const got = await emst(p, { dim, minEdgeLength: cut, backend: 'gpu', gpu: ctx });
        const cpu = await emst(p, { dim, minEdgeLength: cut, backend: 'cpu' });
        expect(got.sources.length).toBe(cpu.sources.length);
        if (kind === 'grid') {
          expect(rows(got)).toEqual(rows(cpu));
          expect(rows(got)).toEqual(scaleCutKruskal(p, dim, cut));
        } else {
          const total = (t: { weights: Float32Array }) => t.weights.reduce((s, w) => s + w, 0);
          expect(Math.abs(total(got) - total(cpu))).toBeLessThan(1e-6 * total(cpu));
        }
      },
    );

    it('all-identical points and a forest of separated clumps', async () => {
      const same = await emst(new Float32Array(30).fill(2), { dim: 3, minEdgeLength: 0.5, backend: 'gpu', gpu: ctx });
      expect(same.sources.length).toBe(0);
      const p = new Float32Array([0, 0, 0, 0, 0, 0, 10, 0, 10, 0, 10, 0]);
      const got = await emst(p, { dim: 2, minEdgeLength: 1, backend: 'gpu', gpu: ctx });
      expect(rows(got)).toEqual(scaleCutKruskal(p, 2, 1));
    });

    it('with a periodic box (integer grid)', async () => {
      const box = [9, 13];
      const p = periodicPoints('grid', 300, box, 5);
      const got = await emst(p, { dim: 2, box, minEdgeLength: 1.2, backend: 'gpu', gpu: ctx });
      expect(rows(got)).toEqual(scaleCutKruskal(p, 2, 1.2, box));
    });
  },
);
