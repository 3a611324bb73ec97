/**
 * MiSTree's histograms (`hist_mst.py`: HistMST.setup / get_hist and bin_data), reproduced to the bit where the
 * arithmetic allows:
 *
 *   degree          6 bins on [0.5, 6.5]          (unit bins centred on 1 … 6)
 *   edge length l   100 bins on [0, 1.05·max l]
 *   branch length b 100 bins on [0, 1.05·max b]
 *   √(1 − s)        50 bins on [0, 1]             (MiSTree's use_sqrt_s; s > 1 gives NaN, which falls in no bin)
 *
 * Bin edges are numpy.linspace(min, max, count + 1) (i·step + min, the last edge exactly max); a value v falls in
 * bin i when edges[i] ≤ v < edges[i + 1], the last bin also taking v = max, as numpy.histogram does; values outside
 * the edges (or NaN) fall in no bin. Normalised (MiSTree's usenorm, the default) means numpy's density=True:
 * y[i] = counts[i] / width[i] / Σ counts, the sum over the values that fell in a bin.
 *
 * Where MiSTree would fail we return something valid instead (documented, CONVENTIONS.md 10): with no values, or a
 * maximum of 0 (all points duplicates), the default l and b range is [0, 1]; with no value in any bin y is all
 * zeros (numpy: NaN).
 */
import { InputError } from '../errors.js';
import type { Histogram, MstHistograms, StatName } from './types.js';

/**
 * Bins of one statistic: a range and a count (either bound may be left to the default), or explicit edges. With
 * `log` the edges are spaced evenly in log10 (numpy.geomspace) from min (default: the smallest positive value) to max
 * (default 1.05 × the largest): on clustered data linear bins of l and b put nearly everything in the first bin.
 * Values ≤ 0 (duplicate points) then fall in no bin.
 */
export type BinSpec = { min?: number; max?: number; count?: number; log?: boolean } | ArrayLike<number>;

/** User bins per statistic; a missing entry keeps MiSTree's default. The branchShape bins are bins of √(1 − s). */
export type MstBins = Partial<Record<StatName, BinSpec>>;

/** The values the four histograms are made of. */
export interface MstValues {
  degree: Uint32Array;
  edgeLengths: Float64Array;
  branchLengths: Float64Array;
  branchShapes: Float64Array;
}

/** numpy.linspace(start, stop, num) with endpoint=True, to the bit: i·step + start, the last value exactly stop. */
export function linspace(start: number, stop: number, num: number): Float64Array {
  const out = new Float64Array(num);
  const div = num - 1;
  const step = div > 0 ? (stop - start) / div : 0;
  for (let i = 0; i < num; i++) out[i] = i * step + start;
  if (num > 1) out[num - 1] = stop;
  return out;
}

/** The bin of v (numpy.histogram's rule), or −1: edges[i] ≤ v < edges[i + 1], the last bin closed. */
export function binOf(v: number, edges: Float64Array): number {
  const k = edges.length - 1;
  const lo = edges[0];
  const hi = edges[k];
  if (!(v >= lo && v <= hi)) return -1; // also NaN
  if (v === hi) return k - 1;
  // A guess that is right for linspace edges, then a binary search where it is not.
  let i = Math.min(k - 1, Math.floor(((v - lo) / (hi - lo)) * k));
  if (edges[i] <= v && v < edges[i + 1]) return i;
  let a = 0;
  let b = k; // invariant: edges[a] ≤ v < edges[b]
  while (b - a > 1) {
    i = (a + b) >>> 1;
    if (edges[i] <= v) a = i;
    else b = i;
  }
  return a;
}

/**
 * Counts per bin (binOf's rule) over 10^8 values: for evenly spaced edges (linspace) the bin is guessed with one
 * multiply and corrected against the edges themselves, so the rule stays exact; other edges use binOf.
 */
function countValues(values: ArrayLike<number>, edges: Float64Array): Float64Array {
  const k = edges.length - 1;
  const counts = new Float64Array(k);
  const lo = edges[0];
  const hi = edges[k];
  if (!evenlySpaced(edges)) {
    for (let j = 0; j < values.length; j++) {
      const i = binOf(values[j], edges);
      if (i >= 0) counts[i]++;
    }
    return counts;
  }
  const scale = k / (hi - lo);
  for (let j = 0; j < values.length; j++) {
    const v = values[j];
    if (!(v >= lo && v <= hi)) continue; // also NaN
    let i = Math.floor((v - lo) * scale);
    if (i > k - 1) i = k - 1;
    while (i > 0 && v < edges[i]) i--;
    while (i < k - 1 && v >= edges[i + 1]) i++;
    counts[i]++;
  }
  return counts;
}

