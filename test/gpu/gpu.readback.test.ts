/**
 * Issue 17 §3/§4: read-backs through the context's staging pool (src/gpu/readback.ts) on a device — readInto,
 * readChunks and read give the buffer's bytes for sizes 0, 4, 5 (rounded to a word on the GPU, 5 bytes to the
 * caller), sizes around chunk boundaries of a small pool, offsets, typed and shared destinations; reads started
 * together each get their own bytes; a read right after a submit that writes the buffer sees the write; bad ranges
 * are refused naming the values; destroying the context frees the staging and ends reads; the hot paths that
 * transform chunk by chunk (emst's readEdges, hdbscan's resident read-backs, readDendrogram) give the CPU
 * backend's results with chunks of 64 bytes. The pool's logic under adversarial timing: test/cpu/gpu.readback.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createGpuContext } from '../../src/gpu/context.js';
import { READBACK_METHODS } from '../../src/gpu/readback.js';
import { blobs } from '../../src/datasets/generate.js';
import { emst } from '../../src/emst/emst.js';
import { hdbscan, type HdbscanOptions } from '../../src/hdbscan.js';
import { GpuDendrogram, readDendrogram } from '../../src/cluster/dendrogram.js';
import { canonicalMst } from '../../src/cluster/edgeOrder.js';
import { singleLinkage } from '../../src/cluster/linkage.js';
import { GpuDeviceLostError, GpuError, InputError } from '../../src/errors.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { mulberry32 } from '../helpers/random.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

/** Seeded bytes, never zero (so stale or missing bytes show). */
function bytes(length: number, seed: number): Uint8Array {
  const rand = mulberry32(seed);
  return Uint8Array.from({ length }, () => 1 + Math.floor(rand() * 255));
}

/** The first byte where `got` and `want` differ, or −1 (expect().toEqual is slow on megabytes). */
function firstDifference(got: Uint8Array, want: Uint8Array): number {
  if (got.length !== want.length) return Math.min(got.length, want.length);
  for (let i = 0; i < got.length; i++) if (got[i] !== want[i]) return i;
  return -1;
}

const CHUNK = 64;
/** Around the boundaries of 64-byte chunks, and across many of them. */
const SIZES = [0, 4, 5, 60, 63, 64, 65, 68, 124, 128, 132, 192, 196, 1000, 4099];
const OFFSETS = [0, 4, 60, 64, 68];

