/**
 * The CPU backend of emst() against brute-force Prim (issue 4's acceptance, CPU side), on seeded inputs with
 * d = 1 … 8 and 16; uniform, normal, clustered, integer grids (massive exact ties), partial and total duplicates;
 * minSamples 1, 2, 5, 15.
 *  - Against the float64 Prim of test/helpers/prim.ts: identical edge lists where float32 distances are exact
 *    (integer coordinates, duplicates); elsewhere the same total weight within 1e-6 relative, and every edge not in
 *    Prim's tree is a near-tie (it closes a cycle in Prim's tree whose heaviest edge is within 1e-6 relative).
 *  - Against a float32-key Prim written here (keys computed as DESIGN.md says: float32 squared distances summed in
 *    dimension order, mutual reachability on squared keys), which orders edges exactly as the backend must:
 *    identical edge lists on every input, near-ties included.
 */
import { describe, expect, it } from 'vitest';
import { emstCpu } from '../../src/emst/boruvka.cpu.js';
import { checkSpanningTree, relativeDifference } from '../../src/emst/check.js';
import { cloud } from '../helpers/clouds.js';
import { primMst, type PrimMst } from '../helpers/prim.js';
import { mulberry32 } from '../helpers/random.js';
import { metricOf } from '../../src/emst/metric.js';

const f32 = Math.fround;
type Kind = 'uniform' | 'normal' | 'clustered' | 'grid' | 'duplicates' | 'someDuplicates' | 'collinear';
const EXACT: Kind[] = ['grid', 'duplicates'];
const DIMS = [1, 2, 3, 4, 5, 6, 7, 8, 16];

/** Seeded points; 'someDuplicates': integer-free normal points where every third point repeats an earlier one. */
function points(kind: Kind, n: number, dim: number, seed: number): Float32Array {
  if (kind !== 'someDuplicates') return cloud(kind, n, dim, seed);
  const p = cloud('normal', n, dim, seed);
  const r = mulberry32(seed + 1);
  for (let i = 1; i < n; i++) {
    if (i % 3 !== 0) continue;
    const j = Math.floor(r() * i);
    p.copyWithin(i * dim, j * dim, j * dim + dim);
  }
  return p;
}

/** Float32-key Prim: the canonical tree under (key, min, max) with the keys the backend must compute. */
function primF32(p: Float32Array, dim: number, minSamples: number, alpha = 1) {
  const n = p.length / dim;
  const key = (a: number, b: number) => {
    let s = 0;
    for (let k = 0; k < dim; k++) {
      const t = f32(p[a * dim + k] - p[b * dim + k]);
      s = f32(s + f32(t * t));
    }
    return s;
  };
  let core2: Float64Array | null = null;
  const ia2 = f32(1 / (alpha * alpha));
  if (minSamples > 1 || alpha !== 1) {
    core2 = new Float64Array(n);
    const kth = Math.min(minSamples, n - 1);
    const row = new Float32Array(n - 1);
    for (let i = 0; i < n; i++) {
      let m = 0;
      for (let j = 0; j < n; j++) if (j !== i) row[m++] = key(i, j);
      row.sort();
      core2[i] = row[kth - 1];
    }
  }
  const weight = (a: number, b: number) => {
    const k = key(a, b);
    return core2 === null ? k : Math.max(core2[a], core2[b], ia2 === 1 ? k : f32(k * ia2));
  };
  const less = (k1: number, a1: number, b1: number, k2: number, a2: number, b2: number) =>
    k1 < k2 || (k1 === k2 && (a1 < a2 || (a1 === a2 && b1 < b2)));
  const inTree = new Uint8Array(n);
  const bk = new Float64Array(n).fill(Infinity);
  const bu = new Int32Array(n).fill(-1);
  const edges: [number, number, number][] = [];
  inTree[0] = 1;
  for (let j = 1; j < n; j++) [bk[j], bu[j]] = [weight(0, j), 0];
  for (let step = 1; step < n; step++) {
    let v = -1;
    for (let j = 0; j < n; j++) {
      if (inTree[j]) continue;
      const lo = Math.min(j, bu[j]);
      const hi = Math.max(j, bu[j]);
      if (v < 0 || less(bk[j], lo, hi, bk[v], Math.min(v, bu[v]), Math.max(v, bu[v]))) v = j;
    }
    edges.push([Math.min(v, bu[v]), Math.max(v, bu[v]), f32(Math.sqrt(bk[v]))]);
    inTree[v] = 1;
    for (let j = 0; j < n; j++) {
      if (inTree[j]) continue;
      const k = weight(v, j);
      if (less(k, Math.min(v, j), Math.max(v, j), bk[j], Math.min(j, bu[j]), Math.max(j, bu[j])))
        [bk[j], bu[j]] = [k, v];
    }
  }
  edges.sort((x, y) => x[2] - y[2] || x[0] - y[0] || x[1] - y[1]);
  return edges;
}

