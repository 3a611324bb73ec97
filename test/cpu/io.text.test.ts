/**
 * Issue 15, §4.10: text inputs a newcomer meets — a UTF-16 file (no NUL bytes in the message; "save as UTF-8"), a
 * UTF-8 byte-order mark, a CSV with a header and no rows (an input error for every command that reads points, not
 * 0 points and exit 0), an empty file; coordinates beyond ±1e38 and Dec outside [−90, 90] named by file, row and
 * column; ±inf graph weights refused like 1e39 by every graph reader.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { readPoints } from '../../src/io/points.js';
import { writeNpy } from '../../src/io/npy.js';
import { readGraph } from '../../src/io/graph.js';
import { GraphFormatError } from '../../src/io/graph.text.js';
import { parseMatrixMarket } from '../../src/io/graph.mtx.js';
import { checkCelestial } from '../../src/stats/coords.js';
import { runCliProcess } from '../helpers/cli.process.js';

const dir = mkdtempSync(join(tmpdir(), 'treeline-text-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, data: string | Uint8Array): string => {
  const path = join(dir, name);
  writeFileSync(path, data);
  return path;
};
/** `text` as UTF-16 little endian with its byte-order mark, as Excel's "Unicode text" writes it. */
const utf16 = (text: string): Buffer => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);

async function inputError(p: Promise<unknown>): Promise<Error> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(InputError);
  return e as Error;
}

const oneLine = (stderr: string) => {
  expect(stderr).not.toContain('\0');
  expect(stderr).not.toMatch(/\n\s+at /);
  expect(stderr.trim().split('\n')).toHaveLength(1);
};

describe('issue 15: text encodings', () => {
  it('readPoints on a UTF-16 CSV says so and prints no NUL bytes', async () => {
    const path = file('u16.csv', utf16('x,y\n1,2\n3,4\n'));
    const e = await inputError(readPoints(path));
    expect(e.message).toBe(`${path} looks like UTF-16 (little-endian byte-order mark FF FE); save it as UTF-8.`);
    const be = file(
      'u16be.csv',
      Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('x,y\n1,2\n', 'utf16le').swap16()]),
    );
    expect((await inputError(readPoints(be))).message).toMatch(/big-endian byte-order mark FE FF\); save it as UTF-8/);
    const bare = file('u16bare.csv', Buffer.from('1,2\n3,4\n', 'utf16le'));
    expect((await inputError(readPoints(bare))).message).toMatch(
      /u16bare\.csv has a NUL byte at byte 1: it looks like UTF-16 or a binary file; save it as UTF-8 text/,
    );
  });

  it('readPoints on a CSV with a UTF-8 byte-order mark keeps the first row (no header is invented)', async () => {
    const t = await readPoints(file('bom.csv', '\uFEFF1,2\n3,4\n'));
    expect([t.n, Array.from(t.points)]).toEqual([2, [1, 2, 3, 4]]);
    const h = await readPoints(file('bomh.csv', '\uFEFFx,y\n1,2\n'), { columns: ['x'] });
    expect(h.columns).toEqual(['x']);
  });

  it('readGraph on a UTF-16 edge list or MatrixMarket file says so; a UTF-8 BOM keeps the first edge', async () => {
    const path = file('u16.txt', utf16('0 1 1\n1 2 2\n'));
    const err = await readGraph(path).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(GraphFormatError);
    expect((err as Error).message).toBe(
      `${path}: looks like UTF-16 (little-endian byte-order mark FF FE); save it as UTF-8.`,
    );
    expect(() => parseMatrixMarket(utf16('%%MatrixMarket matrix coordinate real general\n'), 'm.mtx')).toThrow(
      /m\.mtx: looks like UTF-16/,
    );
    const g = await readGraph(file('bom.txt', '\uFEFF0 1 5\n1 2 6\n'));
    expect(Array.from((g as { sources: Uint32Array }).sources)).toEqual([0, 1]);
  });

  it('treeline hdbscan on a UTF-16 CSV: exit 2, one line, no NUL bytes (child process)', async () => {
    const r = await runCliProcess(['hdbscan', file('cli16.csv', utf16('x,y\n1,2\n3,4\n5,6\n')), '--backend', 'cpu']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cli16\.csv looks like UTF-16 .*save it as UTF-8/);
    oneLine(r.stderr);
  });
});

