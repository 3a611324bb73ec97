/**
 * The read-back staging pool's logic without a GPU (src/gpu/readback.ts), on a fake device whose queue runs copies
 * a few event-loop turns after they are submitted and whose buffers behave as WebGPU's do (a copy into a mapped
 * buffer is a validation error, unmap detaches the mapped ranges): reads of any size through pools of any shape
 * hand every byte over once, in order, at chunk offsets; reads started together all finish, never using a slot
 * twice at once or more slots than allowed; a failing read gives its slots back; destroy ends waiting reads.
 * test/gpu/gpu.readback.test.ts runs the same on a device.
 */
import { describe, expect, it } from 'vitest';
import { ReadbackRing } from '../../src/gpu/readback.js';
import type { GpuContext } from '../../src/gpu/context.js';
import type { Recorder } from '../../src/gpu/recorder.js';
import { mulberry32 } from '../helpers/random.js';

class FakeBuffer {
  readonly memory: Uint8Array;
  state: 'unmapped' | 'pending' | 'mapped' | 'destroyed' = 'unmapped';
  private ranges: ArrayBuffer[] = [];
  constructor(
    readonly label: string,
    readonly size: number,
    private readonly gpu: FakeGpu,
  ) {
    this.memory = new Uint8Array(size);
  }
  mapAsync(_mode: number, offset = 0, size = this.size - offset): Promise<void> {
    if (this.state !== 'unmapped') throw new Error(`${this.label}: mapAsync while ${this.state}`);
    if (offset % 8 !== 0 || size % 4 !== 0) throw new Error(`${this.label}: unaligned map ${offset}, ${size}`);
    this.state = 'pending';
    return this.gpu.afterQueue().then(() => {
      if (this.state !== 'pending') throw new Error(`${this.label}: mapping aborted`);
      this.state = 'mapped';
    });
  }
  getMappedRange(offset = 0, size = this.size - offset): ArrayBuffer {
    if (this.state !== 'mapped') throw new Error(`${this.label}: getMappedRange while ${this.state}`);
    const range = this.memory.slice(offset, offset + size).buffer;
    this.ranges.push(range);
    return range;
  }
  unmap(): void {
    // Detached, as dawn.node detaches the external ArrayBuffers it handed out.
    for (const r of this.ranges.splice(0)) structuredClone(r, { transfer: [r] });
    if (this.state !== 'destroyed') this.state = 'unmapped';
  }
  destroy(): void {
    this.unmap();
    this.state = 'destroyed';
    this.gpu.live.delete(this);
  }
}

/** A fake device + context: copies run `delay()` setImmediate turns after submission, in submission order. */
class FakeGpu {
  readonly live = new Set<FakeBuffer>();
  peakLive = 0;
  copies = 0;
  private tail: Promise<void> = Promise.resolve();
  destroyed = false;
  constructor(private readonly delay: () => number) {}

  private turns(n: number): Promise<void> {
    let p = Promise.resolve();
    for (let i = 0; i < n; i++) p = p.then(() => new Promise<void>((r) => setImmediate(r)));
    return p;
  }
  afterQueue(): Promise<void> {
    return this.tail.then(() => this.turns(1));
  }
  buffer(label: string, size: number): FakeBuffer {
    const b = new FakeBuffer(label, size, this);
    this.live.add(b);
    this.peakLive = Math.max(this.peakLive, this.live.size);
    return b;
  }
  context(): GpuContext {
    const gpu = this;
    return {
      device: { createBuffer: (d: GPUBufferDescriptor) => gpu.buffer(d.label ?? '', d.size) },
      check: (label: string) => {
        if (gpu.destroyed) throw new Error(`${label}: destroyed`);
      },
      enqueue: (label: string, record: (rec: Recorder) => void) => {
        const ops: [FakeBuffer, number, FakeBuffer, number, number][] = [];
        record({ copy: (...args: unknown[]) => ops.push(args as never) } as unknown as Recorder);
        for (const [src, , dst] of ops) {
          if (dst.state !== 'unmapped' || src.state === 'destroyed') {
            return Promise.reject(new Error(`${label}: copy into ${dst.label} while ${dst.state}`));
          }
        }
        const delay = this.delay();
        this.tail = this.tail.then(async () => {
          await this.turns(delay);
          for (const [src, so, dst, d0, size] of ops) {
            if (so % 4 || d0 % 4 || size % 4) throw new Error('unaligned copy');
            dst.memory.set(src.memory.subarray(so, so + size), d0);
            this.copies++;
          }
        });
        return Promise.resolve();
      },
    } as unknown as GpuContext;
  }
}

function source(gpu: FakeGpu, bytes: number, seed: number): FakeBuffer {
  const rand = mulberry32(seed);
  const b = gpu.buffer('test::source', bytes);
  for (let i = 0; i < bytes; i++) b.memory[i] = Math.floor(rand() * 256);
  return b;
}

/** Reads `size` bytes at `offset` of `src` through `ring`, checking the chunks' order and offsets as they come. */
async function readAll(ring: ReadbackRing, src: FakeBuffer, offset: number, size: number): Promise<Uint8Array> {
  const out = new Uint8Array(size).fill(0xee);
  let expectAt = 0;
  await ring.read(
    src as unknown as GPUBuffer,
    offset,
    size,
    (chunk, at) => {
      expect(at).toBe(expectAt);
      expect(at % ring.chunkBytes).toBe(0);
      expect(chunk.byteLength).toBe(Math.min(ring.chunkBytes, size - at));
      out.set(new Uint8Array(chunk), at);
      expectAt += chunk.byteLength;
    },
    'test::read',
  );
  expect(expectAt).toBe(size);
  return out;
}

