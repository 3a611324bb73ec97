/**
 * Issue 20 (2·10^8 points on several GPUs): Node's readFile refuses files over 2 GiB, so readWholeFile reads larger
 * ones in pieces into one buffer. Here the limit and the piece size are lowered so that the piecewise path runs on a
 * small file: the bytes equal readFile's for every piece size, and the points parse the same.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { npyToPoints, parseNpy, writeNpy } from '../../src/io/npy.js';
import { readPoints, readWholeFile } from '../../src/io/points.js';
import { mulberry32 } from '../helpers/random.js';

describe('readWholeFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'treeline-readwhole-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const random = mulberry32(20);
  const points = Float32Array.from({ length: 3 * 1001 }, () => random() * 200 - 100);
  const file = join(dir, 'p.npy');
  writeFileSync(file, writeNpy(points, [1001, 3]));

  it('reads a file over its limit in pieces: the same bytes as readFile, for every piece size', async () => {
    const whole = new Uint8Array(await readFile(file));
    for (const chunk of [1, 7, 4096, 1 << 20]) {
      const bytes = await readWholeFile(file, 100, chunk);
      expect(bytes.length).toBe(whole.length);
      expect(Buffer.compare(Buffer.from(bytes), Buffer.from(whole))).toBe(0);
      expect(Array.from(npyToPoints(parseNpy(bytes, file), file).points)).toEqual(Array.from(points));
    }
    // Under the limit: readFile's own path.
    expect(Buffer.compare(Buffer.from(await readWholeFile(file)), Buffer.from(whole))).toBe(0);
    expect(Array.from((await readPoints(file)).points)).toEqual(Array.from(points));
  });

  it('an empty file is empty; a missing file rejects naming it', async () => {
    const empty = join(dir, 'empty.bin');
    writeFileSync(empty, new Uint8Array(0));
    expect((await readWholeFile(empty, 0, 4)).length).toBe(0);
    await expect(readWholeFile(join(dir, 'missing.npy'))).rejects.toThrow(/missing\.npy/);
  });
});
