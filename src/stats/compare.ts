/**
 * Comparing MST statistics (issue 7, deliverable 4): a catalogue against a set of realisations (mocks, randoms,
 * simulations), and one catalogue against another.
 *
 * Against realisations, per statistic (degree, edge length, branch length, √(1 − s); Naidoo et al. 2020, MNRAS 491,
 * 1709, section 4): the realisations' mean and unbiased standard deviation per bin, the ratio catalogue / mean and its
 * 1σ band std / mean, and
 *
 *     χ² = h · Δᵀ C⁺ Δ,   Δ = catalogue − mean,   h = (N − p − 2) / (N − 1)
 *
 * with C the unbiased (N − 1) covariance of the N realisations over the p bins used, and h the Hartlap, Simon &
 * Schneider 2007 (A&A 464, 399, eq. 17) factor that makes the inverse of a sample covariance unbiased. Bins where
 * every realisation holds the same value (zero variance: empty tails, a degree never reached) are dropped before
 * C is formed; the bins used are reported. χ² is computed per statistic and jointly over the concatenated vectors of
 * the chosen statistics, whose cross-covariances the joint C holds.
 *
 * Inversion: the Moore–Penrose pseudo-inverse C⁺ from ml-matrix's `SingularValueDecomposition`, with the cutoff of
 * ml-matrix's `pseudoInverse` (singular values below ε · p · σ_max count as zero), applied in factored form; never the
 * LU `inverse`. When C has full rank C⁺ = C⁻¹ to rounding; the pseudo-inverse matters because normalised
 * histograms are rank-deficient by construction: when every value
 * falls in a bin, Σ y_i · width_i = 1 in every realisation, so C annihilates the bin widths and has rank p − 1 (the
 * same holds for raw counts at a fixed number of points). An LU inverse then returns noise; the pseudo-inverse
 * measures χ² in the subspace the realisations span, and `dof` is that rank. The Hartlap factor and the
 * N > p + 2 requirement use p = the bins used, which is the conservative choice when the rank is lower.
 *
 * Catalogue against catalogue: `compareCatalogues` gives the ratio of the plotted values (y) per bin with Poisson
 * errors from the raw counts — see there.
 */
import { SingularValueDecomposition } from 'ml-matrix';
import { InputError } from '../errors.js';
import { STAT_NAMES, type Histogram, type MstHistograms, type StatName } from './types.js';

export interface CompareOptions {
  /**
   * Which histogram values are compared: `'y'` (default), what MiSTree plots (normalised to unit area when the
   * histograms are normalised), or the raw `'counts'`.
   */
  values?: 'y' | 'counts';
  /**
   * The statistics that get a χ², each alone and jointly; default all four. `[]` skips χ² (ratios and bands only,
   * which need just one realisation), e.g. when there are too few realisations for the 100-bin l and b histograms.
   */
  chi2?: readonly StatName[];
}

/** A χ² of the catalogue against the realisations' mean, over the bins with non-zero variance. */
export interface Chi2 {
  /** h · Δᵀ C⁺ Δ, Hartlap-corrected. */
  chi2: number;
  /** Degrees of freedom: the rank of C over the bins used (their number when C has full rank). */
  dof: number;
  /** p: how many bins entered C. */
  binsUsed: number;
  /** The Hartlap factor h = (N − p − 2) / (N − 1) applied to C⁺. */
  hartlap: number;
  /** The same χ² without the Hartlap factor (Δᵀ C⁺ Δ). */
  chi2Uncorrected: number;
}

/** χ² of one statistic: `bins` lists the bin indices used, ascending. */
export interface StatChi2 extends Chi2 {
  bins: Int32Array;
}

/** χ² over the concatenation of several statistics' vectors (their cross-covariances included). */
export interface JointChi2 extends Chi2 {
  /** The statistics concatenated, in STAT_NAMES order. */
  statistics: StatName[];
  /** The bins used of each concatenated statistic. */
  bins: Partial<Record<StatName, Int32Array>>;
}

