import { afterAll, describe, expect, it } from 'vitest';
import { allocateBvh, buildBvh, createBvhBuilder } from '../../src/bvh/lbvh.js';
import { asBoxFormat, readBvh, type BvhRead } from '../helpers/bvh.readback.js';
import { radixShapeFits } from '../../src/primitives/radixsort.js';
import { buildBvhCpu, type BvhCpu } from '../../src/bvh/lbvh.cpu.js';
import { mortonCodesCpu, quantScale } from '../../src/bvh/morton.cpu.js';
import { sortCodesCpu } from '../../src/bvh/sort.cpu.js';
import { BOX_PARTS, boxPartRecords, codeBits, FRAME_WORDS, pointsForBoxRecords } from '../../src/bvh/layout.js';
import { boxFrameCpu } from '../../src/bvh/box.cpu.js';
import type { GpuContext } from '../../src/gpu/context.js';
import { CLOUD_KINDS, cloud, type CloudKind } from '../helpers/clouds.js';
import { checkBvhInvariants } from '../helpers/bvh.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { mulberry32 } from '../helpers/random.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

/** First index where two arrays differ bit for bit, or −1. */
function firstDiff(
  a: ArrayLike<number> & { buffer: ArrayBufferLike; byteOffset: number; length: number },
  b: typeof a,
): number {
  const ua = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const ub = new Uint32Array(b.buffer, b.byteOffset, b.length);
  if (ua.length !== ub.length) return Math.min(ua.length, ub.length);
  for (let i = 0; i < ua.length; i++) if (ua[i] !== ub[i]) return i;
  return -1;
}

/** `want` is the CPU twin; u16 boxes (the default up to 3D) are compared with its boxes quantised (box.cpu.ts). */
function expectSameBvh(got: BvhRead, twin: BvhCpu, what: string): void {
  const want = asBoxFormat(twin, got.boxFormat);
  for (const key of ['codes', 'order', 'sortedPoints', 'links', 'boxes', 'ranges', 'parents'] as const) {
    const i = firstDiff(got[key], want[key]);
    if (i !== -1) expect.fail(`${what}: ${key}[${i}] = ${got[key][i]}, CPU twin has ${want[key][i]}`);
  }
  for (const key of ['lo', 'hi', 'scale'] as const) {
    const i = firstDiff(got.frame[key], want.frame[key]);
    if (i !== -1) expect.fail(`${what}: frame.${key}[${i}] = ${got.frame[key][i]}, CPU twin has ${want.frame[key][i]}`);
  }
}

/** GPU build stages with the CPU twin's sort in the middle: independent of the GPU radix sort. */
async function buildWithCpuSort(ctx: GpuContext, pts: Float32Array, dim: number, refitDirect?: number) {
  const n = pts.length / dim;
  const builder = await createBvhBuilder(ctx, { maxCount: n, dim, refitDirect });
  const bvh = allocateBvh(ctx, n, dim);
  const input = ctx.upload('test::points', pts);
  await ctx.submit('test::codes', (rec) => builder.encodeCodes(rec, input, n, bvh));
  const unsorted = new Uint32Array(await ctx.read(bvh.codes, 0, 8 * n));
  const sorted = sortCodesCpu(unsorted, n, codeBits(dim));
  ctx.device.queue.writeBuffer(bvh.codes, 0, new Uint32Array(sorted.codes));
  ctx.device.queue.writeBuffer(bvh.order, 0, new Uint32Array(sorted.order));
  await ctx.submit('test::hierarchy', (rec) => builder.encodeHierarchy(rec, input, n, bvh));
  const got = await readBvh(ctx, bvh);
  bvh.destroy();
  builder.destroy();
  input.destroy();
  return { unsorted, got };
}

const DIMS = [1, 2, 3, 4, 5, 6, 7, 8, 16];

