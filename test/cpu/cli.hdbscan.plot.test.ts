/**
 * issue 21, item 4: `treeline hdbscan … --plot / --plot-tree / --plot-dendrogram` and `treeline stats --log --bins
 * --plot-tree-panel`, the real executable as a child process: each figure in the format its extension names (a PNG
 * of the SVG's size, not blank), the paths checked before anything is computed, and the flags that need --plot.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../src/datasets/generate.js';
import { writeNpy } from '../../src/io/npy.js';
import { runCliProcess } from '../helpers/cli.process.js';
import { all, parseXml } from '../helpers/xml.js';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

let dir: string;
let input: string;
let csv: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'treeline-hdbscan-plot-'));
  input = join(dir, 'blobs.npy');
  writeFileSync(input, writeNpy(generate('blobs', { n: 1500, dim: 3, seed: 4, clusters: 3 }), [1500, 3]));
  csv = join(dir, 'points.csv');
  const p = generate('moons', { n: 400, dim: 2, seed: 2 });
  const rows = ['a,b,c'];
  for (let i = 0; i < 400; i++) rows.push(`${p[2 * i]},${p[2 * i + 1]},${i % 5}`);
  writeFileSync(csv, rows.join('\n') + '\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The PNG's width and height from its IHDR chunk, after checking the signature. */
function pngSize(file: string): { width: number; height: number; bytes: number } {
  const png = readFileSync(file);
  expect([...png.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
  expect(png.toString('latin1', 12, 16)).toBe('IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20), bytes: png.length };
}

const svgSize = (svg: string) => ({
  width: Number(/width="(\d+)"/.exec(svg)![1]),
  height: Number(/height="(\d+)"/.exec(svg)![1]),
});

describe('treeline hdbscan --plot, --plot-tree, --plot-dendrogram (child process)', () => {
  it('writes the scatter with the MST, the condensed tree and the dendrogram; PNGs at the SVG size, not blank', async () => {
    const f = (name: string) => join(dir, name);
    const args = ['hdbscan', input, '--backend', 'cpu', '--min-cluster-size', '20', '-o', f('labels.csv')];
    const s = await runCliProcess([
      ...args,
      '--plot',
      f('c.svg'),
      '--plot-mst',
      '--plot-tree',
      f('t.svg'),
      '--plot-dendrogram',
      f('d.svg'),
      '--plot-leaves',
      '12',
    ]);
    expect(s.code, s.stderr).toBe(0);
    expect(s.stderr).toContain(`figure written to ${f('t.svg')}`);
    const labels = readFileSync(f('labels.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => Number(l.split(',')[0]));
    const k = Math.max(...labels) + 1;
    const scatter = parseXml(readFileSync(f('c.svg'), 'utf8'));
    const groups = all(scatter).filter((e) => e.attrs.class === 'points');
    expect(groups.reduce((t, g) => t + Number(g.attrs['data-count']), 0)).toBe(1500);
    expect(Number(all(scatter).find((e) => e.attrs.class === 'edges')!.attrs['data-count'])).toBe(1499);
    const tree = parseXml(readFileSync(f('t.svg'), 'utf8'));
    expect(all(tree).filter((e) => e.attrs.class === 'selected').length).toBe(k);
    const dendrogram = parseXml(readFileSync(f('d.svg'), 'utf8'));
    expect(all(dendrogram).filter((e) => e.attrs.class === 'link').length).toBe(11);

    const p = await runCliProcess([...args, '--plot', f('c.png'), '--plot-mst', '--plot-tree', f('t.PNG')]);
    expect(p.code, p.stderr).toBe(0);
    for (const [png, svg] of [
      ['c.png', 'c.svg'],
      ['t.PNG', 't.svg'],
    ]) {
      const got = pngSize(f(png));
      expect({ width: got.width, height: got.height }).toEqual(svgSize(readFileSync(f(svg), 'utf8')));
      expect(got.bytes).toBeGreaterThan(10_000); // a blank image would be a few hundred bytes
    }
  });

  it('--plot-columns picks columns by name or index; an unknown column is an input error', async () => {
    const out = join(dir, 'cols.svg');
    const r = await runCliProcess(['hdbscan', csv, '--backend', 'cpu', '--plot', out, '--plot-columns', 'b,0']);
    expect(r.code, r.stderr).toBe(0);
    const root = parseXml(readFileSync(out, 'utf8'));
    const text = (cls: string) => all(root).find((e) => e.attrs.class === cls)!.text;
    expect([text('xlabel'), text('ylabel')]).toEqual(['b', 'a']);
    const bad = await runCliProcess(['hdbscan', csv, '--backend', 'cpu', '--plot', out, '--plot-columns', 'a,z']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--plot-columns: no column 'z' among 3 (a, b, c)");
  });

  it('a wrong extension or a flag without --plot is an input error before anything is read', async () => {
    const cases: [string[], string][] = [
      [['--plot-tree', join(dir, 'tree.pdf')], `--plot-tree ${join(dir, 'tree.pdf')}: expected a .svg or .png file`],
      [['--plot-dendrogram', join(dir, 'd')], 'got no extension'],
      [['--plot-mst'], '--plot-mst draws on the --plot figure'],
      [['--plot-columns', '0,1'], '--plot-columns chooses the columns of --plot'],
    ];
    for (const [extra, message] of cases) {
      const r = await runCliProcess(['hdbscan', input, '--backend', 'cpu', '--verbose', ...extra]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stderr).not.toContain('hdbscan: read');
    }
    expect(existsSync(join(dir, 'tree.pdf'))).toBe(false);
  });
});

describe('treeline stats --log --bins --plot-tree-panel (child process)', () => {
  it('log bins of l and b in the JSON; the figure gains the tree panel; the panel needs --plot', async () => {
    const out = join(dir, 'stats.json');
    const fig = join(dir, 'stats.png');
    const r = await runCliProcess([
      'stats',
      input,
      '--backend',
      'cpu',
      '--log',
      '--bins',
      '30',
      '--plot',
      fig,
      '--plot-tree-panel',
      '-o',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(readFileSync(out, 'utf8'));
    for (const name of ['edgeLength', 'branchLength']) {
      const edges = Object.values(json.histograms[name].edges) as number[];
      expect(edges.length).toBe(31);
      expect(edges[0]).toBeGreaterThan(0);
      expect(edges[2] / edges[1]).toBeCloseTo(edges[1] / edges[0], 9);
    }
    expect((Object.values(json.histograms.branchShape.edges) as number[]).length).toBe(31);
    const png = pngSize(fig);
    expect(png.width).toBeGreaterThan(1200); // four columns and the tree panel
    expect(png.bytes).toBeGreaterThan(10_000);
    const bad = await runCliProcess(['stats', input, '--backend', 'cpu', '--plot-tree-panel']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--plot-tree-panel adds a panel to --plot');
  });
});
