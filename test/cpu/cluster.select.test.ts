/**
 * The linear-time selection, labelling, probabilities, GLOSH and persistence against a literal, slow port of
 * hdbscan's Python/Cython (`get_clusters`, `epsilon_search`, `traverse_upwards`, `do_labelling` with its
 * union-find, `get_probabilities`, 0.8.42's subtree GLOSH, `get_stability_scores`) on seeded random data, over
 * every combination of method, epsilon, allowSingleCluster and maxClusterSize — the golden files cover only a few.
 */
import { describe, expect, it } from 'vitest';
import { clusterFromSingleLinkage } from '../../src/cluster/clusterFromMst.js';
import { condenseTree } from '../../src/cluster/condense.js';
import { canonicalMst } from '../../src/cluster/edgeOrder.js';
import { singleLinkage } from '../../src/cluster/linkage.js';
import type { CondensedTree, ResolvedClusterOptions } from '../../src/cluster/types.js';
import { primMst } from '../helpers/prim.js';
import { mulberry32 } from '../helpers/random.js';

interface Row {
  parent: number;
  child: number;
  lambda: number;
  size: number;
}

interface PortResult {
  labels: number[];
  probabilities: number[];
  persistence: number[];
  clusters: number[];
}

/** hdbscan's `compute_stability`. */
function portStability(rows: Row[]): Map<number, number> {
  const births = new Map<number, number>();
  for (const r of rows) births.set(r.child, Math.min(births.get(r.child) ?? Infinity, r.lambda));
  const root = Math.min(...rows.map((r) => r.parent));
  births.set(root, 0);
  const maxParent = Math.max(...rows.map((r) => r.parent));
  const result = new Map<number, number>();
  for (let c = root; c <= maxParent; c++) result.set(c, 0);
  for (const r of rows) result.set(r.parent, result.get(r.parent)! + (r.lambda - births.get(r.parent)!) * r.size);
  return result;
}

function bfsClusterTree(clusterRows: Row[], root: number): number[] {
  const out: number[] = [];
  let todo = [root];
  while (todo.length > 0) {
    out.push(...todo);
    todo = clusterRows.filter((r) => todo.includes(r.parent)).map((r) => r.child);
  }
  return out;
}

function leafDfs(clusterRows: Row[], node: number): number[] {
  const children = clusterRows.filter((r) => r.parent === node).map((r) => r.child);
  if (children.length === 0) return [node];
  return children.flatMap((c) => leafDfs(clusterRows, c));
}

function traverseUpwards(clusterRows: Row[], eps: number, leaf: number, allowSingle: boolean): number {
  const root = Math.min(...clusterRows.map((r) => r.parent));
  const parent = clusterRows.find((r) => r.child === leaf)!.parent;
  if (parent === root) return allowSingle ? parent : leaf;
  const parentEps = 1 / clusterRows.find((r) => r.child === parent)!.lambda;
  if (parentEps > eps) return parent;
  return traverseUpwards(clusterRows, eps, parent, allowSingle);
}

function epsilonSearch(leaves: number[], clusterRows: Row[], eps: number, allowSingle: boolean): Set<number> {
  const selected: number[] = [];
  const processed: number[] = [];
  for (const leaf of leaves) {
    const e = 1 / clusterRows.find((r) => r.child === leaf)!.lambda;
    if (e < eps) {
      if (!processed.includes(leaf)) {
        const x = traverseUpwards(clusterRows, eps, leaf, allowSingle);
        selected.push(x);
        for (const s of bfsClusterTree(clusterRows, x)) if (s !== x) processed.push(s);
      }
    } else {
      selected.push(leaf);
    }
  }
  return new Set(selected);
}

