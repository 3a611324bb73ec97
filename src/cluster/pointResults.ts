/**
 * Labels, membership probabilities, GLOSH scores and cluster persistence in one sequential pass over the condensed
 * tree's rows: the same results as `labelPoints`, `membershipProbabilities`, `outlierScores` and
 * `clusterPersistence` (labels.ts, probabilities.ts, glosh.ts, test/helpers/persistence.ts: the semantics are
 * documented there),
 * without gathering every point's row first. Each point has exactly one row (n ≥ 2), so its three outputs are
 * written once, where its row is read; the per-cluster tables the pass looks up are small and stay in cache. O(n).
 *
 * The pass over the rows (`labelRows`) reads nothing but its range of rows and the tables, and writes nothing but
 * those rows' points, so ranges of rows can run on several threads (pointResults.threads.ts) with equal results.
 *
 * `test/cpu/cluster.condense.test.ts` checks it against those four functions.
 */
import type { ClusterTreeInfo } from './clusterTree.js';
import type { ExemplarCollector } from './exemplars.js';
import { subtreeMaxLambda } from './glosh.js';
import type { CondensedTree, ResolvedClusterOptions } from './types.js';

export interface PointResults {
  labels: Int32Array;
  probabilities: Float64Array;
  outlierScores: Float64Array;
  /** One per label. */
  persistence: Float64Array;
}

/** The per-cluster tables the pass over the rows looks up (cluster index c = id − n). */
export interface PointTables {
  /** The number of points. */
  n: number;
  /** Per label: its cluster's largest λ. */
  labelMaxLambda: Float64Array;
  /**
   * owner[c] (the label of the nearest selected cluster at or above c, −1 for none) and deaths[c] (the largest λ in
   * c's whole subtree: GLOSH) side by side, (owner, death) at 2c and 2c + 1: what each point looks up, in one 16-byte
   * record — one cache miss a point instead of two where k is large (blobs at 10^7: 1.3·10^6 clusters, the
   * labelling bound by those misses on the H100's host, bench/RESULTS.md issue 17).
   */
  ownerDeath: Float64Array;
  /** The root is the single selected cluster (allowSingleCluster): labels by `rootThreshold` instead. */
  rootOnly: boolean;
  rootThreshold: number;
  /** Exemplars: wanted[c] ≥ 0 for a wanted leaf, whose point rows at `maxLambda[c]` are offered. */
  wanted: Int32Array | null;
  maxLambda: Float64Array;
}

/** The output arrays the pass writes (indexed by point) and the per-label point counts it adds to. */
export interface PointOutputs {
  labels: Int32Array;
  probabilities: Float64Array;
  outlierScores: Float64Array;
  counts: Float64Array;
}

/**
 * Everything per point for the selected clusters (`selected`: cluster indices, ascending; `stability`: as EOM left
 * it, which persistence divides). Point rows are also offered to `exemplars` when given (same pass).
 */
export function pointResults(
  tree: CondensedTree,
  info: ClusterTreeInfo,
  selected: Int32Array,
  stability: Float64Array,
  options: ResolvedClusterOptions,
  exemplars?: ExemplarCollector,
): PointResults {
  const n = info.numPoints;
  const tables = pointTables(info, selected, options, exemplars);
  const out: PointOutputs = {
    labels: new Int32Array(n),
    probabilities: new Float64Array(n),
    outlierScores: new Float64Array(n),
    counts: new Float64Array(selected.length),
  };
  const rows = tree.parent.length;
  if (rows === 0) out.labels.fill(-1); // n < 2: no point has a row
  labelRows(tables, tree, 0, rows, out, exemplars ? (c, x, lam) => exemplars.offer(c, x, lam) : undefined);
  return { ...out, persistence: persistenceOf(info, selected, stability, out.counts, rows) };
}

/** The tables for `labelRows`. */
export function pointTables(
  info: ClusterTreeInfo,
  selected: Int32Array,
  options: ResolvedClusterOptions,
  exemplars?: ExemplarCollector,
): PointTables {
  const k = info.numClusters;
  // owner[c]: the label of the nearest selected cluster at or above c, −1 for none (labels.ts), with the root
  // as one of several selected clusters labelling nothing; then the label's largest λ (probabilities.ts).
  const labelOf = new Int32Array(k).fill(-1);
  for (let j = 0; j < selected.length; j++) labelOf[selected[j]] = j;
  const owner = new Int32Array(k);
  if (k > 0) owner[0] = labelOf[0];
  for (let c = 1; c < k; c++) owner[c] = labelOf[c] >= 0 ? labelOf[c] : owner[info.parent[c]];
  const rootOnly = selected.length === 1 && selected[0] === 0 && options.allowSingleCluster;
  if (!rootOnly) for (let c = 0; c < k; c++) if (owner[c] >= 0 && selected[owner[c]] === 0) owner[c] = -1;
  const labelMaxLambda = new Float64Array(selected.length);
  for (let j = 0; j < selected.length; j++) labelMaxLambda[j] = info.maxLambda[selected[j]];
  const epsilon = options.clusterSelectionEpsilon;
  const rootThreshold = epsilon !== 0 ? 1 / epsilon : k > 0 ? info.maxLambda[0] : 0;
  const deaths = subtreeMaxLambda(info);
  const ownerDeath = new Float64Array(2 * k);
  for (let c = 0; c < k; c++) {
    ownerDeath[2 * c] = owner[c];
    ownerDeath[2 * c + 1] = deaths[c];
  }
  return {
    n: info.numPoints,
    labelMaxLambda,
    ownerDeath,
    rootOnly,
    rootThreshold,
    wanted: exemplars?.rankOf ?? null,
    maxLambda: info.maxLambda,
  };
}

