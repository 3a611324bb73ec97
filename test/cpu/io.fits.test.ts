/**
 * readFitsPoints on FITS files this test writes byte by byte (a small writer below): RA/DEC/Z in E and D columns,
 * selection by name and index, HDU choice by EXTNAME and number, TSCAL/TZERO/TNULL, .fits.gz, the malformed-file
 * errors, and `treeline emst` on a FITS catalogue.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { emst } from '../../src/emst/emst.js';
import { InputError } from '../../src/errors.js';
import { readFitsPoints } from '../../src/io/points.fits.js';
import { readPoints } from '../../src/io/points.js';
import { parseCsvColumns, runCli } from '../helpers/cli.js';
import { runCliProcess } from '../helpers/cli.process.js';
import { mulberry32 } from '../helpers/random.js';

// ---- a minimal FITS writer (Pence et al. 2010 §3–§4, §7.3) ----

type CardValue = string | number | boolean;

/** One 80-character card: strings quoted and padded to 8, numbers and logicals right-aligned to column 30. */
function card(key: string, value?: CardValue): string {
  if (value === undefined) return key.padEnd(80);
  const v =
    typeof value === 'string'
      ? `'${value.replace(/'/g, "''").padEnd(8)}'`
      : typeof value === 'boolean'
        ? (value ? 'T' : 'F').padStart(20)
        : String(value).padStart(20);
  return `${key.padEnd(8)}= ${v}`.padEnd(80);
}

