/**
 * Issue 19: the BVH build beyond the stage's storage buffers in one dispatch. At 6·10^8 3D points and 2 GiB a
 * binding, Karras's arrays take 18 storage bindings with the boxes (16 allowed) and the one-pass refit 21: Karras
 * then clears the boxes instead of binding them (karras.ts `clearsBoxes`) and the refit runs in two passes, boxes then
 * minIndex words (refit.ts `refitPasses`). At a 64 KiB binding limit, 18,500 3D points have the same part counts
 * (codes, links, parents 3; boxes 7; sorted points 4; order, ranges 2): the whole build (lbvh.ts, `split`) there gives
 * the CPU twin's BVH bit for bit, f32 and u16 boxes. Forced (twoPasses, clearBoxes) on an unsplit device, the two
 * passes and the cleared boxes give the CPU twin's words at degenerate sizes, in 2D and 3D, direct scans 1 and 32;
 * and TREELINE_BVH_REFIT=passes (both at once in the unsplit build, for A/B runs) the same BVH and EMST edges.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { allocateBvh, createBvhBuilder } from '../../src/bvh/lbvh.js';
import { buildBvhCpu } from '../../src/bvh/lbvh.cpu.js';
import { createKarras } from '../../src/bvh/karras.js';
import { createRefit } from '../../src/bvh/refit.js';
import { rangeOthers, rangePairs, type BoxFormat } from '../../src/bvh/layout.js';
import { MIN_BINDING_BYTES } from '../../src/gpu/context.js';
import type { GpuContext } from '../../src/gpu/context.js';
import { emst } from '../../src/emst/emst.js';
import { asBoxFormat, readBvh } from '../helpers/bvh.readback.js';
import { expectSameEdges } from '../helpers/sameEdges.js';
import { tryGpuContext } from '../helpers/gpu.js';
import { mulberry32 } from '../helpers/random.js';

const whole = await tryGpuContext();
const low = whole ? await tryGpuContext({ maxBindingBytes: MIN_BINDING_BYTES }) : null;
afterAll(async () => {
  await low?.destroy();
  await whole?.destroy();
});

/** n seeded points, every seventh a copy of the one before, some negative. */
function points(n: number, dim: number, seed: number): Float32Array {
  const r = mulberry32(seed);
  const p = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < dim; k++) p[i * dim + k] = i % 7 === 6 ? p[(i - 1) * dim + k] : (r() - 0.4) * 100;
  }
  return p;
}

const bits = (a: Float32Array) => new Uint32Array(a.buffer, a.byteOffset, a.length);
const sum = (parts: Record<string, { parts: number }>, names: string[]) =>
  names.reduce((s, k) => s + parts[k].parts, 0);

/** The refit of the CPU twin's hierarchy in two passes: its minIndex words and boxes. */
async function twoPassRefit(ctx: GpuContext, pts: Float32Array, dim: number, direct: number) {
  const cpu = buildBvhCpu(pts, dim);
  const n = cpu.n;
  const r = await createRefit(ctx, n, dim, direct, { twoPasses: true });
  expect(r.passes).toBe(2);
  const c = Math.max(n, 1);
  const bufs = {
    sorted: ctx.upload('test::sorted', cpu.sortedPoints.length > 0 ? cpu.sortedPoints : new Float32Array(4)),
    order: ctx.upload('test::order', cpu.order.length > 0 ? cpu.order : new Uint32Array(4)),
    parents: ctx.upload('test::parents', cpu.parents.length > 0 ? cpu.parents : new Uint32Array(4)),
    // Garbage: the refit clears the minIndex words itself.
    mins: ctx.upload('test::mins', new Uint32Array(2 * c).fill(0xdeadbeef)),
    // Zero, as Karras leaves the boxes the atomic walk accumulates.
    boxes: ctx.createBuffer('test::boxes', 8 * dim * Math.max(n - 1, 1)),
    ranges: ctx.upload('test::ranges', n > 1 ? rangeOthers(cpu.ranges) : new Uint32Array(4)),
  };
  try {
    await ctx.submit('test::refit', (rec) => r.encode(rec, { ...bufs, n }));
    const mins = new Uint32Array(await ctx.read(bufs.mins, 0, 8 * n));
    const boxes = new Float32Array(await ctx.read(bufs.boxes, 0, 8 * dim * Math.max(n - 1, 0)));
    // The twin's records are | left | right | minIndex(left) | minIndex(right) |.
    const want = new Uint32Array(2 * n);
    for (let i = 0; i < n; i++) want.set(cpu.links.subarray(4 * i + 2, 4 * i + 4), 2 * i);
    return { mins, want, boxes: bits(boxes), wantBoxes: bits(cpu.boxes) };
  } finally {
    for (const b of Object.values(bufs)) b.destroy();
    r.destroy();
  }
}