/** hdbscan's `get_clusters` + `do_labelling` + `get_probabilities` + `get_stability_scores`; null on its KeyError. */
function portGetClusters(rows: Row[], o: ResolvedClusterOptions): PortResult | null {
  const stability = portStability(rows);
  const keys = [...stability.keys()].sort((a, b) => b - a);
  const nodeList = o.allowSingleCluster ? keys : keys.slice(0, -1);
  const clusterRows = rows.filter((r) => r.size > 1);
  const isCluster = new Map<number, boolean>(nodeList.map((c) => [c, true]));
  const numPoints = Math.max(...rows.filter((r) => r.size === 1).map((r) => r.child)) + 1;
  const maxLambda = Math.max(...rows.map((r) => r.lambda));
  const maxSize = o.maxClusterSize <= 0 ? numPoints + 1 : o.maxClusterSize;
  const sizes = new Map<number, number>(clusterRows.map((r) => [r.child, r.size]));
  const root = keys[keys.length - 1];
  if (o.allowSingleCluster) {
    sizes.set(
      root,
      clusterRows.filter((r) => r.parent === root).reduce((s, r) => s + r.size, 0),
    );
  }
  if (o.clusterSelectionMethod === 'eom') {
    for (const node of nodeList) {
      const kids = clusterRows.filter((r) => r.parent === node).map((r) => r.child);
      const subtree = Math.fround(kids.reduce((s, c) => s + stability.get(c)!, 0));
      if (subtree > stability.get(node)! || sizes.get(node)! > maxSize) {
        isCluster.set(node, false);
        stability.set(node, subtree);
      } else {
        for (const s of bfsClusterTree(clusterRows, node)) if (s !== node) isCluster.set(s, false);
      }
    }
    if (o.clusterSelectionEpsilon !== 0 && clusterRows.length > 0) {
      const eom = [...isCluster.keys()].filter((c) => isCluster.get(c));
      let selected = new Set<number>();
      if (eom.length === 1 && eom[0] === root) {
        if (o.allowSingleCluster) selected = new Set(eom);
      } else {
        selected = epsilonSearch(eom, clusterRows, o.clusterSelectionEpsilon, o.allowSingleCluster);
      }
      for (const c of isCluster.keys()) isCluster.set(c, selected.has(c));
    }
  } else {
    const leaves = clusterRows.length === 0 ? [] : leafDfs(clusterRows, root);
    const selected =
      o.clusterSelectionEpsilon !== 0
        ? epsilonSearch(leaves, clusterRows, o.clusterSelectionEpsilon, o.allowSingleCluster)
        : new Set(leaves);
    if (selected.size === 0 && o.allowSingleCluster) {
      for (const c of isCluster.keys()) isCluster.set(c, false);
      isCluster.set(root, true);
    } else {
      for (const c of isCluster.keys()) isCluster.set(c, selected.has(c));
    }
  }
  const clusters = [...isCluster.keys()].filter((c) => isCluster.get(c)).sort((a, b) => a - b);
  const labelMap = new Map<number, number>(clusters.map((c, i) => [c, i]));
  // do_labelling: union-find by rank over every row whose child is not a selected cluster.
  const maxId = Math.max(...rows.map((r) => r.parent));
  const uf = Array.from({ length: maxId + 1 }, (_, i) => i);
  const rank = new Array<number>(maxId + 1).fill(0);
  const find = (x: number): number => (uf[x] === x ? x : (uf[x] = find(uf[x])));
  for (const r of rows) {
    if (labelMap.has(r.child)) continue;
    const a = find(r.parent);
    const b = find(r.child);
    if (rank[a] < rank[b]) uf[a] = b;
    else if (rank[a] > rank[b]) uf[b] = a;
    else {
      uf[b] = a;
      rank[a]++;
    }
  }
  const lambdaOf = new Map<number, number>(rows.filter((r) => r.size === 1).map((r) => [r.child, r.lambda]));
  const rootMax = Math.max(...rows.filter((r) => r.parent === root).map((r) => r.lambda));
  const labels: number[] = [];
  for (let x = 0; x < numPoints; x++) {
    const c = find(x);
    if (c < root) labels.push(-1);
    else if (c === root) {
      if (clusters.length === 1 && o.allowSingleCluster) {
        if (!labelMap.has(c)) return null; // hdbscan raises KeyError here
        const threshold = o.clusterSelectionEpsilon !== 0 ? 1 / o.clusterSelectionEpsilon : rootMax;
        labels.push(lambdaOf.get(x)! >= threshold ? labelMap.get(c)! : -1);
      } else labels.push(-1);
    } else labels.push(labelMap.get(c)!);
  }
  const deaths = new Map<number, number>();
  for (const r of rows) deaths.set(r.parent, Math.max(deaths.get(r.parent) ?? 0, r.lambda));
  const probabilities = new Array<number>(numPoints).fill(0);
  for (const r of rows) {
    if (r.size !== 1 || labels[r.child] < 0) continue;
    const m = deaths.get(clusters[labels[r.child]])!;
    probabilities[r.child] = m === 0 || !Number.isFinite(r.lambda) ? 1 : Math.min(r.lambda, m) / m;
  }
  const persistence = clusters.map((c, k) => {
    const size = labels.filter((l) => l === k).length;
    if (maxLambda === Infinity || maxLambda === 0 || size === 0) return 1;
    return stability.get(c)! / (size * maxLambda);
  });
  return { labels, probabilities, persistence, clusters };
}

