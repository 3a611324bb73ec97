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

  it('small buffers are pooled and cleared too; the pool stays within its bound', async () => {
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
    // The bound: pooled + live + a request stay under the most ever live at once plus as much again (up to 512 MiB),
    // on a context of its own so that its high-water mark is this test's.
    const own = (await tryGpuContext())!;
    try {
      const S = 1 << 18;
      const a = own.createBuffer('test::a', S); // high water S
      a.destroy(); // pooled S
      const b = own.createBuffer('test::b', 3 * S); // S + 3S > 2S: a is freed first
      expect(b).not.toBe(a);
      expect(own.memory.pooledBytes).toBe(0);
      b.destroy(); // high water 3S, pooled 3S
      const c = own.createBuffer('test::c', 2 * S); // 3S + 2S ≤ 6S: b stays pooled
      expect(own.memory.pooledBytes).toBe(3 * S);
      expect(own.memory.liveBytes).toBe(2 * S);
      const d = own.createBuffer('test::d', 3 * S); // a hit: b again, nothing freed
      expect(d).toBe(b);
      c.destroy();
      d.destroy();
      own.trim();
      expect(own.memory.pooledBytes).toBe(0);
    } finally {
      await own.destroy();
    }
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
      // Buffers the device makes per call: once the pool holds a call's buffers, a repeated call makes almost none
      // (the MST's and the clustering's buffers no longer evict each other: buffers.ts POOL_EXTRA_BYTES).
      const made: number[] = [];
      const groups: number[] = [];
      const create = ctx.device.createBuffer.bind(ctx.device);
      let count = 0;
      Object.defineProperty(ctx.device, 'createBuffer', {
        configurable: true,
        value: (d: GPUBufferDescriptor) => (count++, create(d)),
      });
      for (let rep = 0; rep < 3; rep++) {
        count = 0;
        const got = await hdbscan(points, { dim: 2, minClusterSize: 10, backend: 'gpu', gpu: ctx });
        expect(Array.from(got.labels)).toEqual(Array.from(want.labels));
        expect(Array.from(got.probabilities)).toEqual(Array.from(want.probabilities));
        expect(Array.from(got.outlierScores)).toEqual(Array.from(want.outlierScores));
        const t = await emst(points, { dim: 2, backend: 'gpu', gpu: ctx });
        expect(Array.from(t.sources)).toEqual(Array.from(tree.sources));
        expect(Array.from(t.targets)).toEqual(Array.from(tree.targets));
        expect(Array.from(t.weights)).toEqual(Array.from(tree.weights));
        made.push(count);
        groups.push(ctx.bindGroups.size);
      }
      Object.defineProperty(ctx.device, 'createBuffer', { configurable: true, value: create });
      expect(ctx.buffers.reused).toBeGreaterThan(before);
      expect(made[2]).toBeLessThanOrEqual(Math.max(8, made[0] / 8));
      // On the same buffers the calls find most of their bind groups made (recorder.ts: the context's cache; ~90 %
      // on lavapipe — the rest bind buffers whose identity changes from call to call).
      expect(groups[2] - groups[1]).toBeLessThan(groups[0] / 4);
    } finally {
      await fresh.destroy();
    }
  });
});
