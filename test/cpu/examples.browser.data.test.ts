/**
 * issue 21: examples/browser/data.js, the example page's own CSV and NPY readers (the package's readers are
 * Node-only), checked in Node against the package's readers on the repository's datasets, on NPY files written by
 * NumPy, and on malformed files (the message names the file and what was wrong).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { npyToPoints, parseNpy as nodeParseNpy } from '../../src/io/npy.js';
import { parseCsvPoints } from '../../src/io/points.csv.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface Parsed {
  points: Float64Array;
  n: number;
  dim: number;
  columns: string[];
}
type Reader = (name: string, input: ArrayBuffer) => Parsed;
// Imported through a computed URL: data.js is plain JavaScript for browsers, outside the TypeScript project.
const dataJs = new URL('../../examples/browser/data.js', import.meta.url).href;
const { parseDataFile, parseCsv } = (await import(/* @vite-ignore */ dataJs)) as {
  parseDataFile: Reader;
  parseCsv: (name: string, text: string) => Parsed;
};

const buffer = (bytes: Uint8Array): ArrayBuffer =>
  bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
const text = (s: string): ArrayBuffer => buffer(new TextEncoder().encode(s));

/** An NPY version 1 file with this header dict and data. */
function npy(header: string, data: Uint8Array, major = 1): ArrayBuffer {
  const pre = major === 1 ? 10 : 12;
  const padded = header.padEnd(Math.ceil((pre + header.length + 1) / 64) * 64 - pre - 1, ' ') + '\n';
  const out = new Uint8Array(pre + padded.length + data.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, major, 0]);
  const view = new DataView(out.buffer);
  if (major === 1) view.setUint16(8, padded.length, true);
  else view.setUint32(8, padded.length, true);
  for (let i = 0; i < padded.length; i++) out[pre + i] = padded.charCodeAt(i);
  out.set(data, pre + padded.length);
  return out.buffer;
}