/** Integer values (degrees): counted per value first, then each distinct value binned once. */
function countIntegers(values: Uint32Array, edges: Float64Array): Float64Array {
  const k = edges.length - 1;
  const counts = new Float64Array(k);
  const perValue = new Float64Array(64);
  for (let j = 0; j < values.length; j++) {
    const v = values[j];
    if (v < 64) perValue[v]++;
    else {
      const i = binOf(v, edges);
      if (i >= 0) counts[i]++;
    }
  }
  for (let v = 0; v < 64; v++) {
    if (perValue[v] === 0) continue;
    const i = binOf(v, edges);
    if (i >= 0) counts[i] += perValue[v];
  }
  return counts;
}

/** Whether consecutive edges differ by the same step to within rounding (linspace), so a guess lands within a bin. */
function evenlySpaced(edges: Float64Array): boolean {
  const k = edges.length - 1;
  const step = (edges[k] - edges[0]) / k;
  for (let i = 1; i <= k; i++) {
    if (Math.abs(edges[i] - edges[i - 1] - step) > 1e-9 * Math.abs(step)) return false;
  }
  return true;
}

/** A histogram of `values` over `edges` (ascending, ≥ 2 of them), normalised to unit area or not. */
export function histogram(values: ArrayLike<number>, edges: Float64Array, normalised: boolean): Histogram {
  const counts = values instanceof Uint32Array ? countIntegers(values, edges) : countValues(values, edges);
  return histogramOfCounts(edges, counts, normalised);
}

/** The histogram whose raw counts per bin over `edges` are `counts` (counted elsewhere: the GPU, binning.ts). */
export function histogramOfCounts(edges: Float64Array, counts: Float64Array, normalised: boolean): Histogram {
  const k = edges.length - 1;
  const x = new Float64Array(k);
  for (let i = 0; i < k; i++) x[i] = 0.5 * (edges[i + 1] + edges[i]);
  let total = 0;
  for (let i = 0; i < k; i++) total += counts[i];
  const y = new Float64Array(k);
  for (let i = 0; i < k; i++)
    y[i] = !normalised ? counts[i] : total > 0 ? counts[i] / (edges[i + 1] - edges[i]) / total : 0;
  return { edges, x, counts, y, normalised };
}

/** MiSTree's default range and count per statistic; `max` undefined means 1.05 × the largest value. */
const DEFAULTS: Record<StatName, { min: number; max?: number; count: number }> = {
  degree: { min: 0.5, max: 6.5, count: 6 },
  edgeLength: { min: 0, count: 100 },
  branchLength: { min: 0, count: 100 },
  branchShape: { min: 0, max: 1, count: 50 },
};

function largest(values: ArrayLike<number>): number {
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) if (values[i] > max) max = values[i];
  return max;
}

/** The bin edges of statistic `name` from the user's spec (validated) or MiSTree's default. */
export function binEdges(name: StatName, spec: BinSpec | undefined, values: ArrayLike<number>): Float64Array {
  if (spec !== undefined && (spec === null || typeof spec !== 'object')) {
    throw new InputError(`bins.${name}: expected { min?, max?, count? } or an array of edges, got ${String(spec)}.`);
  }
  if (spec !== undefined && 'length' in spec) return explicitEdges(name, spec);
  const d = DEFAULTS[name];
  const s = (spec ?? {}) as { min?: number; max?: number; count?: number; log?: boolean };
  if (s.log) return logEdges(name, s, values);
  const min = s.min ?? d.min;
  let max = s.max ?? d.max;
  if (max === undefined) {
    const top = largest(values);
    max = top > 0 && Number.isFinite(top) ? 1.05 * top : 1;
    if (!(min < max)) max = min + 1; // a user min at or above every value: one unit of range, never an error
  }
  const count = s.count ?? d.count;
  if (!Number.isInteger(count) || count < 1)
    throw new InputError(`bins.${name}.count: expected an integer ≥ 1, got ${count}.`);
  if (!Number.isFinite(min) || !Number.isFinite(max) || !(min < max)) {
    throw new InputError(`bins.${name}: expected finite min < max, got min=${min}, max=${max}.`);
  }
  return linspace(min, max, count + 1);
}

