/**
 * Issue 17 §4: uploads through the context's staging ring (src/gpu/upload.ts) and the other methods give a
 * storage buffer holding the data, zero-padded to a multiple of 4 bytes — for empty data, one byte, sizes that are
 * not multiples of 4, and data spanning many chunks of a small ring (so slots are reused while earlier chunks are
 * still being copied) — and leave no buffer behind.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { UPLOAD_METHODS } from '../../src/gpu/upload.js';
import { emst } from '../../src/index.js';
import { InputError } from '../../src/errors.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { mulberry32 } from '../helpers/random.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

/** Seeded bytes (never all zero, so padding and stale staging bytes show). */
function bytes(length: number, seed: number): Uint8Array {
  const rand = mulberry32(seed);
  return Uint8Array.from({ length }, () => 1 + Math.floor(rand() * 255));
}

/** What the buffer should hold: the data, then zeros up to a multiple of 4 (at least 4 bytes). */
function padded(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.max(4, Math.ceil(data.length / 4) * 4));
  out.set(data);
  return out;
}

/** The first byte where `got` and `want` differ, or −1 (expect().toEqual is slow on megabytes). */
function firstDifference(got: Uint8Array, want: Uint8Array): number {
  if (got.length !== want.length) return Math.min(got.length, want.length);
  for (let i = 0; i < got.length; i++) if (got[i] !== want[i]) return i;
  return -1;
}

const SIZES = [0, 1, 2, 3, 4, 5, 63, 64, 65, 1000, 4099, 100_003];

describe.skipIf(variants.length === 0).each(variants)('uploads ($name)', ({ ctx }) => {
  it.each(UPLOAD_METHODS)('uploadAsync(%s) round-trips every size, zero-padded', async (method) => {
    ctx.configureStaging({ chunkBytes: 64, slots: 2 });
    const before = ctx.memory.liveBuffers;
    for (const [i, n] of SIZES.entries()) {
      const data = bytes(n, 17 + i);
      const buffer = await ctx.uploadAsync('test::upload', data, 0, { method });
      const got = new Uint8Array(await ctx.read(buffer));
      buffer.destroy();
      expect(got.length).toBe(Math.max(4, Math.ceil(n / 4) * 4));
      const want = padded(data);
      const bad = got.findIndex((b, j) => b !== want[j]);
      if (bad >= 0) expect.fail(`${method}, ${n} bytes: byte ${bad} is ${got[bad]}, expected ${want[bad]}`);
    }
    expect(ctx.memory.liveBuffers).toBe(before);
  });

  it('typed arrays of other kinds, views with an offset and shared memory upload their own bytes', async () => {
    ctx.configureStaging({ chunkBytes: 256, slots: 3 });
    const whole = new Float32Array(5000).map((_, i) => i * 0.25 - 7);
    const view = whole.subarray(3, 4003);
    const buffer = await ctx.uploadAsync('test::upload', view);
    const got = new Float32Array(await ctx.read(buffer));
    buffer.destroy();
    expect(got).toEqual(view);
    // Shared memory (hdbscan's arrays and issue 20's worker scratch may live in a SharedArrayBuffer), each method,
    // through the ring and below its chunk (Dawn's own writeBuffer: a shared view crashed the process there).
    for (const count of [3001, 50]) {
      const shared = new Float32Array(new SharedArrayBuffer(4 * count)).map((_, i) => i - 1500.5);
      for (const method of UPLOAD_METHODS) {
        const b = await ctx.uploadAsync('test::upload', shared, 0, { method });
        const back = new Float32Array(await ctx.read(b));
        b.destroy();
        expect(back).toEqual(shared);
      }
      const c = ctx.upload('test::upload', shared);
      const again = new Float32Array(await ctx.read(c));
      c.destroy();
      expect(again).toEqual(shared);
    }
  });

  it('emst() of points in a SharedArrayBuffer equals emst() of the same points in a plain array', async () => {
    // Found by issue 20's workers: 100 3D points over a SharedArrayBuffer crashed the process (segmentation fault)
    // in the upload below the ring's chunk, where Dawn's writeBuffer got the shared view (upload.ts unshared).
    ctx.configureStaging({});
    for (const n of [2, 100, 1000]) {
      const plain = Float32Array.from({ length: 3 * n }, (_, i) => ((i * 7919) % 1009) / 1009);
      const shared = new Float32Array(new SharedArrayBuffer(plain.byteLength));
      shared.set(plain);
      const [a, b] = [await emst(plain, { dim: 3, gpu: ctx }), await emst(shared, { dim: 3, gpu: ctx })];
      expect(Array.from(b.sources)).toEqual(Array.from(a.sources));
      expect(Array.from(b.targets)).toEqual(Array.from(a.targets));
      expect(Array.from(b.weights)).toEqual(Array.from(a.weights));
    }
  });

  it('uploads started together through one small ring each get their own data', async () => {
    ctx.configureStaging({ chunkBytes: 128, slots: 2 });
    const datas = [5000, 1, 777, 3000, 0, 129].map((n, i) => bytes(n, 100 + i));
    const buffers = await Promise.all(datas.map((d) => ctx.uploadAsync('test::upload', d)));
    for (const [i, buffer] of buffers.entries()) {
      const got = new Uint8Array(await ctx.read(buffer));
      buffer.destroy();
      expect(firstDifference(got, padded(datas[i]))).toBe(-1);
    }
  });

  it('writeBuffer writes at an offset, leaves the rest, and refuses a range outside the buffer', async () => {
    ctx.configureStaging({ chunkBytes: 64, slots: 2 });
    const buffer = await ctx.uploadAsync('test::upload', new Uint32Array(300).fill(0xabababab));
    for (const method of ['staged', 'write', 'write-chunked'] as const) {
      const data = bytes(401, 5);
      await ctx.writeBuffer(buffer, 96, data, method);
      const got = new Uint8Array(await ctx.read(buffer));
      expect(got.subarray(0, 96).every((b) => b === 0xab)).toBe(true);
      expect(got.subarray(96, 96 + 404)).toEqual(padded(data));
      expect(got.subarray(500).every((b) => b === 0xab)).toBe(true);
    }
    await expect(ctx.writeBuffer(buffer, 2, new Uint8Array(4))).rejects.toThrow(InputError);
    await expect(ctx.writeBuffer(buffer, 1196, new Uint8Array(5))).rejects.toThrow(/1200 bytes/);
    buffer.destroy();
  });

  it('the staging ring is sized by what it carries, up to chunkBytes, and reused', async () => {
    ctx.configureStaging({ chunkBytes: 1 << 20, slots: 3 });
    expect(ctx.stagingBytes).toBe(0);
    // Small uploads go through writeBuffer: no staging.
    (await ctx.uploadAsync('test::upload', new Uint8Array(1000))).destroy();
    expect(ctx.stagingBytes).toBe(0);
    // One chunk's worth: one slot of its size.
    (await ctx.uploadAsync('test::upload', bytes(300_000, 1))).destroy();
    expect(ctx.stagingBytes).toBe(300_000);
    const big = bytes(3_000_001, 2);
    const buffer = await ctx.uploadAsync('test::upload', big);
    expect(ctx.stagingBytes).toBe(3 << 20);
    expect(firstDifference(new Uint8Array(await ctx.read(buffer)), padded(big))).toBe(-1);
    buffer.destroy();
    (await ctx.uploadAsync('test::upload', bytes(300_000, 3))).destroy();
    expect(ctx.stagingBytes).toBe(3 << 20);
    ctx.configureStaging({});
  });
});