/** GLOSH by its definition: the largest λ over every row under the point's cluster's subtree. */
function portGlosh(rows: Row[]): number[] {
  const clusterRows = rows.filter((r) => r.size > 1);
  const n = Math.max(...rows.filter((r) => r.size === 1).map((r) => r.child)) + 1;
  const scores = new Array<number>(n).fill(0);
  for (const r of rows) {
    if (r.size !== 1) continue;
    const subtree = new Set(bfsClusterTree(clusterRows, r.parent));
    const lamMax = Math.max(...rows.filter((q) => subtree.has(q.parent)).map((q) => q.lambda));
    scores[r.child] = lamMax === 0 || !Number.isFinite(r.lambda) ? 0 : (lamMax - r.lambda) / lamMax;
  }
  return scores;
}

function rowsOf(t: CondensedTree): Row[] {
  return Array.from(t.parent, (p, i) => ({ parent: p, child: t.child[i], lambda: t.lambda[i], size: t.childSize[i] }));
}

/** Seeded 2D blobs of different densities plus uniform noise, on a coarse grid so that ties happen. */
function blobs(seed: number, n: number): Float32Array {
  const rand = mulberry32(seed);
  const centers = [
    [0, 0, 0.5],
    [6, 1, 1.0],
    [2, 7, 0.3],
    [8, 8, 1.5],
  ];
  const pts = new Float32Array(2 * n);
  for (let i = 0; i < n; i++) {
    if (i % 7 === 0) {
      pts[2 * i] = Math.round(rand() * 120 - 10) / 10;
      pts[2 * i + 1] = Math.round(rand() * 120 - 10) / 10;
    } else {
      const [cx, cy, s] = centers[i % centers.length];
      const r = Math.sqrt(-2 * Math.log(1 - rand())) * s;
      const a = 2 * Math.PI * rand();
      pts[2 * i] = Math.round((cx + r * Math.cos(a)) * 20) / 20;
      pts[2 * i + 1] = Math.round((cy + r * Math.sin(a)) * 20) / 20;
    }
  }
  return pts;
}

describe('selection, labels, probabilities, GLOSH and persistence match a literal port of hdbscan', () => {
  for (const seed of [1, 2, 3]) {
    const n = 260;
    const points = blobs(seed, n);
    const mst = canonicalMst(primMst(points, 2, { minSamples: 1 + seed }));
    const linkage = singleLinkage(mst, n);
    for (const minClusterSize of [5, 12, 40]) {
      const tree = condenseTree(linkage, n, minClusterSize);
      const rows = rowsOf(tree);
      const births = rows
        .filter((r) => r.size > 1)
        .map((r) => 1 / r.lambda)
        .sort((a, b) => a - b);
      const epsilons = [
        0,
        births[Math.floor(births.length / 3)] ?? 0.2,
        births[Math.floor((2 * births.length) / 3)] ?? 1,
        50,
      ];
      it(`seed ${seed}, minClusterSize ${minClusterSize}: GLOSH equals the subtree definition`, () => {
        const result = clusterFromSingleLinkage(linkage, n, { minClusterSize });
        const expected = portGlosh(rows);
        expect(Array.from(result.outlierScores)).toEqual(expected.map((v) => (Number.isNaN(v) ? 1 : v)));
      });
      for (const method of ['eom', 'leaf'] as const) {
        it(`seed ${seed}, minClusterSize ${minClusterSize}, ${method}: every epsilon × allowSingle × maxClusterSize`, () => {
          let compared = 0;
          for (const clusterSelectionEpsilon of epsilons) {
            for (const allowSingleCluster of [false, true]) {
              for (const maxClusterSize of [0, 30, 80, 200]) {
                const options: ResolvedClusterOptions = {
                  minClusterSize,
                  clusterSelectionMethod: method,
                  clusterSelectionEpsilon,
                  allowSingleCluster,
                  maxClusterSize,
                };
                const result = clusterFromSingleLinkage(linkage, n, options);
                const port = portGetClusters(rows, options);
                const what = JSON.stringify(options);
                if (port === null) {
                  // hdbscan crashes (KeyError); we label the root's points noise and keep the selected cluster.
                  expect(result.selectedClusters.length, what).toBe(1);
                  continue;
                }
                compared++;
                expect(Array.from(result.selectedClusters), what).toEqual(port.clusters);
                expect(Array.from(result.labels), what).toEqual(port.labels);
                expect(Array.from(result.probabilities), what).toEqual(port.probabilities);
                expect(Array.from(result.clusterPersistence), what).toEqual(port.persistence);
              }
            }
          }
          expect(compared).toBeGreaterThan(0);
        });
      }
    }
  }
});
