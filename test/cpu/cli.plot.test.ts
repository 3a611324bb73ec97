/**
 * issue 15 §3: `treeline stats --plot` writes the format its extension names: `.svg` the SVG figure, `.png` that
 * figure rendered by resvg at its own size (today mst.png received SVG text), anything else an input error before
 * anything is computed. The real executable as a child process.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../src/datasets/generate.js';
import { writeNpy } from '../../src/io/npy.js';
import { runCliProcess } from '../helpers/cli.process.js';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

let dir: string;
let input: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'treeline-plot-'));
  input = join(dir, 'blobs.npy');
  writeFileSync(input, writeNpy(generate('blobs', { n: 2000, dim: 2, seed: 4, clusters: 3 }), [2000, 2]));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('treeline stats --plot <file> (child process)', () => {
  it("issue 15: .png is a PNG of the SVG figure's size; .svg stays SVG", async () => {
    const svgFile = join(dir, 'mst.svg');
    const pngFile = join(dir, 'mst.PNG');
    const s = await runCliProcess(['stats', input, '--backend', 'cpu', '--plot', svgFile, '-o', join(dir, 'a.json')]);
    expect(s.code).toBe(0);
    const svg = readFileSync(svgFile, 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    const width = Number(/width="(\d+)"/.exec(svg)![1]);
    const height = Number(/height="(\d+)"/.exec(svg)![1]);

    const p = await runCliProcess(['stats', input, '--backend', 'cpu', '--plot', pngFile, '-o', join(dir, 'b.json')]);
    expect(p.code).toBe(0);
    expect(p.stderr).toContain(`figure written to ${pngFile}`);
    const png = readFileSync(pngFile);
    expect([...png.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
    // The IHDR chunk comes first: length, 'IHDR', then width and height as big-endian uint32.
    expect(png.toString('latin1', 12, 16)).toBe('IHDR');
    expect(png.readUInt32BE(16)).toBe(width);
    expect(png.readUInt32BE(20)).toBe(height);
    // Not a blank image: the figure's lines and labels make it far larger than a white rectangle's few hundred bytes.
    expect(png.length).toBeGreaterThan(10_000);
  });

  it('issue 15: stats --help says which formats --plot writes', async () => {
    const r = await runCliProcess(['stats', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--plot <file>\s+write the 4-panel figure[^]*as \.svg or\s+\.png, by the extension/);
  });

  it('issue 15: any other extension is an input error naming the path, before anything is read or computed', async () => {
    for (const name of ['mst.pdf', 'mst']) {
      const file = join(dir, name);
      const r = await runCliProcess(['stats', input, '--backend', 'cpu', '--verbose', '--plot', file]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `--plot ${file}: expected a .svg or .png file, got ${name === 'mst' ? 'no extension' : "'.pdf'"}`,
      );
      expect(r.stderr).not.toContain('stats: read');
      expect(r.stdout).toBe('');
    }
  });
});
