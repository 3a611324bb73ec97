/**
 * Issue 19: the Karras hierarchy (src/bvh/karras.ts) with every array in parts (gpu/bigarray.ts) builds exactly the
 * CPU twin's (karras.cpu.ts) links, ranges and parents and zeroes every internal box: 200,000 sorted codes with
 * duplicates at a 1 MiB binding limit in 3D (codes, links and parents in 2 parts, boxes in 5), against the
 * unsplit device; and 64-element parts at degenerate sizes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createKarras } from '../../src/bvh/karras.js';
import { karrasCpu } from '../../src/bvh/karras.cpu.js';
import { linkWords, rangePairs } from '../../src/bvh/layout.js';
import type { GpuContext } from '../../src/gpu/context.js';
import { tryGpuContext } from '../helpers/gpu.js';
import { randomU32 } from '../helpers/random.js';

const whole = await tryGpuContext();
const split = whole ? await tryGpuContext({ maxBindingBytes: 1048576 }) : null;
afterAll(async () => {
  await split?.destroy();
  await whole?.destroy();
});

/** n sorted 64-bit codes ((low, high) pairs) with runs of duplicates. */
function sortedCodes(n: number, seed: number): Uint32Array {
  const raw = randomU32(2 * n, seed);
  const keys = Array.from({ length: n }, (_, i) => ({ lo: raw[2 * i] & 0xfffff000, hi: raw[2 * i + 1] & 0xffff }));
  keys.sort((a, b) => a.hi - b.hi || a.lo - b.lo);
  const out = new Uint32Array(2 * n);
  keys.forEach((k, i) => {
    out[2 * i] = k.lo;
    out[2 * i + 1] = k.hi;
  });
  return out;
}

async function hierarchy(ctx: GpuContext, codes: Uint32Array, dim: number, partElements?: number) {
  const n = codes.length / 2;
  const k = await createKarras(ctx, n, dim, { partElements });
  const c = Math.max(n, 1);
  const boxWords = 2 * dim * Math.max(n - 1, 1);
  const bufs = {
    codes: ctx.upload('test::codes', codes.length > 0 ? codes : new Uint32Array(2)),
    // Garbage the kernel must overwrite (8 bytes a record: layout.ts, "Records").
    links: ctx.upload('test::links', new Uint32Array(2 * c).fill(0xdeadbeef)),
    ranges: ctx.createBuffer('test::ranges', 4 * Math.max(n - 1, 1)),
    parents: ctx.createBuffer('test::parents', 8 * c),
    // Garbage the kernel must zero.
    boxes: ctx.upload('test::boxes', new Uint32Array(boxWords).fill(0xdeadbeef)),
  };
  try {
    await ctx.submit('test::karras', (rec) => k.encode(rec, { ...bufs, n }));
    const read = async (b: GPUBuffer, words: number) => new Uint32Array(await ctx.read(b, 0, 4 * words));
    return {
      links: await read(bufs.links, 2 * n),
      // One end of each range (layout.ts, "Ranges"), as pairs to compare with the twin's.
      ranges: rangePairs(await read(bufs.ranges, Math.max(n - 1, 0))),
      parents: await read(bufs.parents, Math.max(2 * n - 1, 0)),
      boxes: await read(bufs.boxes, n > 1 ? boxWords : 0),
      parts: k.parts,
    };
  } finally {
    for (const b of Object.values(bufs)) b.destroy();
    k.destroy();
  }
}

/** The CPU twin's hierarchy, its links as the GPU's (left, right; the minIndex words are the refit's). */
function twin(codes: Uint32Array) {
  const n = codes.length / 2;
  const h = karrasCpu(codes, n);
  return { links: linkWords(h.links.subarray(0, 4 * n)), ranges: h.ranges, parents: h.parents };
}

describe.skipIf(!whole)('bvh::karras through big arrays', () => {
  it('issue 19: 200,000 codes in 3D at a 1 MiB binding limit equal the CPU twin and the unsplit device', async () => {
    const codes = sortedCodes(200000, 11);
    const a = await hierarchy(split!, codes, 3);
    expect([a.parts.codes.parts, a.parts.links.parts, a.parts.parents.parts, a.parts.boxes.parts]).toEqual([
      2, 2, 2, 5,
    ]);
    const want = twin(codes);
    expect(a.links).toEqual(want.links);
    expect(a.ranges).toEqual(want.ranges);
    expect(a.parents).toEqual(want.parents);
    expect(a.boxes.every((w) => w === 0)).toBe(true);
    const b = await hierarchy(whole!, codes, 3);
    expect(b.links).toEqual(a.links);
    expect(b.parents).toEqual(a.parents);
    expect(split!.memory.liveBuffers).toBe(0);
  });

  it.each([1, 2, 3, 63, 65, 80])('issue 19: n=%i in 2D with 64-element parts equals the CPU twin', async (n) => {
    const codes = sortedCodes(n, 100 + n);
    const got = await hierarchy(whole!, codes, 2, 64);
    const want = twin(codes);
    expect(got.links).toEqual(want.links);
    expect(got.ranges).toEqual(want.ranges);
    expect(got.parents).toEqual(want.parents);
    expect(got.boxes.every((w) => w === 0)).toBe(true);
  });

  it('issue 19: more parts than the stage binds is an InputError naming them (the boxes, cleared instead, left out)', async () => {
    // As many codes parts alone as the stage has storage buffers (16 on lavapipe).
    const stage = whole!.limits.maxStorageBuffersPerShaderStage;
    const n = 64 * stage;
    await expect(createKarras(whole!, n, 2, { partElements: 64 })).rejects.toThrow(
      `bvh::karras: ${n} points need ${stage} codes, ${stage} links, ${stage} ranges, ${2 * stage} parents ` +
        `bindings; this device binds ${stage} storage buffers per stage.`,
    );
  });
});
