/**
 * Golden tests of mstStats() against MiSTree 2.x's statistics (test/golden/mistree; test/golden/README.md says how each
 * case was made): for every case, the EMST that treeline's CPU backend computes has the golden tree's edges, and the
 * degree, edge-length, branch-length, branch-shape and edge-count multisets and the four histograms (x and y) equal
 * the golden ones to float32 rounding (relative 2^-24; ours are float64 from the same float32 coordinates).
 *
 * The files are in the repository (test/helpers/golden.ts reads them); a missing one is a failure, never a skip.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mstStats, type MstStats } from '../../src/stats/mstStats.js';
import { goldenExists, MISTREE_DIR as DIR, parseGoldenJson, readGoldenText, readPointsCsv } from '../helpers/golden.js';

interface GoldenStats {
  meta: { n: number; dim: number; mode: string; graph: string; n_branches: number };
  raw: {
    degree: number[];
    edge_length: number[];
    edge_index: [number, number][];
    branch_length: number[];
    branch_shape: number[];
    branch_edge_count: number[];
  };
  hist: Record<'x_d' | 'y_d' | 'x_l' | 'y_l' | 'x_b' | 'y_b' | 'x_s' | 'y_s', number[]> & { usenorm: boolean };
  made_by: string;
}

/** Largest |a − b| / max(|b|, tiny) over sorted copies (NaN must meet NaN). */
function worstRelSorted(ours: ArrayLike<number>, golden: number[]): number {
  const a = Float64Array.from(ours).sort();
  const b = Float64Array.from(golden).sort();
  expect(a.length).toBe(b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    if (Number.isNaN(a[i]) || Number.isNaN(b[i])) {
      if (!(Number.isNaN(a[i]) && Number.isNaN(b[i]))) return Infinity;
      continue;
    }
    worst = Math.max(worst, Math.abs(a[i] - b[i]) / Math.max(Math.abs(b[i]), 1e-300));
  }
  return worst;
}

/** Largest relative difference, elementwise in order; exact zeros must match exactly. */
function worstRel(ours: ArrayLike<number>, golden: number[]): number {
  expect(ours.length).toBe(golden.length);
  let worst = 0;
  for (let i = 0; i < golden.length; i++) {
    const d = Math.abs(ours[i] - golden[i]);
    worst = Math.max(worst, golden[i] === 0 ? (d === 0 ? 0 : Infinity) : d / Math.abs(golden[i]));
  }
  return worst;
}

/** Float32 rounding: half an ulp relative. */
const F32 = 2 ** -24;

function edgeKeys(sources: ArrayLike<number>, targets: ArrayLike<number>): string[] {
  return Array.from(sources, (s, i) => `${Math.min(s, targets[i])}-${Math.max(s, targets[i])}`).sort();
}

function expectGolden(r: MstStats, g: GoldenStats): void {
  expect(r.n).toBe(g.meta.n);
  // The tree: the same edges as the golden EMST (MiSTree's kNN graph or the Delaunay EMST).
  expect(edgeKeys(r.edgeSources, r.edgeTargets)).toEqual(
    edgeKeys(
      g.raw.edge_index.map((e) => e[0]),
      g.raw.edge_index.map((e) => e[1]),
    ),
  );
  // Degree per node: the node order is the input order, so it compares elementwise.
  expect(Array.from(r.degree)).toEqual(g.raw.degree);
  expect(worstRelSorted(r.edgeLengths, g.raw.edge_length)).toBeLessThanOrEqual(F32);
  expect(r.branchLengths.length).toBe(g.meta.n_branches);
  expect(worstRelSorted(r.branchLengths, g.raw.branch_length)).toBeLessThanOrEqual(F32);
  expect(worstRelSorted(r.branchShapes, g.raw.branch_shape)).toBeLessThanOrEqual(F32);
  expect(Array.from(r.branchEdgeCounts).sort((a, b) => a - b)).toEqual(
    [...g.raw.branch_edge_count].sort((a, b) => a - b),
  );
  const h = r.histograms;
  const pairs = [
    [h.degree, 'd'],
    [h.edgeLength, 'l'],
    [h.branchLength, 'b'],
    [h.branchShape, 's'],
  ] as const;
  for (const [hist, k] of pairs) {
    expect(hist.normalised).toBe(g.hist.usenorm);
    expect(worstRel(hist.x, g.hist[`x_${k}`]), `x_${k}`).toBeLessThanOrEqual(F32);
    expect(worstRel(hist.y, g.hist[`y_${k}`]), `y_${k}`).toBeLessThanOrEqual(F32);
  }
}

const cases = readdirSync(DIR)
  .filter((c) => goldenExists(join(DIR, c, 'stats.json')))
  .sort();

describe('mstStats reproduces MiSTree 2.x on the golden cases (test/golden/mistree)', () => {
  it('has the four cases of the README', () => {
    expect(cases).toEqual(['clustered3d-5000', 'radec-3000', 'uniform2d-5000', 'uniform3d-5000']);
  });

  for (const name of cases) {
    it(`${name}: degree, l, b, s, edge counts and histograms from the CPU EMST`, async () => {
      const g = parseGoldenJson<GoldenStats>(readGoldenText(join(DIR, name, 'stats.json')));
      const { points, dim } = readPointsCsv(join(DIR, name, 'points.csv'));
      const celestial = g.meta.mode.includes('celestial');
      const r = await mstStats(points, { dim, coords: celestial ? 'radec' : 'cartesian', backend: 'cpu' });
      expect(r.backend).toBe('cpu');
      expectGolden(r, g);
    });
  }

  it('radec-3000: the angle-over-chords shape exceeds 1 on 6 branches, whose √(1 − s) is NaN and falls in no bin', async () => {
    const { points, dim } = readPointsCsv(join(DIR, 'radec-3000', 'points.csv'));
    const r = await mstStats(points, { dim, coords: 'radec', backend: 'cpu' });
    const over = Array.from(r.branchShapes).filter((s) => s > 1).length;
    expect(over).toBe(6);
    const inBins = r.histograms.branchShape.counts.reduce((s, c) => s + c, 0);
    expect(inBins).toBe(r.branchShapes.length - over);
  });

  it('the golden tree given as options.emst gives the same statistics as computing it', async () => {
    const name = 'uniform2d-5000';
    const g = parseGoldenJson<GoldenStats>(readGoldenText(join(DIR, name, 'stats.json')));
    const { points, dim } = readPointsCsv(join(DIR, name, 'points.csv'));
    const tree = {
      sources: Uint32Array.from(g.raw.edge_index, (e) => e[0]),
      targets: Uint32Array.from(g.raw.edge_index, (e) => e[1]),
    };
    const r = await mstStats(points, { dim, emst: tree });
    expect(r.backend).toBe('given');
    expectGolden(r, g);
  });
});
