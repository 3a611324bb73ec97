/**
 * clusterFromMst on degenerate inputs (0, 1, 2 points, duplicates with λ = ∞, minClusterSize > n), the options'
 * documented effects, order independence, and validation at the door.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { clusterFromMst, clusterFromSingleLinkage } from '../../src/cluster/clusterFromMst.js';
import { singleLinkage } from '../../src/cluster/linkage.js';
import type { ClusterOptions, ClusterResult, MstEdges } from '../../src/cluster/types.js';
import { primMst } from '../helpers/prim.js';
import { mulberry32 } from '../helpers/random.js';

const empty = (): MstEdges => ({
  sources: new Uint32Array(0),
  targets: new Uint32Array(0),
  weights: new Float32Array(0),
});

function expectWellFormed(r: ClusterResult, n: number): void {
  expect(r.labels.length).toBe(n);
  expect(r.probabilities.length).toBe(n);
  expect(r.outlierScores.length).toBe(n);
  for (let i = 0; i < n; i++) {
    expect(r.labels[i]).toBeGreaterThanOrEqual(-1);
    expect(r.labels[i]).toBeLessThan(r.selectedClusters.length);
    expect(r.probabilities[i] >= 0 && r.probabilities[i] <= 1, `probability ${i} = ${r.probabilities[i]}`).toBe(true);
    expect(r.outlierScores[i] >= 0 && r.outlierScores[i] <= 1, `score ${i} = ${r.outlierScores[i]}`).toBe(true);
    if (r.labels[i] < 0) expect(r.probabilities[i]).toBe(0);
  }
  expect(r.clusterPersistence.length).toBe(r.selectedClusters.length);
  for (const p of r.clusterPersistence) expect(Number.isNaN(p)).toBe(false);
  // Every point appears exactly once as a child in the condensed tree (n ≥ 2).
  if (n >= 2) {
    const seen = new Uint8Array(n);
    r.condensedTree.child.forEach((c) => {
      if (c < n) seen[c]++;
    });
    expect(seen.every((s) => s === 1)).toBe(true);
  }
}

/** Seeded Gaussian blobs in 2D (float32). */
function blobs(n: number, seed: number, centers: number[][], spread = 0.4): Float32Array {
  const rand = mulberry32(seed);
  const pts = new Float32Array(2 * n);
  for (let i = 0; i < n; i++) {
    const [cx, cy] = centers[i % centers.length];
    const r = Math.sqrt(-2 * Math.log(1 - rand())) * spread;
    const a = 2 * Math.PI * rand();
    pts[2 * i] = cx + r * Math.cos(a);
    pts[2 * i + 1] = cy + r * Math.sin(a);
  }
  return pts;
}

