/**
 * The upload helpers' host side without a GPU (src/gpu/upload.ts): writeChunked's writes cover the data in chunks
 * of whole words and zero-pad the last word; the staging ring refuses shapes it cannot use, naming the value.
 * test/gpu/gpu.upload.test.ts runs every method on a device.
 */
import { describe, expect, it } from 'vitest';
import { StagingRing, writeChunked } from '../../src/gpu/upload.js';
import type { GpuContext } from '../../src/gpu/context.js';
import { mulberry32 } from '../helpers/random.js';

/** A queue that applies writeBuffer to a host array and records each write's (offset, size). */
function fakeQueue(bytes: number) {
  const memory = new Uint8Array(bytes).fill(0xee);
  const writes: [number, number][] = [];
  const queue = {
    writeBuffer(_dst: GPUBuffer, offset: number, data: Uint8Array, dataOffset = 0, size = data.length - dataOffset) {
      if (offset % 4 !== 0 || size % 4 !== 0) throw new Error(`unaligned write at ${offset}, ${size} bytes`);
      memory.set(data.subarray(dataOffset, dataOffset + size), offset);
      writes.push([offset, size]);
    },
  };
  return { queue: queue as unknown as GPUQueue, memory, writes };
}

describe('writeChunked', () => {
  it('writes every byte once in word-aligned chunks and zero-pads the last word', () => {
    const rand = mulberry32(3);
    for (const n of [0, 1, 3, 4, 5, 63, 64, 65, 1001]) {
      for (const chunk of [4, 8, 64, 1 << 20]) {
        const data = Uint8Array.from({ length: n }, () => 1 + Math.floor(rand() * 255));
        const at = 8;
        const { queue, memory, writes } = fakeQueue(at + Math.ceil(n / 4) * 4 + 8);
        writeChunked(queue, {} as GPUBuffer, at, data, chunk);
        const padded = new Uint8Array(Math.ceil(n / 4) * 4);
        padded.set(data);
        expect(memory.subarray(at, at + padded.length)).toEqual(padded);
        expect(memory.subarray(0, at).every((b) => b === 0xee)).toBe(true);
        expect(memory.subarray(at + padded.length).every((b) => b === 0xee)).toBe(true);
        expect(writes.every(([, size]) => size <= Math.max(chunk, 4))).toBe(true);
        expect(writes.reduce((s, [, size]) => s + size, 0)).toBe(padded.length);
      }
    }
  });
});

describe('StagingRing', () => {
  const ctx = {} as GpuContext;
  it('refuses a chunk size that is not a positive multiple of 8, or a slot count below 1, naming the value', () => {
    expect(() => new StagingRing(ctx, { chunkBytes: 12 })).toThrow(/multiple of 8, got 12/);
    expect(() => new StagingRing(ctx, { chunkBytes: 0 })).toThrow(/got 0/);
    expect(() => new StagingRing(ctx, { slots: 0 })).toThrow(/slots to be a positive integer, got 0/);
    expect(() => new StagingRing(ctx, { slots: 1.5 })).toThrow(/got 1.5/);
    const ring = new StagingRing(ctx, { chunkBytes: 64, slots: 2 });
    expect([ring.chunkBytes, ring.slotCount, ring.bytes]).toEqual([64, 2, 0]);
  });
});
