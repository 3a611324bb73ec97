/**
 * Issue 19's memory: the scatter that puts points left in Morton order by an in-place build back in their own order
 * (src/bvh/scatter.ts, points[order[j]] = sorted[j] through a scratch copy) gives its CPU twin's words exactly and
 * undoes the build's gather bit for bit (any u32 patterns: NaNs and −0 included), at degenerate sizes and
 * non-multiples of the workgroup in dims 1–5.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createPointScatterer } from '../../src/bvh/scatter.js';
import { scatterRowsCpu } from '../../src/bvh/scatter.cpu.js';
import { InputError } from '../../src/errors.js';
import { tryGpuContext } from '../helpers/gpu.js';
import { mulberry32, randomU32 } from '../helpers/random.js';

const ctx = await tryGpuContext();
afterAll(() => ctx?.destroy());

/** A seeded permutation of 0 … n − 1 (Fisher–Yates). */
function permutation(n: number, seed: number): Uint32Array {
  const r = mulberry32(seed);
  const p = new Uint32Array(n);
  for (let i = 0; i < n; i++) p[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [p[i], p[j]] = [p[j], p[i]];
  }
  return p;
}

describe.skipIf(!ctx)('bvh::scatter', () => {
  it.each([1, 2, 3, 4, 5])(
    'dim %i: n = 0, 1, 2, 255, 257, 1000 equal the CPU twin and undo the gather',
    async (dim) => {
      const c = ctx!;
      const s = await createPointScatterer(c, dim);
      for (const n of [0, 1, 2, 255, 257, 1000]) {
        const original = randomU32(n * dim, 7 * n + dim);
        const order = permutation(n, 3 * n + dim);
        // The gather's output (the host's), as an in-place build leaves the points.
        const sorted = new Uint32Array(n * dim);
        order.forEach((i, j) => sorted.set(original.subarray(i * dim, (i + 1) * dim), j * dim));
        const points = c.upload('test::points', n > 0 ? sorted : new Uint32Array(1));
        const ord = c.upload('test::order', n > 0 ? order : new Uint32Array(1));
        // Scratch with stale contents and room beyond the n × dim words.
        const scratch = c.upload('test::scratch', randomU32(2 * n * dim + 4, n));
        try {
          await c.submit('test::scatter', (rec) => s.restore(rec, { points, order: ord, scratch, n }));
          const got = new Uint32Array(await c.read(points, 0, 4 * n * dim));
          const twin = new Uint32Array(n * dim);
          scatterRowsCpu(sorted, order, n, dim, twin);
          expect(got, `n=${n}`).toEqual(twin);
          expect(got, `n=${n}`).toEqual(original);
        } finally {
          for (const b of [points, ord, scratch]) b.destroy();
        }
      }
    },
  );

  it('refuses a scratch buffer smaller than the points, naming the sizes', async () => {
    const c = ctx!;
    const s = await createPointScatterer(c, 3);
    const points = c.createBuffer('test::points', 4 * 30);
    const order = c.createBuffer('test::order', 4 * 10);
    const scratch = c.createBuffer('test::scratch', 4 * 20);
    try {
      await expect(
        c.submit('test::scatter', (rec) => s.restore(rec, { points, order, scratch, n: 10 })),
      ).rejects.toThrow(InputError);
      await expect(
        c.submit('test::scatter', (rec) => s.restore(rec, { points, order, scratch, n: 10 })),
      ).rejects.toThrow(/120 bytes in the points and the scratch.*got 120, 80/);
    } finally {
      for (const b of [points, order, scratch]) b.destroy();
    }
  });
});
