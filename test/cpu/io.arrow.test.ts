/**
 * readArrowPoints on Arrow IPC files and streams this test writes with apache-arrow's tableToIPC: Float32/Float64/
 * Int32/Int64 columns over several record batches, selection by name and index, nulls and non-numeric columns as
 * errors naming column and row, Feather v1 and non-Arrow files; then `treeline emst` on a .feather file.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Float64, makeVector, RecordBatch, Table, tableFromArrays, tableToIPC, vectorFromArray } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { emst } from '../../src/emst/emst.js';
import { InputError } from '../../src/errors.js';
import { readArrowPoints } from '../../src/io/points.arrow.js';
import { readPoints } from '../../src/io/points.js';
import { parseCsvColumns, runCli } from '../helpers/cli.js';
import { mulberry32 } from '../helpers/random.js';

const dir = mkdtempSync(join(tmpdir(), 'io-arrow-'));
const n = 240;
const rand = mulberry32(23);
const x = Float32Array.from({ length: n }, () => rand());
const y = Float64Array.from({ length: n }, () => rand());
const z = Float64Array.from({ length: n }, () => 4 * rand() - 2);
const k = Int32Array.from({ length: n }, (_, i) => i - 50);
const big = BigInt64Array.from({ length: n }, (_, i) => BigInt(i) * 1000n);
const name = Array.from({ length: n }, (_, i) => `p${i}`);

/** The table as three record batches of 80 rows. */
function batched(): Table {
  const whole = tableFromArrays({ name, x, y, z, k, big });
  return new Table(
    whole.slice(0, 80).batches.concat(whole.slice(80, 160).batches, whole.slice(160).batches) as RecordBatch[],
  );
}

const write = (file: string, bytes: Uint8Array): string => {
  const path = join(dir, file);
  writeFileSync(path, bytes);
  return path;
};
const fileFormat = write('points.arrow', tableToIPC(batched(), 'file'));
const streamFormat = write('points.arrows', tableToIPC(batched(), 'stream'));

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

describe('readArrowPoints', () => {
  it('reads x, y, z by name from the file and the stream format, over three batches, values exact', async () => {
    expect(batched().batches.length).toBe(3);
    for (const path of [fileFormat, streamFormat]) {
      const t = await readArrowPoints(path, { columns: ['x', 'y', 'z'] });
      expect([t.n, t.dim, t.columns]).toEqual([n, 3, ['x', 'y', 'z']]);
      expect(Array.from(t.points)).toEqual(rows(x, y, z));
    }
  });

  it('reads every numeric column by default; selects by 0-based index', async () => {
    const all = await readPoints(fileFormat);
    expect(all.columns).toEqual(['x', 'y', 'z', 'k', 'big']);
    expect(Array.from(all.points)).toEqual(rows(x, y, z, k, big));
    expect(Array.from((await readPoints(streamFormat, { columns: ['5', '1'] })).points)).toEqual(rows(big, x));
  });

  it('a null, a string column, a missing column, Feather v1 and a non-Arrow file are input errors', async () => {
    const w = vectorFromArray(
      Array.from({ length: n }, (_, i) => (i === 201 ? null : i / 2)),
      new Float64(),
    );
    const holes = write('holes.feather', tableToIPC(new Table({ x: makeVector(x), w }), 'file'));
    await expectInputError(
      readArrowPoints(holes),
      /holes\.feather: column 'w', row 201 \(0-based\) is null; expected a number/,
    );
    await expectInputError(
      readArrowPoints(fileFormat, { columns: ['x', 'name'] }),
      /column 'name' is Dictionary<Int32, Utf8>, expected a numeric column/,
    );
    await expectInputError(
      readArrowPoints(fileFormat, { columns: ['w'] }),
      /no column 'w' \(columns: name \(Dictionary<Int32, Utf8>\), x \(Float32\), y \(Float64\)/,
    );
    await expectInputError(
      readArrowPoints(write('old.feather', new TextEncoder().encode('FEA1' + ' '.repeat(100)))),
      /Feather v1 file/,
    );
    await expectInputError(
      readArrowPoints(write('fake.arrow', new TextEncoder().encode('x,y\n1,2\n'))),
      /fake\.arrow: not a readable Arrow IPC file or stream/,
    );
  });
});

describe('treeline emst on an Arrow file', () => {
  it('readArrowPoints on a truncated file says it looks truncated, in one sentence', async () => {
    const whole = tableToIPC(batched(), 'file');
    const e = await readArrowPoints(write('cut.arrow', whole.subarray(0, 300))).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(InputError);
    expect((e as Error).message).toMatch(
      /^.*cut\.arrow: not a readable Arrow IPC file or stream: .* \(the file looks truncated or corrupt\)\.$/,
    );
    const junk = await readArrowPoints(write('junk.arrow', new TextEncoder().encode('not arrow at all'))).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect((junk as Error).message).not.toMatch(/\.\.$/);
  });

  it('--columns x,y,z on a .feather file gives the library’s tree', async () => {
    const feather = write('points.feather', tableToIPC(batched(), 'file'));
    const r = await runCli(['emst', feather, '--columns', 'x,y,z', '--backend', 'cpu']);
    expect(r.error).toBeUndefined();
    const lib = await emst(new Float32Array(rows(x, y, z)), { dim: 3, backend: 'cpu' });
    const cols = parseCsvColumns(r.out);
    expect(cols.source).toEqual(Array.from(lib.sources));
    expect(cols.target).toEqual(Array.from(lib.targets));
  });
});
