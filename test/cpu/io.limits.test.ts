/**
 * Issue 15, §4.8: sizes from crafted headers (NPY shape, Parquet num_rows, ArborX .bin n, `generate -n`) are input
 * errors naming the file and the field, checked before anything is allocated from them — never a RangeError with a
 * stack. (FITS NAXIS2 and HDF5 shapes are tested beside their readers' fixtures: io.fits.test.ts, io.hdf5.test.ts.)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { parquetMetadata } from 'hyparquet';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { readPoints } from '../../src/io/points.js';
import { formatGraph } from '../../src/io/graph.js';
import { parseNpy, npyToPoints } from '../../src/io/npy.js';
import { generate } from '../../src/datasets/generate.js';
import { checkTableSize, MAX_TABLE_VALUES } from '../../src/io/limits.js';
import { runCliProcess } from '../helpers/cli.process.js';

const dir = mkdtempSync(join(tmpdir(), 'treeline-limits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A version-1 .npy file with the given header shape text and `data` bytes. */
function npyWithShape(shape: string, data = new Uint8Array(24)): Uint8Array {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': ${shape}, }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const out = new Uint8Array(10 + header.length + data.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0], 0);
  new DataView(out.buffer).setUint16(8, header.length, true);
  for (let i = 0; i < header.length; i++) out[10 + i] = header.charCodeAt(i);
  out.set(data, 10 + header.length);
  return out;
}

/** A Parquet file of 37 rows (x, y FLOAT) whose footer's num_rows is rewritten to `rows`. */
function parquetClaiming(rows: number): Uint8Array {
  const col = Float32Array.from({ length: 37 }, (_, i) => i);
  const buf = new Uint8Array(
    parquetWriteBuffer({
      columnData: [
        { name: 'x', data: col, type: 'FLOAT' },
        { name: 'y', data: col, type: 'FLOAT' },
      ],
    }),
  );
  const len = new DataView(buf.buffer).getUint32(buf.length - 8, true);
  const footer = buf.subarray(buf.length - 8 - len, buf.length - 8);
  // FileMetaData field 3 (num_rows, i64): compact-protocol header 0x16, then zigzag varint 74 (= 37). Its first
  // occurrence is the file's num_rows (the row group's comes later, inside row_groups).
  const at = footer.findIndex((b, i) => b === 0x16 && footer[i + 1] === 74);
  let z = BigInt(rows) * 2n;
  const varint: number[] = [];
  do {
    varint.push(Number(z & 0x7fn) | (z > 0x7fn ? 0x80 : 0));
    z >>= 7n;
  } while (z > 0n);
  const newFooter = new Uint8Array([...footer.subarray(0, at + 1), ...varint, ...footer.subarray(at + 2)]);
  const out = new Uint8Array(buf.length - len + newFooter.length);
  out.set(buf.subarray(0, buf.length - 8 - len), 0);
  out.set(newFooter, buf.length - 8 - len);
  const tail = out.length - 8;
  new DataView(out.buffer).setUint32(tail, newFooter.length, true);
  out.set([0x50, 0x41, 0x52, 0x31], tail + 4); // PAR1
  expect(Number(parquetMetadata(out.buffer).num_rows)).toBe(rows); // the crafted file says what we meant
  return out;
}

async function inputError(p: Promise<unknown>): Promise<InputError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(InputError);
  return e as InputError;
}

