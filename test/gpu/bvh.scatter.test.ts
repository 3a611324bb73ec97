/**
 * Issue 19's memory: the scatter that puts points left in Morton order by an in-place build back in their own order
 * (src/bvh/scatter.ts, points[order[j]] = sorted[j] through a scratch copy) gives its CPU twin's words exactly and
 * undoes the build's gather bit for bit (any u32 patterns: NaNs and −0 included) — whole, and split as the gather is
 * (order and scratch by windows, the points in parts through points_set): 120,000 3D points at a 1 MiB binding limit,
 * and small parts and windows at degenerate sizes and non-multiples of the workgroup in dims 1–5.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createPointScatterer } from '../../src/bvh/scatter.js';
import { scatterRowsCpu } from '../../src/bvh/scatter.cpu.js';
import type { GpuContext } from '../../src/gpu/context.js';
import { InputError } from '../../src/errors.js';
import { tryGpuContext } from '../helpers/gpu.js';
import { mulberry32, randomU32 } from '../helpers/random.js';

const whole = await tryGpuContext();
const split = whole ? await tryGpuContext({ maxBindingBytes: 1048576 }) : null;
afterAll(async () => {
  await split?.destroy();
  await whole?.destroy();
});

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

/** Gathers `original` by `order` on the host (as an in-place build leaves it), restores it on the GPU, reads it. */
async function restore(
  ctx: GpuContext,
  original: Uint32Array,
  order: Uint32Array,
  dim: number,
  options: { partElements?: number; maxWindow?: number } = {},
) {
  const n = order.length;
  const s = await createPointScatterer(ctx, n, dim, options);
  const sorted = new Uint32Array(n * dim);
  order.forEach((i, j) => sorted.set(original.subarray(i * dim, (i + 1) * dim), j * dim));
  const points = ctx.upload('test::points', n > 0 ? sorted : new Uint32Array(1));
  const ord = ctx.upload('test::order', n > 0 ? order : new Uint32Array(1));
  // Scratch with stale contents and room beyond the n × dim words.
  const scratch = ctx.upload('test::scratch', randomU32(2 * n * dim + 4, n));
  try {
    await ctx.submit('test::scatter', (rec) => s.restore(rec, { points, order: ord, scratch, n }));
    const twin = new Uint32Array(n * dim);
    scatterRowsCpu(sorted, order, n, dim, twin);
    return { got: new Uint32Array(await ctx.read(points, 0, 4 * n * dim)), twin, parts: s.parts.parts };
  } finally {
    for (const b of [points, ord, scratch]) b.destroy();
    s.destroy();
  }
}

describe.skipIf(!whole)('bvh::scatter', () => {
  it('issue 19: 120,000 3D points at a 1 MiB binding limit (2 parts, 2 windows) equal the unsplit scatter', async () => {
    const n = 120000;
    const original = randomU32(3 * n, 15);
    const order = permutation(n, 16);
    const a = await restore(split!, original, order, 3);
    const b = await restore(whole!, original, order, 3);
    expect(a.parts).toBe(2);
    expect(b.parts).toBe(1);
    expect(a.got).toEqual(original);
    expect(b.got).toEqual(original);
    expect(a.twin).toEqual(original);
    expect(split!.memory.liveBuffers).toBe(0);
  });

  it.each([1, 2, 3, 4, 5])(
    'dim %i: n = 0, 1, 2, 255, 257, 1000 whole, and in parts of ≥ 64 words and 64-point windows, undo the gather',
    async (dim) => {
      for (const n of [0, 1, 2, 255, 257, 1000]) {
        const original = randomU32(n * dim, 7 * n + dim);
        const order = permutation(n, 3 * n + dim);
        const plain = await restore(whole!, original, order, dim);
        expect(plain.got, `n=${n}`).toEqual(plain.twin);
        expect(plain.got, `n=${n}`).toEqual(original);
        // At most 13 parts beside the uniform, order and sorted (16 storage buffers per stage).
        const partElements = Math.max(64, Math.ceil((n * dim) / 13 / 64) * 64);
        const parted = await restore(whole!, original, order, dim, { partElements, maxWindow: 64 });
        expect(parted.got, `n=${n} in parts`).toEqual(original);
      }
    },
  );

  it('refuses a scratch buffer smaller than the points, naming the sizes', async () => {
    const c = whole!;
    const s = await createPointScatterer(c, 10, 3);
    const points = c.createBuffer('test::points', 4 * 30);
    const order = c.createBuffer('test::order', 4 * 10);
    const scratch = c.createBuffer('test::scratch', 4 * 20);
    try {
      const run = () => c.submit('test::scatter', (rec) => s.restore(rec, { points, order, scratch, n: 10 }));
      await expect(run()).rejects.toThrow(InputError);
      await expect(run()).rejects.toThrow(/120 bytes in the points and the scratch.*got 120, 80/);
    } finally {
      for (const b of [points, order, scratch]) b.destroy();
      s.destroy();
    }
  });
});
