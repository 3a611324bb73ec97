/**
 * Issue 19: the BVH build's gather of the points into Morton order (src/bvh/gather.ts) — order and sorted by
 * windows, the points in parts through the generated points_get (gpu/bigarray.ts) — gives sorted[j] =
 * points[order[j]] exactly, split or not: 200,000 3D points at a 1 MiB binding limit (points in 3 parts, 3 windows)
 * against the unsplit device and the host's loop, and small parts and windows at degenerate sizes in dims 1–5.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createPointGatherer } from '../../src/bvh/gather.js';
import type { GpuContext } from '../../src/gpu/context.js';
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

async function gather(
  ctx: GpuContext,
  words: Uint32Array,
  order: Uint32Array,
  dim: number,
  options: { partElements?: number; maxWindow?: number } = {},
) {
  const n = order.length;
  const g = await createPointGatherer(ctx, n, dim, options);
  const points = ctx.upload('test::points', words.length > 0 ? words : new Uint32Array(1));
  const ord = ctx.upload('test::order', order.length > 0 ? order : new Uint32Array(1));
  const sorted = ctx.createBuffer('test::sorted', 4 * Math.max(n * dim, 1));
  try {
    await ctx.submit('test::gather', (rec) => g.encode(rec, { points, order: ord, sorted, n }));
    return { sorted: new Uint32Array(await ctx.read(sorted, 0, 4 * n * dim)), parts: g.parts.parts };
  } finally {
    for (const b of [points, ord, sorted]) b.destroy();
    g.destroy();
  }
}

function oracle(words: Uint32Array, order: Uint32Array, dim: number): Uint32Array {
  const out = new Uint32Array(order.length * dim);
  order.forEach((i, j) => out.set(words.subarray(i * dim, (i + 1) * dim), j * dim));
  return out;
}

describe.skipIf(!whole)('bvh::gather through big arrays', () => {
  it('issue 19: 200,000 3D points at a 1 MiB binding limit (3 parts, 3 windows) equal the unsplit gather', async () => {
    const n = 200000;
    const words = randomU32(3 * n, 5);
    const order = permutation(n, 6);
    const a = await gather(split!, words, order, 3);
    const b = await gather(whole!, words, order, 3);
    expect(a.parts).toBe(3);
    expect(b.parts).toBe(1);
    const want = oracle(words, order, 3);
    expect(a.sorted).toEqual(want);
    expect(b.sorted).toEqual(want);
    expect(split!.memory.liveBuffers).toBe(0);
  });

  it.each([1, 2, 3, 4, 5])(
    'issue 19: dim %i, parts of ≥ 64 words, 64-point windows, n = 0, 1, 2, 65, 150',
    async (dim) => {
      for (const n of [0, 1, 2, 65, 150]) {
        const words = randomU32(n * dim, n + dim);
        const order = permutation(n, 10 * n + dim);
        // At most 13 parts beside the uniform, order and sorted (16 storage buffers per stage).
        const partElements = Math.max(64, Math.ceil((n * dim) / 13 / 64) * 64);
        const got = await gather(whole!, words, order, dim, { partElements, maxWindow: 64 });
        expect(got.sorted, `n=${n}`).toEqual(oracle(words, order, dim));
      }
    },
  );
});