/** Whether binEdges(name, spec, values) reads the values (a range whose min or max is left to the data). */
export function edgesNeedValues(name: StatName, spec: BinSpec | undefined): boolean {
  if (spec !== undefined && spec !== null && typeof spec === 'object' && 'length' in spec) return false;
  const s = (spec ?? {}) as { min?: number; max?: number; log?: boolean };
  if (s.log) return s.min === undefined || s.max === undefined;
  return (s.max ?? DEFAULTS[name].max) === undefined;
}

/** Edges evenly spaced in log10 (numpy.geomspace): min default the smallest positive value, max 1.05 × the largest. */
function logEdges(
  name: StatName,
  s: { min?: number; max?: number; count?: number },
  values: ArrayLike<number>,
): Float64Array {
  const d = DEFAULTS[name];
  let smallest = Infinity;
  for (let i = 0; i < values.length; i++) if (values[i] > 0 && values[i] < smallest) smallest = values[i];
  const top = largest(values);
  let max = s.max ?? (top > 0 && Number.isFinite(top) ? 1.05 * top : 1);
  let min = s.min ?? (Number.isFinite(smallest) && smallest < max ? smallest : max / 1000);
  if (s.max === undefined && !(min < max)) max = min * 10; // a user min at or above every value: one decade
  if (s.min === undefined && !(min < max)) min = max / 1000;
  const count = s.count ?? d.count;
  if (!Number.isInteger(count) || count < 1)
    throw new InputError(`bins.${name}.count: expected an integer ≥ 1, got ${count}.`);
  if (!(min > 0) || !Number.isFinite(max) || !(min < max)) {
    throw new InputError(`bins.${name}: log bins need finite 0 < min < max, got min=${min}, max=${max}.`);
  }
  const a = Math.log10(min);
  const b = Math.log10(max);
  const edges = linspace(a, b, count + 1).map((e) => 10 ** e);
  edges[0] = min;
  edges[count] = max;
  return edges;
}

function explicitEdges(name: StatName, spec: ArrayLike<number>): Float64Array {
  const edges = Float64Array.from(spec);
  if (edges.length < 2) throw new InputError(`bins.${name}: expected at least 2 bin edges, got ${edges.length}.`);
  for (let i = 0; i < edges.length; i++) {
    if (!Number.isFinite(edges[i]))
      throw new InputError(`bins.${name}: expected finite edges, got ${edges[i]} at index ${i}.`);
    if (i > 0 && !(edges[i] > edges[i - 1])) {
      throw new InputError(
        `bins.${name}: expected strictly increasing edges, got ${edges[i - 1]} then ${edges[i]} at index ${i}.`,
      );
    }
  }
  return edges;
}

/**
 * Checks user bins before any work (InputError naming the statistic and the value); a range whose max comes from the
 * data is checked for its min and count only.
 */
export function checkBins(bins: MstBins): void {
  for (const [name, spec] of Object.entries(bins)) {
    if (!(DEFAULTS as Record<string, unknown>)[name]) {
      throw new InputError(`bins: unknown statistic '${name}' (expected ${Object.keys(DEFAULTS).join(', ')}).`);
    }
    if (spec !== undefined) binEdges(name as StatName, spec, [Infinity]);
  }
}

/** √(1 − s) per branch shape (NaN for s > 1, as numpy gives). */
export function sqrtOneMinus(shapes: Float64Array): Float64Array {
  const out = new Float64Array(shapes.length);
  for (let i = 0; i < shapes.length; i++) out[i] = Math.sqrt(1 - shapes[i]);
  return out;
}

/** The four histograms of MiSTree's HistMST (uselog off, use_sqrt_s on), with user bins where given. */
export function mstHistograms(v: MstValues, bins: MstBins = {}, normalised = true): MstHistograms {
  const shape = sqrtOneMinus(v.branchShapes);
  return {
    degree: histogram(v.degree, binEdges('degree', bins.degree, v.degree), normalised),
    edgeLength: histogram(v.edgeLengths, binEdges('edgeLength', bins.edgeLength, v.edgeLengths), normalised),
    branchLength: histogram(v.branchLengths, binEdges('branchLength', bins.branchLength, v.branchLengths), normalised),
    branchShape: histogram(shape, binEdges('branchShape', bins.branchShape, shape), normalised),
  };
}

/** The bins of `h` as user bins: histograms of other catalogues made with them compare bin by bin. */
export function binsOf(h: MstHistograms): MstBins {
  return {
    degree: h.degree.edges,
    edgeLength: h.edgeLength.edges,
    branchLength: h.branchLength.edges,
    branchShape: h.branchShape.edges,
  };
}
