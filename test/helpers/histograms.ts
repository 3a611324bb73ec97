/**
 * MstHistograms built by hand for the comparison and plot tests (independent of mstStats), plus a seeded fake
 * catalogue with MiSTree-like shapes for the plot.
 */
import { Random } from '../../src/datasets/random.js';
import type { Histogram, MstHistograms } from '../../src/stats/types.js';

/** A histogram from edges and counts; y normalised to unit area (NaN when all counts are 0) or equal to counts. */
export function hist(edges: ArrayLike<number>, counts: ArrayLike<number>, normalised = true): Histogram {
  const e = Float64Array.from(edges);
  const c = Float64Array.from(counts);
  const bins = c.length;
  if (e.length !== bins + 1) throw new Error(`hist: ${e.length} edges for ${bins} bins`);
  const x = new Float64Array(bins);
  for (let i = 0; i < bins; i++) x[i] = (e[i] + e[i + 1]) / 2;
  const total = c.reduce((s, v) => s + v, 0);
  const y = normalised ? c.map((v, i) => v / (total * (e[i + 1] - e[i]))) : Float64Array.from(c);
  return { edges: e, x, counts: c, y, normalised };
}

export function linspace(a: number, b: number, bins: number): Float64Array {
  return Float64Array.from({ length: bins + 1 }, (_, i) => a + ((b - a) * i) / bins);
}

/** Four histograms from per-statistic counts on unit bins 0 … k (degree on 0.5 … 6.5 when it has 6 bins). */
export function histograms(
  counts: { degree: number[]; edgeLength: number[]; branchLength: number[]; branchShape: number[] },
  normalised = false,
): MstHistograms {
  const unit = (c: number[], start = 0): Histogram => hist(linspace(start, start + c.length, c.length), c, normalised);
  return {
    degree: unit(counts.degree, counts.degree.length === 6 ? 0.5 : 0),
    edgeLength: unit(counts.edgeLength),
    branchLength: unit(counts.branchLength),
    branchShape: unit(counts.branchShape),
  };
}

/** A seeded fake MST histogram set with MiSTree's default bin counts (6, 100, 100, 50); `skew` shifts it a little. */
export function fakeHistograms(seed: number, skew = 0, points = 5000): MstHistograms {
  const r = new Random(seed);
  const deg = new Float64Array(6);
  const l = new Float64Array(100);
  const b = new Float64Array(100);
  const s = new Float64Array(50);
  for (let i = 0; i < points; i++) {
    const u = r.next();
    deg[u < 0.33 + skew ? 0 : u < 0.8 ? 1 : u < 0.95 ? 2 : u < 0.99 ? 3 : u < 0.998 ? 4 : 5]++;
    const li = Math.floor(Math.abs(0.3 + 0.12 * r.normal() * (1 + skew)) / 0.01);
    if (li < 100) l[li]++;
  }
  for (let i = 0; i < points * 0.3; i++) {
    const bi = Math.floor((0.4 + 0.4 * (-Math.log(1 - r.next())) ** 0.7) / 0.02);
    if (bi < 100) b[bi]++;
    s[Math.floor(Math.min(0.999, Math.abs(0.35 + 0.18 * r.normal())) * 50)]++;
  }
  return {
    degree: hist(linspace(0.5, 6.5, 6), deg),
    edgeLength: hist(linspace(0, 1, 100), l),
    branchLength: hist(linspace(0, 2, 100), b),
    branchShape: hist(linspace(0, 1, 50), s),
  };
}