describe('clusterFromMst on degenerate inputs', () => {
  it('n = 0 returns empty arrays', () => {
    const r = clusterFromMst(empty(), 0, { minClusterSize: 5 });
    expectWellFormed(r, 0);
    expect(r.condensedTree.parent.length).toBe(0);
    expect(r.singleLinkage.left.length).toBe(0);
    expect(r.selectedClusters.length).toBe(0);
  });

  it('n = 1 is one noise point, also with allowSingleCluster', () => {
    for (const allowSingleCluster of [false, true]) {
      const r = clusterFromMst(empty(), 1, { minClusterSize: 2, allowSingleCluster });
      expectWellFormed(r, 1);
      expect(Array.from(r.labels)).toEqual([-1]);
    }
  });

  it('n = 2: both points leave the root together; allowSingleCluster makes them one cluster', () => {
    const mst = { sources: new Uint32Array([0]), targets: new Uint32Array([1]), weights: new Float32Array([0.5]) };
    const r = clusterFromMst(mst, 2, { minClusterSize: 2 });
    expectWellFormed(r, 2);
    expect(Array.from(r.labels)).toEqual([-1, -1]);
    expect(Array.from(r.condensedTree.parent)).toEqual([2, 2]);
    expect(Array.from(r.condensedTree.child)).toEqual([0, 1]);
    expect(Array.from(r.condensedTree.lambda)).toEqual([2, 2]);
    const single = clusterFromMst(mst, 2, { minClusterSize: 2, allowSingleCluster: true });
    expect(Array.from(single.labels)).toEqual([0, 0]);
    expect(Array.from(single.probabilities)).toEqual([1, 1]);
    expect(Array.from(single.selectedClusters)).toEqual([2]);
  });

  it('all points identical: λ = ∞ everywhere and no NaN; the star MST gives no split, allowSingleCluster one cluster', () => {
    const n = 40;
    const points = new Float32Array(2 * n).fill(3.25);
    const mst = primMst(points, 2, { minSamples: 4 });
    expect(Array.from(mst.weights).every((w) => w === 0)).toBe(true);
    // The canonical tree on identical points is the star (0, j): points join one by one, nothing ever splits.
    expect(Array.from(mst.sources).every((s) => s === 0)).toBe(true);
    const r = clusterFromMst(mst, n, { minClusterSize: 5 });
    expectWellFormed(r, n);
    expect(Array.from(r.condensedTree.lambda).every((l) => l === Infinity)).toBe(true);
    expect(r.selectedClusters.length).toBe(0);
    expect(Array.from(r.outlierScores).every((s) => s === 0)).toBe(true);
    const single = clusterFromMst(mst, n, { minClusterSize: 5, allowSingleCluster: true });
    expectWellFormed(single, n);
    expect(Array.from(single.labels).every((l) => l === 0)).toBe(true);
    expect(Array.from(single.probabilities).every((p) => p === 1)).toBe(true);
    expect(Array.from(single.clusterPersistence)).toEqual([1]);
  });

  it('identical points whose MST splits: clusters born at λ = ∞ (NaN stability) are selected, no NaN out', () => {
    // Two stars joined last, all weights 0: A = {0, 1…18, 39} around 0, B = {19…38} around 19, bridge (38, 39).
    const n = 40;
    const edges: Array<[number, number]> = [];
    for (let j = 1; j <= 18; j++) edges.push([0, j]);
    edges.push([0, 39]);
    for (let j = 20; j <= 38; j++) edges.push([19, j]);
    edges.push([38, 39]);
    const mst = {
      sources: Uint32Array.from(edges, (e) => e[0]),
      targets: Uint32Array.from(edges, (e) => e[1]),
      weights: new Float32Array(n - 1),
    };
    const r = clusterFromMst(mst, n, { minClusterSize: 5 });
    expectWellFormed(r, n);
    expect(Array.from(r.condensedTree.lambda).every((l) => l === Infinity)).toBe(true);
    expect(r.condensedTree.numClusters).toBe(3);
    expect(Array.from(r.selectedClusters)).toEqual([41, 42]);
    expect(Number.isNaN(r.stability[1]) && Number.isNaN(r.stability[2])).toBe(true);
    // The bridge's min endpoint 38 is in B, so B is the left child: cluster 41, label 0.
    expect(r.labels[19]).toBe(0);
    expect(r.labels[0]).toBe(1);
    expect(Array.from(r.outlierScores).every((s) => s === 0)).toBe(true);
    expect(Array.from(r.clusterPersistence).every((p) => p === 1)).toBe(true);
    for (let i = 0; i < n; i++) if (r.labels[i] >= 0) expect(r.probabilities[i]).toBe(1);
  });

  it('duplicates inside a cluster: finite-λ points of a cluster that dies at λ = ∞ score 1, not NaN', () => {
    // 12 copies of one point plus 6 points around it: the cluster's subtree ends at distance 0.
    const pts: number[] = [];
    for (let i = 0; i < 12; i++) pts.push(1, 1);
    for (let i = 0; i < 6; i++) pts.push(1 + 0.1 * (i + 1), 1);
    const points = Float32Array.from(pts);
    const n = points.length / 2;
    const r = clusterFromMst(primMst(points, 2, { minSamples: 2 }), n, { minClusterSize: 5, allowSingleCluster: true });
    expectWellFormed(r, n);
    const finite = Array.from({ length: n }, (_, i) => i).filter((i) => i >= 12);
    for (const i of finite) expect(r.outlierScores[i]).toBe(1);
    for (let i = 0; i < 12; i++) expect(r.outlierScores[i]).toBe(0);
  });

  it('minClusterSize > n: everything is noise; allowSingleCluster labels the points that stay to the end', () => {
    const points = blobs(30, 5, [[0, 0]]);
    const mst = primMst(points, 2, { minSamples: 3 });
    const r = clusterFromMst(mst, 30, { minClusterSize: 50 });
    expectWellFormed(r, 30);
    expect(r.selectedClusters.length).toBe(0);
    expect(Array.from(r.labels).every((l) => l === -1)).toBe(true);
    expect(r.condensedTree.numClusters).toBe(1);
    const single = clusterFromMst(mst, 30, { minClusterSize: 50, allowSingleCluster: true });
    expectWellFormed(single, 30);
    expect(Array.from(single.selectedClusters)).toEqual([30]);
    // hdbscan's root rule: only points leaving at the root's largest λ are labelled.
    const maxLambda = Math.max(...single.condensedTree.lambda);
    single.condensedTree.child.forEach((x, row) => {
      expect(single.labels[x]).toBe(single.condensedTree.lambda[row] >= maxLambda ? 0 : -1);
    });
  });
});