describe.skipIf(variants.length === 0).each(variants)('read-backs ($name)', ({ ctx }) => {
  it.each(READBACK_METHODS)(
    'readInto(%s) returns every size at every offset, leaving the rest of dest',
    async (method) => {
      ctx.configureReadback({ chunkBytes: CHUNK, slots: 2 });
      const data = bytes(8192, 1);
      const buffer = await ctx.uploadAsync('test::readback', data);
      const before = ctx.memory.liveBuffers;
      for (const size of SIZES) {
        for (const offset of OFFSETS) {
          const dest = new Uint8Array(size + 8).fill(0);
          await ctx.readInto(buffer, offset, size, dest, { method });
          const bad = firstDifference(dest.subarray(0, size), data.subarray(offset, offset + size));
          if (bad >= 0) expect.fail(`${method}, ${size} bytes at ${offset}: byte ${bad} differs`);
          expect(dest.subarray(size).every((b) => b === 0)).toBe(true);
        }
      }
      // read() returns exactly byteLength bytes (5, not the word the GPU copied).
      expect(new Uint8Array(await ctx.read(buffer, 8, 5))).toEqual(data.subarray(8, 13));
      expect((await ctx.read(buffer, 0, 0)).byteLength).toBe(0);
      expect(firstDifference(new Uint8Array(await ctx.read(buffer)), data)).toBe(-1);
      expect(ctx.memory.liveBuffers).toBe(before);
      buffer.destroy();
    },
  );

  it('readChunks hands chunks over in order at multiples of the chunk size, each rounded up to a word', async () => {
    ctx.configureReadback({ chunkBytes: CHUNK, slots: 3 });
    const data = bytes(1024, 2);
    const buffer = await ctx.uploadAsync('test::readback', data);
    for (const size of [4, 5, 64, 65, 130, 1021]) {
      const seen: [number, number][] = [];
      const out = new Uint8Array(Math.ceil(size / 4) * 4);
      await ctx.readChunks(buffer, 0, size, (chunk, at) => {
        seen.push([at, chunk.byteLength]);
        out.set(new Uint8Array(chunk), at);
      });
      const want: [number, number][] = [];
      for (let at = 0; at < size; at += CHUNK) want.push([at, Math.min(CHUNK, Math.ceil(size / 4) * 4 - at)]);
      expect(seen).toEqual(want);
      expect(out.subarray(0, size)).toEqual(data.subarray(0, size));
    }
    buffer.destroy();
  });

  it('typed views with an offset and shared memory receive their own bytes', async () => {
    ctx.configureReadback({ chunkBytes: 256, slots: 2 });
    const values = new Float32Array(3000).map((_, i) => i * 0.25 - 7);
    const buffer = await ctx.uploadAsync('test::readback', values);
    const whole = new Float32Array(4000).fill(-1);
    await ctx.readInto(buffer, 400, 4 * 2000, whole.subarray(500, 2600));
    expect(whole.subarray(500, 2500)).toEqual(values.subarray(100, 2100));
    expect(whole.subarray(0, 500).every((v) => v === -1) && whole.subarray(2500).every((v) => v === -1)).toBe(true);
    const shared = new Float32Array(new SharedArrayBuffer(4 * 3000));
    await ctx.readInto(buffer, 0, 4 * 3000, shared);
    expect(shared).toEqual(values);
    const view = new DataView(new ArrayBuffer(16));
    await ctx.readInto(buffer, 4, 16, view);
    expect(view.getFloat32(0, true)).toBe(values[1]);
    buffer.destroy();
  });

  it('reads started together through a small pool each get their own bytes', async () => {
    ctx.configureReadback({ chunkBytes: 128, slots: 2 });
    const datas = [5000, 4, 777, 3000, 0, 129, 4096].map((n, i) => bytes(n, 100 + i));
    const buffers = await Promise.all(datas.map((d) => ctx.uploadAsync('test::readback', d)));
    const outs = datas.map((d) => new Uint8Array(new SharedArrayBuffer(Math.max(1, d.length))));
    await Promise.all(buffers.map((b, i) => ctx.readInto(b, 0, datas[i].length, outs[i])));
    // The same buffer read twice at once, in different ranges.
    const [a, b] = await Promise.all([ctx.read(buffers[0], 0, 2500), ctx.read(buffers[0], 2500, 2500)]);
    for (const [i, d] of datas.entries()) expect(firstDifference(outs[i].subarray(0, d.length), d)).toBe(-1);
    expect(firstDifference(new Uint8Array(a), datas[0].subarray(0, 2500))).toBe(-1);
    expect(firstDifference(new Uint8Array(b), datas[0].subarray(2500))).toBe(-1);
    expect(ctx.readbackBytes).toBeLessThanOrEqual(2 * 128);
    for (const buffer of buffers) buffer.destroy();
  });

  it('a read right after a submit that writes the buffer sees the write, also while the pool is busy', async () => {
    ctx.configureReadback({ chunkBytes: 64, slots: 2 });
    const datas = [bytes(2048, 7), bytes(2048, 8)];
    const sources = await Promise.all(datas.map((d) => ctx.uploadAsync('test::readback', d)));
    const target = ctx.createBuffer('test::readback', 2048);
    const busy = await ctx.uploadAsync('test::readback', bytes(4096, 9));
    for (let round = 0; round < 4; round++) {
      // A long read keeps the pool's slots taken while the write is submitted and the read below is called.
      const long = round % 2 ? ctx.read(busy) : Promise.resolve(null);
      void ctx.enqueue('test::overwrite', (rec) => rec.copy(sources[round % 2], 0, target, 0, 2048));
      const got = new Uint8Array(await ctx.read(target));
      await long;
      expect(firstDifference(got, datas[round % 2])).toBe(-1);
    }
    // A clear recorded right before the read.
    void ctx.enqueue('test::clear', (rec) => rec.clear(target, 0, 1024));
    const cleared = new Uint8Array(await ctx.read(target, 0, 1028));
    expect(cleared.subarray(0, 1024).every((v) => v === 0)).toBe(true);
    expect(cleared.subarray(1024)).toEqual(datas[1].subarray(1024, 1028));
    for (const b of [...sources, target, busy]) b.destroy();
  });

  it('refuses ranges outside the buffer, unaligned offsets and small destinations, naming the values', async () => {
    const buffer = ctx.createBuffer('test::readback', 64);
    await expect(ctx.readInto(buffer, 2, 4, new Uint8Array(4))).rejects.toThrow(InputError);
    await expect(ctx.readInto(buffer, 60, 8, new Uint8Array(8))).rejects.toThrow(/8 bytes at offset 60.*64 bytes/);
    await expect(ctx.readInto(buffer, 0, 16, new Uint32Array(3))).rejects.toThrow(/12 bytes cannot take 16/);
    // A source without COPY_SRC: the copy's validation error, and the pool still works afterwards.
    const noCopy = ctx.device.createBuffer({ label: 'test::noCopySrc', size: 256, usage: GPUBufferUsage.STORAGE });
    await expect(ctx.read(noCopy, 0, 256)).rejects.toThrow(GpuError);
    noCopy.destroy();
    expect(new Uint32Array(await ctx.read(buffer))).toEqual(new Uint32Array(16));
    buffer.destroy();
  });

  it('the staging is sized by what it carries, up to chunkBytes per slot, and reused', async () => {
    ctx.configureReadback({ chunkBytes: 1 << 16, slots: 3 });
    expect(ctx.readbackBytes).toBe(0);
    const data = bytes(300_000, 3);
    const buffer = await ctx.uploadAsync('test::readback', data);
    await ctx.read(buffer, 0, 4);
    expect(ctx.readbackBytes).toBe(256);
    await ctx.read(buffer, 0, 5000);
    expect(ctx.readbackBytes).toBe(8192);
    expect(firstDifference(new Uint8Array(await ctx.read(buffer, 0, 300_000)), data)).toBe(-1);
    expect(ctx.readbackBytes).toBe(3 << 16);
    await ctx.read(buffer, 0, 100);
    expect(ctx.readbackBytes).toBe(3 << 16);
    buffer.destroy();
    ctx.configureReadback({});
  });
});