/** Header cards plus END, padded with spaces to whole 2880-byte blocks. */
function headerBytes(cards: [string, CardValue?][]): Uint8Array {
  let text = cards.map(([k, v]) => card(k, v)).join('') + card('END');
  text = text.padEnd(Math.ceil(text.length / 2880) * 2880);
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

const padData = (data: Uint8Array): Uint8Array => {
  const out = new Uint8Array(Math.ceil(data.length / 2880) * 2880);
  out.set(data);
  return out;
};

interface Column {
  name: string;
  /** TFORM: 1E, D, J, K, I, B, 8A, 3E… */
  form: string;
  /** One entry per row: a number (or bigint for K), a string for A, an array for vectors. */
  values: (number | bigint | string | number[])[];
  extra?: [string, CardValue][];
}

const WIDTH: Record<string, number> = { B: 1, I: 2, J: 4, K: 8, E: 4, D: 8, A: 1 };

function writeValue(dv: DataView, at: number, code: string, v: number | bigint): void {
  if (code === 'B') dv.setUint8(at, Number(v));
  else if (code === 'I') dv.setInt16(at, Number(v), false);
  else if (code === 'J') dv.setInt32(at, Number(v), false);
  else if (code === 'K') dv.setBigInt64(at, BigInt(v), false);
  else if (code === 'E') dv.setFloat32(at, Number(v), false);
  else dv.setFloat64(at, Number(v), false);
}

/** A BINTABLE HDU (header + padded big-endian rows). */
function bintable(
  columns: Column[],
  options: { extname?: string; rowBytes?: number; rows?: number } = {},
): Uint8Array[] {
  const forms = columns.map((c) => {
    const m = /^(\d*)([A-Z])$/.exec(c.form)!;
    return { repeat: m[1] === '' ? 1 : Number(m[1]), code: m[2] };
  });
  const rowBytes = forms.reduce((s, f) => s + f.repeat * WIDTH[f.code], 0);
  const rows = columns[0]?.values.length ?? 0;
  const data = new Uint8Array(rows * rowBytes);
  const dv = new DataView(data.buffer);
  for (let r = 0; r < rows; r++) {
    let at = r * rowBytes;
    columns.forEach((c, k) => {
      const { repeat, code } = forms[k];
      const v = c.values[r];
      if (code === 'A') for (let i = 0; i < repeat; i++) data[at + i] = (v as string).charCodeAt(i) || 32;
      else if (Array.isArray(v)) v.forEach((x, i) => writeValue(dv, at + i * WIDTH[code], code, x));
      else writeValue(dv, at, code, v as number | bigint);
      at += repeat * WIDTH[code];
    });
  }
  const cards: [string, CardValue?][] = [
    ['XTENSION', 'BINTABLE'],
    ['BITPIX', 8],
    ['NAXIS', 2],
    ['NAXIS1', options.rowBytes ?? rowBytes],
    ['NAXIS2', options.rows ?? rows],
    ['PCOUNT', 0],
    ['GCOUNT', 1],
    ['TFIELDS', columns.length],
  ];
  columns.forEach((c, k) => {
    cards.push([`TTYPE${k + 1}`, c.name], [`TFORM${k + 1}`, c.form]);
    for (const [key, value] of c.extra ?? []) cards.push([`${key}${k + 1}`, value]);
  });
  if (options.extname) cards.push(['EXTNAME', options.extname]);
  return [headerBytes(cards), padData(data)];
}

/** A primary HDU: empty, or a 2-D float32 image of w × h. */
function primary(image?: { w: number; h: number }): Uint8Array[] {
  if (!image)
    return [
      headerBytes([
        ['SIMPLE', true],
        ['BITPIX', 8],
        ['NAXIS', 0],
        ['EXTEND', true],
      ]),
    ];
  const cards: [string, CardValue][] = [
    ['SIMPLE', true],
    ['BITPIX', -32],
    ['NAXIS', 2],
    ['NAXIS1', image.w],
    ['NAXIS2', image.h],
  ];
  return [headerBytes(cards), padData(new Uint8Array(image.w * image.h * 4).fill(0x3f))];
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

// ---- fixtures ----

const dir = mkdtempSync(join(tmpdir(), 'io-fits-'));
const write = (name: string, bytes: Uint8Array): string => {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
};

const n = 200;
const rand = mulberry32(11);
const ra = Array.from({ length: n }, () => Math.fround(360 * rand()));
const dec = Array.from({ length: n }, () => 180 * rand() - 90); // float64 column
const z = Array.from({ length: n }, () => Math.fround(0.5 * rand()));
const ids = Array.from({ length: n }, (_, i) => 1000 + i);
const names = Array.from({ length: n }, (_, i) => `gal${i}`);
const catalogue: Column[] = [
  { name: 'NAME', form: '8A', values: names },
  { name: 'RA', form: '1E', values: ra },
  { name: 'DEC', form: 'D', values: dec },
  { name: 'Z', form: 'E', values: z },
  { name: 'ID', form: 'J', values: ids },
];
const catalogueFile = write('cat.fits', concat([...primary(), ...bintable(catalogue, { extname: 'GALAXIES' })]));
const expected = (cols: number[][]): number[] => {
  const out: number[] = [];
  for (let r = 0; r < n; r++) for (const c of cols) out.push(Math.fround(c[r]));
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

describe('readFitsPoints', () => {
  it('reads RA, DEC, Z (E and D columns) selected by case-insensitive name, values exact', async () => {
    const t = await readFitsPoints(catalogueFile, { columns: ['ra', 'Dec', 'Z'] });
    expect([t.n, t.dim, t.columns]).toEqual([n, 3, ['RA', 'DEC', 'Z']]);
    expect(Array.from(t.points)).toEqual(expected([ra, dec, z]));
  });

  it('reads every numeric scalar column by default and selects by 0-based index', async () => {
    const all = await readFitsPoints(catalogueFile);
    expect(all.columns).toEqual(['RA', 'DEC', 'Z', 'ID']);
    expect(Array.from(all.points)).toEqual(expected([ra, dec, z, ids]));
    const byIndex = await readPoints(catalogueFile, { columns: ['3', '1'] });
    expect(Array.from(byIndex.points)).toEqual(expected([z, ra]));
  });

  it('skips a primary image and chooses the HDU by EXTNAME or number', async () => {
    const other: Column[] = [
      { name: 'X', form: 'D', values: [1.5, 2.5] },
      { name: 'Y', form: 'K', values: [3n, -4n] },
    ];
    const path = write(
      'two.fits',
      concat([
        ...primary({ w: 7, h: 5 }),
        ...bintable(other, { extname: 'FIRST' }),
        ...bintable(catalogue, { extname: 'galaxies' }),
      ]),
    );
    expect(Array.from((await readFitsPoints(path)).points)).toEqual([1.5, 3, 2.5, -4]);
    const t = await readFitsPoints(path, { dataset: 'GALAXIES', columns: ['RA', 'DEC'] });
    expect(Array.from(t.points)).toEqual(expected([ra, dec]));
    expect(Array.from((await readFitsPoints(path, { dataset: '2', columns: ['z'] })).points)).toEqual(expected([z]));
    await expectInputError(
      readFitsPoints(path, { dataset: 'STARS' }),
      /no HDU named or numbered 'STARS' \(HDUs: 0 primary, 1 BINTABLE 'FIRST', 2 BINTABLE 'galaxies'\)/,
    );
    await expectInputError(
      readFitsPoints(path, { dataset: '0' }),
      /HDU 0: this HDU is the primary HDU, expected a BINTABLE extension/,
    );
  });

  it('applies TSCAL/TZERO (unsigned 16-bit, scaled 32-bit) and rejects TNULL and NaN naming column and row', async () => {
    const cols: Column[] = [
      { name: 'U', form: 'I', values: [-32768, 0, 32767], extra: [['TZERO', 32768]] },
      {
        name: 'S',
        form: 'J',
        values: [1, 2, 3],
        extra: [
          ['TSCAL', 0.5],
          ['TZERO', 10],
        ],
      },
      { name: 'B', form: 'B', values: [0, 128, 255], extra: [['TZERO', -128]] },
    ];
    const path = write('scaled.fits', concat([...primary(), ...bintable(cols)]));
    expect(Array.from((await readFitsPoints(path)).points)).toEqual([0, 10.5, -128, 32768, 11, 0, 65535, 11.5, 127]);
    const nulls: Column[] = [{ name: 'N', form: 'J', values: [5, -1, 7], extra: [['TNULL', -1]] }];
    await expectInputError(
      readFitsPoints(write('tnull.fits', concat([...primary(), ...bintable(nulls)]))),
      /HDU 1: column 'N', row 1 \(0-based\) is null \(TNULL = -1\)/,
    );
    const nan: Column[] = [{ name: 'Z', form: 'E', values: [0.5, 0.25, NaN] }];
    await expectInputError(
      readFitsPoints(write('nan.fits', concat([...primary(), ...bintable(nan)]))),
      /column 'Z', row 2 \(0-based\) is NaN/,
    );
  });

  it('reads .fits.gz as a stream', async () => {
    const path = write('cat.fits.gz', gzipSync(concat([...primary({ w: 3, h: 3 }), ...bintable(catalogue)])));
    expect(Array.from((await readPoints(path, { columns: ['RA', 'DEC', 'Z'] })).points)).toEqual(
      expected([ra, dec, z]),
    );
  });

  it('names the problem in malformed files: not FITS, truncated header or rows, bad TFORMs, wrong columns', async () => {
    await expectInputError(
      readFitsPoints(write('text.fits', new TextEncoder().encode('x,y\n1,2\n'.repeat(400)))),
      /text\.fits: not a FITS file \(the first card is not SIMPLE = T/,
    );
    await expectInputError(readFitsPoints(write('tiny.fits', new Uint8Array(100))), /not a FITS file \(100 bytes/);
    const whole = concat([...primary(), ...bintable(catalogue)]);
    await expectInputError(
      readFitsPoints(write('cut-header.fits', whole.subarray(0, 2880 + 1000))),
      /truncated in the header of HDU 1/,
    );
    const rowBytes = 8 + 4 + 8 + 4 + 4;
    const cut = write('cut-rows.fits', whole.subarray(0, 2 * 2880 + 50 * rowBytes + 3));
    await expectInputError(
      readFitsPoints(cut),
      /cut-rows\.fits, HDU 1: truncated: NAXIS2 = 200 rows of NAXIS1 = 28 bytes need 5600 bytes; the file holds only 1403 after the header/,
    );
    const badWidth = write('width.fits', concat([...primary(), ...bintable(catalogue, { rowBytes: 30 })]));
    await expectInputError(readFitsPoints(badWidth), /add up to 28 bytes per row, but NAXIS1 = 30/);
    await expectInputError(
      readFitsPoints(catalogueFile, { columns: ['RA', 'MAG'] }),
      /HDU 1 \('GALAXIES'\): no column 'MAG' \(columns: NAME \(TFORM 8A \(characters\)\), RA \(float32, TFORM 1E\)/,
    );
    await expectInputError(
      readFitsPoints(catalogueFile, { columns: ['name'] }),
      /column 'NAME' is TFORM 8A \(characters\), expected a numeric column/,
    );
    const vector = write(
      'vector.fits',
      concat([...primary(), ...bintable([{ name: 'POS', form: '3E', values: [[1, 2, 3]] }])]),
    );
    await expectInputError(
      readFitsPoints(vector, { columns: ['POS'] }),
      /column 'POS' is TFORM 3E \(a vector of 3; only repeat count 1 is read\)/,
    );
    await expectInputError(
      readFitsPoints(write('empty.fits', concat(primary({ w: 2, h: 2 })))),
      /no BINTABLE extension \(HDUs: 0 primary\)/,
    );
  });
});

describe('issue 15: FITS header sizes are checked against the file before allocating', () => {
  const small = [
    { name: 'X', form: 'E', values: [1, 2] },
    { name: 'Y', form: 'E', values: [3, 4] },
  ];

  it('readFitsPoints on a table claiming NAXIS2 = 10^12 rows names the file, HDU and NAXIS2', async () => {
    const big = write('big.fits', concat([...primary(), ...bintable(small, { rows: 1e12 })]));
    await expectInputError(
      readFitsPoints(big),
      /big\.fits, HDU 1: truncated: NAXIS2 = 1000000000000 rows of NAXIS1 = 8 bytes need 8000000000000 bytes; the file holds only 2880 after the header\./,
    );
    const gz = write('big.fits.gz', gzipSync(concat([...primary(), ...bintable(small, { rows: 1e12 })])));
    await expectInputError(
      readFitsPoints(gz),
      /big\.fits\.gz, HDU 1: NAXIS2 = 1000000000000 rows of NAXIS1 = 8 bytes need 8000000000000 bytes; the compressed file can hold at most \d+ after the header\./,
    );
  });

  it('treeline emst on it exits 2 with one line, no stack (child process)', async () => {
    const big = write('cli-big.fits', concat([...primary(), ...bintable(small, { rows: 1e12 })]));
    const r = await runCliProcess(['emst', big, '--backend', 'cpu']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cli-big\.fits, HDU 1: truncated: NAXIS2 = 1000000000000 rows/);
    expect(r.stderr).not.toMatch(/RangeError|\n\s+at /);
  });
});

describe('treeline emst on a FITS table', () => {
  it('--columns RA,DEC,Z gives the library’s tree; --dataset picks the HDU; --dataset on a CSV is an input error', async () => {
    const r = await runCli([
      'emst',
      catalogueFile,
      '--columns',
      'RA,DEC,Z',
      '--dataset',
      'galaxies',
      '--backend',
      'cpu',
    ]);
    expect(r.error).toBeUndefined();
    const lib = await emst(new Float32Array(expected([ra, dec, z])), { dim: 3, backend: 'cpu' });
    const cols = parseCsvColumns(r.out);
    expect(cols.source).toEqual(Array.from(lib.sources));
    expect(cols.target).toEqual(Array.from(lib.targets));
    const csv = write('p.csv', new TextEncoder().encode('x,y\n0,0\n1,1\n'));
    const bad = await runCli(['emst', csv, '--dataset', 'x', '--backend', 'cpu']);
    expect(bad.error).toBeInstanceOf(InputError);
    expect((bad.error as Error).message).toMatch(/--dataset applies to HDF5/);
  });
});
