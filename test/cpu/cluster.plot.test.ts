/**
 * issue 21, item 4: hdbscan's pictures as SVG — the condensed tree, the single-linkage dendrogram, the MST over the
 * points and the labelled scatter. Structure, not snapshots: the SVG is well-formed XML, every coordinate is
 * finite, and the figure draws one icicle per cluster, one ring per selected cluster, p − 1 links over p leaves
 * holding all n points, n − 1 edges, and every point once (or the seeded sample beyond maxPoints).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { condensedTreeSvg, dendrogramSvg } from '../../src/cluster/plot.js';
import type { SingleLinkageTree } from '../../src/cluster/types.js';
import { generate } from '../../src/datasets/generate.js';
import { hdbscan } from '../../src/hdbscan.js';
import { sampleIndices, scatterSvg, spanningTreeSvg } from '../../src/plot/points.js';
import { all, numbersIn, parseXml, type Element } from '../helpers/xml.js';

const byClass = (root: Element, name: string, cls: string): Element[] =>
  all(root).filter((e) => e.name === name && (e.attrs.class ?? '').split(' ').includes(cls));

function checkSvg(svg: string): Element {
  const root = parseXml(svg);
  expect(root.name).toBe('svg');
  for (const v of numbersIn(root)) expect(Number.isFinite(v)).toBe(true);
  return root;
}

const textOf = (e: Element): string => e.text + e.children.map(textOf).join('');

async function fit(n: number, minClusterSize: number, minSamples: number, duplicates = 0) {
  const base = generate('blobs', { n, dim: 2, seed: 7, clusters: 3 });
  const points = new Float64Array(base.length + 2 * duplicates);
  points.set(base);
  for (let i = 0; i < duplicates; i++) points.set([base[0], base[1]], base.length + 2 * i);
  const r = await hdbscan(points, {
    keep: { mst: true, singleLinkage: true },
    dim: 2,
    minClusterSize,
    minSamples,
    backend: 'cpu',
  });
  return { points, r, n: n + duplicates };
}

describe('condensedTreeSvg', () => {
  it('condensedTreeSvg(tree) draws one icicle per cluster and rings each selected cluster in its label order', async () => {
    const { r } = await fit(600, 15, 15);
    const root = checkSvg(condensedTreeSvg(r.condensedTree, { selectedClusters: r.selectedClusters }));
    const icicles = byClass(root, 'g', 'icicle');
    expect(icicles.length).toBe(r.condensedTree.numClusters);
    expect(new Set(icicles.map((g) => Number(g.attrs['data-cluster'])))).toEqual(
      new Set(Array.from({ length: r.condensedTree.numClusters }, (_, i) => r.condensedTree.numPoints + i)),
    );
    // The root's icicle holds every point; each icicle draws at most 20 rectangles.
    expect(
      Number(icicles.find((g) => Number(g.attrs['data-cluster']) === r.condensedTree.numPoints)!.attrs['data-size']),
    ).toBe(r.condensedTree.numPoints);
    for (const g of icicles)
      (expect(g.children.length).toBeGreaterThan(0), expect(g.children.length).toBeLessThanOrEqual(21));
    const rings = byClass(root, 'ellipse', 'selected');
    expect(r.selectedClusters.length).toBeGreaterThan(1);
    expect(rings.map((e) => Number(e.attrs['data-label']))).toEqual([...r.selectedClusters.keys()]);
    // One λ axis with its label, a colour bar, a legend entry per selected cluster; no ∞ marker without duplicates.
    expect(byClass(root, 'text', 'ylabel').map(textOf)).toEqual(['λ value']);
    expect(byClass(root, 'g', 'colourbar').length).toBe(1);
    expect(byClass(root, 'g', 'legend')[0].children.filter((e) => e.name === 'text').length).toBe(
      r.selectedClusters.length,
    );
    expect(byClass(root, 'g', 'infinity').length).toBe(0);
  });

  it('condensedTreeSvg(tree) draws λ = ∞ (duplicate points) at a marked line below the largest finite λ', async () => {
    const { r } = await fit(300, 5, 2, 12);
    expect(r.condensedTree.lambda.some((l) => l === Infinity)).toBe(true);
    const svg = condensedTreeSvg(r.condensedTree, { selectedClusters: r.selectedClusters });
    const root = checkSvg(svg);
    expect(byClass(root, 'g', 'infinity').length).toBe(1);
    expect(byClass(root, 'text', 'infinity-tick').map(textOf)).toEqual(['∞']);
  });

  it('condensedTreeSvg(tree) of a tree that never splits draws the root alone', async () => {
    const { r } = await fit(40, 30, 5);
    const root = checkSvg(condensedTreeSvg(r.condensedTree, { selectedClusters: r.selectedClusters }));
    expect(byClass(root, 'g', 'icicle').length).toBe(r.condensedTree.numClusters);
    expect(byClass(root, 'ellipse', 'selected').length).toBe(r.selectedClusters.length);
  });
});

/** The points under each dendrogram leaf: a point id counts 1, '(k)' counts k. */
const leafPoints = (root: Element): number[] =>
  byClass(root, 'text', 'leaf').map((t) => {
    const s = textOf(t);
    return s.startsWith('(') ? Number(s.slice(1, -1)) : 1;
  });

