/**
 * Issue 19: the BVH refit (src/bvh/refit.ts) with every array in parts (gpu/bigarray.ts; minIndex and boxes as atomic
 * words through generated _store/_max accessors) gives the CPU build's (lbvh.cpu.ts: refit.cpu.ts) boxes and
 * minIndex words bit for bit: 200,000 2D points with duplicates at a 1 MiB binding limit (14 bindings: sorted 2,
 * order 1, parents 2, links 4, boxes 4, ranges 1), against the unsplit device too; small parts at degenerate sizes
 * with the direct scans on and off. 3D at that size binds 14 (ranges as one end each, minIndex words beside 8-byte
 * links); 300,000 3D points take the refit in two passes (bvh.passes.test.ts checks their words), 305,900 are refused
 * by name. Issue 18: the chunked
 * refit (refit_chunk.wgsl) gives the same words, in 1–5D, at degenerate sizes and inputs, and through big arrays.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createRefit } from '../../src/bvh/refit.js';
import { buildBvhCpu } from '../../src/bvh/lbvh.cpu.js';
import { joinLinks, linkWords, rangeOthers } from '../../src/bvh/layout.js';
import type { GpuContext } from '../../src/gpu/context.js';
import { tryGpuContext } from '../helpers/gpu.js';
import { mulberry32 } from '../helpers/random.js';

const whole = await tryGpuContext();
const split = whole ? await tryGpuContext({ maxBindingBytes: 1048576 }) : null;
afterAll(async () => {
  await split?.destroy();
  await whole?.destroy();
});

/** n seeded points, every fifth a copy of the one before, some negative. */
function points(n: number, dim: number, seed: number): Float32Array {
  const r = mulberry32(seed);
  const p = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < dim; k++) p[i * dim + k] = i % 5 === 4 ? p[(i - 1) * dim + k] : (r() - 0.4) * 100;
  }
  return p;
}

/**
 * The CPU build, and the refit's minIndex words as garbage (the refit clears them: layout.ts, "Records"); `links` of
 * the result joins the twin's left and right words to the refit's minIndex words, to compare with the twin's records.
 */
function inputs(pts: Float32Array, dim: number) {
  const cpu = buildBvhCpu(pts, dim);
  const mins = new Uint32Array(2 * Math.max(cpu.n, 1)).fill(0xdeadbeef);
  return { cpu, mins };
}

async function refitOn(
  ctx: GpuContext,
  pts: Float32Array,
  dim: number,
  direct: number,
  partElements?: number,
  chunk?: { workgroupSize: number },
) {
  const { cpu, mins } = inputs(pts, dim);
  const n = cpu.n;
  const r = await createRefit(ctx, n, dim, direct, { partElements, ...(chunk ? { chunk: true, ...chunk } : {}) });
  if (chunk) expect(r.chunkLeaves).toBe(chunk.workgroupSize);
  const bufs = {
    sorted: ctx.upload('test::sorted', cpu.sortedPoints),
    order: ctx.upload('test::order', cpu.order),
    parents: ctx.upload('test::parents', cpu.parents),
    mins: ctx.upload('test::mins', mins),
    boxes: ctx.createBuffer('test::boxes', 8 * dim * Math.max(n - 1, 1)),
    ranges: ctx.upload('test::ranges', cpu.ranges.length > 0 ? rangeOthers(cpu.ranges) : new Uint32Array(2)),
  };
  try {
    await ctx.submit('test::refit', (rec) => r.encode(rec, { ...bufs, n }));
    return {
      cpu,
      links: joinLinks(linkWords(cpu.links), new Uint32Array(await ctx.read(bufs.mins, 0, 8 * n))),
      boxes: new Float32Array(await ctx.read(bufs.boxes, 0, 8 * dim * Math.max(n - 1, 0))),
    };
  } finally {
    for (const b of Object.values(bufs)) b.destroy();
    r.destroy();
  }
}

const bits = (a: Float32Array) => new Uint32Array(a.buffer, a.byteOffset, a.length);

