/**
 * The host's part of condensing on the GPU (condense.rows.ts): the rows as the GPU wrote them, 4 words each
 * (parent cluster, child, f32 bits of the merge's distance, child size), become the CondensedTree, its per-cluster
 * facts and the stabilities in one pass — λ = 1/distance in float64 (+∞ at distance 0) and each stability summed in
 * row order in float64, so both equal condense.ts's (and hdbscan's) bit for bit. Stabilities stay on the host on
 * purpose: float64 sums in hdbscan's order are what make EOM's strict comparisons select as hdbscan does.
 */
import { sharedBuffer } from '../host/buffers.js';
import type { ClusterTreeInfo } from './clusterTree.js';
import type { Condensed } from './condense.js';

/** How `condensedFromRows` lays its output out. */
export interface FinishOptions {
  /**
   * Factor to the rows' weights (a power of two: the EMST's coordinate scaling undone, emst/scale.ts), applied in
   * float32 as `unscaleWeights` applies it to an edge list; default 1.
   */
  scale?: number;
  /** The tree's arrays in SharedArrayBuffers (for the threaded labelling pass). */
  shared?: boolean;
  /** Arrays to write the tree into (room for the rows; the tree views exactly the rows written). */
  into?: RowArrays;
}

/** The tree's four arrays (views of exactly the rows). */
export interface RowArrays {
  parent: Uint32Array;
  child: Uint32Array;
  lambda: Float64Array;
  childSize: Uint32Array;
}

/**
 * Rows [r0, r1) of the GPU's words into the tree's arrays: parent, child, child size, and λ = 1/distance (+∞ at
 * 0), the distance scaled as `scale` says. Ranges are independent (condense.threads.ts runs them on threads).
 */
export function unpackRows(rows: Uint32Array, r0: number, r1: number, out: RowArrays, scale: number): void {
  const f32 = new Float32Array(rows.buffer, rows.byteOffset, rows.length);
  const { parent, child, lambda, childSize } = out;
  for (let r = r0; r < r1; r++) {
    parent[r] = rows[4 * r];
    child[r] = rows[4 * r + 1];
    childSize[r] = rows[4 * r + 3];
    const d = scale === 1 ? f32[4 * r + 2] : Math.fround(f32[4 * r + 2] * scale);
    lambda[r] = d > 0 ? 1 / d : Infinity;
  }
}

/** λ of rows [r0, r1) from their distances (f32, scaled as `scale` says): 1/distance, +∞ at 0 (as unpackRows). */
export function lambdaFromWeights(
  weight: Float32Array,
  r0: number,
  r1: number,
  lambda: Float64Array,
  scale: number,
): void {
  for (let r = r0; r < r1; r++) {
    const d = scale === 1 ? weight[r] : Math.fround(weight[r] * scale);
    lambda[r] = d > 0 ? 1 / d : Infinity;
  }
}

/** The row count of `rows` for n points, checked. */
export function rowCount(rows: Uint32Array, n: number): number {
  const count = rows.length / 4;
  const k = count - n + 1;
  if (!Number.isInteger(count) || k < 1 || (k & 1) !== 1) {
    throw new Error(`cluster::condense: ${rows.length} words are not the rows of a condensed tree of ${n} points.`);
  }
  return count;
}

/** The tree's arrays for `count` rows: `into`'s first rows, else new (shared when asked). */
export function rowArrays(count: number, shared: boolean, into?: RowArrays): RowArrays {
  if (into && into.parent.length < count) {
    throw new Error(`cluster::condense: room for ${into.parent.length} rows, not ${count}.`);
  }
  const alloc = (bytes: number) => (shared ? sharedBuffer(bytes) : new ArrayBuffer(bytes));
  return {
    parent: into ? into.parent.subarray(0, count) : new Uint32Array(alloc(4 * count), 0, count),
    child: into ? into.child.subarray(0, count) : new Uint32Array(alloc(4 * count), 0, count),
    lambda: into ? into.lambda.subarray(0, count) : new Float64Array(alloc(8 * count), 0, count),
    childSize: into ? into.childSize.subarray(0, count) : new Uint32Array(alloc(4 * count), 0, count),
  };
}

/** The condensed tree of n ≥ 2 points from its rows (n + 2 · splits of them, 4 words each). */
export function condensedFromRows(rows: Uint32Array, n: number, options: FinishOptions = {}): Condensed {
  const { scale = 1, shared = false, into } = options;
  const count = rowCount(rows, n);
  const arrays = rowArrays(count, shared, into);
  unpackRows(rows, 0, count, arrays, scale);
  return condensedFromArrays(arrays, n);
}

/**
 * The per-cluster facts and the stabilities of an unpacked tree, in one sequential pass in row order (the float64
 * sums in hdbscan's order: this pass is the one that cannot be split).
 */
export function condensedFromArrays(arrays: RowArrays, n: number, clusterRows?: Uint32Array): Condensed {
  if (clusterRows) return fromArraysSparse(arrays, n, clusterRows);
  const { parent, child, lambda, childSize } = arrays;
  const count = parent.length;
  const k = count - n + 1;
  const info = emptyFacts(n, k);
  const stability = new Float64Array(k);
  const { birth, maxLambda, firstChild } = info;
  for (let r = 0; r < count; r++) {
    const pk = parent[r] - n;
    const lam = lambda[r];
    const s = childSize[r];
    if (lam > maxLambda[pk]) maxLambda[pk] = lam;
    stability[pk] += (lam - birth[pk]) * s;
    const c = child[r];
    if (c >= n) {
      const ck = c - n;
      info.parent[ck] = pk;
      birth[ck] = lam;
      info.size[ck] = s;
      if (firstChild[pk] < 0) firstChild[pk] = ck;
    }
  }
  return { tree: { parent, child, lambda, childSize, numPoints: n, numClusters: k }, info, stability };
}

