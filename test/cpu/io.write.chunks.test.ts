/**
 * Issue 19 (big inputs end to end): .npy, binary and CSV files are written in chunks — the header, then views of the
 * array's own bytes (npy, bin) or text of a few rows (csv) — and the chunks joined are the same bytes as the one-piece
 * writers, whatever the chunk size; the files read back to the same values.
 */
import { describe, expect, it } from 'vitest';
import { byteChunks, npyChunks, npyToPoints, parseNpy, writeNpy } from '../../src/io/npy.js';
import { binPointsChunks, parseBinPoints } from '../../src/io/points.bin.js';
import { pointsCsvChunks, pointsToCsv } from '../../src/io/write.js';
import { mulberry32 } from '../helpers/random.js';

const join = (chunks: Uint8Array[]) => {
  const out = new Uint8Array(chunks.reduce((t, c) => t + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
};

describe('chunked writers', () => {
  const random = mulberry32(3);
  const points = Float32Array.from({ length: 3 * 1001 }, () => random() * 200 - 100);

  it('npy: header then views of the data, equal to writeNpy for every chunk size', () => {
    const whole = writeNpy(points, [1001, 3]);
    for (const size of [4, 12, 1000, 1 << 30]) {
      const chunks = npyChunks(points, [1001, 3], size);
      expect(chunks[1].buffer, 'a view, not a copy').toBe(points.buffer);
      expect(chunks.slice(1).every((c) => c.length <= size)).toBe(true);
      expect(join(chunks)).toEqual(whole);
    }
    expect(Array.from(npyToPoints(parseNpy(writeNpy(points, [1001, 3]))).points)).toEqual(Array.from(points));
    const ids = Uint32Array.from({ length: 77 }, (_, i) => i * 3);
    expect(join(npyChunks(ids, [77], 8))).toEqual(writeNpy(ids, [77]));
    expect(() => npyChunks(ids, [78])).toThrow(/holds 78 values, got 77/);
  });

  it('bin: the 8-byte header then the points, reading back to the same values', () => {
    const chunks = binPointsChunks(points, 3, 100);
    expect(chunks[0].length).toBe(8);
    const file = join(chunks);
    const back = parseBinPoints(file);
    expect([back.n, back.dim]).toEqual([1001, 3]);
    expect(Array.from(back.points)).toEqual(Array.from(points));
  });

  it('csv: chunks of rows joined equal the whole text', () => {
    const whole = pointsToCsv(points, 3);
    expect([...pointsCsvChunks(points, 3, 7)].join('')).toBe(whole);
    expect(whole.split('\n')[0]).toBe('x0,x1,x2');
    expect(whole.split('\n').length).toBe(1001 + 2);
  });

  it('byteChunks of an empty array is no chunk', () => {
    expect(byteChunks(new Float32Array(0))).toEqual([]);
  });

  it('byteChunks of an array above 4 GiB (4·10^8 3D points: 4.8 GB) and of a view at an offset', () => {
    // A SharedArrayBuffer's pages cost nothing until touched: 2^32 + 64 bytes of address space, no memory. One
    // Uint8Array over all of it is a RangeError in Node 20 (what byteChunks made before).
    const big = new Float32Array(new SharedArrayBuffer(2 ** 32 + 64));
    const chunks = byteChunks(big);
    expect(chunks.map((c) => c.byteOffset)).toEqual([0, 1, 2, 3, 4].map((k) => k * 2 ** 30));
    expect(chunks.map((c) => c.length)).toEqual([2 ** 30, 2 ** 30, 2 ** 30, 2 ** 30, 64]);
    expect(chunks[4].buffer).toBe(big.buffer);
    const view = points.subarray(5, 17);
    const parts = byteChunks(view, 20);
    expect(parts.map((c) => [c.byteOffset, c.length])).toEqual([
      [20, 20],
      [40, 20],
      [60, 8],
    ]);
    expect(new Float32Array(join(parts).buffer)).toEqual(view);
  });
});
