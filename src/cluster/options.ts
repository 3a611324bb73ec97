/**
 * Validation at the door for the clustering layer: options and MST shape. Every message names the value it got.
 */
import { InputError } from '../errors.js';
import type { ClusterOptions, MstEdges, ResolvedClusterOptions, SingleLinkageTree } from './types.js';

function describe(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) {
    return String(value);
  }
  return Object.prototype.toString.call(value);
}

/** hdbscan's and scikit-learn's `min_cluster_size` default (and the CLI's `--min-cluster-size`). */
export const DEFAULT_MIN_CLUSTER_SIZE = 5;

/** Checks `options` and fills in hdbscan's defaults. Throws InputError naming the bad value. */
export function resolveClusterOptions(options: ClusterOptions): ResolvedClusterOptions {
  if (options === null || typeof options !== 'object') {
    throw new InputError(`Expected an options object, got ${describe(options)}.`);
  }
  const minClusterSize = options.minClusterSize ?? DEFAULT_MIN_CLUSTER_SIZE;
  if (typeof minClusterSize !== 'number' || !Number.isInteger(minClusterSize) || minClusterSize < 2) {
    throw new InputError(`Expected minClusterSize to be an integer ≥ 2, got ${describe(minClusterSize)}.`);
  }
  const method = options.clusterSelectionMethod ?? 'eom';
  if (method !== 'eom' && method !== 'leaf') {
    throw new InputError(`Expected clusterSelectionMethod to be 'eom' or 'leaf', got ${describe(method)}.`);
  }
  const epsilon = options.clusterSelectionEpsilon ?? 0;
  if (typeof epsilon !== 'number' || !Number.isFinite(epsilon) || epsilon < 0) {
    throw new InputError(`Expected clusterSelectionEpsilon to be a finite number ≥ 0, got ${describe(epsilon)}.`);
  }
  const allowSingle = options.allowSingleCluster ?? false;
  if (typeof allowSingle !== 'boolean') {
    throw new InputError(`Expected allowSingleCluster to be a boolean, got ${describe(allowSingle)}.`);
  }
  const maxSize = options.maxClusterSize ?? 0;
  if (
    typeof maxSize !== 'number' ||
    Number.isNaN(maxSize) ||
    maxSize < 0 ||
    (Number.isFinite(maxSize) && !Number.isInteger(maxSize))
  ) {
    throw new InputError(
      `Expected maxClusterSize to be an integer ≥ 0 (0 or Infinity: no limit), got ${describe(maxSize)}.`,
    );
  }
  return {
    minClusterSize,
    clusterSelectionMethod: method,
    clusterSelectionEpsilon: epsilon,
    allowSingleCluster: allowSingle,
    maxClusterSize: Number.isFinite(maxSize) ? maxSize : 0,
  };
}

/**
 * Checks that `n` is a point count and `mst` has the shape of a spanning tree on it (cycles are found later).
 * Returns whether the edges are already in canonical order with sources < targets (`isCanonicalOrder`), found
 * in the same pass.
 */
export function checkMstShape(mst: MstEdges, n: number): boolean {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 2 ** 30) {
    throw new InputError(`Expected n to be an integer point count in [0, 2^30], got ${describe(n)}.`);
  }
  if (mst === null || typeof mst !== 'object') {
    throw new InputError(`Expected mst to be { sources, targets, weights }, got ${describe(mst)}.`);
  }
  const { sources, targets, weights } = mst;
  if (!(sources instanceof Uint32Array) || !(targets instanceof Uint32Array)) {
    throw new InputError(
      `Expected mst.sources and mst.targets to be Uint32Arrays, got ${describe(sources)} and ${describe(targets)}.`,
    );
  }
  if (!(weights instanceof Float32Array) && !(weights instanceof Float64Array)) {
    throw new InputError(`Expected mst.weights to be a Float32Array or Float64Array, got ${describe(weights)}.`);
  }
  const m = n === 0 ? 0 : n - 1;
  if (sources.length !== m || targets.length !== m || weights.length !== m) {
    throw new InputError(
      `Expected a spanning tree of n=${n} points to have ${m} edges, got sources.length=${sources.length}, ` +
        `targets.length=${targets.length}, weights.length=${weights.length}.`,
    );
  }
  let canonical = true;
  let ps = 0;
  let pt = 0;
  let pw = -1;
  for (let i = 0; i < m; i++) {
    const s = sources[i];
    const t = targets[i];
    const w = weights[i];
    if (s >= n || t >= n) throw new InputError(`Expected MST endpoints below n=${n}, got edge ${i} = (${s}, ${t}).`);
    if (s === t) throw new InputError(`Expected no self-loops in the MST, got edge ${i} = (${s}, ${t}).`);
    if (!(w >= 0)) throw new InputError(`Expected MST weights ≥ 0, got weights[${i}] = ${w}.`);
    // Canonical: sources < targets and (weight, source, target) strictly ascending (edgeOrder.ts).
    if (canonical && (s > t || !(pw < w || (pw === w && (ps < s || (ps === s && pt < t)))))) canonical = false;
    ps = s;
    pt = t;
    pw = w;
  }
  return canonical;
}

/** Checks that `linkage` has n − 1 rows in all four arrays (its contents are trusted: it comes from singleLinkage). */
export function checkLinkageShape(linkage: SingleLinkageTree, n: number): void {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 2 ** 30) {
    throw new InputError(`Expected n to be an integer point count in [0, 2^30], got ${describe(n)}.`);
  }
  const m = n === 0 ? 0 : n - 1;
  const { left, right, distance, size } = linkage ?? ({} as SingleLinkageTree);
  if (
    !(left instanceof Uint32Array) ||
    !(right instanceof Uint32Array) ||
    !(distance instanceof Float64Array) ||
    !(size instanceof Uint32Array)
  ) {
    throw new InputError(`Expected a SingleLinkageTree { left, right, size: Uint32Array; distance: Float64Array }.`);
  }
  if (left.length !== m || right.length !== m || distance.length !== m || size.length !== m) {
    throw new InputError(
      `Expected a single-linkage tree of n=${n} points to have ${m} rows, got left ${left.length}, right ` +
        `${right.length}, distance ${distance.length}, size ${size.length}.`,
    );
  }
}
