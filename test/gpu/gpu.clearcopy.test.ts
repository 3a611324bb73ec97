/**
 * Issue 19: Recorder.copy and Recorder.clear record copies and fills in pieces of at most PIECE_BYTES (1 GiB): a copy
 * across a piece boundary, at offsets that differ, lands every word where it belongs and nothing outside; a clear
 * across one zeroes every byte of its range and nothing outside it. (Suspected, wrongly, in the 4·10^8-point stall on
 * the H100: see src/gpu/recorder.ts.)
 */
import { afterAll, describe, expect, it } from 'vitest';
import { PIECE_BYTES } from '../../src/gpu/recorder.js';
import { tryGpuContext } from '../helpers/gpu.js';

const ctx = await tryGpuContext();
afterAll(() => ctx?.destroy());

describe.skipIf(!ctx)('Recorder.clear', () => {
  it('issue 19: a clear of PIECE_BYTES + 8 KiB from offset 4 zeroes both pieces and leaves the words around it', async () => {
    const c = ctx!;
    const size = PIECE_BYTES + 16384;
    const buffer = c.createBuffer('test::clear', size);
    try {
      const ones = new Uint32Array(1024).fill(0xffffffff);
      const end = 4 + PIECE_BYTES + 8192;
      // Non-zero words at the start, across the piece boundary (at offset 4 + PIECE_BYTES) and across the range's end.
      const at = [0, 4 + PIECE_BYTES - 2048, end - 2048];
      for (const o of at) await c.writeBuffer(buffer, o, ones);
      await c.submit('test::clear', (rec) => rec.clear(buffer, 4, end - 4));
      const read = async (o: number) => new Uint32Array(await c.read(buffer, o, 4096));
      const start = await read(0);
      expect(start[0]).toBe(0xffffffff); // before the range
      expect(start.subarray(1).every((w) => w === 0)).toBe(true);
      expect((await read(at[1])).every((w) => w === 0)).toBe(true); // both sides of the pieces' boundary
      const last = await read(at[2]);
      expect(last.subarray(0, 512).every((w) => w === 0)).toBe(true); // the range's last 2 KiB
      expect(last.subarray(512).every((w) => w === 0xffffffff)).toBe(true); // after it
    } finally {
      buffer.destroy();
    }
  });

  it('issue 19: a copy of PIECE_BYTES + 8 KiB from offset 4 to offset 12 moves every word, across the pieces', async () => {
    const c = ctx!;
    const size = PIECE_BYTES + 16384;
    const src = c.createBuffer('test::copySrc', size);
    const dst = c.createBuffer('test::copyDst', size);
    try {
      const bytes = PIECE_BYTES + 8192;
      // Distinct words around the source's piece boundary (offset 4 + PIECE_BYTES) and at both ends of its range.
      const word = (o: number, i: number) => ((o >>> 2) + i * 2654435761) >>> 0 || 1;
      const at = [4, 4 + PIECE_BYTES - 2048, 4 + bytes - 4096];
      for (const o of at)
        await c.writeBuffer(
          src,
          o,
          Uint32Array.from({ length: 1024 }, (_, i) => word(o, i)),
        );
      await c.writeBuffer(dst, 0, new Uint32Array(4).fill(0xffffffff));
      await c.writeBuffer(dst, 12 + bytes, new Uint32Array(4).fill(0xffffffff));
      await c.submit('test::copy', (rec) => rec.copy(src, 4, dst, 12, bytes));
      for (const o of at) {
        const got = new Uint32Array(await c.read(dst, o + 8, 4096));
        expect(Array.from(got)).toEqual(Array.from({ length: 1024 }, (_, i) => word(o, i)));
      }
      const head = new Uint32Array(await c.read(dst, 0, 16));
      expect(Array.from(head.subarray(0, 3))).toEqual([0xffffffff, 0xffffffff, 0xffffffff]); // before the range
      expect(head[3]).toBe(word(4, 0));
      expect(new Uint32Array(await c.read(dst, 12 + bytes, 16))[0]).toBe(0xffffffff); // after it
    } finally {
      src.destroy();
      dst.destroy();
    }
  });
});
