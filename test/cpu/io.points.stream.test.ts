/**
 * Issue 19: .npy, ArborX .bin and headerless float32 files are read straight into one Float32Array
 * (src/io/points.stream.ts), never as a whole-file byte buffer. Each kind of file — every dtype, both byte orders,
 * C and Fortran order, header versions 1–3, misaligned data, 0/1/2/37 rows — gives bit for bit the points of the
 * whole-buffer readers (parseNpy + npyToPoints, parseBinPoints), with pieces of odd sizes so that the converting
 * path runs on a few-KB file, and every error names the file with the whole-buffer readers' own message.
 */
import { describe, expect, it } from 'vitest';
import { npyToPoints, parseNpy } from '../../src/io/npy.js';
import { parseBinPoints, writeBinPoints } from '../../src/io/points.bin.js';
import { readPoints } from '../../src/io/points.js';
import { readBinFile, readHeaderlessFile, readNpyFile } from '../../src/io/points.stream.js';
import type { PointTable } from '../../src/io/points.csv.js';
import { tempFiles } from '../helpers/files.js';
import { mulberry32 } from '../helpers/random.js';

const { put } = tempFiles('treeline-stream-');

const SIZES: Record<string, number> = { f4: 4, f8: 8, i1: 1, u1: 1, i2: 2, u2: 2, i4: 4, u4: 4, i8: 8, u8: 8 };

/** Random values of a kind (with repeats), as the numbers to store. */
function valuesOf(kind: string, count: number, seed: number): (number | bigint)[] {
  const random = mulberry32(seed);
  const pool = Array.from({ length: Math.max(1, count >> 1) }, () => random());
  return Array.from({ length: count }, () => {
    const r = pool[Math.floor(random() * pool.length)] * 2 - 1; // repeats: ties in the data
    switch (kind) {
      case 'f4':
        return Math.fround(r * 1e3);
      case 'f8':
        return r * 1e5 + r / 3; // not float32 values: rounded on reading
      case 'i8':
        return BigInt(Math.round(r * 2 ** 60)); // beyond 2^53: Number() rounds, then float32
      case 'u8':
        return BigInt(Math.round(Math.abs(r) * 2 ** 63));
      default: {
        const bits = 8 * SIZES[kind];
        return kind[0] === 'u' ? Math.floor(Math.abs(r) * 2 ** bits) % 2 ** bits : Math.trunc(r * 2 ** (bits - 1));
      }
    }
  });
}

/**
 * An .npy file: `values` of the logical (n, dim) matrix in row-major order, stored in `fortran` order, header
 * `version` 1–3, `pad` extra spaces in the header (a misaligned data start when not a multiple of 4).
 */
function npyBytes(
  dtype: string,
  values: (number | bigint)[],
  shape: number[],
  o: { fortran?: boolean; version?: number; pad?: number } = {},
): Uint8Array {
  const { fortran = false, version = 1, pad = 0 } = o;
  const [n, dim = 1] = shape;
  const shapeText = shape.length === 1 ? `(${n},)` : `(${shape.join(', ')})`;
  const dict = `{'descr': '${dtype}', 'fortran_order': ${fortran ? 'True' : 'False'}, 'shape': ${shapeText}, }`;
  const header = dict + ' '.repeat(pad) + '\n';
  const start = version === 1 ? 10 : 12;
  const size = SIZES[dtype.slice(1)] ?? 8;
  const out = new Uint8Array(start + header.length + values.length * size);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]);
  const dv = new DataView(out.buffer);
  if (version === 1) dv.setUint16(8, header.length, true);
  else dv.setUint32(8, header.length, true);
  for (let i = 0; i < header.length; i++) out[start + i] = header.charCodeAt(i);
  const le = dtype[0] !== '>';
  const kind = dtype.slice(1);
  for (let i = 0; i < n; i++)
    for (let d = 0; d < dim; d++) {
      const v = values[i * dim + d];
      const at = start + header.length + (fortran ? d * n + i : i * dim + d) * size;
      if (kind === 'f4') dv.setFloat32(at, v as number, le);
      else if (kind === 'f8') dv.setFloat64(at, v as number, le);
      else if (kind === 'i8') dv.setBigInt64(at, v as bigint, le);
      else if (kind === 'u8') dv.setBigUint64(at, v as bigint, le);
      else if (kind === 'i1') dv.setInt8(at, v as number);
      else if (kind === 'u1') dv.setUint8(at, v as number);
      else if (kind === 'i2') dv.setInt16(at, v as number, le);
      else if (kind === 'u2') dv.setUint16(at, v as number, le);
      else if (kind === 'i4') dv.setInt32(at, v as number, le);
      else dv.setUint32(at, v as number, le);
    }
  return out;
}