/** The rows in [r0, r1) whose child is a cluster (child ≥ n), ascending. */
export function clusterRowsIn(child: Uint32Array, r0: number, r1: number, n: number): Uint32Array {
  const out: number[] = [];
  for (let r = r0; r < r1; r++) if (child[r] >= n) out.push(r);
  return Uint32Array.from(out);
}

/**
 * `condensedFromArrays` knowing which rows are cluster rows (`clusterRows`, ascending): every other row is a point
 * (child size 1), so the pass streams only parent and λ — the same additions in the same order, so the same bits
 * ((λ − birth) · 1 is λ − birth exactly).
 */
function fromArraysSparse(arrays: RowArrays, n: number, clusterRows: Uint32Array): Condensed {
  const { parent, child, lambda, childSize } = arrays;
  const count = parent.length;
  const k = count - n + 1;
  const info = emptyFacts(n, k);
  const stability = new Float64Array(k);
  const { birth, maxLambda, firstChild } = info;
  let j = 0;
  let next = clusterRows.length > 0 ? clusterRows[0] : count;
  for (let r = 0; r < count; r++) {
    const pk = parent[r] - n;
    const lam = lambda[r];
    if (lam > maxLambda[pk]) maxLambda[pk] = lam;
    if (r !== next) {
      stability[pk] += lam - birth[pk];
      continue;
    }
    const s = childSize[r];
    stability[pk] += (lam - birth[pk]) * s;
    const ck = child[r] - n;
    info.parent[ck] = pk;
    birth[ck] = lam;
    info.size[ck] = s;
    if (firstChild[pk] < 0) firstChild[pk] = ck;
    j++;
    next = j < clusterRows.length ? clusterRows[j] : count;
  }
  return { tree: { parent, child, lambda, childSize, numPoints: n, numClusters: k }, info, stability };
}

/** The per-cluster facts of k clusters before the pass: no parents, births 0, the root holding all n points. */
function emptyFacts(n: number, k: number): ClusterTreeInfo {
  return emptyClusterFacts(n, k, (bytes) => new ArrayBuffer(bytes));
}

/**
 * The per-cluster facts (parent, birth, size, firstChild) from the cluster rows alone (`clusterRows`, ascending),
 * into `info` made by `emptyClusterFacts`: what every stability needs before the rows are summed. With `owner`,
 * only the facts of the clusters c with owner[c] === part (a child's parent, birth and size; a parent's first child),
 * so that the parts can run on threads into one shared `info` — each writes what its own stabilities need.
 */
export function clusterRowFacts(
  arrays: Pick<RowArrays, 'parent' | 'child' | 'lambda' | 'childSize'>,
  n: number,
  clusterRows: Uint32Array,
  info: ClusterTreeInfo,
  owner?: Uint8Array,
  part = 0,
): void {
  const { parent, child, lambda, childSize } = arrays;
  for (let j = 0; j < clusterRows.length; j++) {
    const r = clusterRows[j];
    const pk = parent[r] - n;
    const ck = child[r] - n;
    if (!owner || owner[ck] === part) {
      info.parent[ck] = pk;
      info.birth[ck] = lambda[r];
      info.size[ck] = childSize[r];
    }
    if ((!owner || owner[pk] === part) && info.firstChild[pk] < 0) info.firstChild[pk] = ck;
  }
}

/**
 * Stabilities and largest λ of the clusters c with owner[c] === part, over every row in row order: each cluster's
 * additions in hdbscan's order (the same bits as the one-pass sum), so clusters can be split across threads.
 * `birth` must be complete (clusterRowFacts).
 */
export function ownedStabilities(
  arrays: Pick<RowArrays, 'parent' | 'lambda' | 'childSize'>,
  n: number,
  birth: Float64Array,
  stability: Float64Array,
  maxLambda: Float64Array,
  part: number,
  owner: Uint8Array,
): void {
  const { parent, lambda, childSize } = arrays;
  const count = parent.length;
  for (let r = 0; r < count; r++) {
    const pk = parent[r] - n;
    if (owner[pk] !== part) continue; // a table, not pk % parts: an integer division per row cost ~90 ms at 10^7
    const lam = lambda[r];
    if (lam > maxLambda[pk]) maxLambda[pk] = lam;
    stability[pk] += (lam - birth[pk]) * childSize[r];
  }
}

/** `emptyFacts` in the given memory (shared for threads). */
export function emptyClusterFacts(n: number, k: number, alloc: (bytes: number) => ArrayBufferLike): ClusterTreeInfo {
  const info: ClusterTreeInfo = {
    numPoints: n,
    numClusters: k,
    parent: new Int32Array(alloc(4 * k), 0, k).fill(-1),
    birth: new Float64Array(alloc(8 * k), 0, k),
    size: new Uint32Array(alloc(4 * k), 0, k),
    firstChild: new Int32Array(alloc(4 * k), 0, k).fill(-1),
    maxLambda: new Float64Array(alloc(8 * k), 0, k),
  };
  info.size[0] = n;
  return info;
}