describe('examples/browser/data.js', () => {
  it('parseDataFile(csv) reads datasets/blobs2d-2000.csv as the package reader does', () => {
    const bytes = readFileSync(`${root}datasets/blobs2d-2000.csv`);
    const page = parseDataFile('blobs2d-2000.csv', buffer(bytes));
    const node = parseCsvPoints(bytes.toString('utf8'));
    expect([page.n, page.dim]).toEqual([node.n, node.dim]);
    expect(page.columns).toEqual(node.columns);
    // The package reads float32; the page keeps the decimal numbers as float64.
    expect(Float32Array.from(page.points)).toEqual(node.points);
  });

  it('parseDataFile(npy) reads datasets/normal3d-5000.npy (NumPy float32) as the package reader does', () => {
    const bytes = readFileSync(`${root}datasets/normal3d-5000.npy`);
    const page = parseDataFile('normal3d-5000.npy', buffer(bytes));
    const node = npyToPoints(nodeParseNpy(bytes));
    expect([page.n, page.dim]).toEqual([5000, 3]);
    expect(Float32Array.from(page.points)).toEqual(node.points);
  });

  it('parseDataFile(npy) reads NumPy files: float64 in Fortran order, float32 (1, 3)', () => {
    // python3 -c "import numpy as np, io, base64; b = io.BytesIO(); np.save(b, A); print(base64.b64encode(…))" with
    // numpy 2.4.6, A = np.asfortranarray(np.array([[1.5, -2], [3, 4e-3], [5, 6]], dtype='<f8')) and
    // np.array([[1, 2, 3]], dtype='<f4').
    const f8 =
      'k05VTVBZAQB2AHsnZGVzY3InOiAnPGY4JywgJ2ZvcnRyYW5fb3JkZXInOiBUcnVlLCAnc2hhcGUnOiAoMywgMiksIH0gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAAD4PwAAAAAAAAhAAAAAAAAAFEAAAAAAAAAAwPyp8dJNYnA/AAAAAAAAGEA=';
    const f4 =
      'k05VTVBZAQB2AHsnZGVzY3InOiAnPGY0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDMpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAIA/AAAAQAAAQEA=';
    const a = parseDataFile('a.npy', buffer(Buffer.from(f8, 'base64')));
    expect([a.n, a.dim]).toEqual([3, 2]);
    expect(Array.from(a.points)).toEqual([1.5, -2, 3, 4e-3, 5, 6]);
    const b = parseDataFile('b.NPY', buffer(Buffer.from(f4, 'base64')));
    expect([b.n, b.dim, Array.from(b.points)]).toEqual([1, 3, [1, 2, 3]]);
    // Version 2 (4-byte header length) reads the same.
    const c = parseDataFile(
      'c.npy',
      npy(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }",
        new Uint8Array(new Float64Array([7, -8]).buffer),
        2,
      ),
    );
    expect(Array.from(c.points)).toEqual([7, -8]);
  });

  it('parseCsv takes no header, tabs, semicolons, spaces and CRLF, and leaves out text columns', () => {
    expect(parseCsv('a.csv', '1,2\r\n3,4\r\n\r\n')).toMatchObject({ n: 2, dim: 2, columns: ['column 1', 'column 2'] });
    expect(Array.from(parseCsv('b.tsv', 'x\ty\n1\t2\n').points)).toEqual([1, 2]);
    expect(Array.from(parseCsv('c.csv', '1;2\n-3e2;.5\n').points)).toEqual([1, 2, -300, 0.5]);
    expect(Array.from(parseCsv('d.txt', ' 1  2\n3 4\n').points)).toEqual([1, 2, 3, 4]);
    const e = parseCsv('e.csv', 'name,x,y\n"a",1,2\nb,3,4\n');
    expect([e.dim, e.columns, Array.from(e.points)]).toEqual([2, ['x', 'y'], [1, 2, 3, 4]]);
  });

  it('malformed files: the message names the file and what was wrong', () => {
    const bad: [string, ArrayBuffer, string][] = [
      ['x.json', text('[]'), 'x.json: expected a .csv or .npy file.'],
      ['empty.csv', text('\n\n'), 'empty.csv: the file is empty.'],
      ['head.csv', text('x,y\n'), 'head.csv: a header line and no data.'],
      ['words.csv', text('a,b\nc,d\n'), 'words.csv: line 2 has no numeric column (got "c,d").'],
      ['ragged.csv', text('1,2\n3\n'), 'ragged.csv: line 2 has 1 fields, expected 2 (as line 1).'],
      ['hex.csv', text('1,2\n0x1f,3\n'), 'hex.csv: line 2, column 1: "0x1f" is not a decimal number.'],
      ['nan.csv', text('x,y\n1,2\n3,NaN\n'), 'nan.csv: line 3, column 2 ("y"): "NaN" is not a decimal number.'],
      ['text.npy', text('1,2\n3,4\n'), 'text.npy: not an NPY file (it does not start with \\x93NUMPY).'],
      [
        'big.npy',
        npy("{'descr': '>f8', 'fortran_order': False, 'shape': (1, 1), }", new Uint8Array(8)),
        "big.npy: dtype '>f8' is not supported (float32 '<f4' or float64 '<f8', little endian).",
      ],
      [
        'three.npy',
        npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1), }", new Uint8Array(4)),
        'three.npy: expected a 2-D array (n, dim), got shape (1, 1, 1).',
      ],
      [
        'flat.npy',
        npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", new Uint8Array(16)),
        'flat.npy: expected a 2-D array (n, dim), got shape (4,).',
      ],
      [
        'short.npy',
        npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", new Uint8Array(24)),
        'short.npy: shape (2, 2) of <f8 needs 32 data bytes, the file has 24.',
      ],
      [
        'inf.npy',
        npy(
          "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }",
          new Uint8Array(new Float32Array([1, Infinity]).buffer),
        ),
        'inf.npy: got Infinity at row 0, column 1.',
      ],
    ];
    for (const [name, input, message] of bad) expect(() => parseDataFile(name, input), name).toThrow(message);
  });
});
