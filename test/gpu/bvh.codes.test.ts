/**
 * Issue 19: stage 1 of the BVH build (src/bvh/codes.ts: bounds, frame, Morton codes) taken window by window where
 * the points or codes exceed one binding gives the frame, codes and identity order of the unsplit device and of
 * the CPU twin (morton.cpu.ts) bit for bit: 200,000 points in 2D and 3D at a 1 MiB binding limit (3D points 2.4 MB:
 * three windows), and every dim from 1 to 5 in 128-point windows at degenerate sizes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createCodeEncoder } from '../../src/bvh/codes.js';
import { mortonCodesCpu, sceneFrameCpu } from '../../src/bvh/morton.cpu.js';
import type { GpuContext } from '../../src/gpu/context.js';
import { tryGpuContext } from '../helpers/gpu.js';
import { mulberry32 } from '../helpers/random.js';

const whole = await tryGpuContext();
const split = whole ? await tryGpuContext({ maxBindingBytes: 1048576 }) : null;
afterAll(async () => {
  await split?.destroy();
  await whole?.destroy();
});

/** n seeded points in dim dimensions, every seventh a copy of the one before (ties), some negative or large. */
function points(n: number, dim: number, seed: number): Float32Array {
  const r = mulberry32(seed);
  const p = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < dim; k++) {
      p[i * dim + k] = i % 7 === 6 ? p[(i - 1) * dim + k] : (r() - 0.3) * 10 ** Math.floor(r() * 4);
    }
  }
  return p;
}

async function codesOn(ctx: GpuContext, pts: Float32Array, dim: number, maxWindow?: number) {
  const n = pts.length / dim;
  const enc = await createCodeEncoder(ctx, dim, { maxWindow });
  const bufs = {
    points: ctx.upload('test::points', pts.length > 0 ? pts : new Float32Array(1)),
    frame: ctx.createBuffer('test::frame', 12 * dim),
    codes: ctx.createBuffer('test::codes', 8 * Math.max(n, 1)),
    order: ctx.createBuffer('test::order', 4 * Math.max(n, 1)),
  };
  try {
    await ctx.submit('test::codes', (rec) => enc.encode(rec, { ...bufs, n }));
    const [frame, codes, order] = await Promise.all([
      ctx.read(bufs.frame, 0, 12 * dim),
      ctx.read(bufs.codes, 0, 8 * n),
      ctx.read(bufs.order, 0, 4 * n),
    ]);
    return { frame: new Float32Array(frame), codes: new Uint32Array(codes), order: new Uint32Array(order) };
  } finally {
    for (const b of Object.values(bufs)) b.destroy();
    enc.destroy();
  }
}

function cpu(pts: Float32Array, dim: number) {
  const n = pts.length / dim;
  const f = sceneFrameCpu(pts, n, dim);
  const frame = new Float32Array(3 * dim);
  frame.set(f.lo, 0);
  frame.set(f.hi, dim);
  frame.set(f.scale, 2 * dim);
  return { frame, codes: mortonCodesCpu(pts, n, dim, f), order: Uint32Array.from({ length: n }, (_, i) => i) };
}

describe.skipIf(!whole)('bvh codes (bounds, frame, Morton) through windows', () => {
  it.each([2, 3])(
    'issue 19: 200,000 points in %iD at a 1 MiB binding limit equal the unsplit device and the CPU twin',
    async (dim) => {
      const pts = points(200000, dim, 40 + dim);
      const a = await codesOn(split!, pts, dim);
      const b = await codesOn(whole!, pts, dim);
      const want = cpu(pts, dim);
      expect(a.frame).toEqual(want.frame);
      expect(a.codes).toEqual(want.codes);
      expect(a.order).toEqual(want.order);
      expect(b.codes).toEqual(a.codes);
      expect(b.frame).toEqual(a.frame);
      expect(split!.memory.liveBuffers).toBe(0);
    },
  );

  it.each([1, 2, 3, 4, 5])('issue 19: dim %i in 128-point windows at n = 0, 1, 2, 127, 129, 1000', async (dim) => {
    for (const n of [0, 1, 2, 127, 129, 1000]) {
      const pts = points(n, dim, 7 * n + dim);
      const got = await codesOn(whole!, pts, dim, 128);
      const want = cpu(pts, dim);
      expect(got.codes, `n=${n}`).toEqual(want.codes);
      expect(got.order, `n=${n}`).toEqual(want.order);
      if (n > 0) expect(got.frame, `n=${n}`).toEqual(want.frame);
    }
  });
});
