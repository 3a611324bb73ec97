/**
 * The Prim oracle (test/helpers/prim.ts) against an all-pairs Kruskal written independently here: the same
 * canonical tree (edges and order), Euclidean and mutual reachability, alpha, minSamples clamping, duplicates and
 * grid ties.
 */
import { describe, expect, it } from 'vitest';
import { bruteCoreDistances, primMst } from '../helpers/prim.js';
import { mulberry32 } from '../helpers/random.js';

/** Kruskal over all pairs in the canonical order (weight, min, max), float64. */
function allPairsKruskal(points: Float32Array, dim: number, minSamples: number, alpha: number): number[][] {
  const n = points.length / dim;
  const core = new Float64Array(n);
  if (minSamples > 0) {
    const k = Math.min(minSamples, n - 1);
    for (let i = 0; i < n; i++) {
      const ds: number[] = [];
      for (let j = 0; j < n; j++) {
        if (j === i) continue;
        let s = 0;
        for (let c = 0; c < dim; c++) s += (points[i * dim + c] - points[j * dim + c]) ** 2;
        ds.push(Math.sqrt(s));
      }
      ds.sort((a, b) => a - b);
      core[i] = ds[k - 1];
    }
  }
  const edges: number[][] = [];
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      let s = 0;
      for (let c = 0; c < dim; c++) s += (points[i * dim + c] - points[j * dim + c]) ** 2;
      const d = Math.sqrt(s) / alpha;
      edges.push([i, j, minSamples > 0 ? Math.max(core[i], core[j], d) : d]);
    }
  }
  edges.sort((a, b) => a[2] - b[2] || a[0] - b[0] || a[1] - b[1]);
  const parent = Array.from({ length: n }, (_, i) => i);
  const find = (x: number): number => (parent[x] === x ? x : (parent[x] = find(parent[x])));
  const tree: number[][] = [];
  for (const e of edges) {
    const a = find(e[0]);
    const b = find(e[1]);
    if (a !== b) {
      parent[a] = b;
      tree.push(e);
    }
  }
  return tree;
}

function cloud(n: number, dim: number, seed: number): Float32Array {
  const rand = mulberry32(seed);
  const pts = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < dim; c++) {
      // Half the points on a coarse grid (exact ties), some exact duplicates, the rest continuous.
      pts[i * dim + c] = i % 2 === 0 ? Math.floor(rand() * 6) : i % 5 === 1 ? pts[(i - 1) * dim + c] : rand() * 6;
    }
  }
  return pts;
}

describe('primMst (the MST oracle)', () => {
  for (const [dim, minSamples, alpha] of [
    [2, 0, 1],
    [3, 0, 1],
    [2, 1, 1],
    [2, 4, 1],
    [3, 7, 1.5],
    [2, 500, 1], // clamped to n − 1
  ] as const) {
    it(`equals all-pairs Kruskal in canonical order (dim ${dim}, minSamples ${minSamples}, alpha ${alpha})`, () => {
      const points = cloud(120, dim, 7 + dim + minSamples);
      const mst = primMst(points, dim, { minSamples, alpha });
      const expected = allPairsKruskal(points, dim, minSamples, alpha);
      expect(mst.weights.length).toBe(119);
      expect(Array.from(mst.sources, (s, i) => [s, mst.targets[i], mst.weights[i]])).toEqual(expected);
    });
  }

  it('core distances exclude the point itself by index: a duplicate is a neighbour at distance 0', () => {
    const points = new Float32Array([0, 0, 0, 0, 3, 0, 10, 0]);
    expect(Array.from(bruteCoreDistances(points, 2, 1))).toEqual([0, 0, 3, 7]);
    expect(Array.from(bruteCoreDistances(points, 2, 2))).toEqual([3, 3, 3, 10]);
    expect(Array.from(bruteCoreDistances(points, 2, 9))).toEqual([10, 10, 7, 10]);
  });

  it('handles 0, 1 and 2 points', () => {
    expect(primMst(new Float32Array(0), 2).weights.length).toBe(0);
    expect(primMst(new Float32Array([1, 1]), 2).weights.length).toBe(0);
    const two = primMst(new Float32Array([0, 0, 3, 4]), 2, { minSamples: 1 });
    expect([two.sources[0], two.targets[0], two.weights[0]]).toEqual([0, 1, 5]);
  });
});