/**
 * The pass over rows [r0, r1): each point row's label, probability and GLOSH score, the labels' counts, and the
 * exemplar candidates (`offer`, in row order).
 */
export function labelRows(
  tables: PointTables,
  tree: Pick<CondensedTree, 'parent' | 'child' | 'lambda'>,
  r0: number,
  r1: number,
  out: PointOutputs,
  offer?: (c: number, x: number, lam: number) => void,
): void {
  const { n, maxLambda } = tables;
  const wanted = offer ? tables.wanted : null;
  const { parent, child, lambda } = tree;
  for (let r = r0; r < r1; r++) {
    const x = child[r];
    if (x >= n) continue;
    const c = parent[r] - n;
    const lam = lambda[r];
    labelPoint(tables, x, c, lam, out);
    // An exemplar: a point leaving a wanted leaf at the leaf's largest λ (the collector was built on maxLambda).
    if (wanted !== null && wanted[c] >= 0 && lam === maxLambda[c]) offer!(c, x, lam);
  }
}

/** Point x, leaving cluster index c at λ: its label, probability and GLOSH score, and its label's count. */
function labelPoint(tables: PointTables, x: number, c: number, lam: number, out: PointOutputs): void {
  const { ownerDeath, labelMaxLambda, rootOnly, rootThreshold } = tables;
  // Label: the root rule when the root is the single cluster, else the owner.
  const label = rootOnly ? (lam >= rootThreshold ? 0 : -1) : ownerDeath[2 * c] | 0;
  out.labels[x] = label;
  if (label >= 0) {
    out.counts[label]++;
    const maxL = labelMaxLambda[label];
    out.probabilities[x] = maxL === 0 || !Number.isFinite(lam) ? 1 : Math.min(lam, maxL) / maxL;
  }
  // GLOSH against the largest λ in the cluster's whole subtree.
  const lamMax = ownerDeath[2 * c + 1];
  if (lamMax === 0 || !Number.isFinite(lam)) out.outlierScores[x] = 0;
  else if (lamMax === Infinity) out.outlierScores[x] = 1;
  else out.outlierScores[x] = (lamMax - lam) / lamMax;
}

/**
 * Each point's own row in point order, as the GPU gives it (condense.rows.ts `pointRows`): 2 words a point, the
 * parent cluster id and the f32 bits of the distance (scaled by `scale` as condense.finish.ts scales the rows).
 */
export interface PointWords {
  words: Uint32Array;
  scale: number;
}

/**
 * The labelling pass over points [p0, p1) in point order from their own rows (`labelRows`' results, λ computed as
 * the rows' is: the same bits): sequential writes instead of the rows' scattered ones. No exemplars here
 * (`offerExemplars`).
 */
export function labelPointWords(tables: PointTables, pw: PointWords, p0: number, p1: number, out: PointOutputs): void {
  if (tables.rootOnly) {
    labelPointWordsRoot(tables, pw, p0, p1, out);
    return;
  }
  // labelPoint's rules with everything in locals and the label read as an integer (`| 0`): ~2× faster under V8
  // than calling labelPoint, whose label is a double from the packed table (bench/RESULTS.md issue 17, ninth
  // session). λ = 1/d is never NaN here (d ≤ 0 or NaN gives ∞), so `lam === Infinity` is `!isFinite(lam)`.
  const { words, scale } = pw;
  const f32 = new Float32Array(words.buffer, words.byteOffset, words.length);
  const { n, ownerDeath, labelMaxLambda } = tables;
  const { labels, probabilities, outlierScores, counts } = out;
  for (let x = p0; x < p1; x++) {
    const d = scale === 1 ? f32[2 * x + 1] : Math.fround(f32[2 * x + 1] * scale);
    const lam = d > 0 ? 1 / d : Infinity;
    const c2 = 2 * (words[2 * x] - n);
    const label = ownerDeath[c2] | 0;
    labels[x] = label;
    if (label >= 0) {
      counts[label]++;
      const maxL = labelMaxLambda[label];
      probabilities[x] = maxL === 0 || lam === Infinity ? 1 : Math.min(lam, maxL) / maxL;
    }
    const lamMax = ownerDeath[c2 + 1];
    outlierScores[x] = lamMax === 0 || lam === Infinity ? 0 : lamMax === Infinity ? 1 : (lamMax - lam) / lamMax;
  }
}

