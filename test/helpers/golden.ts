/**
 * Loads the golden outputs in test/golden (hdbscan/: scikit-learn-contrib hdbscan 0.8.43; mistree/: MiSTree 2.x; see
 * test/golden/README.md for how each was made and how to compare). They live in the repository, gzip-compressed:
 * `readGoldenText(path)` reads `<path>.gz`. TREELINE_GOLDEN_DIR points elsewhere (a folder with the same layout,
 * compressed or not). Non-finite numbers are stored as the strings "Infinity"/"NaN".
 */
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { expect } from 'vitest';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The golden folder: `<repo>/test/golden`, or $TREELINE_GOLDEN_DIR. */
export const GOLDEN_DIR = process.env.TREELINE_GOLDEN_DIR ?? fileURLToPath(new URL('../golden/', import.meta.url));

export const HDBSCAN_DIR = join(GOLDEN_DIR, 'hdbscan');
export const MISTREE_DIR = join(GOLDEN_DIR, 'mistree');

/** Whether a golden file exists (as `path.gz`, or plain). */
export function goldenExists(path: string): boolean {
  return existsSync(`${path}.gz`) || existsSync(path);
}

/** A golden file's text: `path.gz` decompressed, else `path` itself. A missing file throws (never a skip). */
export function readGoldenText(path: string): string {
  if (existsSync(`${path}.gz`)) return gunzipSync(readFileSync(`${path}.gz`)).toString('utf8');
  return readFileSync(path, 'utf8');
}

/** One row of hdbscan/index.json. */
export interface GoldenIndexEntry {
  case: string;
  params: string;
  n: number;
  d: number;
  n_clusters: number;
  n_noise: number;
  exact_ties: boolean;
  near_ties: boolean;
  ari_canonical_vs_reference: number;
}

export interface GoldenCondensedTree {
  parent: number[];
  child: number[];
  lambda: number[];
  child_size: number[];
}

/** The `canonical` block: hdbscan's tree code on the canonical MST and single-linkage order. */
export interface GoldenCanonical {
  labels: number[];
  probabilities: number[];
  outlier_scores: number[];
  condensed_tree: GoldenCondensedTree;
  single_linkage_tree: number[][];
  /** [u, v, weight] rows in canonical order. */
  mst_edges: number[][];
  mst_total_weight: number;
  n_clusters: number;
  n_noise: number;
  exact_ties: boolean;
  near_ties: boolean;
  ari_vs_reference: number;
}

export interface GoldenCase {
  params: {
    min_cluster_size: number;
    min_samples: number;
    cluster_selection_method: 'eom' | 'leaf';
    cluster_selection_epsilon: number;
    max_cluster_size: number;
    allow_single_cluster: boolean;
  };
  min_samples_effective: number;
  n: number;
  dim: number;
  labels: number[];
  probabilities: number[];
  outlier_scores: number[];
  cluster_persistence: number[];
  canonical: GoldenCanonical;
}

export interface GoldenPredict {
  params: { min_cluster_size: number; min_samples: number };
  labels_fit: number[];
  approximate_predict: { labels: number[]; probabilities: number[] };
  exemplars: number[][];
  relative_validity: number;
}

/** JSON.parse that turns "Infinity", "-Infinity" and "NaN" strings back into numbers. */
export function parseGoldenJson<T>(text: string): T {
  return JSON.parse(text, (_key, value) => {
    if (value === 'Infinity') return Infinity;
    if (value === '-Infinity') return -Infinity;
    if (value === 'NaN') return NaN;
    return value;
  }) as T;
}

function readJson<T>(...parts: string[]): T {
  return parseGoldenJson<T>(readGoldenText(join(HDBSCAN_DIR, ...parts)));
}

export function goldenIndex(): GoldenIndexEntry[] {
  return readJson<GoldenIndexEntry[]>('index.json');
}

export function goldenCase(caseName: string, params: string): GoldenCase {
  return readJson<GoldenCase>(caseName, `${params}.json`);
}

export function goldenPredict(caseName: string, params: string): GoldenPredict {
  return readJson<GoldenPredict>(caseName, `predict-${params}.json`);
}

