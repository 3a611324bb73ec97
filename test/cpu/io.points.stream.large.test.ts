/**
 * The large-body path of points.stream.ts (from LARGE_READ_BYTES of points, forced here with `largeBytes: 1` and
 * pieces of a few values): the same points bit for bit as the simple path, and where a value is NaN, infinite or
 * beyond ±MAX_COORDINATE — in the last piece, on either side of a piece boundary, in a column left out or picked,
 * after a float64 rounds to float32, in Fortran order — the same requireFinite message, naming the first bad value
 * whichever piece (or worker thread) met a bad one first. Into ordinary points, `threads` caps the reads in flight on
 * libuv's threads (an hdbscan file read by a `treeline worker` with its share of the host).
 */
import { openSync, closeSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { describe, expect, it, vi } from 'vitest';
import { writeBinPoints } from '../../src/io/points.bin.js';
import { readPoints, requireFinite } from '../../src/io/points.js';
import { LARGE_READ_BYTES, readBinFile, readNpyFile, type StreamReadOptions } from '../../src/io/points.stream.js';
import { readPiecesOnWorkers } from '../../src/io/points.stream.threads.js';
import { tempFiles } from '../helpers/files.js';
import { mulberry32 } from '../helpers/random.js';
import { useBundledWorkerScript } from '../helpers/workers.js';

useBundledWorkerScript('treeline-stream-large-');
const { put } = tempFiles('treeline-stream-large-');

/** An .npy file of float32 ('<f4') or float64 ('<f8') values of the (n, dim) matrix given row-major, stored in `fortran` order. */
function npy(dtype: '<f4' | '<f8', values: ArrayLike<number>, n: number, dim: number, fortran = false): Uint8Array {
  const dict = `{'descr': '${dtype}', 'fortran_order': ${fortran ? 'True' : 'False'}, 'shape': (${n}, ${dim}), }`;
  const header = dict + ' '.repeat(63 - ((10 + dict.length) % 64)) + '\n';
  const size = dtype === '<f4' ? 4 : 8;
  const start = 10 + header.length;
  const out = new Uint8Array(start + n * dim * size);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  const dv = new DataView(out.buffer);
  dv.setUint16(8, header.length, true);
  for (let i = 0; i < header.length; i++) out[10 + i] = header.charCodeAt(i);
  for (let i = 0; i < n; i++)
    for (let d = 0; d < dim; d++) {
      const at = start + (fortran ? d * n + i : i * dim + d) * size;
      if (size === 4) dv.setFloat32(at, values[i * dim + d], true);
      else dv.setFloat64(at, values[i * dim + d], true);
    }
  return out;
}

function randomValues(count: number, seed: number): Float64Array {
  const random = mulberry32(seed);
  return Float64Array.from({ length: count }, () => (random() * 2 - 1) * 1e4);
}

const bits = (a: Float32Array) => Array.from(new Uint32Array(a.buffer, a.byteOffset, a.length));

/**
 * The large path on the calling thread (odd read sizes: rounded down to whole values), and on 2 and 3 worker threads
 * into shared points (pieces of 4 and 16 values); converting pieces of 5–10 float32 or float64 values.
 */
const LARGE: StreamReadOptions[] = [
  { largeBytes: 1, directBytes: 13, inFlight: 3, pieceBytes: 40 },
  { largeBytes: 1, directBytes: 16, inFlight: 1, pieceBytes: 41, shared: true, threads: 2 },
  { largeBytes: 1, directBytes: 64, pieceBytes: 80, shared: true, threads: 3 },
];

/** What the simple path makes of the file: its points, or requireFinite's message. */
async function simple(file: string, columns?: string[]): Promise<{ points?: Float32Array; message?: string }> {
  const read = file.endsWith('.bin') ? readBinFile : readNpyFile;
  const table = await read(file, columns);
  try {
    requireFinite(table, file);
    return { points: table.points };
  } catch (e) {
    return { message: (e as Error).message };
  }
}

/** Every large-path variant gives what the simple path gives (readPoints' check included). */
async function expectSame(file: string, columns?: string[]): Promise<string | undefined> {
  const want = await simple(file, columns);
  const read = file.endsWith('.bin') ? readBinFile : readNpyFile;
  for (const options of LARGE) {
    const got = read(file, columns, { ...options, requireFinite: true });
    if (want.message !== undefined) await expect(got, JSON.stringify(options)).rejects.toThrow(want.message);
    else {
      const table = await got;
      expect(table.points.buffer instanceof SharedArrayBuffer).toBe(options.shared === true);
      expect(bits(table.points), JSON.stringify(options)).toEqual(bits(want.points!));
    }
  }
  return want.message;
}

describe('readNpyFile, large bodies', () => {
  const n = 300;
  const dim = 3;

  it("ordinary points: at most `threads` reads in flight (a worker's share), else libuv's thread count", async () => {
    const values = randomValues(n * dim, 7);
    const file = put(npy('<f4', values, n, dim));
    // FileHandle.read wrapped: the most reads in flight at once.
    const handle = await open(file, 'r');
    const proto = Object.getPrototypeOf(handle) as { read: (...args: unknown[]) => Promise<unknown> };
    await handle.close();
    const real = proto.read;
    let now = 0;
    let most = 0;
    const read = vi.spyOn(proto, 'read').mockImplementation(async function (this: unknown, ...args: unknown[]) {
      most = Math.max(most, ++now);
      try {
        return await real.apply(this, args);
      } finally {
        now--;
      }
    });
    const libuv =
      Number(process.env.UV_THREADPOOL_SIZE) >= 1 ? Math.min(Number(process.env.UV_THREADPOOL_SIZE), 1024) : 4;
    try {
      // 4 values a read: 225 reads of the body.
      const inFlight = async (threads?: number): Promise<number> => {
        most = 0;
        const table = await readNpyFile(file, undefined, { largeBytes: 1, directBytes: 16, threads });
        expect(table.points).toEqual(Float32Array.from(values));
        return most;
      };
      expect(await inFlight(1)).toBe(1);
      expect(await inFlight(2)).toBe(Math.min(2, libuv));
      expect(await inFlight()).toBe(libuv);
      expect(await inFlight(libuv + 3)).toBe(libuv);
    } finally {
      read.mockRestore();
    }
  });

  it('float32 and float64, C and Fortran order, with and without --columns: the points of the simple path', async () => {
    const values = randomValues(n * dim, 1);
    for (const dtype of ['<f4', '<f8'] as const)
      for (const fortran of [false, true]) {
        const file = put(npy(dtype, values, n, dim, fortran));
        for (const columns of [undefined, ['2', '0'], ['1', '1', '2']])
          expect(await expectSame(file, columns)).toBe(undefined);
      }
  });

  it('a NaN in the last piece, and on either side of a piece boundary: the first is named', async () => {
    // Pieces hold 3 (13 bytes rounded down), 4 and 16 float32 values; 5, 10 and 20 float64 ones.
    for (const at of [n * dim - 1, 0, 15, 16, 47, 48, 899 - 16]) {
      const values = randomValues(n * dim, 2);
      values[at] = NaN;
      const row = Math.floor(at / dim);
      for (const dtype of ['<f4', '<f8'] as const) {
        const message = await expectSame(put(npy(dtype, values, n, dim)), undefined);
        expect(message).toContain(`row ${row} (0-based), column '${at % dim}' is NaN; expected a finite number.`);
      }
    }
  });

  it('bad values in several pieces: the lowest index is named, whichever piece is read first', async () => {
    const values = randomValues(n * dim, 3);
    values[n * dim - 2] = Infinity;
    values[700] = -3e38; // a finite float32 beyond ±MAX_COORDINATE
    values[400] = -Infinity;
    const message = await expectSame(put(npy('<f4', values, n, dim)));
    expect(message).toContain(`row 133 (0-based), column '1' is -Infinity (infinite, or beyond the float32 range)`);
    values[400] = 1;
    expect(await expectSame(put(npy('<f4', values, n, dim)))).toContain(
      `row 233 (0-based), column '1' is -3e+38; expected coordinates within ±1e+38 (float32 range).`,
    );
  });

  it('--columns: a NaN in a column left out passes, one in a column picked is named by its file column', async () => {
    const values = randomValues(n * dim, 4);
    values[3 * 200 + 1] = NaN; // row 200, column 1
    for (const dtype of ['<f4', '<f8'] as const)
      for (const fortran of [false, true]) {
        const file = put(npy(dtype, values, n, dim, fortran));
        expect(await expectSame(file, ['2', '0'])).toBe(undefined);
        expect(await expectSame(file, ['2', '1'])).toContain(`row 200 (0-based), column '1' is NaN`);
      }
  });

  it('float64 beyond the float32 range, in Fortran order: infinite once rounded, named as such', async () => {
    const values = randomValues(n * dim, 5);
    values[3 * 299 + 2] = 1e39; // the last value in C order, the last in Fortran order too
    values[3 * 150] = -1e300; // column 0: early in Fortran order
    const message = await expectSame(put(npy('<f8', values, n, dim, true)));
    expect(message).toContain(`row 150 (0-based), column '0' is -Infinity (infinite, or beyond the float32 range)`);
  });

  it('ArborX .bin: the same points, and the same message for a NaN in the last piece', async () => {
    const points = Float32Array.from(randomValues(n * dim, 6));
    expect(await expectSame(put(writeBinPoints(points, dim), '.bin'))).toBe(undefined);
    points[n * dim - 1] = NaN;
    expect(await expectSame(put(writeBinPoints(points, dim), '.bin'))).toContain(`row ${n - 1} (0-based), column '2'`);
  });
  it('without requireFinite (the CLI checks headerless files itself): a NaN is read as it is', async () => {
    const values = randomValues(n * dim, 7);
    values[n * dim - 1] = NaN;
    for (const dtype of ['<f4', '<f8'] as const) {
      const file = put(npy(dtype, values, n, dim));
      for (const options of LARGE) {
        const table = await readNpyFile(file, undefined, options);
        expect(table.points[n * dim - 1]).toBeNaN();
      }
    }
  });
});

describe('readPoints, large bodies', () => {
  it(`a file of LARGE_READ_BYTES of points: a NaN in its last value is named, plain and shared`, async () => {
    const dim = 3;
    const n = Math.ceil(LARGE_READ_BYTES / (4 * dim));
    const points = new Float32Array(n * dim).fill(0.5);
    const file = put(writeBinPoints(points, dim), '.bin');
    for (const shared of [false, true]) {
      const table = await readPoints(file, { shared });
      expect(table.n).toBe(n);
      expect(table.points.buffer instanceof SharedArrayBuffer).toBe(shared);
    }
    points[n * dim - 1] = NaN;
    writeFileSync(file, writeBinPoints(points, dim));
    for (const shared of [false, true])
      await expect(readPoints(file, { shared })).rejects.toThrow(
        `${file}: row ${n - 1} (0-based), column '2' is NaN; expected a finite number.`,
      );
  });
});

describe('readPiecesOnWorkers', () => {
  it('a file that ends before the points are full: the first byte missing, no piece claimed after', async () => {
    const file = put(new Uint8Array(1000).fill(1), '.raw');
    const fd = openSync(file, 'r');
    try {
      const points = new Float32Array(new SharedArrayBuffer(4 * 400));
      expect(await readPiecesOnWorkers(fd, points, 0, 64, 3)).toEqual({ finite: true, ended: 1000 });
      expect(await readPiecesOnWorkers(fd, points.subarray(0, 100), 0, 64, 2)).toEqual({ finite: true });
      expect(await readPiecesOnWorkers(fd, points.subarray(0, 100), 8, 64, 2)).toEqual({ finite: true });
    } finally {
      closeSync(fd);
    }
  });
});