describe('dendrogramSvg', () => {
  it('dendrogramSvg(linkage, { p }) draws the last p − 1 merges over p leaves that hold all n points', async () => {
    const { r, n } = await fit(500, 10, 10);
    for (const p of [2, 12, 30]) {
      const root = checkSvg(dendrogramSvg(r.singleLinkage!, { p }));
      expect(byClass(root, 'path', 'link').length).toBe(p - 1);
      const leaves = leafPoints(root);
      expect(leaves.length).toBe(p);
      expect(leaves.reduce((a, b) => a + b, 0)).toBe(n);
      expect(byClass(root, 'text', 'ylabel').map(textOf)).toEqual(['distance']);
    }
  });

  it('dendrogramSvg(linkage) of n ≤ p points draws every merge and labels each point by id', async () => {
    const { r } = await fit(20, 5, 3);
    const root = checkSvg(dendrogramSvg(r.singleLinkage!, { p: 30, distanceLabel: 'mutual reachability distance' }));
    expect(byClass(root, 'path', 'link').length).toBe(19);
    expect(
      byClass(root, 'text', 'leaf')
        .map((t) => Number(textOf(t)))
        .sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('dendrogramSvg(linkage) clips an infinite merge distance to a marked line', () => {
    const tree: SingleLinkageTree = {
      left: Uint32Array.from([0, 3]),
      right: Uint32Array.from([1, 2]),
      distance: Float64Array.from([0.5, Infinity]),
      size: Uint32Array.from([2, 3]),
    };
    const root = checkSvg(dendrogramSvg(tree));
    expect(byClass(root, 'path', 'link').length).toBe(2);
    expect(byClass(root, 'path', 'infinity').length).toBe(1);
  });
});

describe('spanningTreeSvg and scatterSvg', () => {
  const count = (root: Element): number =>
    byClass(root, 'g', 'points').reduce((s, g) => s + Number(g.attrs['data-count']), 0);

  it('spanningTreeSvg(points, { mst }) draws n − 1 edges under n points with a colour bar', async () => {
    const { points, r, n } = await fit(400, 10, 10);
    const root = checkSvg(spanningTreeSvg(points, { dim: 2, edges: r.mst! }));
    expect(Number(byClass(root, 'g', 'edges')[0].attrs['data-count'])).toBe(n - 1);
    expect(count(root)).toBe(n);
    expect(byClass(root, 'g', 'colourbar').length).toBe(1);
    expect(byClass(root, 'text', 'xlabel').map(textOf)).toEqual(['x[0]']);
  });

  it('scatterSvg(points, { labels }) draws every point once, noise grey, and a legend of cluster sizes', async () => {
    const { points, r, n } = await fit(600, 15, 15);
    const root = checkSvg(scatterSvg(points, { dim: 2, labels: r.labels }));
    expect(count(root)).toBe(n);
    const groups = byClass(root, 'g', 'points');
    const k = r.selectedClusters.length;
    const noise = r.labels.filter((l) => l < 0).length;
    expect(groups.length).toBe(k + (noise > 0 ? 1 : 0));
    for (const g of groups) {
      const label = Number(g.attrs['data-label']);
      expect(Number(g.attrs['data-count'])).toBe(r.labels.filter((l) => (l < 0 ? -1 : l) === label).length);
      if (label < 0) expect(g.attrs.fill).toBe('#b0b0b0');
    }
    const entries = byClass(root, 'g', 'legend')[0]
      .children.filter((e) => e.name === 'text')
      .map(textOf);
    expect(entries.length).toBe(k + (noise > 0 ? 1 : 0));
    if (noise > 0) expect(entries.at(-1)).toBe(`noise (${noise})`);
    expect(entries[0]).toBe(`cluster 0 (${r.labels.filter((l) => l === 0).length})`);
  });

  it('scatterSvg(points, { columns }) draws the chosen columns and refuses one out of range', () => {
    const points = generate('blobs', { n: 200, dim: 3, seed: 2, clusters: 2 });
    const root = checkSvg(scatterSvg(points, { dim: 3, columns: [2, 0] }));
    expect(byClass(root, 'text', 'xlabel').map(textOf)).toEqual(['x[2]']);
    expect(byClass(root, 'text', 'ylabel').map(textOf)).toEqual(['x[0]']);
    expect(() => scatterSvg(points, { dim: 3, columns: [0, 3] })).toThrow(/plot columns in 0 … 2, got 3/);
    expect(() => scatterSvg(points, { dim: 3, labels: new Int32Array(5) })).toThrow(/Expected 200 labels/);
  });

  it('scatterSvg beyond maxPoints draws a seeded sample, says so, and stays the same from call to call', () => {
    const n = 3000;
    const points = generate('uniform', { n, dim: 2, seed: 5 });
    const labels = Int32Array.from({ length: n }, (_, i) => (i % 7) - 1);
    const svg = scatterSvg(points, { dim: 2, labels, maxPoints: 1000 });
    const root = checkSvg(svg);
    expect(count(root)).toBe(1000);
    expect(byClass(root, 'text', 'note').map(textOf)).toEqual(['1,000 of 3,000 points drawn (seeded sample)']);
    expect(scatterSvg(points, { dim: 2, labels, maxPoints: 1000 })).toBe(svg);
    const s = sampleIndices(n, 1000, 1);
    expect(new Set(s).size).toBe(1000);
    for (let i = 1; i < s.length; i++) expect(s[i]).toBeGreaterThan(s[i - 1]);
  });

  it('scatterSvg of 120 000 points stays a few MB: squares in one path per label', () => {
    const n = 120_000;
    const points = generate('uniform', { n, dim: 2, seed: 9 });
    const labels = Int32Array.from({ length: n }, (_, i) => (i % 3) - 1);
    const svg = scatterSvg(points, { dim: 2, labels });
    expect(svg.length).toBeLessThan(4_000_000);
    const root = parseXml(svg);
    expect(count(root)).toBe(100_000);
    expect(byClass(root, 'g', 'points').every((g) => g.children.length === 1 && g.children[0].name === 'path')).toBe(
      true,
    );
  });
});

describe('the drawing code runs in browsers', () => {
  it('src/plot/*, src/cluster/plot.ts and src/stats/plot.ts import no Node module and only other drawing code', () => {
    const files = ['src/plot/svg.ts', 'src/plot/points.ts', 'src/cluster/plot.ts', 'src/stats/plot.ts'];
    for (const file of files) {
      const source = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
      const imports = [...source.matchAll(/^import[^;]*?from '([^']+)'/gm)].map((m) => m[1]);
      for (const spec of imports) expect(spec.startsWith('.'), `${file} imports ${spec}`).toBe(true);
    }
  });
});