/** A CSV of numbers with a header line (a golden one compressed as `path.gz`), as row-major float32 points. */
export function readPointsCsv(path: string): { points: Float32Array; dim: number; n: number } {
  const lines = readGoldenText(path)
    .split('\n')
    .filter((l) => l.trim().length > 0);
  const rows = lines.slice(1).map((l) => l.split(',').map(Number));
  const dim = rows.length > 0 ? rows[0].length : 0;
  const points = new Float32Array(rows.length * dim);
  rows.forEach((r, i) => r.forEach((v, j) => (points[i * dim + j] = v)));
  return { points, dim, n: rows.length };
}

export function goldenPoints(caseName: string, file = 'points.csv'): { points: Float32Array; dim: number; n: number } {
  return readPointsCsv(join(HDBSCAN_DIR, caseName, file));
}

/** The canonical MST of a golden case as typed arrays (float64 weights, as hdbscan computed them). */
export function goldenMst(c: GoldenCase): { sources: Uint32Array; targets: Uint32Array; weights: Float64Array } {
  const e = c.canonical.mst_edges;
  const sources = new Uint32Array(e.length);
  const targets = new Uint32Array(e.length);
  const weights = new Float64Array(e.length);
  e.forEach(([u, v, w], i) => {
    sources[i] = u;
    targets[i] = v;
    weights[i] = w;
  });
  return { sources, targets, weights };
}

/** Adjusted Rand index of two labelings (noise −1 counted as one more label, as sklearn does). */
export function adjustedRandIndex(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = a.length;
  const table = new Map<string, number>();
  const rowSums = new Map<number, number>();
  const colSums = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const key = `${a[i]},${b[i]}`;
    table.set(key, (table.get(key) ?? 0) + 1);
    rowSums.set(a[i], (rowSums.get(a[i]) ?? 0) + 1);
    colSums.set(b[i], (colSums.get(b[i]) ?? 0) + 1);
  }
  const c2 = (x: number): number => (x * (x - 1)) / 2;
  let index = 0;
  for (const v of table.values()) index += c2(v);
  let sumA = 0;
  for (const v of rowSums.values()) sumA += c2(v);
  let sumB = 0;
  for (const v of colSums.values()) sumB += c2(v);
  const expected = (sumA * sumB) / c2(n);
  const max = (sumA + sumB) / 2;
  if (max === expected) return 1;
  return (index - expected) / (max - expected);
}

/**
 * Asserts that an hdbscan() result reproduces a golden case: identical MST, labels and condensed tree, probabilities
 * and outlier scores within 1e-5, where the case has no near-ties; ARI ≥ 0.999 where it has.
 */
export function expectGoldenResult(
  r: {
    labels: ArrayLike<number>;
    mst: { sources: ArrayLike<number>; targets: ArrayLike<number>; weights: ArrayLike<number> };
    condensedTree: { parent: ArrayLike<number>; child: ArrayLike<number> };
    probabilities: ArrayLike<number>;
    outlierScores: ArrayLike<number>;
  },
  c: GoldenCase,
): void {
  if (c.canonical.near_ties) {
    expect(adjustedRandIndex(r.labels, c.canonical.labels)).toBeGreaterThanOrEqual(0.999);
    return;
  }
  const golden = goldenMst(c);
  expect(Array.from(r.mst.sources)).toEqual(Array.from(golden.sources));
  expect(Array.from(r.mst.targets)).toEqual(Array.from(golden.targets));
  expect(
    worstAbs(
      r.mst.weights,
      Array.from(golden.weights, (w) => Math.fround(w)),
    ),
  ).toBeLessThanOrEqual(1e-6);
  expect(Array.from(r.labels)).toEqual(c.canonical.labels);
  expect(Array.from(r.condensedTree.parent)).toEqual(c.canonical.condensed_tree.parent);
  expect(Array.from(r.condensedTree.child)).toEqual(c.canonical.condensed_tree.child);
  expect(worstAbs(r.probabilities, c.canonical.probabilities)).toBeLessThanOrEqual(1e-5);
  expect(worstAbs(r.outlierScores, c.canonical.outlier_scores)).toBeLessThanOrEqual(1e-5);
}

/** The largest absolute difference between two arrays (∞ where a NaN appears); equal entries (also ±∞) count 0. */
export function worstAbs(actual: ArrayLike<number>, expected: ArrayLike<number>): number {
  let worst = 0;
  for (let i = 0; i < expected.length; i++) {
    if (actual[i] === expected[i]) continue;
    worst = Math.max(worst, Math.abs(actual[i] - expected[i]));
    if (Number.isNaN(worst)) return Infinity;
  }
  return worst;
}
