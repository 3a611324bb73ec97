/**
 * readHdf5Points on Gadget/AREPO-like snapshots this test writes with h5wasm: PartType1/Coordinates in float32 and
 * float64, the default dataset, 1-D datasets as columns, and the errors (missing dataset, 1-D dataset, wrong dtype,
 * several candidates, not HDF5); then `treeline emst` on a snapshot.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as h5wasm from 'h5wasm/node';
import { beforeAll, describe, expect, it } from 'vitest';
import { emst } from '../../src/emst/emst.js';
import { InputError } from '../../src/errors.js';
import { readHdf5Points } from '../../src/io/points.hdf5.js';
import { readPoints } from '../../src/io/points.js';
import { parseCsvColumns, runCli } from '../helpers/cli.js';
import { mulberry32 } from '../helpers/random.js';

const dir = mkdtempSync(join(tmpdir(), 'io-hdf5-'));
const n = 300;
const rand = mulberry32(5);
const coords64 = Float64Array.from({ length: n * 3 }, () => 100 * rand());
const coords32 = Float32Array.from(coords64);
const ids = Uint32Array.from({ length: n }, (_, i) => 7 * i);

/** A Gadget-like snapshot: Header attributes, PartType1/Coordinates (n × 3) and PartType1/ParticleIDs. */
function writeSnapshot(
  name: string,
  coordinates: Float32Array | Float64Array,
  extra?: (f: h5wasm.File) => void,
): string {
  const path = join(dir, name);
  const f = new h5wasm.File(path, 'w');
  try {
    const header = f.create_group('Header');
    header.create_attribute('BoxSize', 100.0);
    header.create_attribute('NumPart_ThisFile', new Int32Array([0, n, 0, 0, 0, 0]));
    const part = f.create_group('PartType1');
    const f64 = coordinates instanceof Float64Array; // the float64 variant is also chunked and gzip-compressed
    part.create_dataset({
      name: 'Coordinates',
      data: coordinates,
      shape: [n, 3],
      dtype: f64 ? '<d' : '<f',
      ...(f64 ? { chunks: [64, 3], compression: 6 } : {}),
    });
    part.create_dataset({ name: 'ParticleIDs', data: ids });
    extra?.(f);
  } finally {
    f.close();
  }
  return path;
}

let snap32 = '';
let snap64 = '';

beforeAll(async () => {
  await h5wasm.ready;
  snap32 = writeSnapshot('snap32.hdf5', coords32);
  snap64 = writeSnapshot('snap64.h5', coords64);
});

async function expectInputError(p: Promise<unknown>, message: RegExp): Promise<void> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(InputError);
  expect((e as Error).message).toMatch(message);
}

