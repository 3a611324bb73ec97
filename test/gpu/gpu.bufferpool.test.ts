/**
 * The context's buffer pool (src/gpu/buffers.ts, issue 17): a destroyed storage buffer is kept and handed back for
 * the next request of its size, cleared to zeros (it reads as a new buffer does); the pool stays under the most
 * bytes ever live at once; a double destroy never hands one buffer out twice; `bufferPool: false` never reuses;
 * and whole calls run on reused buffers give the same results as on fresh ones.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { generate } from '../../src/datasets/generate.js';
import { emst } from '../../src/emst/emst.js';
import { hdbscan } from '../../src/hdbscan.js';
import type { GpuContext } from '../../src/gpu/context.js';
import { destroyVariants, gpuVariants, tryGpuContext } from '../helpers/gpu.js';

const all = await gpuVariants();
afterAll(() => destroyVariants(all));

async function read(ctx: GpuContext, buffer: GPUBuffer, words: number): Promise<Uint32Array> {
  const out = new Uint32Array(words);
  await ctx.readInto(buffer, 0, 4 * words, out);
  return out;
}

describe.skipIf(all.length === 0).each(all.slice(0, 1))('buffer pool ($name)', ({ ctx }) => {
  const words = 1 << 16; // 256 KiB buffers

  it('a destroyed buffer comes back for the same size, cleared, and is accounted as pooled, not live', async () => {
    ctx.trim();
    const live = ctx.memory.liveBytes;
    const a = ctx.createBuffer('test::a', 4 * words);
    await ctx.writeBuffer(a, 0, new Uint32Array(words).fill(7));
    expect((await read(ctx, a, words))[words - 1]).toBe(7);
    a.destroy();
    expect(ctx.memory.liveBytes).toBe(live);
    expect(ctx.memory.pooledBytes).toBe(4 * words);
    const reused = ctx.buffers.reused;
    const b = ctx.createBuffer('test::b', 4 * words);
    expect(b).toBe(a);
    expect(b.label).toBe('test::b');
    expect(ctx.buffers.reused).toBe(reused + 1);
    expect(ctx.memory.pooledBytes).toBe(0);
    const back = await read(ctx, b, words);
    expect(back.every((v) => v === 0)).toBe(true);
    // A second destroy() of a pooled buffer changes nothing: it is handed out once only.
    b.destroy();
    b.destroy();
    expect(ctx.memory.pooledBytes).toBe(4 * words);
    const c = ctx.createBuffer('test::c', 4 * words);
    const d = ctx.createBuffer('test::d', 4 * words);
    expect(c).toBe(a);
    expect(d).not.toBe(a);
    c.destroy();
    d.destroy();
    ctx.trim();
    expect(ctx.memory.pooledBytes).toBe(0);
  });

  it('upload() takes a pooled buffer of its size and writes every byte; a label is given back its own buffer', async () => {
    ctx.trim();
    const a = ctx.upload('test::up', new Uint8Array([1, 2, 3, 4, 5, 6, 7]));
    const other = ctx.createBuffer('test::other', 8);
    await ctx.writeBuffer(other, 0, new Uint32Array([9, 9]));
    other.destroy();
    a.destroy();
    // Two pooled 8-byte buffers: each label gets back the one it had.
    const b = ctx.upload('test::up', new Uint8Array([10, 11, 12, 13, 14]));
    expect(b).toBe(a);
    const back = new Uint8Array(8);
    await ctx.readInto(b, 0, 8, back);
    expect(Array.from(back)).toEqual([10, 11, 12, 13, 14, 0, 0, 0]);
    const c = ctx.createBuffer('test::other', 8);
    expect(c).toBe(other);
    expect(Array.from(await read(ctx, c, 2))).toEqual([0, 0]);
    b.destroy();
    c.destroy();
    ctx.trim();
  });

  it('other sizes are new buffers; small ones are pooled and cleared too; the pool stays under the high-water mark', async () => {
    ctx.trim();
    const small = ctx.createBuffer('test::small', 64);
    await ctx.writeBuffer(small, 0, new Uint32Array(16).fill(9));
    small.destroy();
    expect(ctx.memory.pooledBytes).toBe(64);
    const again = ctx.createBuffer('test::again', 64);
    expect(again).toBe(small);
    expect(Array.from(await read(ctx, again, 16))).toEqual(new Array(16).fill(0));
    again.destroy();
    // `cleared: false` (a caller that writes every byte first, as the recorders' uniform blocks do): not cleared.
    const raw = ctx.buffers.create('test::raw', 64, 0, false);
    expect(raw).toBe(small);
    raw.destroy();
    ctx.trim();
    const a = ctx.createBuffer('test::a', 4 * words);
    a.destroy();
    const b = ctx.createBuffer('test::b', 8 * words);
    expect(b).not.toBe(a);
    // The 2× request did not fit beside the pooled one under the highest live total so far only if that total is
    // below both together: whatever it is, pooled + live never exceeds it.
    const m = ctx.memory;
    expect(m.pooledBytes + m.liveBytes).toBeLessThanOrEqual(Math.max(m.peakBytes, 8 * words + m.liveBytes));
    b.destroy();
    ctx.trim();
  });

  it('hdbscan() and emst() on reused buffers: the same results as on a context that never reuses', async () => {
    const fresh = (await tryGpuContext({ bufferPool: false }))!;
    try {
      const points = generate('blobs', { n: 20_000, dim: 2, seed: 4, clusters: 4 });
      const want = await hdbscan(points, { dim: 2, minClusterSize: 10, backend: 'gpu', gpu: fresh });
      const tree = await emst(points, { dim: 2, backend: 'gpu', gpu: fresh });
      expect(fresh.buffers.reused).toBe(0);
      expect(fresh.memory.pooledBytes).toBe(0);
      const before = ctx.buffers.reused;
      for (let rep = 0; rep < 3; rep++) {
        const got = await hdbscan(points, { dim: 2, minClusterSize: 10, backend: 'gpu', gpu: ctx });
        expect(Array.from(got.labels)).toEqual(Array.from(want.labels));
        expect(Array.from(got.probabilities)).toEqual(Array.from(want.probabilities));
        expect(Array.from(got.outlierScores)).toEqual(Array.from(want.outlierScores));
        const t = await emst(points, { dim: 2, backend: 'gpu', gpu: ctx });
        expect(Array.from(t.sources)).toEqual(Array.from(tree.sources));
        expect(Array.from(t.targets)).toEqual(Array.from(tree.targets));
        expect(Array.from(t.weights)).toEqual(Array.from(tree.weights));
      }
      expect(ctx.buffers.reused).toBeGreaterThan(before);
    } finally {
      await fresh.destroy();
    }
  });
});