describe.skipIf(variants.length === 0)('read-backs in the hot paths', () => {
  it('emst() and hdbscan() read their results in 64-byte chunks and equal the CPU backend', async () => {
    const { ctx } = variants[0];
    ctx.configureReadback({ chunkBytes: 64, slots: 2 });
    try {
      const points = blobs({ n: 1200, dim: 2, seed: 21, clusters: 4, noise: 0.2 });
      const g = await emst(points, { dim: 2, minSamples: 3, backend: 'gpu', gpu: ctx });
      const c = await emst(points, { dim: 2, minSamples: 3, backend: 'cpu' });
      expect(g.sources).toEqual(c.sources);
      expect(g.targets).toEqual(c.targets);
      expect(g.weights).toEqual(c.weights);
      const options: HdbscanOptions = { dim: 2, minClusterSize: 10, keep: { mst: true, singleLinkage: true } };
      const want = await hdbscan(points, { ...options, backend: 'cpu' });
      for (const resident of ['1', '0']) {
        process.env.TREELINE_RESIDENT = resident;
        try {
          const got = await hdbscan(points, { ...options, backend: 'gpu', gpu: ctx });
          expect(got.labels, resident).toEqual(want.labels);
          expect(got.probabilities, resident).toEqual(want.probabilities);
          expect(got.condensedTree, resident).toEqual(want.condensedTree);
          expect(got.mst!.sources, resident).toEqual(want.mst!.sources);
          expect(got.mst!.targets, resident).toEqual(want.mst!.targets);
          expect(got.mst!.weights, resident).toEqual(want.mst!.weights);
          expect(got.singleLinkage, resident).toEqual(want.singleLinkage);
        } finally {
          delete process.env.TREELINE_RESIDENT;
        }
      }
    } finally {
      ctx.configureReadback({});
    }
  });

  it('readDendrogram in 64-byte chunks gives singleLinkage rows and the same parents as in one chunk', async () => {
    const { ctx } = variants[0];
    const points = blobs({ n: 700, dim: 3, seed: 5, clusters: 3, noise: 0.1 });
    const n = 700;
    const mst = canonicalMst(await emst(points, { dim: 3, backend: 'cpu' }));
    const w = new Float32Array(mst.weights);
    const pairs = new Uint32Array(2 * (n - 1));
    for (let i = 0; i < n - 1; i++) {
      pairs[2 * i] = mst.sources[i];
      pairs[2 * i + 1] = new Uint32Array(w.buffer)[i];
    }
    const d = await GpuDendrogram.create(ctx, n);
    const keys = ctx.upload('test::keys', pairs);
    const targets = ctx.upload('test::targets', mst.targets);
    try {
      let out = null as ReturnType<GpuDendrogram['encode']> | null;
      await ctx.submit('test::dendrogram', (rec) => (out = d.encode(rec, { keys, targets, n })));
      const whole = await readDendrogram(ctx, out!, keys);
      ctx.configureReadback({ chunkBytes: 64, slots: 2 });
      const chunked = await readDendrogram(ctx, out!, keys);
      expect(chunked).toEqual(whole);
      const want = singleLinkage(mst, n);
      expect(chunked.left).toEqual(want.left);
      expect(chunked.right).toEqual(want.right);
      expect(chunked.distance).toEqual(want.distance);
      expect(chunked.size).toEqual(want.size);
    } finally {
      ctx.configureReadback({});
      keys.destroy();
      targets.destroy();
      d.destroy();
    }
  });
});

describe.skipIf(variants.length === 0)('read-backs and the context', () => {
  it('destroying the context frees the staging and ends reads under way and after', async () => {
    const ctx = await createGpuContext({ features: 'none' });
    ctx.configureReadback({ chunkBytes: 64, slots: 1 });
    const buffer = await ctx.uploadAsync('test::readback', bytes(4096, 4));
    await ctx.read(buffer, 0, 64);
    expect(ctx.readbackBytes).toBe(64);
    const underway = expect(ctx.read(buffer)).rejects.toThrow();
    const closed = ctx.destroy();
    await underway;
    await closed;
    expect(ctx.readbackBytes).toBe(0);
    await expect(ctx.read(buffer, 0, 4)).rejects.toThrow(GpuDeviceLostError);
  });
});
