/**
 * The test oracle for minimum spanning trees of point clouds: brute-force Prim in float64, O(n²) time and O(n)
 * memory, Euclidean or mutual reachability (Campello et al. 2013: max(core(a), core(b), d(a, b) / alpha)).
 *
 * Important! edges compare by (weight, min(u, v), max(u, v)) — a strict total order — so the tree is the unique
 * minimum under DESIGN.md's canonical order even where weights tie, and it is returned in that order with
 * sources < targets. Distances are sqrt(Σ (a_j − b_j)²) summed in coordinate order in float64 from the float32
 * coordinates: this reproduces the golden files' weights bit for bit.
 */

export interface PrimOptions {
  /**
   * Mutual reachability with this many neighbours (the point itself excluded; clamped to n − 1). 0 or absent:
   * plain Euclidean distances.
   */
  minSamples?: number;
  /** Mutual reachability's alpha: d(a, b) / alpha; default 1. */
  alpha?: number;
  /**
   * Periodic side lengths (points inside [0, L)): minimum-image distances, per axis min(|Δ|, L − |Δ|) in float64.
   * Euclidean only.
   */
  box?: ArrayLike<number>;
}

export interface PrimMst {
  sources: Uint32Array;
  targets: Uint32Array;
  weights: Float64Array;
}

/** Euclidean distance between points i and j of a row-major array, in float64 (minimum image with `box`). */
export function distance(
  points: ArrayLike<number>,
  dim: number,
  i: number,
  j: number,
  box?: ArrayLike<number>,
): number {
  let s = 0;
  for (let k = 0; k < dim; k++) {
    let d = Math.abs(points[i * dim + k] - points[j * dim + k]);
    if (box) d = Math.min(d, box[k] - d);
    s += d * d;
  }
  return Math.sqrt(s);
}

/**
 * Core distances by brute force: the distance from each point to its minSamples-th nearest neighbour, the point
 * itself excluded by index (a duplicate is a neighbour at distance 0); minSamples above n − 1 is clamped.
 */
export function bruteCoreDistances(points: ArrayLike<number>, dim: number, minSamples: number): Float64Array {
  const n = Math.floor(points.length / dim);
  const core = new Float64Array(n);
  const k = Math.min(minSamples, n - 1);
  if (k <= 0) return core;
  const row = new Float64Array(n - 1);
  for (let i = 0; i < n; i++) {
    let m = 0;
    for (let j = 0; j < n; j++) if (j !== i) row[m++] = distance(points, dim, i, j);
    row.sort();
    core[i] = row[k - 1];
  }
  return core;
}

/** Whether edge (w1, a1, b1) precedes (w2, a2, b2) with a < b in both: the canonical order. */
function before(w1: number, a1: number, b1: number, w2: number, a2: number, b2: number): boolean {
  if (w1 !== w2) return w1 < w2;
  if (a1 !== a2) return a1 < a2;
  return b1 < b2;
}

/** The canonical MST of `points` (row-major, `dim` columns) by Prim's algorithm. */
export function primMst(points: ArrayLike<number>, dim: number, options: PrimOptions = {}): PrimMst {
  const n = dim > 0 ? Math.floor(points.length / dim) : 0;
  const m = Math.max(n - 1, 0);
  const minSamples = options.minSamples ?? 0;
  const alpha = options.alpha ?? 1;
  const core = minSamples > 0 ? bruteCoreDistances(points, dim, minSamples) : null;
  if (options.box && core) throw new Error('primMst: a periodic box is Euclidean only');
  const weight = (i: number, j: number): number => {
    const d = distance(points, dim, i, j, options.box) / alpha;
    return core ? Math.max(core[i], core[j], d) : d;
  };
  const inTree = new Uint8Array(n);
  const bestW = new Float64Array(n).fill(Infinity);
  const bestU = new Int32Array(n).fill(-1);
  const edges: Array<[number, number, number]> = [];
  if (n > 0) {
    inTree[0] = 1;
    for (let j = 1; j < n; j++) {
      bestW[j] = weight(0, j);
      bestU[j] = 0;
    }
  }
  for (let step = 0; step < m; step++) {
    let v = -1;
    for (let j = 0; j < n; j++) {
      if (inTree[j]) continue;
      if (
        v < 0 ||
        before(
          bestW[j],
          Math.min(j, bestU[j]),
          Math.max(j, bestU[j]),
          bestW[v],
          Math.min(v, bestU[v]),
          Math.max(v, bestU[v]),
        )
      ) {
        v = j;
      }
    }
    const u = bestU[v];
    edges.push([Math.min(u, v), Math.max(u, v), bestW[v]]);
    inTree[v] = 1;
    for (let j = 0; j < n; j++) {
      if (inTree[j]) continue;
      const w = weight(v, j);
      if (before(w, Math.min(v, j), Math.max(v, j), bestW[j], Math.min(j, bestU[j]), Math.max(j, bestU[j]))) {
        bestW[j] = w;
        bestU[j] = v;
      }
    }
  }
  edges.sort((x, y) => (x[2] !== y[2] ? x[2] - y[2] : x[0] !== y[0] ? x[0] - y[0] : x[1] - y[1]));
  return {
    sources: Uint32Array.from(edges, (e) => e[0]),
    targets: Uint32Array.from(edges, (e) => e[1]),
    weights: Float64Array.from(edges, (e) => e[2]),
  };
}
