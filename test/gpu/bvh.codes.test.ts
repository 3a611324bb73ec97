/**
 * Issue 19: stage 1 of the BVH build (src/bvh/codes.ts: bounds, frame, Morton codes) taken window by window where
 * the points or codes exceed one binding gives the frame, codes and identity order of the unsplit device and of
 * the CPU twin (morton.cpu.ts) bit for bit: 200,000 points in 2D and 3D at a 1 MiB binding limit (3D points 2.4 MB:
 * three windows), and every dim from 1 to 5 in 128-point windows at degenerate sizes. Issue 18: the 2D magic-mask
 * path gives the bit loop's codes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createCodeEncoder } from '../../src/bvh/codes.js';
import { FRAME_WORDS } from '../../src/bvh/layout.js';
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

async function codesOn(ctx: GpuContext, pts: Float32Array, dim: number, maxWindow?: number, fast2d?: boolean) {
  const n = pts.length / dim;
  const enc = await createCodeEncoder(ctx, dim, { maxWindow, fast2d });
  const bufs = {
    points: ctx.upload('test::points', pts.length > 0 ? pts : new Float32Array(1)),
    frame: ctx.createBuffer('test::frame', 4 * FRAME_WORDS(dim)),
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

  it("issue 18: the 2D magic-mask path (fast2d) gives the bit loop's and the CPU twin's codes: ties, extremes, windows", async () => {
    const r = mulberry32(5);
    const extremes = new Float32Array(2 * 4099);
    for (let i = 0; i < extremes.length; i++) {
      const pick = r();
      // Both ends of each axis (cells 0 and the largest), exact halves, tiny and huge magnitudes, ±0.
      extremes[i] =
        pick < 0.1
          ? -1e30
          : pick < 0.2
            ? 1e30
            : pick < 0.3
              ? i % 2
                ? -0
                : 0
              : pick < 0.4
                ? 0.5
                : (r() - 0.5) * 10 ** Math.floor(r() * 60 - 30);
    }
    for (const [pts, maxWindow] of [
      [points(20_000, 2, 77), undefined],
      [points(1000, 2, 78), 128],
      [extremes, 1000],
      [new Float32Array([3, -4]), undefined],
      [new Float32Array([1, 1, 1, 1, 1, 1]), undefined],
    ] as [Float32Array, number | undefined][]) {
      const fast = await codesOn(whole!, pts, 2, maxWindow, true);
      const loop = await codesOn(whole!, pts, 2, maxWindow, false);
      const want = cpu(pts, 2);
      expect(fast.codes, `n=${pts.length / 2}`).toEqual(want.codes);
      expect(loop.codes, `n=${pts.length / 2}`).toEqual(want.codes);
      expect(fast.frame).toEqual(want.frame);
    }
  });

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
