import { inverse, Matrix, pseudoInverse } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { Random } from '../../src/datasets/random.js';
import { InputError } from '../../src/errors.js';
import { compareCatalogues, compareStats } from '../../src/stats/compare.js';
import { jitter, subsample } from '../../src/stats/resample.js';
import type { MstHistograms } from '../../src/stats/types.js';
import { fakeHistograms, hist, histograms, linspace } from '../helpers/histograms.js';

/** Constant statistics (the same in every realisation and the catalogue): zero variance, so no bin is used. */
const constant = { degree: [10, 20, 5, 1, 0, 0], branchLength: [3, 1], branchShape: [2, 2] };

/**
 * The hand case: edge-length histograms of 2 bins in 5 realisations.
 *   realisations (1,2) (2,1) (3,4) (4,3) (5,5); mean (3,3)
 *   deviations (−2,−1) (−1,−2) (0,1) (1,0) (2,2)
 *   C = 1/4 · [[10, 8], [8, 10]] = [[2.5, 2], [2, 2.5]],  det C = 6.25 − 4 = 2.25
 *   C⁻¹ = 1/2.25 · [[2.5, −2], [−2, 2.5]]
 *   catalogue (4,2): Δ = (1, −1); ΔᵀC⁻¹Δ = (2.5 + 2 + 2 + 2.5) / 2.25 = 4
 *   Hartlap (N − p − 2)/(N − 1) = (5 − 2 − 2)/4 = 1/4, so χ² = 1 with 2 degrees of freedom.
 */
const handRows = [
  [1, 2],
  [2, 1],
  [3, 4],
  [4, 3],
  [5, 5],
];
/** The unbiased sample covariance of the realisations' edge-length y, and catalogue − mean as a column. */
function sampleCovariance(reals: MstHistograms[], catalogue: ArrayLike<number>): { cov: Matrix; delta: Matrix } {
  const rows = reals.map((h) => Array.from(h.edgeLength.y));
  const p = rows[0].length;
  const mean = Array.from({ length: p }, (_, j) => rows.reduce((s, v) => s + v[j], 0) / rows.length);
  const cov = Matrix.zeros(p, p);
  for (const v of rows) {
    for (let i = 0; i < p; i++)
      for (let j = 0; j < p; j++)
        cov.set(i, j, cov.get(i, j) + ((v[i] - mean[i]) * (v[j] - mean[j])) / (rows.length - 1));
  }
  return { cov, delta: Matrix.columnVector(mean.map((m, j) => catalogue[j] - m)) };
}

const handCatalogue = histograms({ ...constant, edgeLength: [4, 2] });
const handRealisations = handRows.map((edgeLength) => histograms({ ...constant, edgeLength }));