/** One statistic: the catalogue against the realisations, bin by bin. */
export interface StatComparison {
  /** Bin edges (the catalogue's; the realisations' are checked to be the same), length bins + 1. */
  edges: Float64Array;
  /** Bin centres, length bins. */
  x: Float64Array;
  /** The catalogue's compared values (y or counts), length bins. */
  catalogue: Float64Array;
  /** The realisations' mean per bin. */
  mean: Float64Array;
  /** The realisations' unbiased (N − 1) standard deviation per bin; NaN with one realisation. */
  std: Float64Array;
  /** catalogue / mean per bin; NaN or ±Infinity where the mean is 0. */
  ratio: Float64Array;
  /** std / mean per bin: the 1σ half-width of the band around a ratio of 1 (2σ is twice it). */
  ratioSigma: Float64Array;
  /** Dropped (zero-variance) bins where the catalogue differs from the realisations anyway: infinitely significant. */
  zeroVarianceDiffering: Int32Array;
  /** χ² of this statistic, or null when it was not asked for. */
  chi2: StatChi2 | null;
}

export interface StatsComparison {
  /** Which values were compared. */
  values: 'y' | 'counts';
  /** N, the number of realisations. */
  realisations: number;
  /** How C was inverted: the Moore–Penrose pseudo-inverse through ml-matrix's SVD (see the module comment). */
  inversion: 'pseudoInverse';
  degree: StatComparison;
  edgeLength: StatComparison;
  branchLength: StatComparison;
  branchShape: StatComparison;
  /** χ² over all the statistics in `options.chi2` at once, or null when none were asked for. */
  joint: JointChi2 | null;
}

/** The catalogue against the realisations: ratios, 1σ bands, χ² per statistic and jointly. */
export function compareStats(
  catalogue: MstHistograms,
  realisations: readonly MstHistograms[],
  options: CompareOptions = {},
): StatsComparison {
  const values = options.values ?? 'y';
  if (values !== 'y' && values !== 'counts') {
    throw new InputError(`Expected options.values to be 'y' or 'counts', got ${String(values)}.`);
  }
  const chi2Stats = resolveChi2Stats(options.chi2);
  if (!Array.isArray(realisations) || realisations.length === 0) {
    throw new InputError(
      `Expected at least one realisation to compare the catalogue with, got ${describeList(realisations)}.`,
    );
  }
  checkHistograms(catalogue, 'catalogue');
  realisations.forEach((r, i) => {
    checkHistograms(r, `realisations[${i}]`);
    checkSameBins(catalogue, r, `realisations[${i}]`, values);
  });
  const n = realisations.length;
  if (chi2Stats.length > 0 && n < 2) {
    throw new InputError(
      `χ² needs the realisations' covariance, so at least 2 realisations (and more than bins + 2); got ${n}. ` +
        `Pass options.chi2 = [] for ratios only.`,
    );
  }
  const result = { values, realisations: n, inversion: 'pseudoInverse', joint: null } as StatsComparison;
  for (const name of STAT_NAMES) {
    const rows = realisations.map((r) => pick(r[name], values));
    const cat = pick(catalogue[name], values);
    const c = moments(catalogue[name], cat, rows);
    result[name] = c;
    if (chi2Stats.includes(name)) {
      checkFinite(cat, rows, name);
      const bins = varyingBins(c.std);
      const chi = chi2Of([{ name, cat, rows, mean: c.mean, bins }], n);
      c.chi2 = { ...chi, bins };
    }
  }
  if (chi2Stats.length > 0) {
    const parts = chi2Stats.map((name) => ({
      name,
      cat: pick(catalogue[name], values),
      rows: realisations.map((r) => pick(r[name], values)),
      mean: result[name].mean,
      bins: result[name].chi2!.bins,
    }));
    const bins: Partial<Record<StatName, Int32Array>> = {};
    for (const part of parts) bins[part.name] = part.bins;
    result.joint = { ...chi2Of(parts, n), statistics: [...chi2Stats], bins };
  }
  return result;
}