describe('issue 15: a file with no data rows is an input error for every command that reads points', () => {
  it('readPoints: header only, empty, a 0-row .npy', async () => {
    const h = file('h.csv', 'x,y\n');
    expect((await inputError(readPoints(h))).message).toBe(`${h} has a header but no data rows.`);
    expect((await inputError(readPoints(file('e.csv', '')))).message).toMatch(/e\.csv: no header and no data rows/);
    const npy = file('zero.npy', writeNpy(new Float32Array(0), [0, 3]));
    expect((await inputError(readPoints(npy))).message).toBe(
      `${npy}: no data rows (0 points of 3 columns); expected at least one point.`,
    );
  });

  const header = file('x.csv', 'x,y\n');
  const model = join(dir, 'm.json');
  const commands: [string, string[]][] = [
    ['emst', ['emst', header, '--backend', 'cpu']],
    ['hdbscan', ['hdbscan', header, '--backend', 'cpu']],
    ['stats', ['stats', header, '--backend', 'cpu']],
  ];
  for (const [name, args] of commands) {
    it(`treeline ${name} x.csv (a header, no rows): exit 2 naming the file (child process)`, async () => {
      const r = await runCliProcess(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${header} has a header but no data rows.`);
      oneLine(r.stderr);
    });
  }

  it('treeline predict model x.csv (a header, no rows): exit 2 (child process)', async () => {
    const train = file(
      'train.csv',
      'x,y\n' + Array.from({ length: 30 }, (_, i) => `${i % 5},${Math.floor(i / 5)}`).join('\n') + '\n',
    );
    const fit = await runCliProcess([
      'hdbscan',
      train,
      '--backend',
      'cpu',
      '--save-model',
      model,
      '-o',
      join(dir, 'labels.csv'),
    ]);
    expect(fit.code).toBe(0);
    const r = await runCliProcess(['predict', model, header]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${header} has a header but no data rows.`);
  });
});

describe('issue 15: coordinate messages name the file, row and column', () => {
  it('treeline emst on a CSV holding 2e38 (a float32, beyond ±1e38) names file, row and column (child process)', async () => {
    const path = file('big.csv', 'x,y\n1,2\n3,2e38\n');
    const r = await runCliProcess(['emst', path, '--backend', 'cpu']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${path}: row 1 (0-based), column 'y' is 2e+38; expected coordinates within ±1e+38 (float32 range).`,
    );
    oneLine(r.stderr);
  });

  it('treeline stats --coords radec with Dec = 95 names file, row and column (child process)', async () => {
    const path = file('sky.csv', 'ra,dec\n10,20\n30,40\n50,95\n');
    const r = await runCliProcess(['stats', path, '--coords', 'radec', '--backend', 'cpu']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${path}: row 2 (0-based), column 'dec' is 95; expected Dec within [−90, 90] degrees.`);
    oneLine(r.stderr);
  });

  it('checkCelestial names what it is given; without a file it keeps the library message', () => {
    expect(() => checkCelestial(Float32Array.from([0, 0, 1, -91]), 2, 's.csv', ['RA', 'DEC'])).toThrow(
      "s.csv: row 1 (0-based), column 'DEC' is -91; expected Dec within [−90, 90] degrees.",
    );
    expect(() => checkCelestial(Float32Array.from([0, 0, -1]), 3, 's.csv')).toThrow(
      "s.csv: row 0 (0-based), column '2' is -1; expected a finite distance ≥ 0.",
    );
    expect(() => checkCelestial(Float32Array.from([0, 91]), 2)).toThrow(
      'Expected Dec within [−90, 90] degrees, got 91 at row 0.',
    );
  });
});

describe('issue 15: graph weights must be finite float32 in every reader and the CLI', () => {
  it('readGraph refuses inf in edge lists and MatrixMarket files, naming file, line and value', async () => {
    for (const [name, text, line] of [
      ['w.txt', '0 1 1\n1 2 inf\n', 2],
      ['w.csv', 'source,target,weight\n0,1,-inf\n', 2],
      ['w.mtx', '%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1.5\n2 3 Infinity\n', 4],
      ['big.mtx', '%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 1e39\n', 3],
    ] as const) {
      const e = await readGraph(file(name, text)).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(GraphFormatError);
      expect((e as Error).message).toMatch(
        new RegExp(
          `${name.replace('.', '\\.')}:${line}: expected a finite weight within the float32 range \\(\\|w\\| ≤ 3\\.4028235e38\\)`,
        ),
      );
    }
  });

  it('treeline mst on an edge list with an inf weight: exit 2, one line (child process)', async () => {
    const path = file('inf.txt', '0 1 1\n1 2 inf\n');
    const r = await runCliProcess(['mst', path, '--backend', 'cpu']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${path}:2: expected a finite weight within the float32 range (|w| ≤ 3.4028235e38), got 'inf'.`,
    );
    oneLine(r.stderr);
  });
});