const bits = (a: Float32Array) => Array.from(new Uint32Array(a.buffer, a.byteOffset, a.length));

/** The whole-buffer readers' table with columns picked as points.ts picked them. */
function picked(t: PointTable, cols: number[]): number[] {
  const out = new Float32Array(t.n * cols.length);
  for (let r = 0; r < t.n; r++)
    for (let j = 0; j < cols.length; j++) out[r * cols.length + j] = t.points[r * t.dim + cols[j]];
  return bits(out);
}

/** Piece sizes: odd ones split rows (and, for the direct reads, values); the defaults read each file at once. */
const PIECES = [
  { pieceBytes: 7, directBytes: 7, inFlight: 3 },
  { pieceBytes: 40, directBytes: 13, inFlight: 1, shared: true },
  {},
];

describe('readNpyFile', () => {
  it('every dtype, byte order, C and Fortran order, header version: the points of npyToPoints, bit for bit', async () => {
    let seed = 1;
    for (const kind of Object.keys(SIZES))
      for (const endian of kind[1] === '1' ? ['|'] : ['<', '>'])
        for (const fortran of [false, true])
          for (const [n, dim] of [
            [0, 3],
            [1, 3],
            [2, 1],
            [37, 3],
          ]) {
            const dtype = endian + kind;
            const version = 1 + (seed % 3);
            const bytes = npyBytes(dtype, valuesOf(kind, n * dim, seed++), [n, dim], { fortran, version });
            const file = put(bytes);
            const want = npyToPoints(parseNpy(bytes, file), file);
            for (const options of PIECES) {
              const got = await readNpyFile(file, undefined, options);
              expect([got.n, got.dim, got.columns], `${dtype} ${fortran ? 'F' : 'C'} (${n}, ${dim})`).toEqual([
                want.n,
                want.dim,
                want.columns,
              ]);
              expect(bits(got.points), `${dtype} ${fortran ? 'F' : 'C'} (${n}, ${dim}) v${version}`).toEqual(
                bits(want.points),
              );
              expect(got.points.buffer instanceof SharedArrayBuffer).toBe(options.shared === true);
              if (dim === 3 && n > 0)
                expect(bits((await readNpyFile(file, ['2', 0, '2'], options)).points)).toEqual(picked(want, [2, 0, 2]));
            }
          }
  });

  it('shape (n,) and a data start that is not 4-byte aligned (header padded by 1–3): the same points', async () => {
    const values = valuesOf('f4', 29, 99);
    for (const pad of [1, 2, 3]) {
      const bytes = npyBytes('<f4', values, [29], { pad });
      const file = put(bytes);
      const want = npyToPoints(parseNpy(bytes, file), file);
      for (const options of PIECES) {
        const got = await readNpyFile(file, undefined, options);
        expect([got.n, got.dim]).toEqual([29, 1]);
        expect(bits(got.points)).toEqual(bits(want.points));
      }
    }
  });

  it('readPoints reads .npy and .bin through the streaming readers (columns picked as before)', async () => {
    const values = valuesOf('f8', 40, 7) as number[];
    const bytes = npyBytes('<f8', values, [10, 4], { fortran: true });
    const file = put(bytes);
    const want = npyToPoints(parseNpy(bytes, file), file);
    expect(bits((await readPoints(file)).points)).toEqual(bits(want.points));
    expect(bits((await readPoints(file, { columns: ['3', '1'] })).points)).toEqual(picked(want, [3, 1]));
    const bin = put(writeBinPoints(want.points, 4), '.bin');
    expect(bits((await readPoints(bin, { columns: ['0'] })).points)).toEqual(picked(want, [0]));
    // shared: the same points in a SharedArrayBuffer (.npy and .bin; the partitioned EMST's coordinator reads so)
    for (const f of [file, bin]) {
      const got = await readPoints(f, { shared: true });
      expect(got.points.buffer instanceof SharedArrayBuffer).toBe(true);
      expect(bits(got.points)).toEqual(bits(want.points));
    }
  });

  it("truncated files and bad headers: the whole-buffer readers' messages, naming the file", async () => {
    const whole = npyBytes('<f8', valuesOf('f8', 12, 3), [4, 3]);
    const cases: Uint8Array[] = [
      whole.subarray(0, whole.length - 1), // one byte short of the data
      whole.subarray(0, 70), // the header and part of the data
      whole.subarray(0, 30), // inside the header
      whole.subarray(0, 9), // shorter than the magic and version
      npyBytes('<f8', [], [0]).subarray(0, 11).fill(0x20, 6, 7), // version ' ' (not 1): 11 bytes, no 4-byte length
      npyBytes('<c8', [], [0]), // unsupported dtype
      npyBytes('<f4', valuesOf('f4', 8, 1), [2, 2, 2]), // 3-D
      new TextEncoder().encode('x,y\n1,2\n'),
      new TextEncoder().encode('x,y,z\n'.repeat(200)), // no magic: refused before a 'header length' is read
    ];
    for (const bytes of cases) {
      const file = put(bytes);
      let want = '';
      try {
        npyToPoints(parseNpy(bytes, file), file);
      } catch (e) {
        want = (e as Error).message;
      }
      expect(want).toContain(file);
      for (const options of PIECES) await expect(readNpyFile(file, undefined, options)).rejects.toThrow(want);
    }
  });

  it('a column that does not exist: the message points.ts gave', async () => {
    const file = put(npyBytes('<f4', valuesOf('f4', 6, 4), [3, 2]));
    await expect(readNpyFile(file, ['2'])).rejects.toThrow(`${file}: no column '2' (it has 2 columns, 0-based).`);
    await expect(readNpyFile(file, ['x'])).rejects.toThrow(`${file}: no column 'x' (it has 2 columns, 0-based).`);
  });
});

