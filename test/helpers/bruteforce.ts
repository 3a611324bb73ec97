/**
 * An independent float64 brute-force k-NN oracle: for each query, the distance to every other point computed in
 * float64 from the f32 coordinates (exact up to double rounding), sorted by (distance, index), self excluded by
 * index. It shares no code with src/knn or src/bvh.
 */

export interface OracleRow {
  query: number;
  /** The k + 1 nearest other points, ascending by (distance, index) (fewer when n − 1 < k + 1). */
  indices: number[];
  /** Their float64 Euclidean distances (not squared). */
  distances: number[];
}

/** The k + 1 nearest neighbours of each query (float64). */
export function bruteForceKnn(points: Float32Array, dim: number, k: number, queries: number[]): OracleRow[] {
  const n = points.length / dim;
  const m = k + 1;
  const rows: OracleRow[] = [];
  const bestD = new Float64Array(m);
  const bestI = new Int32Array(m);
  for (const q of queries) {
    let count = 0;
    for (let j = 0; j < n; j++) {
      if (j === q) continue;
      let s = 0;
      for (let a = 0; a < dim; a++) {
        const t = points[q * dim + a] - points[j * dim + a];
        s += t * t;
      }
      if (count === m && !(s < bestD[m - 1])) continue; // j increases: ties keep the smaller index
      let pos = count < m ? count++ : m - 1;
      while (pos > 0 && bestD[pos - 1] > s) {
        bestD[pos] = bestD[pos - 1];
        bestI[pos] = bestI[pos - 1];
        pos--;
      }
      bestD[pos] = s;
      bestI[pos] = j;
    }
    rows.push({
      query: q,
      indices: Array.from(bestI.subarray(0, count)),
      distances: Array.from(bestD.subarray(0, count), Math.sqrt),
    });
  }
  return rows;
}

/** The spacing of float32 values at x (x ≥ 0): one ulp. */
export function ulpF32(x: number): number {
  if (x === 0) return 2 ** -149;
  const e = Math.floor(Math.log2(x));
  const ex = Math.fround(2 ** e) > x ? e - 1 : e;
  return 2 ** Math.max(ex - 23, -149);
}

export interface KnnRows {
  k: number;
  /** n × k indices (0xFFFFFFFF where absent). */
  indices: Uint32Array;
  /** n × k squared distances. */
  squaredDistances: Float32Array;
}

export interface OracleComparison {
  /** Largest |distance − oracle distance| in ulps of the oracle distance, over every rank checked. */
  maxUlps: number;
  /** Queries whose index set was required to equal the oracle's (no near-tie at the k-th place). */
  setsChecked: number;
  /** Human-readable failures (empty when the result agrees). */
  failures: string[];
}

/**
 * Compares a k-NN result with the oracle on `queries`: rank-wise distances within `tolUlps` ulps (plain, not
 * squared); rows sorted by (distance, index) with no self and no repeat; each returned index really at its
 * reported distance; and the index set equal to the oracle's wherever the k-th and (k+1)-th oracle distances
 * are more than 2·tolUlps ulps apart (and each isolated rank's index equal).
 */
export function compareWithOracle(
  points: Float32Array,
  dim: number,
  result: KnnRows,
  queries: number[],
  tolUlps = 2,
): OracleComparison {
  const { k } = result;
  const n = points.length / dim;
  const rows = bruteForceKnn(points, dim, k, queries);
  const failures: string[] = [];
  let maxUlps = 0;
  let setsChecked = 0;
  const fail = (q: number, msg: string) => failures.length < 20 && failures.push(`query ${q}: ${msg}`);
  for (const row of rows) {
    const q = row.query;
    const have = Math.min(k, n - 1);
    const ids: number[] = [];
    const ds: number[] = [];
    for (let r = 0; r < k; r++) {
      const id = result.indices[q * k + r];
      const sq = result.squaredDistances[q * k + r];
      if (r >= have) {
        if (id !== 0xffffffff || sq !== Infinity) fail(q, `rank ${r} should be empty, got ${id} at ${sq}`);
        continue;
      }
      ids.push(id);
      ds.push(Math.sqrt(sq));
      if (id >= n || id === q) fail(q, `rank ${r} index ${id} is out of range or the query itself`);
    }
    if (new Set(ids).size !== ids.length) fail(q, `repeated index in ${ids}`);
    for (let r = 1; r < ids.length; r++) {
      const a = result.squaredDistances[q * k + r - 1];
      const b = result.squaredDistances[q * k + r];
      if (a > b || (a === b && ids[r - 1] > ids[r])) fail(q, `not sorted by (distance, index) at rank ${r}`);
    }
    const tol = (x: number) => tolUlps * ulpF32(x);
    for (let r = 0; r < ids.length; r++) {
      const want = row.distances[r];
      const err = Math.abs(ds[r] - want) / ulpF32(want);
      if (err > maxUlps) maxUlps = err;
      if (Math.abs(ds[r] - want) > tol(want))
        fail(q, `rank ${r} distance ${ds[r]} vs oracle ${want} (${err.toFixed(2)} ulps)`);
      if (ids[r] < n) {
        let s = 0;
        for (let a = 0; a < dim; a++) {
          const t = points[q * dim + a] - points[ids[r] * dim + a];
          s += t * t;
        }
        const truth = Math.sqrt(s);
        if (Math.abs(ds[r] - truth) > tol(truth)) fail(q, `index ${ids[r]} is at ${truth}, reported ${ds[r]}`);
      }
    }
    const od = row.distances;
    const kth = have - 1;
    const gapAfter = kth + 1 >= od.length || od[kth + 1] - od[kth] > 2 * tol(od[kth + 1]);
    if (have > 0 && gapAfter) {
      setsChecked++;
      const want = new Set(row.indices.slice(0, have));
      if (!ids.every((i) => want.has(i))) fail(q, `index set ${ids} ≠ oracle ${[...want]}`);
      for (let r = 0; r < have; r++) {
        const isolated =
          (r === 0 || od[r] - od[r - 1] > 2 * tol(od[r])) &&
          (r + 1 >= od.length || od[r + 1] - od[r] > 2 * tol(od[r + 1]));
        if (isolated && ids[r] !== row.indices[r]) fail(q, `rank ${r} index ${ids[r]} ≠ oracle ${row.indices[r]}`);
      }
    }
  }
  return { maxUlps, setsChecked, failures };
}

/** `count` query indices spread over [0, n), always including 0 and n − 1. */
export function sampleQueries(n: number, count: number): number[] {
  if (n <= count) return Array.from({ length: n }, (_, i) => i);
  const out = new Set<number>([0, n - 1]);
  for (let i = 0; out.size < count; i++) out.add(Math.floor(((i * 0.6180339887498949) % 1) * n));
  return [...out];
}