describe.skipIf(variants.length === 0).each(variants)('bvh build on the GPU ($name)', ({ ctx }) => {
  it("the frame kernel computes RN(2^bits / extent) exactly (integer long division), and the u16 boxes' frame", async () => {
    const D = 64;
    const k = await ctx.kernel({
      label: 'bvh::frame',
      shader: 'bvh/frame',
      entry: 'main',
      bindings: ['uniform', 'read', 'rw'],
      workgroupSize: 32,
      include: ['common/grid', 'bvh/floatorder', 'bvh/box'],
      constants: { D },
    });
    const r = mulberry32(11);
    for (const bits of [1, 4, 8, 16, 21, 32]) {
      for (let rep = 0; rep < 4; rep++) {
        // lo = 0, hi = extent: the accumulator holds ~order(lo) and order(hi).
        const extents = new Float32Array(D);
        for (let a = 0; a < D; a++) extents[a] = Math.fround(2 ** (r() * 240 - 120) * (1 + r()));
        extents[0] = 1;
        extents[1] = 3;
        extents[2] = 1e-38;
        extents[3] = 0;
        const accWords = new Uint32Array(2 * D);
        const eu = new Uint32Array(extents.buffer);
        for (let a = 0; a < D; a++) {
          accWords[a] = ~0x80000000 >>> 0; // ~order(+0)
          accWords[D + a] = (eu[a] | 0x80000000) >>> 0;
        }
        const acc = ctx.upload('test::acc', accWords);
        const out = ctx.createBuffer('test::frame', 4 * FRAME_WORDS(D));
        await ctx.submit('test::frame', (rec) =>
          rec.dispatch(k, { buffers: [acc, out], uniforms: [bits, 0, 0, 0], threads: D }),
        );
        const got = new Float32Array(await ctx.read(out));
        acc.destroy();
        out.destroy();
        for (let a = 0; a < D; a++) {
          const want = quantScale(bits, extents[a]);
          // A subnormal extent may be flushed to zero by the GPU (the H100 does): its scale is then 0, as for a
          // zero extent (layout.ts documents that subnormals may be flushed).
          if (extents[a] !== 0 && Math.abs(extents[a]) < 2 ** -126 && got[2 * D + a] === 0) continue;
          expect(got[2 * D + a], `bits ${bits} extent ${extents[a]}`).toBe(want);
          // Issue 19: the u16 boxes' frame of [0, extent] (bvh/box.wgsl box_frame_of; twin box.cpu.ts).
          const box = boxFrameCpu(0, extents[a]);
          expect([got[3 * D + a], got[4 * D + a]], `box frame of extent ${extents[a]}`).toEqual([box.origin, box.cell]);
        }
      }
    }
  });

  it('stages with the CPU sort: codes, topology and boxes equal the CPU twin for every shape, n ≤ 1000, d = 1 … 8, 16', async () => {
    for (const kind of CLOUD_KINDS) {
      for (const dim of DIMS) {
        for (const n of [1, 2, 3, 1000]) {
          const pts = cloud(kind, n, dim, 100 * n + dim);
          const want = buildBvhCpu(pts, dim);
          const { unsorted, got } = await buildWithCpuSort(ctx, pts, dim);
          const what = `${kind} n=${n} d=${dim}`;
          const ci = firstDiff(unsorted, mortonCodesCpu(pts, n, dim, want.frame));
          if (ci !== -1) expect.fail(`${what}: unsorted code word ${ci} differs from the CPU twin`);
          expectSameBvh(got, want, what);
          checkBvhInvariants(pts, got);
        }
      }
    }
  });

  it("the refit gives the CPU twin's boxes whatever size of subtree it scans directly (1 = atomics only, 2, 8, 64)", async () => {
    for (const refitDirect of [1, 2, 8, 64]) {
      for (const kind of ['normal', 'duplicates', 'collinear', 'clustered'] as CloudKind[]) {
        for (const dim of [1, 2, 3, 5]) {
          for (const n of [1, 2, 3, 63, 64, 65, 1000, 5003]) {
            const pts = cloud(kind, n, dim, 31 * n + dim);
            const { got } = await buildWithCpuSort(ctx, pts, dim, refitDirect);
            expectSameBvh(got, buildBvhCpu(pts, dim), `${kind} n=${n} d=${dim} refitDirect=${refitDirect}`);
          }
        }
      }
    }
    await expect(createBvhBuilder(ctx, { maxCount: 10, dim: 3, refitDirect: 0 })).rejects.toThrow(/refitDirect/);
  });

  it('issue 18: the chunked refit and 9-bit sort digits (where the device holds them) build the CPU twin bit for bit over stale boxes', async () => {
    // 9-bit digits with 512 threads (lbvh.ts WIDE_SHAPE) or 256 where that fits, else the default shape.
    const wide = { radixBits: 9, workgroupSize: 512, keysPerThread: 8 };
    const sort = radixShapeFits(ctx, wide) ? wide : radixShapeFits(ctx, { radixBits: 9 }) ? { radixBits: 9 } : {};
    const radixBits = sort.radixBits;
    const build = async (cases: [CloudKind, number][], dim: number, refitChunk = true) => {
      const most = Math.max(...cases.map(([, n]) => n));
      const builder = await createBvhBuilder(ctx, { maxCount: most, dim, refitChunk, refitDirect: 8, sort });
      const bvh = allocateBvh(ctx, most, dim);
      // Karras zeroes only the boxes the refit accumulates (karras.ts, KarrasZero): the others must be stored.
      const stale = new Uint32Array(bvh.boxes.size / 4).fill(0x7f7fffff);
      for (const [kind, n] of cases) {
        const pts = cloud(kind, n, dim, 13 * n + dim);
        const input = ctx.upload('test::points', pts);
        ctx.device.queue.writeBuffer(bvh.boxes, 0, stale);
        await ctx.submit('test::build', (rec) => builder.encode(rec, input, n, bvh));
        const got = await readBvh(ctx, bvh);
        input.destroy();
        expectSameBvh(got, buildBvhCpu(pts, dim), `${kind} n=${n} d=${dim} radixBits=${radixBits}`);
        if (n > 10_000) checkBvhInvariants(pts, got);
      }
      bvh.destroy();
      builder.destroy();
    };
    const small = (['duplicates', 'collinear', 'clustered'] as CloudKind[]).flatMap((k) =>
      [1, 2, 3, 257, 3001].map((n) => [k, n] as [CloudKind, number]),
    );
    for (const dim of [1, 2, 13, 16]) await build(small, dim);
    await build([...small, ['normal', 50_003]], 3);
    await build(small, 3, false);
  });

  it('buildBvh (GPU radix sort included) equals the CPU twin, n = 2^17 + 3 sampled', async () => {
    const n = (1 << 17) + 3;
    const cases: [CloudKind, number][] = [
      ['normal', 3],
      ['uniform', 2],
      ['clustered', 5],
      ['duplicates', 3],
      ['collinear', 16],
      ['normal', 1],
    ];
    for (const [kind, dim] of cases) {
      const pts = cloud(kind, n, dim, dim);
      const bvh = await buildBvh(ctx, pts, n, dim);
      const got = await readBvh(ctx, bvh);
      bvh.destroy();
      const want = buildBvhCpu(pts, dim);
      expectSameBvh(got, want, `${kind} n=${n} d=${dim}`);
      checkBvhInvariants(pts, got);
    }
  });

  it('buildBvh (GPU radix sort included) equals the CPU twin for every shape, n = 1, 2, 3, 1000, d = 1 … 8, 16, 33, 70', async () => {
    for (const kind of CLOUD_KINDS) {
      for (const dim of [...DIMS, 33, 70]) {
        for (const n of [1, 2, 3, 1000]) {
          const pts = cloud(kind, n, dim, 7 * dim + n);
          const bvh = await buildBvh(ctx, pts, n, dim);
          const got = await readBvh(ctx, bvh);
          bvh.destroy();
          expectSameBvh(got, buildBvhCpu(pts, dim), `${kind} n=${n} d=${dim}`);
        }
      }
    }
  });

  it('a builder is reused across sizes, and nothing leaks', async () => {
    const before = ctx.memory.liveBytes;
    const dim = 3;
    const builder = await createBvhBuilder(ctx, { maxCount: 5000, dim });
    const bvh = allocateBvh(ctx, 5000, dim);
    for (const n of [5000, 17, 1, 0, 2, 4999]) {
      const pts = cloud('grid', n, dim, n);
      const input = ctx.upload('test::points', pts);
      await ctx.submit('test::build', (rec) => builder.encode(rec, input, n, bvh));
      if (n > 0) {
        const got = await readBvh(ctx, bvh);
        expectSameBvh(got, buildBvhCpu(pts, dim), `grid n=${n}`);
      }
      input.destroy();
    }
    bvh.destroy();
    builder.destroy();
    expect(ctx.memory.liveBytes).toBe(before);
  });

  it('rejects a BVH larger than 3 box parts can bind, naming the size and the limit', async () => {
    // The boxes are bound in BOX_PARTS ranges (layout.ts): one point more than they hold is an InputError.
    const most = pointsForBoxRecords(BOX_PARTS * boxPartRecords(ctx.limits.maxStorageBufferBindingSize, 4));
    expect(() => allocateBvh(ctx, most + 1, 4)).toThrow(
      new RegExp(`this device binds at most .* hold at most ${most} points`),
    );
  });
});