describe('compareStats', () => {
  it('compareStats χ² equals the hand computation on 2 bins and 5 realisations (χ² = 1, Hartlap 1/4)', () => {
    const c = compareStats(handCatalogue, handRealisations);
    expect(c.realisations).toBe(5);
    expect(c.inversion).toBe('pseudoInverse');
    const l = c.edgeLength;
    expect(Array.from(l.mean)).toEqual([3, 3]);
    expect(l.std[0]).toBeCloseTo(Math.sqrt(2.5), 14);
    expect(l.std[1]).toBeCloseTo(Math.sqrt(2.5), 14);
    expect(Array.from(l.ratio)).toEqual([4 / 3, 2 / 3]);
    expect(l.ratioSigma[0]).toBeCloseTo(Math.sqrt(2.5) / 3, 14);
    expect(Array.from(l.chi2!.bins)).toEqual([0, 1]);
    expect(l.chi2!.binsUsed).toBe(2);
    expect(l.chi2!.dof).toBe(2);
    expect(l.chi2!.hartlap).toBe(0.25);
    expect(l.chi2!.chi2Uncorrected).toBeCloseTo(4, 12);
    expect(l.chi2!.chi2).toBeCloseTo(1, 12);
    // The constant statistics have no varying bin: χ² 0 over 0 bins.
    expect(c.degree.chi2).toMatchObject({ chi2: 0, dof: 0, binsUsed: 0 });
    expect(c.degree.chi2!.bins.length).toBe(0);
    // Jointly: only the two edge-length bins take part, so the joint χ² is the same.
    expect(c.joint!.statistics).toEqual(['degree', 'edgeLength', 'branchLength', 'branchShape']);
    expect(c.joint!.binsUsed).toBe(2);
    expect(c.joint!.chi2).toBeCloseTo(1, 12);
    expect(Array.from(c.joint!.bins.edgeLength!)).toEqual([0, 1]);
  });

  it('compareStats joint χ² holds the cross-covariance between statistics (the hand case split over l and b)', () => {
    // l and b get one bin each, holding the two columns of the hand case: each alone has
    // χ² = h · Δ²/σ² = (5 − 1 − 2)/4 · 1/2.5 = 0.2; jointly the 2 × 2 case above, χ² = 1 (not 0.4).
    const cat = histograms({ ...constant, edgeLength: [4], branchLength: [2] });
    const reals = handRows.map(([a, b]) => histograms({ ...constant, edgeLength: [a], branchLength: [b] }));
    const c = compareStats(cat, reals);
    expect(c.edgeLength.chi2!.hartlap).toBe(0.5);
    expect(c.edgeLength.chi2!.chi2).toBeCloseTo(0.2, 12);
    expect(c.branchLength.chi2!.chi2).toBeCloseTo(0.2, 12);
    expect(c.joint!.binsUsed).toBe(2);
    expect(c.joint!.hartlap).toBe(0.25);
    expect(c.joint!.chi2).toBeCloseTo(1, 12);
    expect(c.joint!.dof).toBe(2);
  });

  it('compareStats applies the Hartlap factor (N − p − 2)/(N − 1) and matches an LU inverse when C has full rank', () => {
    const r = new Random(7);
    const row = (): number[] => [10 + 3 * r.normal(), 20 + 4 * r.normal(), 5 + r.normal()];
    const reals = Array.from({ length: 10 }, () => histograms({ ...constant, edgeLength: row() }));
    const cat = histograms({ ...constant, edgeLength: row() });
    const c = compareStats(cat, reals, { chi2: ['edgeLength'] });
    const chi = c.edgeLength.chi2!;
    expect(chi.binsUsed).toBe(3);
    expect(chi.hartlap).toBeCloseTo((10 - 3 - 2) / (10 - 1), 15);
    expect(chi.chi2).toBeCloseTo(chi.hartlap * chi.chi2Uncorrected, 12);
    // Independent check: the sample covariance built here, inverted by LU.
    const { cov, delta } = sampleCovariance(reals, cat.edgeLength.y);
    const q = delta.transpose().mmul(inverse(cov)).mmul(delta).get(0, 0);
    expect(chi.chi2Uncorrected).toBeCloseTo(q, 9);
    // Only edgeLength was asked for: the others have no χ², the joint is edgeLength alone.
    expect(c.degree.chi2).toBeNull();
    expect(c.joint!.statistics).toEqual(['edgeLength']);
    expect(c.joint!.chi2).toBeCloseTo(chi.chi2, 12);
  });

  it('compareStats on normalised histograms: the sum constraint leaves C rank p − 1, reported as dof', () => {
    const r = new Random(3);
    const make = (): MstHistograms =>
      histograms({ ...constant, edgeLength: [50 + 7 * r.normal(), 80 + 9 * r.normal(), 30 + 5 * r.normal()] }, true);
    const reals = Array.from({ length: 30 }, make);
    const c = compareStats(make(), reals, { chi2: ['edgeLength'] });
    expect(c.edgeLength.chi2!.binsUsed).toBe(3);
    expect(c.edgeLength.chi2!.dof).toBe(2);
    expect(Number.isFinite(c.edgeLength.chi2!.chi2)).toBe(true);
    expect(c.edgeLength.chi2!.chi2).toBeGreaterThanOrEqual(0);
    // The same quadratic form through ml-matrix's own pseudoInverse of the sample covariance.
    const { cov, delta } = sampleCovariance(reals, c.edgeLength.catalogue);
    const q = delta.transpose().mmul(pseudoInverse(cov)).mmul(delta).get(0, 0);
    expect(c.edgeLength.chi2!.chi2Uncorrected).toBeCloseTo(q, 9);
  });

  it('compareStats drops zero-variance bins, reports them, and flags a catalogue that differs there', () => {
    const reals = handRows.map(([a, b]) => histograms({ ...constant, edgeLength: [a, 7, b, 0] }));
    const cat = histograms({ ...constant, edgeLength: [4, 7, 2, 1] });
    const c = compareStats(cat, reals, { chi2: ['edgeLength'] });
    expect(Array.from(c.edgeLength.chi2!.bins)).toEqual([0, 2]);
    expect(c.edgeLength.chi2!.chi2).toBeCloseTo(1, 12);
    expect(Array.from(c.edgeLength.zeroVarianceDiffering)).toEqual([3]);
    expect(c.edgeLength.ratio[3]).toBe(Infinity);
  });

  it('compareStats with chi2: [] needs one realisation only (std NaN) and returns ratios', () => {
    const c = compareStats(handCatalogue, [handRealisations[2]], { chi2: [] });
    expect(c.joint).toBeNull();
    expect(c.edgeLength.chi2).toBeNull();
    expect(Array.from(c.edgeLength.ratio)).toEqual([4 / 3, 2 / 4]);
    expect(Number.isNaN(c.edgeLength.std[0])).toBe(true);
  });

  it('compareStats values: counts compares raw counts of normalised histograms', () => {
    const cat = histograms({ ...constant, edgeLength: [4, 2] }, true);
    const reals = handRows.map((edgeLength) => histograms({ ...constant, edgeLength }, true));
    const c = compareStats(cat, reals, { values: 'counts', chi2: ['edgeLength'] });
    expect(c.values).toBe('counts');
    expect(c.edgeLength.chi2!.chi2).toBeCloseTo(1, 12);
  });
});