/** One catalogue against another, bin by bin. */
export interface CatalogueRatio {
  edges: Float64Array;
  x: Float64Array;
  /** a.y / b.y per bin (NaN or Infinity where b.y is 0). */
  ratio: Float64Array;
  /** Poisson 1σ error of the ratio: |ratio| · √(1/countsA + 1/countsB); NaN where either count is 0. */
  ratioError: Float64Array;
  /** The raw counts behind the errors. */
  countsA: Float64Array;
  countsB: Float64Array;
}

export type CatalogueComparison = Record<StatName, CatalogueRatio>;

/**
 * Catalogue a against catalogue b: per statistic and bin, ratio = a.y / b.y (the plotted values: normalised to unit
 * area when both are normalised, raw counts when neither is; mixing the two is an InputError) with Poisson errors
 * from the raw counts. Each bin's count is taken as an independent Poisson variable, so the ratio's relative error is
 * √(1/N_a + 1/N_b); normalisation by the totals is treated as exact (its error, O(1/√total) and common to all bins,
 * is ignored). Bins with a zero count have no Poisson estimate: their error is NaN. Use `compareStats` with
 * realisations where the bins are correlated (l and b neighbours are): Poisson errors ignore that.
 */
export function compareCatalogues(a: MstHistograms, b: MstHistograms): CatalogueComparison {
  checkHistograms(a, 'a');
  checkHistograms(b, 'b');
  checkSameBins(a, b, 'b', 'y');
  const out = {} as CatalogueComparison;
  for (const name of STAT_NAMES) {
    const ha = a[name];
    const hb = b[name];
    const bins = ha.x.length;
    const ratio = new Float64Array(bins);
    const ratioError = new Float64Array(bins);
    for (let i = 0; i < bins; i++) {
      const na = ha.counts[i];
      const nb = hb.counts[i];
      ratio[i] = ha.y[i] / hb.y[i];
      ratioError[i] = na > 0 && nb > 0 ? Math.abs(ratio[i]) * Math.sqrt(1 / na + 1 / nb) : NaN;
    }
    out[name] = {
      edges: Float64Array.from(ha.edges),
      x: Float64Array.from(ha.x),
      ratio,
      ratioError,
      countsA: Float64Array.from(ha.counts),
      countsB: Float64Array.from(hb.counts),
    };
  }
  return out;
}

// ——— moments and χ² ———

function moments(h: Histogram, cat: ArrayLike<number>, rows: ArrayLike<number>[]): StatComparison {
  const bins = cat.length;
  const n = rows.length;
  const mean = new Float64Array(bins);
  const std = new Float64Array(bins);
  for (const row of rows) for (let i = 0; i < bins; i++) mean[i] += row[i];
  for (let i = 0; i < bins; i++) mean[i] /= n;
  for (const row of rows) {
    for (let i = 0; i < bins; i++) {
      const d = row[i] - mean[i];
      std[i] += d * d;
    }
  }
  for (let i = 0; i < bins; i++) std[i] = n > 1 ? Math.sqrt(std[i] / (n - 1)) : NaN;
  const ratio = new Float64Array(bins);
  const ratioSigma = new Float64Array(bins);
  const differing: number[] = [];
  for (let i = 0; i < bins; i++) {
    ratio[i] = cat[i] / mean[i];
    ratioSigma[i] = std[i] / mean[i];
    if (std[i] === 0 && cat[i] !== mean[i]) differing.push(i);
  }
  return {
    edges: Float64Array.from(h.edges),
    x: Float64Array.from(h.x),
    catalogue: Float64Array.from(cat),
    mean,
    std,
    ratio,
    ratioSigma,
    zeroVarianceDiffering: Int32Array.from(differing),
    chi2: null,
  };
}

