/**
 * The binding-lean Borůvka traversal (emst/nearest_lite.wgsl) that devices with 10–14 storage buffers per shader
 * stage get (browsers): no skipping of bounded points, the box array in one binding. Same trees as the CPU backend.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { emst } from '../../src/emst/emst.js';
import type { GpuContext } from '../../src/gpu/context.js';
import { cloud, type CloudKind } from '../helpers/clouds.js';
import { gpuEmstOnce } from '../helpers/emst.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { periodicPoints } from '../helpers/periodic.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

const leanEmst = (ctx: GpuContext, pts: Float32Array, dim: number, minSamples: number, period?: Float32Array) =>
  gpuEmstOnce(ctx, pts, dim, minSamples, { period, layout: { lean: true } });

describe.skipIf(variants.length === 0).each(variants)('the lean traversal ($name)', ({ ctx }) => {
  it.each([
    ['grid', 2000, 2, 1],
    ['grid', 1500, 3, 1],
    ['grid', 1200, 3, 5],
    ['duplicates', 400, 2, 15],
  ] as [CloudKind, number, number, number][])(
    '%s n=%i d=%i minSamples=%i: identical to the CPU backend',
    async (kind, n, dim, ms) => {
      const pts = cloud(kind, n, dim, 6);
      const got = await leanEmst(ctx, pts, dim, ms);
      const cpu = await emst(pts, { dim, minSamples: ms, backend: 'cpu' });
      expect(Array.from(got.sources)).toEqual(Array.from(cpu.sources));
      expect(Array.from(got.targets)).toEqual(Array.from(cpu.targets));
      expect(Array.from(got.weights)).toEqual(Array.from(cpu.weights));
    },
  );

  it('periodic grid: identical to the CPU backend', async () => {
    const box = [7, 9, 5];
    const pts = periodicPoints('grid', 600, box, 2);
    const got = await leanEmst(ctx, pts, 3, 1, Float32Array.from(box));
    const cpu = await emst(pts, { dim: 3, box, backend: 'cpu' });
    expect(Array.from(got.targets)).toEqual(Array.from(cpu.targets));
    expect(Array.from(got.weights)).toEqual(Array.from(cpu.weights));
  });
});