describe('ReadbackRing', () => {
  it('refuses a chunk size that is not a positive multiple of 16, or a slot count below 1, naming the value', () => {
    const ctx = {} as GpuContext;
    expect(() => new ReadbackRing(ctx, { chunkBytes: 8 })).toThrow(/multiple of 16, got 8/);
    expect(() => new ReadbackRing(ctx, { chunkBytes: 40 })).toThrow(/got 40/);
    expect(() => new ReadbackRing(ctx, { slots: 0 })).toThrow(/slots to be a positive integer, got 0/);
    const ring = new ReadbackRing(ctx, { chunkBytes: 64, slots: 2 });
    expect([ring.chunkBytes, ring.slotCount, ring.bytes]).toEqual([64, 2, 0]);
  });

  it('reads started together through pools of every shape hand each read its bytes in order (seeded)', async () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rand = mulberry32(seed);
      const gpu = new FakeGpu(() => Math.floor(rand() * 3));
      const chunkBytes = 16 * (1 + Math.floor(rand() * 8));
      const slots = 1 + Math.floor(rand() * 4);
      const ring = new ReadbackRing(gpu.context(), { chunkBytes, slots });
      const src = source(gpu, 4096, seed);
      const reads = Array.from({ length: 1 + Math.floor(rand() * 6) }, () => {
        const offset = 4 * Math.floor(rand() * 64);
        // Sizes 0, 4, chunk multiples and neighbours, and anything in between.
        const pick = rand();
        const size =
          pick < 0.1
            ? 0
            : pick < 0.2
              ? 4
              : pick < 0.5
                ? chunkBytes * Math.floor(1 + rand() * 5) + 4 * Math.floor(rand() * 3 - 1)
                : 4 * Math.floor(rand() * 400);
        return { offset, size: Math.max(0, size) };
      });
      const got = await Promise.all(reads.map((r) => readAll(ring, src, r.offset, r.size)));
      for (const [i, r] of reads.entries()) {
        expect(got[i]).toEqual(src.memory.subarray(r.offset, r.offset + r.size));
      }
      // Never more staging buffers than slots (the source is one more), none larger than a chunk.
      expect(gpu.peakLive).toBeLessThanOrEqual(slots + 1);
      expect(ring.bytes).toBeLessThanOrEqual(slots * chunkBytes);
      ring.destroy();
      expect(gpu.live.size).toBe(1);
    }
  });

  it('staging is sized by what it carries, at least 256 bytes, at most a chunk, and reused', async () => {
    const gpu = new FakeGpu(() => 0);
    const ring = new ReadbackRing(gpu.context(), { chunkBytes: 1024, slots: 3 });
    const src = source(gpu, 8192, 5);
    await readAll(ring, src, 0, 4);
    expect(ring.bytes).toBe(256);
    await readAll(ring, src, 0, 600);
    expect(ring.bytes).toBe(1024);
    await readAll(ring, src, 0, 8192);
    expect(ring.bytes).toBe(3 * 1024);
    const made = gpu.peakLive;
    await readAll(ring, src, 4, 5000);
    expect(gpu.peakLive).toBe(made);
    ring.destroy();
    expect(ring.bytes).toBe(0);
  });

  it('a read whose consumer throws rejects with that error and gives its slots back; others finish', async () => {
    const gpu = new FakeGpu(() => 1);
    const ring = new ReadbackRing(gpu.context(), { chunkBytes: 32, slots: 2 });
    const src = source(gpu, 2048, 9);
    const failing = ring.read(
      src as unknown as GPUBuffer,
      0,
      1024,
      (_c, at) => {
        if (at === 64) throw new Error('consumer failed');
      },
      'test::read',
    );
    const other = readAll(ring, src, 100, 900);
    await expect(failing).rejects.toThrow('consumer failed');
    expect(await other).toEqual(src.memory.subarray(100, 1000));
    // Every slot is free again: a read needing them all completes.
    expect(await readAll(ring, src, 0, 2048)).toEqual(src.memory);
    expect(gpu.copies).toBeLessThan(4 + 900 / 32 + 2048 / 32 + 2); // the failed read stopped copying
    ring.destroy();
  });

  it('a read whose copy fails rejects with the copy error and leaves the pool usable', async () => {
    const gpu = new FakeGpu(() => 1);
    const ring = new ReadbackRing(gpu.context(), { chunkBytes: 16, slots: 2 });
    const gone = source(gpu, 256, 3);
    gone.destroy();
    await expect(readAll(ring, gone, 0, 256)).rejects.toThrow(/copy into/);
    const src = source(gpu, 512, 4);
    expect(await readAll(ring, src, 0, 512)).toEqual(src.memory);
    ring.destroy();
  });

  it('destroy ends the reads under way and those waiting for a slot, and frees the staging', async () => {
    const gpu = new FakeGpu(() => 2);
    const ring = new ReadbackRing(gpu.context(), { chunkBytes: 16, slots: 1 });
    const src = source(gpu, 1024, 2);
    const first = expect(readAll(ring, src, 0, 512)).rejects.toThrow();
    const waiting = expect(readAll(ring, src, 0, 512)).rejects.toThrow(/destroyed/);
    ring.destroy();
    await Promise.all([first, waiting]);
    await expect(readAll(ring, src, 0, 16)).rejects.toThrow(/destroyed/);
    expect(gpu.live.size).toBe(1);
  });
});