describe('readHdf5Points', () => {
  it('reads PartType1/Coordinates (float32) exactly, by name and as the only 2-D dataset', async () => {
    const t = await readHdf5Points(snap32, { dataset: 'PartType1/Coordinates' });
    expect([t.n, t.dim]).toEqual([n, 3]);
    expect(Array.from(t.points)).toEqual(Array.from(coords32));
    expect(Array.from((await readPoints(snap32)).points)).toEqual(Array.from(coords32));
    const xz = await readPoints(snap32, { dataset: '/PartType1/Coordinates', columns: ['0', '2'] });
    expect(xz.dim).toBe(2);
    expect(Array.from(xz.points)).toEqual(
      Array.from({ length: 2 * n }, (_, i) => coords32[3 * (i >> 1) + 2 * (i & 1)]),
    );
  });

  it('rounds float64 coordinates to float32 (a chunked, gzip-compressed dataset)', async () => {
    const t = await readHdf5Points(snap64, { dataset: 'PartType1/Coordinates' });
    expect(t.points).toEqual(coords32);
  });

  it('reads 1-D datasets of a group as columns, and integer datasets', async () => {
    const path = writeSnapshot('halos.h5', coords32, (f) => {
      const g = f.create_group('halos');
      for (let j = 0; j < 3; j++)
        g.create_dataset({ name: 'xyz'[j], data: Float64Array.from({ length: n }, (_, i) => coords64[3 * i + j]) });
      f.create_dataset({ name: 'grid', data: new Int16Array([1, -2, 3, -4]), shape: [2, 2] });
    });
    const t = await readHdf5Points(path, { dataset: 'halos', columns: ['x', 'y', 'z'] });
    expect(t.columns).toEqual(['x', 'y', 'z']);
    expect(t.points).toEqual(coords32);
    expect(Array.from((await readHdf5Points(path, { dataset: 'grid' })).points)).toEqual([1, -2, 3, -4]);
    await expectInputError(
      readHdf5Points(path, { dataset: 'halos' }),
      /'halos' is a group; name a 2-D dataset in it, or its 1-D datasets with --columns \(datasets: halos\/x \(300 float64\)/,
    );
    await expectInputError(readHdf5Points(path, { dataset: 'halos', columns: ['x', 'w'] }), /no dataset 'halos\/w'/);
    await expectInputError(
      readHdf5Points(path),
      /2 2-D datasets; choose one with --dataset: PartType1\/Coordinates \(300×3 float32\), grid \(2×2 int16\)/,
    );
  });

  it('a missing dataset lists the datasets that exist; a 1-D dataset or a string dataset is a clear error', async () => {
    await expectInputError(
      readHdf5Points(snap32, { dataset: 'PartType0/Coordinates' }),
      /snap32\.hdf5: no dataset 'PartType0\/Coordinates' \(datasets: PartType1\/Coordinates \(300×3 float32\), PartType1\/ParticleIDs \(300 uint32\)\)/,
    );
    await expectInputError(
      readHdf5Points(snap32, { dataset: 'PartType1/Coordinates/x' }),
      /no dataset 'PartType1\/Coordinates\/x' \(datasets: PartType1\/Coordinates/,
    );
    await expectInputError(readHdf5Points(snap32, { dataset: 'Header/BoxSize' }), /no dataset 'Header\/BoxSize'/);
    await expectInputError(
      readHdf5Points(snap32, { dataset: 'PartType1/ParticleIDs' }),
      /dataset 'PartType1\/ParticleIDs' is 1-D \(300 uint32 values\); expected a 2-D dataset of n points × d coordinates/,
    );
    await expectInputError(
      readHdf5Points(snap32, { dataset: 'PartType1/Coordinates', columns: ['3'] }),
      /has 3 columns: select them by 0-based index \(0–2\), got '3'/,
    );
    const path = writeSnapshot('names.h5', coords32, (f) => f.create_dataset({ name: 'names', data: ['a', 'b'] }));
    await expectInputError(
      readHdf5Points(path, { dataset: 'names' }),
      /dataset 'names' has dtype string; expected float32, float64/,
    );
    const notHdf5 = join(dir, 'fake.h5');
    writeFileSync(notHdf5, 'x,y\n1,2\n');
    await expectInputError(readHdf5Points(notHdf5), /fake\.h5: not an HDF5 file/);
  });
});

describe('readHdf5Points on damaged files', () => {
  it('a truncated file is one InputError line with HDF5’s reason, and later reads still work', async () => {
    const whole = readFileSync(snap32);
    const cut = join(dir, 'truncated.h5');
    writeFileSync(cut, whole.subarray(0, 600));
    const e = await readHdf5Points(cut).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(InputError);
    expect((e as Error).message).toMatch(
      /^.*truncated\.h5: HDF5 could not open the file: truncated file: eof = 600, .*\.$/,
    );
    expect((e as Error).message).not.toMatch(/\n/);
    expect((await readHdf5Points(snap32)).n).toBe(n); // the error handler was restored
  });

  it('a NaN coordinate names the file, row and column', async () => {
    const withNan = Float32Array.from(coords32);
    withNan[3 * 7 + 2] = NaN;
    const path = writeSnapshot('nan.h5', withNan);
    await expectInputError(
      readPoints(path),
      /nan\.h5: row 7 \(0-based\), column '2' is NaN; expected a finite number\./,
    );
  });
});

describe('treeline emst on an HDF5 snapshot', () => {
  it('--dataset PartType1/Coordinates gives the library’s tree', async () => {
    const r = await runCli(['emst', snap64, '--dataset', 'PartType1/Coordinates', '--backend', 'cpu']);
    expect(r.error).toBeUndefined();
    const lib = await emst(coords32, { dim: 3, backend: 'cpu' });
    const cols = parseCsvColumns(r.out);
    expect(cols.source).toEqual(Array.from(lib.sources));
    expect(cols.target).toEqual(Array.from(lib.targets));
    expect(r.log).toMatch(/300 points × 3/);
  });
});
