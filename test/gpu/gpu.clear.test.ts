/**
 * Issue 19: Recorder.clear zero-fills in clearBuffer pieces of at most CLEAR_PIECE (1 GiB) bytes — fills of more than
 * 2^32 bytes (Karras's box records, the refit's minIndex words beyond 5.4·10^8 points) were never run on the H100.
 * A clear across a piece boundary zeroes every byte of its range and nothing outside it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CLEAR_PIECE } from '../../src/gpu/recorder.js';
import { tryGpuContext } from '../helpers/gpu.js';

const ctx = await tryGpuContext();
afterAll(() => ctx?.destroy());

describe.skipIf(!ctx)('Recorder.clear', () => {
  it('issue 19: a clear of CLEAR_PIECE + 8 KiB from offset 4 zeroes both pieces and leaves the words around it', async () => {
    const c = ctx!;
    const size = CLEAR_PIECE + 16384;
    const buffer = c.createBuffer('test::clear', size);
    try {
      const ones = new Uint32Array(1024).fill(0xffffffff);
      const end = 4 + CLEAR_PIECE + 8192;
      // Non-zero words at the start, across the piece boundary (at offset 4 + CLEAR_PIECE) and across the range's end.
      const at = [0, 4 + CLEAR_PIECE - 2048, end - 2048];
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
});