describe.skipIf(!whole)('bvh::refit through big arrays', () => {
  it('issue 19: 200,000 2D points at a 1 MiB binding limit equal the CPU build and the unsplit device', async () => {
    const pts = points(200000, 2, 3);
    const a = await refitOn(split!, pts, 2, 32);
    expect(a.links).toEqual(a.cpu.links);
    expect(bits(a.boxes)).toEqual(bits(a.cpu.boxes));
    const b = await refitOn(whole!, pts, 2, 32);
    expect(bits(b.boxes)).toEqual(bits(a.boxes));
    expect(split!.memory.liveBuffers).toBe(0);
  });

  it.each([1, 2, 3, 65, 100])('issue 19: n=%i in 2D with 128-element parts, direct scans 1 and 8', async (n) => {
    const pts = points(n, 2, 20 + n);
    for (const direct of [1, 8]) {
      const got = await refitOn(whole!, pts, 2, direct, 128);
      expect(got.links, `direct ${direct}`).toEqual(got.cpu.links);
      expect(bits(got.boxes), `direct ${direct}`).toEqual(bits(got.cpu.boxes));
    }
  });

  it('issue 18: the chunked refit equals the CPU build in 1–5D for n = 1 … 3000 (chunks of 32, 256 and 512 leaves, duplicates)', async () => {
    for (const dim of [1, 3, 5]) {
      for (const n of dim === 3 ? [1, 2, 3, 32, 33, 257, 3000] : [2, 100, 600]) {
        const pts = points(n, dim, 100 * dim + n);
        for (const workgroupSize of [32, 256, 512]) {
          const got = await refitOn(whole!, pts, dim, 32, undefined, { workgroupSize });
          const what = `dim ${dim}, n ${n}, chunk ${workgroupSize}`;
          expect(got.links, what).toEqual(got.cpu.links);
          expect(bits(got.boxes), what).toEqual(bits(got.cpu.boxes));
        }
      }
    }
  });

  it('issue 18: the chunked refit on degenerate inputs — all points equal, a line, ±0 — equals the CPU build', async () => {
    const n = 3001;
    const same = new Float32Array(3 * n).fill(2.5);
    const line = Float32Array.from({ length: 3 * n }, (_, i) => (i % 3 === 0 ? Math.floor(i / 3) % 97 : 0));
    const zeros = Float32Array.from({ length: 3 * n }, (_, i) => (i % 2 ? -0 : 0));
    for (const pts of [same, line, zeros]) {
      const got = await refitOn(whole!, pts, 3, 32, undefined, { workgroupSize: 64 });
      expect(got.links).toEqual(got.cpu.links);
      expect(bits(got.boxes)).toEqual(bits(got.cpu.boxes));
    }
  });

  it('issue 18: the chunked refit through big arrays — 100,000 2D points at a 1 MiB limit, 128-element parts', async () => {
    const a = await refitOn(split!, points(100000, 2, 3), 2, 32, undefined, { workgroupSize: 256 });
    expect(a.links).toEqual(a.cpu.links);
    expect(bits(a.boxes)).toEqual(bits(a.cpu.boxes));
    for (const n of [1, 2, 65, 100]) {
      const got = await refitOn(whole!, points(n, 2, 20 + n), 2, 32, 128, { workgroupSize: 32 });
      expect(got.links, `n ${n}`).toEqual(got.cpu.links);
      expect(bits(got.boxes), `n ${n}`).toEqual(bits(got.cpu.boxes));
    }
    expect(split!.memory.liveBuffers).toBe(0);
  });

  it('issue 18: the chunked refit on a 2D grid of workgroups (at most 64 per dimension: 938 chunks on 63 × 15 groups)', async () => {
    const narrow = await tryGpuContext({ maxWorkgroupsPerDimension: 64 });
    try {
      const got = await refitOn(narrow!, points(30_000, 3, 7), 3, 32, undefined, { workgroupSize: 32 });
      expect(got.links).toEqual(got.cpu.links);
      expect(bits(got.boxes)).toEqual(bits(got.cpu.boxes));
    } finally {
      await narrow?.destroy();
    }
  });

  it('issue 19: 3D points at a 1 MiB limit: 200,000 bind 14 storage buffers in one pass; 300,000 would bind 21, so the refit takes two passes of 16 and 10; 305,900 need 17 in the boxes pass and are refused by name', async () => {
    const stage = split!.limits.maxStorageBuffersPerShaderStage;
    const slots = (r: { parts: Record<string, { parts: number }> }, names: string[]) =>
      names.reduce((s, k) => s + r.parts[k].parts, 0);
    const one = await createRefit(split!, 200000, 3, 32);
    expect(one.passes).toBe(1);
    expect(Object.values(one.parts).reduce((s, p) => s + p.parts, 0)).toBe(14);
    one.destroy();
    if (stage > 16) return;
    const two = await createRefit(split!, 300000, 3, 32);
    expect(two.passes).toBe(2);
    expect(slots(two, ['sorted', 'parents', 'boxes', 'ranges'])).toBe(16);
    expect(slots(two, ['order', 'parents', 'mins', 'ranges'])).toBe(10);
    two.destroy();
    await expect(createRefit(split!, 305900, 3, 32)).rejects.toThrow(
      `bvh::refit.boxes: 305900 points need 4 sorted, 3 parents, 8 boxes, 2 ranges bindings; this device binds 16 storage buffers per stage.`,
    );
  });
});
