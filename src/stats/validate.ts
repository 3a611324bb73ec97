/**
 * `mstStats()`'s options and their validation at the door (CONVENTIONS.md 10): every message names the value it got.
 */
import type { EdgeList, EmstBackend } from '../emst/emst.js';
import { InputError } from '../errors.js';
import type { GpuContext } from '../gpu/context.js';
import { UnionFind } from '../unionfind/unionfind.cpu.js';
import { checkBins, type MstBins } from './histogram.js';
import type { ProgressCallback } from '../progress.js';

export type StatsCoords = 'cartesian' | 'radec';

export interface MstStatsOptions {
  /** Columns per point: any d ≥ 1 for 'cartesian'; 2 (RA, Dec) or 3 (RA, Dec, distance) for 'radec'. */
  dim: number;
  /**
   * 'cartesian' (default): points are positions. 'radec': RA and Dec in degrees, converted as MiSTree does — to the
   * unit sphere (edge lengths are chords; a branch's end-to-end chord becomes the angle 2·arcsin(chord/2) before it
   * is divided by the branch length, so s can slightly exceed 1) or, with a third column, to distance × unit vector
   * (ordinary 3D statistics).
   */
  coords?: StatsCoords;
  /** The tree (or forest) to measure instead of computing the EMST; its weights are not read (lengths come from the points). */
  emst?: Pick<EdgeList, 'sources' | 'targets'> & Partial<Pick<EdgeList, 'weights'>>;
  /** Periodic side lengths, one per dimension: the EMST and every length use minimum-image displacements. */
  box?: number[];
  /** MiSTree's scale cut: pairs closer than this are not joined when building the tree (which may become a forest). */
  minEdgeLength?: number;
  /** User bins per statistic; the rest keep MiSTree's defaults. */
  bins?: MstBins;
  /** Histograms normalised to unit area (MiSTree's usenorm; default true) or raw counts. */
  normalise?: boolean;
  /** Backend of the EMST ('auto' default). */
  backend?: EmstBackend;
  /** A GPU context for the EMST (kept alive). */
  gpu?: GpuContext;
  /** Called with the fraction done (the EMST takes most of it) and the phase running (src/progress.ts). */
  onProgress?: ProgressCallback;
  /** Checked between phases and by the EMST: an aborted signal rejects with AbortError. */
  signal?: AbortSignal;
  /** The CPU backend's threads for the EMST's k-NN phase (as `emst`'s `threads`). */
  threads?: number;
  /**
   * Return the per-node, per-edge and per-branch arrays (default true). false: they come back empty and on the GPU
   * nothing per item crosses the bus — the tree stays there and only the histograms (and counts) are read back.
   */
  arrays?: boolean;
}

const describe = (x: unknown): string =>
  x === null || typeof x !== 'object'
    ? String(x)
    : Array.isArray(x)
      ? `[${x.join(', ')}]`
      : Object.prototype.toString.call(x).slice(8, -1);