describe.skipIf(!whole)('issue 19: the BVH build past the stage in one dispatch', () => {
  it('18,500 3D points at a 64 KiB binding limit: Karras clears its boxes, the refit takes two passes of at most 16 bindings, the build equals the CPU twin (f32 and u16 boxes)', async () => {
    const c = low!;
    const n = 18500;
    const dim = 3;
    const stage = c.limits.maxStorageBuffersPerShaderStage;
    const k = await createKarras(c, n, dim);
    const r = await createRefit(c, n, dim, 32);
    try {
      expect(k.clearsBoxes).toBe(true);
      expect(sum(k.parts, ['codes', 'links', 'ranges', 'parents'])).toBeLessThanOrEqual(stage);
      expect(r.passes).toBe(2);
      expect(sum(r.parts, ['sorted', 'parents', 'boxes', 'ranges'])).toBeLessThanOrEqual(stage);
      expect(sum(r.parts, ['order', 'parents', 'mins', 'ranges'])).toBeLessThanOrEqual(stage);
      // The one-pass refit would not fit: as at 6·10^8 on the H100.
      expect(sum(r.parts, ['sorted', 'order', 'parents', 'mins', 'boxes', 'ranges'])).toBeGreaterThan(stage);
    } finally {
      k.destroy();
      r.destroy();
    }
    const pts = points(n, dim, 19);
    const want = buildBvhCpu(pts, dim);
    for (const boxes of ['f32', 'u16'] as BoxFormat[]) {
      const builder = await createBvhBuilder(c, { maxCount: n, dim, split: true, boxes });
      const bvh = allocateBvh(c, n, dim, { split: true, boxes });
      const input = c.upload('test::points', pts);
      try {
        await c.submit('test::build', (rec) => builder.encode(rec, input, n, bvh));
        const got = await readBvh(c, bvh);
        for (const key of ['codes', 'order', 'links', 'ranges', 'parents'] as const) {
          expect(got[key], `${boxes} ${key}`).toEqual(want[key]);
        }
        expect(bits(got.sortedPoints)).toEqual(bits(want.sortedPoints));
        expect(bits(got.boxes), boxes).toEqual(bits(asBoxFormat(want, got.boxFormat).boxes));
      } finally {
        input.destroy();
        bvh.destroy();
        builder.destroy();
      }
    }
    expect(c.memory.liveBuffers).toBe(0);
  });

  it('TREELINE_BVH_REFIT=passes: the unsplit build forced into two passes and cleared boxes equals the CPU twin, and emst() its own edges', async () => {
    const c = whole!;
    const n = 5000;
    const dim = 3;
    const pts = points(n, dim, 23);
    const want = buildBvhCpu(pts, dim);
    const before = await emst(pts, { dim, backend: 'gpu', gpu: c });
    const saved = process.env.TREELINE_BVH_REFIT;
    process.env.TREELINE_BVH_REFIT = 'passes';
    try {
      const builder = await createBvhBuilder(c, { maxCount: n, dim });
      const bvh = allocateBvh(c, n, dim);
      const input = c.upload('test::points', pts);
      try {
        await c.submit('test::build', (rec) => builder.encode(rec, input, n, bvh));
        const got = await readBvh(c, bvh);
        for (const key of ['links', 'ranges', 'parents'] as const) expect(got[key], key).toEqual(want[key]);
        expect(bits(got.boxes)).toEqual(bits(want.boxes));
      } finally {
        input.destroy();
        bvh.destroy();
        builder.destroy();
      }
      const after = await emst(pts, { dim, backend: 'gpu', gpu: c });
      expectSameEdges(after, before);
      // The two passes did run (their kernels compiled under their own labels).
      expect(c.compileStats.labels).toContain('bvh::refit.minIndex');
    } finally {
      if (saved === undefined) delete process.env.TREELINE_BVH_REFIT;
      else process.env.TREELINE_BVH_REFIT = saved;
    }
  });

  it.each([1, 2, 3, 33, 65, 1000])(
    'n=%i: the refit in two passes gives the CPU twin’s minIndex words and boxes (2D and 3D, direct scans 1 and 32)',
    async (n) => {
      for (const dim of [2, 3]) {
        const pts = points(n, dim, 100 * dim + n);
        for (const direct of [1, 32]) {
          const got = await twoPassRefit(whole!, pts, dim, direct);
          expect(got.mins, `${dim}D, direct ${direct}`).toEqual(got.want);
          expect(got.boxes, `${dim}D, direct ${direct}`).toEqual(got.wantBoxes);
        }
      }
    },
  );

  it.each([1, 2, 3, 65, 1000])(
    'n=%i: Karras clearing its boxes zeroes every internal record and nothing after them',
    async (n) => {
      const dim = 3;
      const cpu = buildBvhCpu(points(n, dim, 7 + n), dim);
      const k = await createKarras(whole!, n, dim, { clearBoxes: true });
      expect(k.clearsBoxes).toBe(true);
      expect(k.parts.boxes).toBeUndefined();
      const records = Math.max(n - 1, 1);
      const bufs = {
        codes: whole!.upload('test::codes', n > 0 ? cpu.codes : new Uint32Array(2)),
        links: whole!.createBuffer('test::links', 8 * Math.max(n, 1)),
        ranges: whole!.createBuffer('test::ranges', 4 * records),
        parents: whole!.createBuffer('test::parents', 8 * Math.max(n, 1)),
        // Garbage, one record more than the internal ones (where u16 frames go: lbvh.ts).
        boxes: whole!.upload('test::boxes', new Uint32Array(2 * dim * (records + 1)).fill(0xdeadbeef)),
      };
      try {
        await whole!.submit('test::karras', (rec) => k.encode(rec, { ...bufs, n }));
        const boxes = new Uint32Array(await whole!.read(bufs.boxes, 0, 8 * dim * (records + 1)));
        const internal = n > 1 ? 2 * dim * (n - 1) : 0;
        expect(boxes.subarray(0, internal).every((w) => w === 0)).toBe(true);
        expect(boxes.subarray(internal).every((w) => w === 0xdeadbeef)).toBe(true);
        const ranges = rangePairs(new Uint32Array(await whole!.read(bufs.ranges, 0, 4 * Math.max(n - 1, 0))));
        expect(ranges).toEqual(cpu.ranges);
        const parents = new Uint32Array(await whole!.read(bufs.parents, 0, 4 * (2 * n - 1)));
        expect(parents).toEqual(cpu.parents);
      } finally {
        for (const b of Object.values(bufs)) b.destroy();
        k.destroy();
      }
    },
  );
});