describe('compareStats input errors', () => {
  const throws = (f: () => unknown, message: RegExp): void => {
    expect(f).toThrow(InputError);
    expect(f).toThrow(message);
  };

  it('compareStats throws InputError for zero realisations', () => {
    throws(() => compareStats(handCatalogue, []), /at least one realisation.*got 0/);
  });

  it('compareStats throws InputError for χ² with a single realisation (no covariance)', () => {
    throws(() => compareStats(handCatalogue, [handRealisations[0]]), /at least 2 realisations.*got 1.*chi2 = \[\]/);
  });

  it('compareStats throws InputError naming the realisation, statistic and edge that differ', () => {
    const bad = handRealisations.slice();
    const shifted = histograms({ ...constant, edgeLength: [1, 1] });
    shifted.edgeLength = hist([0, 1.5, 2], [1, 1], false);
    bad[3] = shifted;
    throws(
      () => compareStats(handCatalogue, bad),
      /realisations\[3\]\.edgeLength.*edges\[1\] = 1\.5.*catalogue has 1\b/,
    );
  });

  it('compareStats throws InputError when a realisation has another number of bins', () => {
    const bad = [...handRealisations, histograms({ ...constant, edgeLength: [1, 2, 3] })];
    throws(() => compareStats(handCatalogue, bad), /realisations\[5\]\.edgeLength.*catalogue's 2 bins, got 3/);
  });

  it('compareStats throws InputError when N ≤ p + 2, saying how many realisations are needed', () => {
    throws(
      () => compareStats(handCatalogue, handRealisations.slice(0, 4), { chi2: ['edgeLength'] }),
      /edgeLength uses p = 2 bins.*at least 5.*got N = 4/,
    );
    // The joint χ² needs more than each statistic alone: two 1-bin statistics, 4 realisations.
    const cat = histograms({ ...constant, edgeLength: [4], branchLength: [2] });
    const reals = handRows.slice(0, 4).map(([a, b]) => histograms({ ...constant, edgeLength: [a], branchLength: [b] }));
    throws(() => compareStats(cat, reals), /edgeLength \+ branchLength jointly uses p = 2 bins.*at least 5/);
  });

  it('compareStats throws InputError for mixed normalisation, unknown statistics and non-finite values', () => {
    const normalised = histograms({ ...constant, edgeLength: [4, 2] }, true);
    throws(() => compareStats(normalised, handRealisations), /normalised = true.*got false/);
    throws(() => compareStats(handCatalogue, handRealisations, { chi2: ['volume' as never] }), /'volume'/);
    const empty = histograms({ ...constant, edgeLength: [0, 0] }, true);
    const reals = handRows.map((edgeLength) => histograms({ ...constant, edgeLength }, true));
    throws(() => compareStats(empty, reals, { chi2: ['edgeLength'] }), /finite catalogue\.edgeLength.*bin 0 = NaN/);
  });
});

describe('compareCatalogues', () => {
  it('compareCatalogues gives a / b per bin with Poisson errors |r|·√(1/Na + 1/Nb)', () => {
    const a = histograms({ ...constant, edgeLength: [100, 50, 0] });
    const b = histograms({ ...constant, edgeLength: [50, 100, 10] });
    const c = compareCatalogues(a, b);
    expect(Array.from(c.edgeLength.ratio)).toEqual([2, 0.5, 0]);
    expect(c.edgeLength.ratioError[0]).toBeCloseTo(2 * Math.sqrt(1 / 100 + 1 / 50), 14);
    expect(c.edgeLength.ratioError[1]).toBeCloseTo(0.5 * Math.sqrt(1 / 50 + 1 / 100), 14);
    expect(Number.isNaN(c.edgeLength.ratioError[2])).toBe(true);
    expect(Array.from(c.degree.ratio.slice(0, 4))).toEqual([1, 1, 1, 1]);
  });

  it('compareCatalogues on normalised histograms divides the normalised values (totals as exact)', () => {
    // a has twice b's total: normalised, the first bin's ratio is (100/150) / (100/300) = 2.
    const a = histograms({ ...constant, edgeLength: [100, 50] }, true);
    const b = histograms({ ...constant, edgeLength: [100, 200] }, true);
    const c = compareCatalogues(a, b);
    expect(c.edgeLength.ratio[0]).toBeCloseTo(2, 14);
    expect(c.edgeLength.ratio[1]).toBeCloseTo(0.5, 14);
    expect(c.edgeLength.ratioError[0]).toBeCloseTo(2 * Math.sqrt(1 / 100 + 1 / 100), 14);
  });

  it('compareCatalogues throws InputError on different bins or normalisation', () => {
    const a = histograms({ ...constant, edgeLength: [1, 2] });
    expect(() => compareCatalogues(a, histograms({ ...constant, edgeLength: [1, 2] }, true))).toThrow(
      /b\.\w+\.normalised/,
    );
    const b = histograms({ ...constant, edgeLength: [1, 2] });
    b.branchShape = hist(linspace(0, 3, 2), [2, 2], false);
    expect(() => compareCatalogues(a, b)).toThrow(InputError);
    expect(() => compareCatalogues(a, b)).toThrow(/b\.branchShape.*edges\[1\] = 1\.5 where the a has 1/);
  });

  it('compareStats runs on MiSTree-sized histograms (6 + 100 + 100 + 50 bins) with enough realisations', () => {
    const reals = Array.from({ length: 300 }, (_, i) => fakeHistograms(100 + i, 0, 400));
    const c = compareStats(fakeHistograms(1, 0, 400), reals);
    const used = c.joint!.binsUsed;
    expect(used).toBe(
      c.degree.chi2!.binsUsed +
        c.edgeLength.chi2!.binsUsed +
        c.branchLength.chi2!.binsUsed +
        c.branchShape.chi2!.binsUsed,
    );
    expect(c.joint!.hartlap).toBeCloseTo((300 - used - 2) / 299, 14);
    // Degree is normalised and every node has a degree in 1 … 6: one constraint.
    expect(c.degree.chi2!.dof).toBe(c.degree.chi2!.binsUsed - 1);
    expect(Number.isFinite(c.joint!.chi2)).toBe(true);
  });
});

describe('subsample', () => {
  const n = 1000;
  const coords = Float32Array.from({ length: n * 3 }, (_, i) => i);

  it('subsample keeps exactly count points, in input order, without repeats, deterministic for a seed', () => {
    const a = subsample(coords, { dim: 3, count: 137, seed: 5 });
    expect(a.indices.length).toBe(137);
    expect(a.points.length).toBe(137 * 3);
    for (let j = 1; j < 137; j++) expect(a.indices[j]).toBeGreaterThan(a.indices[j - 1]);
    expect(a.indices[136]).toBeLessThan(n);
    for (let j = 0; j < 137; j++)
      for (let k = 0; k < 3; k++) expect(a.points[j * 3 + k]).toBe(coords[a.indices[j] * 3 + k]);
    expect(Array.from(subsample(coords, { dim: 3, count: 137, seed: 5 }).indices)).toEqual(Array.from(a.indices));
    expect(Array.from(subsample(coords, { dim: 3, count: 137, seed: 6 }).indices)).not.toEqual(Array.from(a.indices));
  });

  it('subsample fraction keeps round(fraction · n); 0 and n are exact', () => {
    expect(subsample(coords, { dim: 3, fraction: 0.25 }).indices.length).toBe(250);
    expect(subsample(coords, { dim: 3, fraction: 0.0015 }).indices.length).toBe(2);
    expect(subsample(coords, { dim: 3, count: 0 }).points.length).toBe(0);
    expect(Array.from(subsample(coords, { dim: 3, fraction: 1 }).indices)).toEqual(
      Array.from({ length: n }, (_, i) => i),
    );
  });

  it('subsample picks every point with probability count / n', () => {
    const pts = new Float32Array(10);
    const hits = new Float64Array(10);
    const trials = 20000;
    for (let s = 0; s < trials; s++) for (const i of subsample(pts, { dim: 1, count: 3, seed: s }).indices) hits[i]++;
    // Binomial(20000, 0.3): σ = √(20000 · 0.21) ≈ 65, i.e. 0.0032 in frequency; allow 5σ.
    for (const h of hits) expect(Math.abs(h / trials - 0.3)).toBeLessThan(0.016);
  });

  it('subsample throws InputError for bad fraction, count or dim', () => {
    expect(() => subsample(coords, { dim: 3 })).toThrow(/exactly one of options\.fraction and options\.count/);
    expect(() => subsample(coords, { dim: 3, fraction: 0.5, count: 3 })).toThrow(InputError);
    expect(() => subsample(coords, { dim: 3, fraction: 1.5 })).toThrow(/fraction in \[0, 1\], got 1\.5/);
    expect(() => subsample(coords, { dim: 3, count: 1001 })).toThrow(/\[0, n = 1000\], got 1001/);
    expect(() => subsample(coords, { dim: 7, count: 1 })).toThrow(/multiple of dim=7, got 3000/);
  });
});

describe('jitter', () => {
  it('jitter moves coordinates by N(0, σ²) per axis: mean and σ within tolerance for 10^5 seeded points', () => {
    const n = 100_000;
    const base = new Float32Array(n * 2).fill(5);
    const out = jitter(base, { dim: 2, sigma: [0.5, 2], seed: 11 });
    for (const [axis, sigma] of [
      [0, 0.5],
      [1, 2],
    ] as const) {
      let s = 0;
      let s2 = 0;
      for (let i = 0; i < n; i++) {
        const d = out[i * 2 + axis] - 5;
        s += d;
        s2 += d * d;
      }
      const mean = s / n;
      const sd = Math.sqrt(s2 / n - mean * mean);
      expect(Math.abs(mean)).toBeLessThan((5 * sigma) / Math.sqrt(n)); // 5σ of the mean
      expect(Math.abs(sd / sigma - 1)).toBeLessThan(0.01); // σ of σ̂/σ ≈ 1/√(2n) = 0.0022
    }
    expect(Array.from(jitter(base.subarray(0, 20), { dim: 2, sigma: [0.5, 2], seed: 11 }))).toEqual(
      Array.from(out.subarray(0, 20)),
    );
    expect(jitter(base.subarray(0, 20), { dim: 2, sigma: 1, seed: 12 })[0]).not.toBe(
      jitter(base.subarray(0, 20), { dim: 2, sigma: 1, seed: 11 })[0],
    );
  });

  it('jitter with a periodic box wraps into [0, L) and agrees with the unwrapped jitter modulo L', () => {
    const r = new Random(2);
    const L = [10, 4, 7];
    const base = Float32Array.from({ length: 3000 }, (_, i) => (r.next() < 0.5 ? 0.01 : 0.99) * L[i % 3]);
    const free = jitter(base, { dim: 3, sigma: 1.5, seed: 9 });
    const boxed = jitter(base, { dim: 3, sigma: 1.5, seed: 9, box: L });
    let wrapped = 0;
    const bad: string[] = [];
    for (let i = 0; i < base.length; i++) {
      const l = L[i % 3];
      const k = (free[i] - boxed[i]) / l;
      if (!(boxed[i] >= 0 && boxed[i] < l)) bad.push(`${i}: ${boxed[i]} outside [0, ${l})`);
      if (Math.abs(k - Math.round(k)) > 1e-5) bad.push(`${i}: ${boxed[i]} ≢ ${free[i]} mod ${l}`);
      if (Math.round(k) !== 0) wrapped++;
    }
    expect(bad).toEqual([]);
    expect(wrapped).toBeGreaterThan(500);
  });

  it('jitter wraps a value that float32 rounds up to L onto 0', () => {
    const out = jitter(Float64Array.from([999.99999999, -1e-9]), { dim: 1, sigma: 0, box: 1000 });
    expect(Array.from(out)).toEqual([0, 0]);
  });

  it('jitter throws InputError for bad sigma or box', () => {
    const p = new Float32Array(6);
    expect(() => jitter(p, { dim: 3, sigma: -1 })).toThrow(/sigma\[0\] to be finite and ≥ 0, got -1/);
    expect(() => jitter(p, { dim: 3, sigma: [1, 2] })).toThrow(/sigma to have dim=3 entries, got 2/);
    expect(() => jitter(p, { dim: 3, sigma: 1, box: [1, 0, 1] })).toThrow(/box\[1\] to be finite and > 0, got 0/);
    expect(() => jitter(p, { dim: 4, sigma: 1 })).toThrow(InputError);
  });
});
