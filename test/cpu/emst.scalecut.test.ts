/**
 * Issue 7: MiSTree's scale cut, emst(points, { minEdgeLength }) — the minimum spanning forest of the complete graph
 * without the pairs shorter than the cut — on the CPU backend against Kruskal over the kept pairs.
 */
import { describe, expect, it } from 'vitest';
import { cutKey, weightOfKey } from '../../src/emst/distance.cpu.js';
import { emst } from '../../src/emst/emst.js';
import { cloud } from '../helpers/clouds.js';
import { periodicPoints } from '../helpers/periodic.js';
import { scaleCutKruskal } from '../helpers/scalecut.js';

const f32 = Math.fround;
const rows = (t: { sources: Uint32Array; targets: Uint32Array; weights: Float32Array }) =>
  Array.from(t.sources, (s, i) => [s, t.targets[i], t.weights[i]]);

describe('emst(points, { minEdgeLength }) on the CPU backend', () => {
  it('cutKey(l) is the smallest key whose weight is >= fround(l)', () => {
    for (const l of [1e-3, 0.1, 0.5, 1, 3, 12.345, 1e10]) {
      const k = cutKey(l);
      expect(weightOfKey(k)).toBeGreaterThanOrEqual(f32(l));
      const below = new Float32Array(1);
      new Uint32Array(below.buffer)[0] = new Uint32Array(Float32Array.of(k).buffer)[0] - 1;
      expect(weightOfKey(below[0])).toBeLessThan(f32(l));
    }
    expect(cutKey(0)).toBe(0);
  });

  for (const [kind, dim, n, cut] of [
    ['clustered', 2, 400, 0.05],
    ['clustered', 3, 400, 0.2],
    ['normal', 2, 300, 0.1],
    ['grid', 2, 300, 1.5],
    ['grid', 3, 300, 1],
    ['uniform', 5, 200, 0.3],
  ] as const) {
    it(`${kind} d=${dim} n=${n}, cut ${cut}: Kruskal over the kept pairs`, async () => {
      const p = cloud(kind, n, dim, 7 + dim);
      const got = await emst(p, { dim, minEdgeLength: cut, backend: 'cpu' });
      const want = scaleCutKruskal(p, dim, cut);
      expect(rows(got)).toEqual(want);
      for (const w of got.weights) expect(w).toBeGreaterThanOrEqual(f32(cut));
    });
  }

  it('all-identical points: no pair is kept, no edge', async () => {
    const got = await emst(new Float32Array(30).fill(2), { dim: 3, minEdgeLength: 0.5, backend: 'cpu' });
    expect(got.sources.length).toBe(0);
  });

  it('pairs of duplicates far apart: a forest of n − c edges', async () => {
    // Two tight clumps of 3 identical points, 10 apart: every edge inside a clump is cut; 3 edges of length 10
    // join the clumps' points pairwise across... the forest spans all six points with 5 edges of length 10.
    const p = new Float32Array([0, 0, 0, 0, 0, 0, 10, 0, 10, 0, 10, 0]);
    const got = await emst(p, { dim: 2, minEdgeLength: 1, backend: 'cpu' });
    expect(rows(got)).toEqual(scaleCutKruskal(p, 2, 1));
    expect(got.sources.length).toBe(5);
  });

  it('with a periodic box', async () => {
    const box = [1, 1];
    const p = periodicPoints('faces', 400, box, 3);
    const got = await emst(p, { dim: 2, box, minEdgeLength: 0.03, backend: 'cpu' });
    expect(rows(got)).toEqual(scaleCutKruskal(p, 2, 0.03, box));
  });

  it('rejects a bad cut or one with mutual reachability', async () => {
    const p = new Float32Array(12);
    await expect(emst(p, { dim: 2, minEdgeLength: -1 })).rejects.toThrow(
      /minEdgeLength to be a finite number >= 0, got -1/,
    );
    await expect(emst(p, { dim: 2, minEdgeLength: 1, minSamples: 3 })).rejects.toThrow(/Euclidean MST only/);
  });
});

describe('emst(points, { minEdgeLength }) beyond every pair', () => {
  it('a cut longer than the scene returns no edge at once (the search would be quadratic), and progress reaches 1', async () => {
    const p = cloud('uniform', 20000, 3, 5); // inside the unit cube: no pair is longer than √3
    let last = 0;
    const got = await emst(p, { dim: 3, minEdgeLength: 10, backend: 'cpu', onProgress: (f) => (last = f) });
    expect(got.sources.length).toBe(0);
    expect(last).toBe(1);
    // Just below the longest pair, the forest is found by the search and equals Kruskal's.
    const small = cloud('uniform', 300, 2, 6);
    const got2 = await emst(small, { dim: 2, minEdgeLength: 1.2, backend: 'cpu' });
    expect(rows(got2)).toEqual(scaleCutKruskal(small, 2, 1.2));
  });
});