describe('issue 15: header sizes are input errors naming the file and field', () => {
  it('readPoints on an .npy with shape (-5, 3): a negative dimension', async () => {
    const file = join(dir, 'big.npy');
    writeFileSync(file, npyWithShape('(-5, 3)'));
    expect((await inputError(readPoints(file))).message).toBe(`${file}: shape (-5, 3) has a negative dimension.`);
    expect(() => parseNpy(npyWithShape('(2.5, 3)'), 'f.npy')).toThrow(
      'f.npy: shape (2.5, 3) has a dimension that is not a whole number.',
    );
  });

  it('readPoints on an .npy with shape (10^12, 3): needs more bytes than the file holds', async () => {
    const file = join(dir, 'huge.npy');
    writeFileSync(file, npyWithShape('(1000000000000, 3)'));
    expect((await inputError(readPoints(file))).message).toBe(
      `${file}: shape (1000000000000, 3) of '<f4' needs 12000000000000 data bytes, the file holds only 24.`,
    );
    // Shapes whose values exist but exceed a table: u1 data, 2^33 × 1 values (the check comes before allocation).
    const arr = {
      dtype: '|u1',
      shape: [2 ** 33, 1],
      fortranOrder: false,
      data: { byteLength: 2 ** 33 } as unknown as Uint8Array,
    };
    expect(() => npyToPoints(arr, 'wide.npy')).toThrow(
      /wide\.npy: shape\[0\] = 8589934592 rows × 1 columns = 8589934592 values exceeds the 4294967295/,
    );
  });

  it('readPoints on a Parquet file whose num_rows says 10^12 or disagrees with its row groups', async () => {
    const file = join(dir, 'big.parquet');
    writeFileSync(file, parquetClaiming(1e12));
    expect((await inputError(readPoints(file))).message).toMatch(
      /big\.parquet: num_rows = 1000000000000 rows × 2 columns = 2000000000000 values exceeds the 4294967295 \(2\^32 − 1\) a point table can hold/,
    );
    const lie = join(dir, 'lie.parquet');
    writeFileSync(lie, parquetClaiming(1_000_000));
    expect((await inputError(readPoints(lie))).message).toBe(
      `${lie}: the footer's num_rows = 1000000, but its 1 row groups hold 37 rows.`,
    );
  });

  it('generate with n · dim beyond a Float32Array or absurd clusters is an InputError', () => {
    expect(() => generate('uniform', { n: 1e12, dim: 2 })).toThrow(InputError);
    expect(() => generate('uniform', { n: 1e12, dim: 2 })).toThrow(
      'Expected n · dim ≤ 4294967295 (2^32 − 1, the longest Float32Array), got n = 1000000000000, dim = 2.',
    );
    expect(() => generate('blobs', { n: 10, dim: 2, clusters: 1e12 })).toThrow(
      'Expected clusters to be an integer in [1, max(n, 65536) = 65536], got 1000000000000.',
    );
    expect(() => checkTableSize(-1, 3, 'x.bin', 'n')).toThrow('x.bin: n = -1, expected a non-negative integer.');
    expect(MAX_TABLE_VALUES).toBe(2 ** 32 - 1);
  });

  it('formatGraph to .egr with numVertices beyond int32 is an InputError before any CSR is allocated', () => {
    const g = {
      numVertices: 3e9,
      sources: Uint32Array.from([0]),
      targets: Uint32Array.from([2_999_999_999]),
      weights: Int32Array.from([1]),
    };
    expect(() => formatGraph(g, 'egr')).toThrow(
      '.egr stores the vertex count as an int32: expected numVertices ≤ 2147483647, got 3000000000.',
    );
  });
});

describe('issue 15: the CLI reports crafted header sizes as one line, exit 2 (child process)', () => {
  const noStack = (stderr: string) => {
    expect(stderr).not.toMatch(/RangeError|\n\s+at /);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  };

  it('treeline emst big.npy with shape (-5, 3)', async () => {
    const file = join(dir, 'cli-big.npy');
    writeFileSync(file, npyWithShape('(-5, 3)'));
    const r = await runCliProcess(['emst', file, '--backend', 'cpu']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}: shape (-5, 3) has a negative dimension.`);
    noStack(r.stderr);
  });

  it('treeline hdbscan big.parquet with num_rows = 10^12', async () => {
    const file = join(dir, 'cli-big.parquet');
    writeFileSync(file, parquetClaiming(1e12));
    const r = await runCliProcess(['hdbscan', file, '--backend', 'cpu']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cli-big\.parquet: num_rows = 1000000000000 rows/);
    noStack(r.stderr);
  });

  it('treeline generate uniform -n 1e12', async () => {
    const r = await runCliProcess(['generate', 'uniform', '-n', '1e12']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/n · dim ≤ 4294967295 .* got n = 1000000000000, dim = 2/);
    expect(r.stdout).toBe('');
    noStack(r.stderr);
  });

  it('treeline generate -n 3e9 --format bin: n does not fit the int32 header', async () => {
    const r = await runCliProcess(['generate', 'uniform', '-n', '3000000000', '-d', '1', '-o', join(dir, 'x.bin')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--format bin stores n as an int32: expected -n ≤ 2147483647, got 3000000000/);
  });
});