describe('clusterFromMst options', () => {
  const centers = [
    [0, 0],
    [10, 0],
    [0, 10],
    [10.8, 10.8],
    [11.6, 11.6],
  ];
  const points = blobs(500, 11, centers, 0.5);
  const mst = primMst(points, 2, { minSamples: 5 });
  const run = (o: ClusterOptions) => clusterFromMst(mst, 500, o);
  const sizes = (r: ClusterResult) => {
    const s = new Array<number>(r.selectedClusters.length).fill(0);
    r.labels.forEach((l) => l >= 0 && s[l]++);
    return s;
  };

  it('eom finds the blobs; leaf never finds fewer clusters', () => {
    const eom = run({ minClusterSize: 20 });
    expectWellFormed(eom, 500);
    expect(eom.selectedClusters.length).toBeGreaterThanOrEqual(4);
    const leaf = run({ minClusterSize: 20, clusterSelectionMethod: 'leaf' });
    expectWellFormed(leaf, 500);
    expect(leaf.selectedClusters.length).toBeGreaterThanOrEqual(eom.selectedClusters.length);
  });

  it('maxClusterSize: no selected cluster exceeds it', () => {
    for (const maxClusterSize of [60, 120, 250]) {
      const r = run({ minClusterSize: 10, maxClusterSize });
      expectWellFormed(r, 500);
      for (const k of r.selectedClusters) {
        const row = Array.from(r.condensedTree.child).indexOf(k);
        expect(r.condensedTree.childSize[row]).toBeLessThanOrEqual(maxClusterSize);
      }
      for (const s of sizes(r)) expect(s).toBeLessThanOrEqual(maxClusterSize);
    }
  });

  it('epsilon: no selected cluster is born below ε unless its parent is the root; large ε merges', () => {
    const base = run({ minClusterSize: 10, clusterSelectionMethod: 'leaf' });
    const eps = 3;
    const r = run({ minClusterSize: 10, clusterSelectionMethod: 'leaf', clusterSelectionEpsilon: eps });
    expectWellFormed(r, 500);
    expect(r.selectedClusters.length).toBeLessThan(base.selectedClusters.length);
    const t = r.condensedTree;
    for (const k of r.selectedClusters) {
      const row = Array.from(t.child).indexOf(k);
      if (t.parent[row] !== 500) expect(1 / t.lambda[row]).toBeGreaterThanOrEqual(eps);
    }
  });

  it('allowSingleCluster on one blob selects the root', () => {
    const one = blobs(200, 3, [[0, 0]], 1);
    const m = primMst(one, 2, { minSamples: 5 });
    const r = clusterFromMst(m, 200, { minClusterSize: 60, allowSingleCluster: true });
    expectWellFormed(r, 200);
    expect(Array.from(r.selectedClusters)).toEqual([200]);
    expect(r.labels.filter((l) => l === 0).length).toBeGreaterThan(0);
  });

  it('the result does not depend on the edge order or on endpoint order', () => {
    const a = run({ minClusterSize: 15 });
    const rand = mulberry32(99);
    const m = mst.weights.length;
    const perm = Array.from({ length: m }, (_, i) => i).sort(() => rand() - 0.5);
    const shuffled: MstEdges = {
      sources: Uint32Array.from(perm, (e, i) => (i % 2 ? mst.sources[e] : mst.targets[e])),
      targets: Uint32Array.from(perm, (e, i) => (i % 2 ? mst.targets[e] : mst.sources[e])),
      weights: Float64Array.from(perm, (e) => mst.weights[e]),
    };
    const b = clusterFromMst(shuffled, 500, { minClusterSize: 15 });
    expect(Array.from(b.labels)).toEqual(Array.from(a.labels));
    expect(Array.from(b.condensedTree.child)).toEqual(Array.from(a.condensedTree.child));
    expect(Array.from(b.outlierScores)).toEqual(Array.from(a.outlierScores));
  });
});