describe('readBinFile', () => {
  it('0, 1, 2, 37 points of 1–4 dimensions: the points of parseBinPoints, bit for bit', async () => {
    for (const n of [0, 1, 2, 37])
      for (const dim of [1, 2, 3, 4]) {
        const bytes = writeBinPoints(Float32Array.from(valuesOf('f4', n * dim, n * 10 + dim) as number[]), dim);
        const file = put(bytes, '.bin');
        const want = parseBinPoints(bytes, file);
        for (const options of PIECES) {
          const got = await readBinFile(file, undefined, options);
          expect([got.n, got.dim, got.columns]).toEqual([want.n, want.dim, want.columns]);
          expect(bits(got.points)).toEqual(bits(want.points));
          if (n > 0)
            expect(bits((await readBinFile(file, [dim - 1, 0], options)).points)).toEqual(picked(want, [dim - 1, 0]));
        }
      }
  });

  it("truncated, short and invalid files: parseBinPoints' messages", async () => {
    const whole = writeBinPoints(Float32Array.from(valuesOf('f4', 30, 5) as number[]), 3);
    const bad = new Uint8Array(16);
    new DataView(bad.buffer).setInt32(0, -2, true);
    for (const bytes of [whole.subarray(0, whole.length - 3), whole.subarray(0, 5), bad]) {
      const file = put(bytes, '.bin');
      let want = '';
      try {
        parseBinPoints(bytes, file);
      } catch (e) {
        want = (e as Error).message;
      }
      expect(want).toContain(file);
      await expect(readBinFile(file)).rejects.toThrow(want);
    }
  });
});

describe('readHeaderlessFile', () => {
  it('rows of float32 read straight in; a size off the row length or an ArborX header is refused', async () => {
    const values = Float32Array.from(valuesOf('f4', 3 * 11, 8) as number[]);
    const file = put(new Uint8Array(values.buffer), '.f32');
    for (const options of PIECES) {
      const got = await readHeaderlessFile(file, 3, options);
      expect([got.n, got.dim]).toEqual([11, 3]);
      expect(bits(got.points)).toEqual(bits(values));
    }
    await expect(readHeaderlessFile(file, 2)).rejects.toThrow(
      `${file}: 132 bytes is not a whole number of rows of 2 float32 values (--dim 2).`,
    );
    const arbor = put(writeBinPoints(values, 3), '.bin');
    await expect(readHeaderlessFile(arbor, 1)).rejects.toThrow(
      `${arbor}: this looks like ArborX's binary format (n=11, d=3 header); drop --dim to read it as such.`,
    );
    expect((await readHeaderlessFile(put(new Uint8Array(0), '.raw'), 2)).n).toBe(0);
  });
});