/** Bins whose variance over the realisations is not zero. */
function varyingBins(std: Float64Array): Int32Array {
  const bins: number[] = [];
  for (let i = 0; i < std.length; i++) if (std[i] > 0) bins.push(i);
  return Int32Array.from(bins);
}

interface Part {
  name: StatName;
  cat: ArrayLike<number>;
  rows: ArrayLike<number>[];
  mean: Float64Array;
  bins: Int32Array;
}

/** χ² over the used bins of the parts, concatenated in order. */
function chi2Of(parts: Part[], n: number): Chi2 {
  const p = parts.reduce((s, part) => s + part.bins.length, 0);
  if (p === 0) return { chi2: 0, dof: 0, binsUsed: 0, hartlap: 1, chi2Uncorrected: 0 };
  if (n <= p + 2) {
    const named = parts.filter((q) => q.bins.length > 0).map((q) => q.name);
    const what = parts.length === 1 ? parts[0].name : `${named.join(' + ')} jointly`;
    throw new InputError(
      `χ² of ${what} uses p = ${p} bins, so the Hartlap-corrected inverse covariance needs N > p + 2 = ${p + 2} ` +
        `realisations (at least ${p + 3}); got N = ${n}. Pass more realisations, fewer or wider bins, or restrict ` +
        `options.chi2 to the statistics that have enough.`,
    );
  }
  // Deviations, row-major N × p, over the concatenated used bins.
  const dev = new Float64Array(n * p);
  const delta = new Float64Array(p);
  let col = 0;
  for (const part of parts) {
    for (const b of part.bins) {
      delta[col] = part.cat[b] - part.mean[b];
      for (let r = 0; r < n; r++) dev[r * p + col] = part.rows[r][b] - part.mean[b];
      col++;
    }
  }
  const cov: number[][] = [];
  for (let i = 0; i < p; i++) {
    const row = new Array<number>(p);
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let r = 0; r < n; r++) s += dev[r * p + i] * dev[r * p + j];
      row[j] = s / (n - 1);
      if (j < i) cov[j][i] = row[j];
    }
    cov.push(row);
  }
  const { q, rank } = pseudoInverseQuadraticForm(cov, delta);
  const hartlap = (n - p - 2) / (n - 1);
  return { chi2: hartlap * q, dof: rank, binsUsed: p, hartlap, chi2Uncorrected: q };
}

/**
 * Δᵀ C⁺ Δ and rank(C) from one ml-matrix SVD, C = U Σ Vᵀ: C⁺ = V Σ⁺ Uᵀ, so Δᵀ C⁺ Δ = Σ_k (v_kᵀΔ)(u_kᵀΔ) / σ_k over
 * σ_k > ε · p · σ_max — ml-matrix's `pseudoInverse` cutoff — without forming C⁺ (which would double the time).
 */
function pseudoInverseQuadraticForm(cov: number[][], delta: Float64Array): { q: number; rank: number } {
  const p = delta.length;
  const svd = new SingularValueDecomposition(cov, { autoTranspose: true });
  const s = svd.diagonal;
  const U = svd.leftSingularVectors;
  const V = svd.rightSingularVectors;
  const cutoff = Number.EPSILON * p * s[0];
  let q = 0;
  let rank = 0;
  for (let k = 0; k < s.length; k++) {
    if (!(s[k] > cutoff)) continue;
    rank++;
    let u = 0;
    let v = 0;
    for (let i = 0; i < p; i++) {
      u += U.get(i, k) * delta[i];
      v += V.get(i, k) * delta[i];
    }
    q += (u * v) / s[k];
  }
  return { q, rank };
}

// ——— validation ———

