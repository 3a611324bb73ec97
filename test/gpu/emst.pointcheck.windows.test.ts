/**
 * Issue 19: emst::check and emst::scale (src/emst/pointcheck.ts) taken window by window where the points exceed one
 * binding: 600,000 words at a 1 MiB binding limit (three windows) and 64-word windows at degenerate sizes give what
 * the CPU twins (pointcheck.cpu.ts) and the unsplit device give — the first bad word's index across windows, the
 * largest magnitude, the scaled bits — and checkPointsOnGpu's InputError names the same row and column.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { checkPointsOnGpu, createPointChecker } from '../../src/emst/pointcheck.js';
import { checkPointsCpu, MAX_COORDINATE_BITS, scalePointsCpu } from '../../src/emst/pointcheck.cpu.js';
import type { GpuContext } from '../../src/gpu/context.js';
import { tryGpuContext } from '../helpers/gpu.js';
import { mulberry32 } from '../helpers/random.js';

const whole = await tryGpuContext();
const split = whole ? await tryGpuContext({ maxBindingBytes: 1048576 }) : null;
afterAll(async () => {
  await split?.destroy();
  await whole?.destroy();
});

const bitsOf = (x: number) => new Uint32Array(new Float32Array([x]).buffer)[0];

/** n words of floats spread over 30 decades, bad words (NaN, +Inf, 1e39) at the given indices. */
function words(n: number, seed: number, bad: number[] = []): Uint32Array {
  const r = mulberry32(seed);
  const w = new Uint32Array(n).map(() => bitsOf((r() - 0.5) * 10 ** (1 + 30 * r())));
  const kinds = [0x7fc00000, 0x7f800000, bitsOf(1e39) | 0x80000000];
  bad.forEach((i, k) => (w[i] = kinds[k % kinds.length]));
  return w;
}

async function check(ctx: GpuContext, bits: Uint32Array, maxWindow?: number) {
  const checker = await createPointChecker(ctx, { maxWindow });
  const points = ctx.upload('test::points', bits.length > 0 ? bits : new Uint32Array(1));
  const out = ctx.createBuffer('test::out', 8);
  try {
    await ctx.submit('test::check', (rec) => checker.encodeCheck(rec, points, bits.length, out, MAX_COORDINATE_BITS));
    const [first, topBits] = new Uint32Array(await ctx.read(out, 0, 8));
    return { first: first === 0 ? -1 : ~first >>> 0, topBits };
  } finally {
    points.destroy();
    out.destroy();
  }
}

async function scale(ctx: GpuContext, bits: Uint32Array, e: number, maxWindow?: number) {
  const checker = await createPointChecker(ctx, { maxWindow });
  const points = ctx.upload('test::points', bits.length > 0 ? bits : new Uint32Array(1));
  try {
    await ctx.submit('test::scale', (rec) => checker.encodeScale(rec, points, bits.length, e));
    return new Uint32Array(await ctx.read(points, 0, 4 * bits.length));
  } finally {
    points.destroy();
  }
}

describe.skipIf(!whole)('emst::check and emst::scale through windows', () => {
  it('issue 19: 600,000 words at a 1 MiB limit: the first bad word in the second window, the maximum, the scaled bits', async () => {
    const n = 600000;
    for (const bad of [[], [550000, 300001], [599999]]) {
      const bits = words(n, 3 + bad.length, bad);
      const want = checkPointsCpu(bits, MAX_COORDINATE_BITS);
      expect(await check(split!, bits)).toEqual(want);
      expect(await check(whole!, bits)).toEqual(want);
    }
    const bits = words(n, 9);
    for (const e of [-100, 37]) {
      const want = bits.slice();
      scalePointsCpu(want, e);
      expect(await scale(split!, bits, e)).toEqual(want);
    }
    expect(split!.memory.liveBuffers).toBe(0);
  });

  it.each([0, 1, 2, 63, 65, 1000, 4099])('issue 19: %i words in 64-word windows equal the twins', async (n) => {
    const bad = n > 2 ? [n - 1, Math.floor(n / 2)] : [];
    const bits = words(n, n + 1, bad);
    expect(await check(whole!, bits, 64)).toEqual(checkPointsCpu(bits, MAX_COORDINATE_BITS));
    const want = bits.slice();
    scalePointsCpu(want, -3);
    expect(await scale(whole!, bits, -3, 64)).toEqual(want);
  });

  it('issue 19: checkPointsOnGpu names the same row and column split or not (200,000 3D points, NaN at row 150,000)', async () => {
    const dim = 3;
    const pts = new Float32Array(words(200000 * dim, 77).buffer).map((x) => (Number.isFinite(x) ? x : 0));
    pts[150000 * dim + 2] = NaN;
    pts[190000 * dim] = Infinity;
    const messages: string[] = [];
    for (const ctx of [split!, whole!]) {
      const checker = await createPointChecker(ctx);
      const buffer = await ctx.uploadFloat32('test::points', pts);
      try {
        const err = await checkPointsOnGpu(ctx, checker, buffer, pts, dim).then(
          () => null,
          (e: unknown) => e as Error,
        );
        messages.push(String(err?.message));
      } finally {
        buffer.destroy();
      }
    }
    expect(messages[0]).toMatch(/row 150000, column 2/);
    expect(messages[1]).toBe(messages[0]);
  });
});