/** The options with `points` checked; returns n and the box as float64 (or undefined). */
export function validateStatsInput(
  points: unknown,
  options: MstStatsOptions | undefined,
): { n: number; coords: StatsCoords; box?: Float64Array; normalise: boolean } {
  if (options === null || typeof options !== 'object') {
    throw new InputError(`Expected an options object with at least { dim }, got ${describe(options)}.`);
  }
  if (!(points instanceof Float32Array) && !(points instanceof Float64Array)) {
    throw new InputError(
      `Expected points to be a Float32Array or Float64Array (row-major n × dim), got ${describe(points)}.`,
    );
  }
  const { dim } = options;
  if (typeof dim !== 'number' || !Number.isInteger(dim) || dim < 1) {
    throw new InputError(`Expected dim to be a positive integer, got ${describe(dim)}.`);
  }
  if (points.length % dim !== 0)
    throw new InputError(`Expected points.length to be a multiple of dim=${dim}, got ${points.length}.`);
  const n = points.length / dim;
  const coords = options.coords ?? 'cartesian';
  if (coords !== 'cartesian' && coords !== 'radec') {
    throw new InputError(`Expected coords to be 'cartesian' or 'radec', got ${describe(coords)}.`);
  }
  const box = options.box === undefined ? undefined : checkBox(options.box, dim, coords);
  const { minEdgeLength } = options;
  if (minEdgeLength !== undefined) {
    if (typeof minEdgeLength !== 'number' || !Number.isFinite(minEdgeLength) || minEdgeLength < 0) {
      throw new InputError(`Expected minEdgeLength to be a finite number ≥ 0, got ${describe(minEdgeLength)}.`);
    }
    if (options.emst && minEdgeLength > 0) {
      throw new InputError(
        `minEdgeLength (${minEdgeLength}) cuts the tree mstStats builds; it cannot apply to a given emst.`,
      );
    }
  }
  const normalise = options.normalise ?? true;
  if (typeof normalise !== 'boolean')
    throw new InputError(`Expected normalise to be a boolean, got ${describe(normalise)}.`);
  if (options.arrays !== undefined && typeof options.arrays !== 'boolean')
    throw new InputError(`Expected arrays to be a boolean, got ${describe(options.arrays)}.`);
  if (options.bins !== undefined && (options.bins === null || typeof options.bins !== 'object')) {
    throw new InputError(`Expected bins to be an object of per-statistic bins, got ${describe(options.bins)}.`);
  }
  if (options.bins) checkBins(options.bins);
  // Where mstStats computes the EMST on the GPU it checks the coordinates with the EMST's own validation, at the
  // door too (mstStats.ts, the same message): one pass over 10^7 points instead of two.
  if (coords === 'cartesian' && (options.emst !== undefined || options.backend === 'cpu')) checkFinite(points, dim);
  if (options.emst !== undefined) checkForest(options.emst, n);
  return { n, coords, box, normalise };
}

function checkBox(box: unknown, dim: number, coords: StatsCoords): Float64Array {
  if (coords === 'radec')
    throw new InputError(`A periodic box applies to cartesian coordinates, not to coords 'radec'.`);
  if (!Array.isArray(box) && !(box instanceof Float64Array) && !(box instanceof Float32Array)) {
    throw new InputError(`Expected box to be an array of ${dim} side lengths, got ${describe(box)}.`);
  }
  if (box.length !== dim)
    throw new InputError(`Expected box to hold ${dim} side lengths (one per dimension), got ${box.length}.`);
  const out = Float64Array.from(box as ArrayLike<number>);
  out.forEach((L, k) => {
    if (!(L > 0) || !Number.isFinite(L))
      throw new InputError(`Expected box side lengths to be finite and > 0, got ${box[k]} at index ${k}.`);
  });
  return out;
}

function checkFinite(points: Float32Array | Float64Array, dim: number): void {
  for (let i = 0; i < points.length; i++) {
    if (!Number.isFinite(points[i])) {
      throw new InputError(
        `Expected finite coordinates, got ${points[i]} at row ${Math.floor(i / dim)}, column ${i % dim}.`,
      );
    }
  }
}

/** A given tree: parallel Uint32Arrays of node ids < n, no self-loop, no cycle (a forest). */
function checkForest(tree: MstStatsOptions['emst'], n: number): void {
  if (
    tree === null ||
    typeof tree !== 'object' ||
    !(tree.sources instanceof Uint32Array) ||
    !(tree.targets instanceof Uint32Array)
  ) {
    throw new InputError(`Expected emst to be { sources: Uint32Array, targets: Uint32Array }, got ${describe(tree)}.`);
  }
  const { sources, targets } = tree;
  if (sources.length !== targets.length) {
    throw new InputError(
      `Expected emst.sources and emst.targets of equal length, got ${sources.length} and ${targets.length}.`,
    );
  }
  if (n > 0 && sources.length > n - 1)
    throw new InputError(`Expected a forest of at most n − 1 = ${n - 1} edges, got ${sources.length}.`);
  const uf = new UnionFind(n);
  for (let e = 0; e < sources.length; e++) {
    const s = sources[e];
    const t = targets[e];
    if (s >= n || t >= n) throw new InputError(`emst edge ${e} joins ${s} and ${t}, but there are n=${n} points.`);
    if (s === t) throw new InputError(`emst edge ${e} is a self-loop at node ${s}.`);
    if (!uf.union(s, t)) throw new InputError(`emst edge ${e} (${s}–${t}) closes a cycle: expected a tree or forest.`);
  }
}
