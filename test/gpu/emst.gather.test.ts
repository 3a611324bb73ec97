/**
 * Issue 19: emst::gather (src/emst/gather.ts), the first kernel bound through gpu/bigarray.ts both ways — `order`
 * and `out` by windows, `src` in parts through the generated src_get — gives out[j] = src[order[j]] exactly, split or
 * not: at a 1 MiB binding limit with 300,000 points (src and order 1.2 MB each: two parts, two windows) against
 * the unsplit device and the host's loop, and with tiny parts and windows at degenerate sizes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createGatherer } from '../../src/emst/gather.js';
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

/** Runs the gather on `ctx` and reads `out` back. */
async function gather(
  ctx: GpuContext,
  order: Uint32Array,
  src: Uint32Array,
  options: { partElements?: number; maxWindow?: number } = {},
): Promise<{ out: Uint32Array; parts: number }> {
  const n = order.length;
  const g = await createGatherer(ctx, n, options);
  const bufs = [ctx.upload('test::order', order), ctx.upload('test::src', src), ctx.createBuffer('test::out', 4 * n)];
  try {
    await ctx.submit('test::gather', (rec) => g.encode(rec, { order: bufs[0], src: bufs[1], out: bufs[2], n }));
    return { out: new Uint32Array(await ctx.read(bufs[2], 0, 4 * n)), parts: g.parts.parts };
  } finally {
    for (const b of bufs) b.destroy();
    g.destroy();
  }
}

const oracle = (order: Uint32Array, src: Uint32Array) => order.map((i) => src[i]);

describe.skipIf(!whole)('emst::gather through big arrays', () => {
  it('issue 19: 300,000 points at a 1 MiB binding limit (2 parts, 2 windows) equal the unsplit gather', async () => {
    const n = 300000;
    const order = permutation(n, 19);
    // Ties: only 1000 distinct values.
    const src = randomU32(n, 20).map((x) => x % 1000);
    const a = await gather(split!, order, src);
    const b = await gather(whole!, order, src);
    expect(a.parts).toBe(2);
    expect(b.parts).toBe(1);
    expect(split!.memory.liveBuffers).toBe(0);
    const want = oracle(order, src);
    expect(a.out).toEqual(want);
    expect(b.out).toEqual(want);
  });

  it.each([0, 1, 2, 63, 64, 65, 255, 257, 1000, 4099])(
    'issue 19: n=%i with 64-element parts and 128-element windows equals the host loop',
    async (n) => {
      const order = permutation(n, 100 + n);
      const src = randomU32(n, 200 + n);
      // partElements 64 gives up to 14 parts beside the uniform, order and out (16 storage buffers per stage).
      const parts = Math.min(Math.max(64, Math.ceil(n / 14 / 64) * 64), 1 << 20);
      const { out } = await gather(whole!, order, src, { partElements: parts, maxWindow: 128 });
      expect(out).toEqual(oracle(order, src));
    },
  );

  it('issue 19: more parts than the stage binds is an InputError naming them', async () => {
    // One part more than the stage's storage buffers leave beside order and out (16 on lavapipe: 14).
    const most = whole!.limits.maxStorageBuffersPerShaderStage - 2;
    await expect(createGatherer(whole!, 64 * (most + 1), { partElements: 64 })).rejects.toThrow(
      `emst::gather: ${64 * (most + 1)} points need ${most + 1} bindings of 64 core distances; this device binds ${most} beside the others`,
    );
  });
});