describe('clusterFromMst validates at the door', () => {
  const mst = { sources: new Uint32Array([0, 1]), targets: new Uint32Array([1, 2]), weights: new Float32Array([1, 2]) };
  const cases: Array<[string, () => unknown, RegExp]> = [
    ['minClusterSize 1', () => clusterFromMst(mst, 3, { minClusterSize: 1 }), /minClusterSize.*got 1/],
    ['minClusterSize 2.5', () => clusterFromMst(mst, 3, { minClusterSize: 2.5 }), /minClusterSize.*got 2\.5/],
    ['minClusterSize "5"', () => clusterFromMst(mst, 3, { minClusterSize: '5' as unknown as number }), /got '5'/],
    ['method', () => clusterFromMst(mst, 3, { minClusterSize: 2, clusterSelectionMethod: 'EOM' as 'eom' }), /'EOM'/],
    ['epsilon', () => clusterFromMst(mst, 3, { minClusterSize: 2, clusterSelectionEpsilon: -1 }), /Epsilon.*-1/],
    [
      'allowSingleCluster',
      () => clusterFromMst(mst, 3, { minClusterSize: 2, allowSingleCluster: 1 as unknown as boolean }),
      /allowSingleCluster/,
    ],
    ['maxClusterSize', () => clusterFromMst(mst, 3, { minClusterSize: 2, maxClusterSize: -3 }), /maxClusterSize.*-3/],
    ['edge count', () => clusterFromMst(mst, 4, { minClusterSize: 2 }), /n=4.*3 edges.*sources.length=2/],
    [
      'endpoint',
      () => clusterFromMst({ ...mst, targets: new Uint32Array([1, 7]) }, 3, { minClusterSize: 2 }),
      /edge 1 = \(1, 7\)/,
    ],
    [
      'self-loop',
      () => clusterFromMst({ ...mst, targets: new Uint32Array([1, 1]) }, 3, { minClusterSize: 2 }),
      /self-loops.*\(1, 1\)/,
    ],
    [
      'NaN weight',
      () => clusterFromMst({ ...mst, weights: new Float32Array([1, NaN]) }, 3, { minClusterSize: 2 }),
      /weights\[1\] = NaN/,
    ],
    [
      'negative weight',
      () => clusterFromMst({ ...mst, weights: new Float32Array([-1, 2]) }, 3, { minClusterSize: 2 }),
      /weights\[0\] = -1/,
    ],
    ['cycle', () => clusterFromMst({ ...mst, targets: new Uint32Array([1, 0]) }, 3, { minClusterSize: 2 }), /cycle/],
    [
      'array types',
      () => clusterFromMst({ ...mst, sources: [0, 1] as unknown as Uint32Array }, 3, { minClusterSize: 2 }),
      /Uint32Arrays/,
    ],
    ['point count', () => clusterFromMst(mst, -1, { minClusterSize: 2 }), /n to be an integer.*got -1/],
    [
      'single-linkage row count',
      () => clusterFromSingleLinkage(singleLinkage(mst, 3), 4, { minClusterSize: 2 }),
      /n=4 points to have 3 rows, got left 2/,
    ],
  ];
  for (const [what, call, message] of cases) {
    it(`throws InputError for a bad ${what}`, () => {
      expect(call).toThrow(InputError);
      expect(call).toThrow(message);
    });
  }
});