function resolveChi2Stats(list: readonly StatName[] | undefined): StatName[] {
  if (list === undefined) return [...STAT_NAMES];
  if (!Array.isArray(list))
    throw new InputError(`Expected options.chi2 to be an array of statistic names, got ${String(list)}.`);
  for (const name of list) {
    if (!STAT_NAMES.includes(name)) {
      throw new InputError(
        `Expected options.chi2 to name statistics among ${STAT_NAMES.join(', ')}, got '${String(name)}'.`,
      );
    }
  }
  return STAT_NAMES.filter((name) => list.includes(name));
}

function describeList(list: unknown): string {
  return Array.isArray(list) ? `${list.length}` : String(list);
}

function pick(h: Histogram, values: 'y' | 'counts'): Float64Array {
  return values === 'y' ? h.y : h.counts;
}

/** Each of the four histograms present, with edges, x, counts and y of consistent lengths; `who` names it in errors. */
export function checkHistograms(h: MstHistograms, who: string): void {
  if (h === null || typeof h !== 'object')
    throw new InputError(`Expected ${who} to be MstHistograms, got ${String(h)}.`);
  for (const name of STAT_NAMES) {
    const hist = h[name];
    if (!hist || !hist.edges || !hist.x || !hist.counts || !hist.y) {
      throw new InputError(
        `Expected ${who}.${name} to be a histogram with edges, x, counts and y, got ${String(hist)}.`,
      );
    }
    const bins = hist.x.length;
    if (hist.edges.length !== bins + 1 || hist.counts.length !== bins || hist.y.length !== bins) {
      throw new InputError(
        `Expected ${who}.${name} to have edges.length = x.length + 1 = counts.length + 1 = y.length + 1, got ` +
          `edges ${hist.edges.length}, x ${bins}, counts ${hist.counts.length}, y ${hist.y.length}.`,
      );
    }
  }
}

/** The same bins (to rounding: 1e-9 of the range) and, for y, the same normalisation as the reference. */
function checkSameBins(ref: MstHistograms, other: MstHistograms, who: string, values: 'y' | 'counts'): void {
  const refName = who === 'b' ? 'a' : 'catalogue';
  for (const name of STAT_NAMES) {
    const a = ref[name].edges;
    const b = other[name].edges;
    if (a.length !== b.length) {
      throw new InputError(
        `Expected ${who}.${name} to have the ${refName}'s ${a.length - 1} bins, got ${b.length - 1}.`,
      );
    }
    const tol = 1e-9 * Math.abs(a[a.length - 1] - a[0]);
    for (let i = 0; i < a.length; i++) {
      if (!(Math.abs(a[i] - b[i]) <= tol)) {
        throw new InputError(
          `Expected ${who}.${name} to have the ${refName}'s bin edges, got edges[${i}] = ${b[i]} where the ` +
            `${refName} has ${a[i]}: histogram every sample on common bins (MiSTree's default l and b ranges ` +
            `depend on each sample's maximum).`,
        );
      }
    }
    if (values === 'y' && ref[name].normalised !== other[name].normalised) {
      throw new InputError(
        `Expected ${who}.${name}.normalised = ${ref[name].normalised} as in the ${refName}, got ` +
          `${other[name].normalised}: compare normalised with normalised histograms, or compare counts.`,
      );
    }
  }
}

/** χ² needs finite values: an empty normalised histogram (0/0) is NaN. */
function checkFinite(cat: ArrayLike<number>, rows: ArrayLike<number>[], name: StatName): void {
  for (let i = 0; i < cat.length; i++) {
    if (!Number.isFinite(cat[i]))
      throw new InputError(`Expected finite catalogue.${name} values for χ², got bin ${i} = ${cat[i]}.`);
  }
  rows.forEach((row, r) => {
    for (let i = 0; i < row.length; i++) {
      if (!Number.isFinite(row[i])) {
        throw new InputError(`Expected finite realisations[${r}].${name} values for χ², got bin ${i} = ${row[i]}.`);
      }
    }
  });
}