/** `labelPointWords` where the root is the single selected cluster (labelPoint's root rule). */
function labelPointWordsRoot(tables: PointTables, pw: PointWords, p0: number, p1: number, out: PointOutputs): void {
  const { words, scale } = pw;
  const f32 = new Float32Array(words.buffer, words.byteOffset, words.length);
  const n = tables.n;
  for (let x = p0; x < p1; x++) {
    const d = scale === 1 ? f32[2 * x + 1] : Math.fround(f32[2 * x + 1] * scale);
    labelPoint(tables, x, words[2 * x] - n, d > 0 ? 1 / d : Infinity, out);
  }
}

/**
 * The exemplar candidates of rows [r0, r1) in row order (what `labelRows` offers), reading only the rows of wanted
 * leaves fully; none without a collector (`tables.wanted` null).
 */
export function offerCandidates(
  tables: PointTables,
  tree: Pick<CondensedTree, 'parent' | 'child' | 'lambda'>,
  r0: number,
  r1: number,
  offer: (c: number, x: number, lam: number) => void,
): void {
  const { n, maxLambda, wanted } = tables;
  if (wanted === null) return;
  const { parent, child, lambda } = tree;
  for (let r = r0; r < r1; r++) {
    const c = parent[r] - n;
    if (wanted[c] < 0) continue;
    const x = child[r];
    if (x < n && lambda[r] === maxLambda[c]) offer(c, x, lambda[r]);
  }
}

/**
 * `offerCandidates` as two typed arrays, for a worker to hand back: the points that pass the collector's test
 * (wanted leaf, at its largest λ) and their leaf ranks, in row order (ExemplarCollector.addHits takes them).
 */
export function candidateHits(
  tables: PointTables,
  tree: Pick<CondensedTree, 'parent' | 'child' | 'lambda'>,
  r0: number,
  r1: number,
): { points: Uint32Array; ranks: Uint32Array } {
  const { n, maxLambda, wanted } = tables;
  if (wanted === null || r1 <= r0) return { points: new Uint32Array(0), ranks: new Uint32Array(0) };
  const { parent, child, lambda } = tree;
  let points: Uint32Array = new Uint32Array(Math.min(r1 - r0, 1024));
  let ranks: Uint32Array = new Uint32Array(points.length);
  let hits = 0;
  for (let r = r0; r < r1; r++) {
    const c = parent[r] - n;
    const rank = wanted[c];
    if (rank < 0) continue;
    const x = child[r];
    if (x >= n || lambda[r] !== maxLambda[c]) continue;
    if (hits === points.length) {
      const grown = Math.min(2 * hits, r1 - r0);
      points = growTo(points, grown);
      ranks = growTo(ranks, grown);
    }
    points[hits] = x;
    ranks[hits++] = rank;
  }
  return { points: points.slice(0, hits), ranks: ranks.slice(0, hits) };
}

/** `a` copied into a new array of `length` (≥ a.length) entries: a hit list's growth. */
export function growTo(a: Uint32Array, length: number): Uint32Array {
  const b = new Uint32Array(length);
  b.set(a);
  return b;
}

/** `pointResults` from each point's own row in point order (`labelPointWords`), exemplars from the rows. */
export function pointResultsFromWords(
  tree: CondensedTree,
  info: ClusterTreeInfo,
  selected: Int32Array,
  stability: Float64Array,
  options: ResolvedClusterOptions,
  exemplars: ExemplarCollector | undefined,
  pw: PointWords,
  into?: Omit<PointOutputs, 'counts'>,
): PointResults {
  const n = info.numPoints;
  const tables = pointTables(info, selected, options, exemplars);
  const out: PointOutputs = {
    labels: into?.labels ?? new Int32Array(n),
    probabilities: into?.probabilities ?? new Float64Array(n),
    outlierScores: into?.outlierScores ?? new Float64Array(n),
    counts: new Float64Array(selected.length),
  };
  labelPointWords(tables, pw, 0, n, out);
  if (exemplars) offerCandidates(tables, tree, 0, tree.parent.length, (c, x, lam) => exemplars.offer(c, x, lam));
  return { ...out, persistence: persistenceOf(info, selected, stability, out.counts, tree.parent.length) };
}

/** Persistence per label from the counts (`rows`: the condensed tree's row count). */
export function persistenceOf(
  info: ClusterTreeInfo,
  selected: Int32Array,
  stability: Float64Array,
  counts: ArrayLike<number>,
  rows: number,
): Float64Array {
  const k = info.numClusters;
  // The largest λ in the whole tree is the largest per-cluster one (every row has a parent cluster).
  let treeMaxLambda = -Infinity;
  if (rows > 0) for (let c = 0; c < k; c++) if (info.maxLambda[c] > treeMaxLambda) treeMaxLambda = info.maxLambda[c];
  const persistence = new Float64Array(selected.length);
  for (let j = 0; j < selected.length; j++) {
    const size = counts[j];
    if (treeMaxLambda === Infinity || treeMaxLambda === 0 || size === 0) persistence[j] = 1;
    else persistence[j] = stability[selected[j]] / (size * treeMaxLambda);
  }
  return persistence;
}
