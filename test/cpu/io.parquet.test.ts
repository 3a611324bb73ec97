/**
 * readParquetPoints on files this test writes with hyparquet-writer: FLOAT/DOUBLE/INT64 columns over several row
 * groups, selection by name and index, nulls and non-numeric columns as errors naming column and row, a file that
 * is not Parquet; then `treeline emst` on a Parquet file.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetWriteFile } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { emst } from '../../src/emst/emst.js';
import { InputError } from '../../src/errors.js';
import { readParquetPoints } from '../../src/io/points.parquet.js';
import { readPoints } from '../../src/io/points.js';
import { parseCsvColumns, runCli } from '../helpers/cli.js';
import { mulberry32 } from '../helpers/random.js';

const dir = mkdtempSync(join(tmpdir(), 'io-parquet-'));
const n = 250;
const rand = mulberry32(17);
const x = Float32Array.from({ length: n }, () => rand());
const y = Array.from({ length: n }, () => rand()); // DOUBLE
const z = Array.from({ length: n }, () => 10 * rand() - 5); // DOUBLE
const id = Array.from({ length: n }, (_, i) => BigInt(3 * i) - 100n); // INT64
const label = Array.from({ length: n }, (_, i) => `p${i}`);

const file = join(dir, 'points.parquet');
parquetWriteFile({
  filename: file,
  rowGroupSize: 64, // four row groups
  columnData: [
    { name: 'label', data: label, type: 'STRING' },
    { name: 'x', data: x, type: 'FLOAT' },
    { name: 'y', data: y, type: 'DOUBLE' },
    { name: 'z', data: z, type: 'DOUBLE' },
    { name: 'id', data: id, type: 'INT64' },
  ],
});

const rows = (...cols: ArrayLike<number | bigint>[]): number[] => {
  const out: number[] = [];
  for (let r = 0; r < n; r++) for (const c of cols) out.push(Math.fround(Number(c[r])));
  return out;
};

async function expectInputError(p: Promise<unknown>, message: RegExp): Promise<void> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(InputError);
  expect((e as Error).message).toMatch(message);
}

describe('readParquetPoints', () => {
  it('reads x, y, z by name across row groups, values exact (DOUBLE rounded to float32)', async () => {
    const t = await readParquetPoints(file, { columns: ['x', 'y', 'z'] });
    expect([t.n, t.dim, t.columns]).toEqual([n, 3, ['x', 'y', 'z']]);
    expect(Array.from(t.points)).toEqual(rows(x, y, z));
  });

  it('reads every numeric column by default; selects by 0-based index and case-insensitive name', async () => {
    const all = await readPoints(file);
    expect(all.columns).toEqual(['x', 'y', 'z', 'id']);
    expect(Array.from(all.points)).toEqual(rows(x, y, z, id));
    expect(Array.from((await readPoints(file, { columns: ['3', 'X'] })).points)).toEqual(rows(z, x));
  });

  it('a null, a string column, a missing column and a non-Parquet file are input errors naming what is wrong', async () => {
    const holes = join(dir, 'holes.parquet');
    const w = Array.from({ length: n }, (_, i) => (i === 137 ? null : i));
    parquetWriteFile({
      filename: holes,
      rowGroupSize: 100,
      columnData: [
        { name: 'x', data: x, type: 'FLOAT' },
        { name: 'w', data: w, type: 'DOUBLE' },
      ],
    });
    await expectInputError(
      readParquetPoints(holes),
      /holes\.parquet: column 'w', row 137 \(0-based\) is null; expected a number/,
    );
    expect((await readParquetPoints(holes, { columns: ['x'] })).n).toBe(n);
    await expectInputError(
      readParquetPoints(file, { columns: ['x', 'label'] }),
      /column 'label' is string, expected a numeric column/,
    );
    await expectInputError(
      readParquetPoints(file, { columns: ['x', 'q'] }),
      /no column 'q' \(columns: label \(string\), x \(float\), y \(double\), z \(double\), id \(int64\)\)/,
    );
    const fake = join(dir, 'fake.parquet');
    writeFileSync(fake, 'x,y\n1,2\n');
    await expectInputError(readParquetPoints(fake), /fake\.parquet: not a readable Parquet file/);
  });
});

describe('treeline emst on a Parquet file', () => {
  it('--columns x,y,z gives the library’s tree', async () => {
    const r = await runCli(['emst', file, '--columns', 'x,y,z', '--backend', 'cpu']);
    expect(r.error).toBeUndefined();
    const lib = await emst(new Float32Array(rows(x, y, z)), { dim: 3, backend: 'cpu' });
    const cols = parseCsvColumns(r.out);
    expect(cols.source).toEqual(Array.from(lib.sources));
    expect(cols.target).toEqual(Array.from(lib.targets));
  });
});