/** Every edge of `tree` missing from `oracle` closes a cycle in `oracle` whose heaviest edge is within tol of it. */
function nearTieDifferences(
  n: number,
  tree: { sources: Uint32Array; targets: Uint32Array; weights: Float32Array },
  oracle: PrimMst,
  tol: number,
) {
  const adj: [number, number][][] = Array.from({ length: n }, () => []);
  const inOracle = new Set<number>();
  for (let e = 0; e < oracle.sources.length; e++) {
    adj[oracle.sources[e]].push([oracle.targets[e], oracle.weights[e]]);
    adj[oracle.targets[e]].push([oracle.sources[e], oracle.weights[e]]);
    inOracle.add(oracle.sources[e] * n + oracle.targets[e]);
  }
  const bad: string[] = [];
  let differing = 0;
  for (let e = 0; e < tree.sources.length; e++) {
    const [s, t, w] = [tree.sources[e], tree.targets[e], tree.weights[e]];
    if (inOracle.has(s * n + t)) continue;
    differing++;
    // Heaviest edge on the oracle's path s → t (iterative DFS).
    const heaviest = new Float64Array(n).fill(-1);
    heaviest[s] = 0;
    const stack = [s];
    while (stack.length > 0) {
      const u = stack.pop()!;
      for (const [v, wv] of adj[u]) {
        if (heaviest[v] >= 0) continue;
        heaviest[v] = Math.max(heaviest[u], wv);
        stack.push(v);
      }
    }
    if (relativeDifference(w, heaviest[t]) > tol) bad.push(`(${s}, ${t}, ${w}) vs path max ${heaviest[t]}`);
  }
  return { differing, bad };
}

function expectIdentical(got: ReturnType<typeof emstCpu>, want: [number, number, number][]) {
  expect(got.sources.length).toBe(want.length);
  for (let e = 0; e < want.length; e++) {
    if (got.sources[e] !== want[e][0] || got.targets[e] !== want[e][1] || got.weights[e] !== want[e][2]) {
      expect([e, got.sources[e], got.targets[e], got.weights[e]]).toEqual([e, ...want[e]]);
    }
  }
}

describe('emstCpu(points) against brute-force Prim', () => {
  const kinds: Kind[] = ['uniform', 'normal', 'clustered', 'grid', 'duplicates', 'someDuplicates', 'collinear'];
  for (const kind of kinds) {
    for (const minSamples of [1, 2, 5, 15]) {
      it(`${kind}, d = 1 … 8 and 16, minSamples ${minSamples}`, () => {
        for (const dim of DIMS) {
          const n = 160 + 13 * dim;
          const seed = 1000 * dim + 7 * minSamples + kind.length;
          const p = points(kind, n, dim, seed);
          const got = emstCpu(p, dim, { metric: metricOf(minSamples) });
          const where = `${kind} d=${dim} n=${n} minSamples=${minSamples}`;
          expect(checkSpanningTree(n, got).problems, where).toEqual([]);
          // Exact order of the float32 keys: identical on every input.
          expectIdentical(got, primF32(p, dim, minSamples));
          // float64 Prim.
          const oracle = primMst(p, dim, minSamples > 1 ? { minSamples } : {});
          if (EXACT.includes(kind)) {
            expect(Array.from(got.sources), where).toEqual(Array.from(oracle.sources));
            expect(Array.from(got.targets), where).toEqual(Array.from(oracle.targets));
            expect(Array.from(got.weights), where).toEqual(Array.from(oracle.weights, f32));
          } else {
            const total = got.weights.reduce((s, w) => s + w, 0);
            const want = oracle.weights.reduce((s, w) => s + w, 0);
            expect(relativeDifference(total, want), where).toBeLessThan(1e-6);
            expect(nearTieDifferences(n, got, oracle, 1e-6).bad, where).toEqual([]);
          }
        }
      });
    }
  }

  it('alpha ≠ 1 (mutual reachability on scaled distances) matches both Prims', () => {
    for (const [dim, minSamples, alpha] of [
      [2, 1, 0.5],
      [3, 5, 2],
      [5, 2, 1.3],
    ] as const) {
      const n = 300;
      const p = points('clustered', n, dim, 11 * dim);
      const got = emstCpu(p, dim, { metric: metricOf(minSamples, alpha) });
      expectIdentical(got, primF32(p, dim, minSamples, alpha));
      const oracle = primMst(p, dim, { minSamples, alpha });
      const total = got.weights.reduce((s, w) => s + w, 0);
      expect(
        relativeDifference(
          total,
          oracle.weights.reduce((s, w) => s + w, 0),
        ),
      ).toBeLessThan(1e-6);
    }
  });

  it('n = 5,000 (uniform 2D, grid 3D) and n = 2,000 (clustered 3D, grid 2D, minSamples 5)', () => {
    for (const [kind, dim, minSamples, n] of [
      ['uniform', 2, 1, 5000],
      ['grid', 3, 1, 5000],
      ['clustered', 3, 5, 2000],
      ['grid', 2, 5, 2000],
    ] as const) {
      const p = points(kind, n, dim, 99 + dim);
      const got = emstCpu(p, dim, { metric: metricOf(minSamples) });
      expect(checkSpanningTree(n, got).problems).toEqual([]);
      expectIdentical(got, primF32(p, dim, minSamples));
      if (minSamples === 1) {
        const oracle = primMst(p, dim);
        const total = got.weights.reduce((s, w) => s + w, 0);
        expect(
          relativeDifference(
            total,
            oracle.weights.reduce((s, w) => s + w, 0),
          ),
        ).toBeLessThan(1e-6);
        if (kind === 'grid') expect(Array.from(got.targets)).toEqual(Array.from(oracle.targets));
      }
    }
  });
});
