import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCsvPoints } from '../../src/io/points.csv.js';
import { npyToPoints, parseNpy, writeNpy } from '../../src/io/npy.js';
import { parseBinPoints, writeBinPoints } from '../../src/io/points.bin.js';
import { readPoints } from '../../src/io/points.js';
import { InputError } from '../../src/errors.js';

describe('CSV points', () => {
  it('detects a header and the delimiter, skips comments, selects columns by name and index', () => {
    const text = '# a comment\nx,y,label\n1,2,a\n3.5,-4e2,b\n\n';
    expect(() => parseCsvPoints(text)).toThrow(/line 3|:3:/);
    const t = parseCsvPoints(text, { columns: ['y', 0] });
    expect(t.n).toBe(2);
    expect(t.dim).toBe(2);
    expect(t.columns).toEqual(['y', 'x']);
    expect([...t.points]).toEqual([2, 1, -400, 3.5]);
  });

  it('reads headerless tab- and space-separated data', () => {
    expect([...parseCsvPoints('1\t2\n3\t4\n').points]).toEqual([1, 2, 3, 4]);
    expect(parseCsvPoints('1 2 3\n4  5 6\n').dim).toBe(3);
  });

  it('names file, line and value for a bad row', () => {
    expect(() => parseCsvPoints('x,y\n1,2\n3,oops\n', {}, 'pts.csv')).toThrow(
      "pts.csv:3: column 'y' is not a number: 'oops'.",
    );
    expect(() => parseCsvPoints('1,2\n3\n', {}, 'pts.csv')).toThrow(/pts\.csv:2: expected 2 fields, got 1/);
    expect(() => parseCsvPoints('x,y\n1,2\n', { columns: ['z'] }, 'p.csv')).toThrow(/no column 'z'/);
  });

  it('parseCsvPoints names file, line and value for Infinity, hex and values beyond float32 (Number() takes them)', () => {
    expect(() => parseCsvPoints('x,y\n1,2\n3,Infinity\n', {}, 'p.csv')).toThrow(
      "p.csv:3: column 'y' is not a number: 'Infinity'.",
    );
    expect(() => parseCsvPoints('x,y\n1,2\n-Infinity,3\n', {}, 'p.csv')).toThrow(
      "p.csv:3: column 'x' is not a number: '-Infinity'.",
    );
    expect(() => parseCsvPoints('x,y\n0x10,2\n', {}, 'p.csv')).toThrow("p.csv:2: column 'x' is not a number: '0x10'.");
    expect(() => parseCsvPoints('x,y\n1,2\n1e39,3\n', {}, 'p.csv')).toThrow(
      "p.csv:3: column 'x' is beyond the float32 range: '1e39'.",
    );
    expect([...parseCsvPoints('1.,+.5\n-2e-1,3E+0\n').points]).toEqual([1, 0.5, Math.fround(-0.2), 3]);
  });

  it('parseCsvPoints on an empty file (or only comments) names the file', () => {
    expect(() => parseCsvPoints('', {}, 'e.csv')).toThrow(
      'e.csv: no header and no data rows (the file is empty or all comments).',
    );
    expect(() => parseCsvPoints('# nothing\n\n', {}, 'e.csv')).toThrow(/^e\.csv: no header and no data rows/);
    expect(() => parseCsvPoints('x,y\n', {}, 'h.csv')).toThrow('h.csv has a header but no data rows.'); // issue 15
  });
});

describe('NPY', () => {
  it('round-trips float32 (n, d) and reads float64, int32, Fortran order', () => {
    const a = new Float32Array([1, 2, 3, 4, 5, 6]);
    const t = npyToPoints(parseNpy(writeNpy(a, [3, 2])));
    expect(t.n).toBe(3);
    expect(t.dim).toBe(2);
    expect([...t.points]).toEqual([...a]);
    expect([...npyToPoints(parseNpy(writeNpy(new Float64Array([0.5, 1.5]), [2]))).points]).toEqual([0.5, 1.5]);
    expect([...npyToPoints(parseNpy(writeNpy(new Int32Array([-1, 7]), [1, 2]))).points]).toEqual([-1, 7]);
    const f = parseNpy(writeNpy(new Float32Array([1, 3, 5, 2, 4, 6]), [3, 2]));
    f.fortranOrder = true; // column-major: columns (1,3,5) and (2,4,6)
    expect([...npyToPoints(f).points]).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('rejects non-npy bytes and unsupported dtypes', () => {
    expect(() => parseNpy(new Uint8Array(20), 'x.npy')).toThrow(/x\.npy: not a \.npy file/);
    const arr = parseNpy(writeNpy(new Float32Array(2), [2]));
    arr.dtype = '<c8';
    expect(() => npyToPoints(arr, 'x.npy')).toThrow(InputError);
  });
});

describe('ArborX binary points', () => {
  it('round-trips and rejects truncated files', () => {
    const p = new Float32Array([1, 2, 3, 4, 5, 6]);
    const t = parseBinPoints(writeBinPoints(p, 3));
    expect(t.n).toBe(2);
    expect(t.dim).toBe(3);
    expect([...t.points]).toEqual([...p]);
    expect(() => parseBinPoints(writeBinPoints(p, 3).subarray(0, 20), 'p.bin')).toThrow(/p\.bin: truncated/);
  });
});

describe('readPoints(path)', () => {
  it('dispatches on the extension', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'treeline-'));
    writeFileSync(join(dir, 'a.csv'), 'x,y\n1,2\n');
    writeFileSync(join(dir, 'a.npy'), writeNpy(new Float32Array([1, 2]), [1, 2]));
    writeFileSync(join(dir, 'a.bin'), writeBinPoints(new Float32Array([1, 2]), 2));
    for (const f of ['a.csv', 'a.npy', 'a.bin']) expect([...(await readPoints(join(dir, f))).points]).toEqual([1, 2]);
    await expect(readPoints(join(dir, 'a.xyz'))).rejects.toThrow(/unknown point format/);
  });

  it('readPoints names the file, row, column and value of a NaN or Infinity in binary formats', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'treeline-'));
    writeFileSync(join(dir, 'nan.npy'), writeNpy(new Float32Array([0, 0, 1, 1, 2, NaN]), [3, 2]));
    writeFileSync(join(dir, 'inf.npy'), writeNpy(new Float64Array([0, 1e300, 1, 1]), [2, 2]));
    writeFileSync(join(dir, 'nan.bin'), writeBinPoints(new Float32Array([0, NaN, 1, 1]), 2));
    await expect(readPoints(join(dir, 'nan.npy'))).rejects.toThrow(
      /nan\.npy: row 2 \(0-based\), column '1' is NaN; expected a finite number\.$/,
    );
    await expect(readPoints(join(dir, 'inf.npy'))).rejects.toThrow(
      /inf\.npy: row 0 \(0-based\), column '1' is Infinity \(infinite, or beyond the float32 range\)/,
    );
    await expect(readPoints(join(dir, 'nan.bin'))).rejects.toThrow(/nan\.bin: row 0 \(0-based\), column '1' is NaN/);
    await expect(readPoints(join(dir, 'nan.npy'), { columns: ['0'] })).resolves.toMatchObject({ n: 3, dim: 1 });
  });
});
