/**
 * Issue 5 (speed after the MST): the fast single linkage (blocks of prefetched finds), condensed tree (chain sweep
 * with the per-cluster facts and stabilities gathered on the way), one-pass labelling and exemplars (two passes, or
 * gathered while labelling) give exactly what the definitions give: the oracles of test/helpers/clusterOracle.ts
 * (written from the definitions, checked against hdbscan 0.8.43 in cluster.oracle.test.ts), on seeded random trees
 * with ties, all-equal weights, duplicates (λ = ∞) and infinite weights, handed over in a shuffled edge order.
 * Labels, probabilities, GLOSH and persistence are checked against the per-phase functions on the oracle's tree.
 */
import { describe, expect, it } from 'vitest';
import { clusterTreeInfo, pointRows, type ClusterTreeInfo } from '../../src/cluster/clusterTree.js';
import { clusterFromMstWithExemplars, clusterFromSingleLinkage } from '../../src/cluster/clusterFromMst.js';
import { condense, condenseTree } from '../../src/cluster/condense.js';
import { canonicalMst } from '../../src/cluster/edgeOrder.js';
import { exemplars } from '../../src/cluster/exemplars.js';
import { outlierScores } from '../../src/cluster/glosh.js';
import { labelPoints } from '../../src/cluster/labels.js';
import { singleLinkage } from '../../src/cluster/linkage.js';
import { resolveClusterOptions } from '../../src/cluster/options.js';
import { clusterPersistence } from '../helpers/persistence.js';
import { pointResults } from '../../src/cluster/pointResults.js';
import { membershipProbabilities } from '../../src/cluster/probabilities.js';
import { selectClusters } from '../../src/cluster/select.js';
import type { ClusterOptions, CondensedTree, MstEdges, SingleLinkageTree } from '../../src/cluster/types.js';
import {
  oracleCondense,
  oracleExemplars,
  oracleSingleLinkage,
  type OracleCondensed,
} from '../helpers/clusterOracle.js';
import { mulberry32 } from '../helpers/random.js';

type Shape = 'random' | 'path' | 'caterpillar' | 'star';
type Weights = 'continuous' | 'ties' | 'equal' | 'duplicates';

/**
 * A random spanning tree of n points (attachment shape × weight kind), its edges shuffled and each edge's endpoints
 * in random order: the oracles sort it themselves, the fast code gets `canonicalMst` of it.
 */
function randomMst(n: number, seed: number, shape: Shape, kind: Weights): MstEdges {
  const rand = mulberry32(seed);
  const ids = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [ids[i], ids[j]] = [ids[j], ids[i]];
  }
  const m = Math.max(0, n - 1);
  const sources = new Uint32Array(m);
  const targets = new Uint32Array(m);
  const weights = new Float64Array(m);
  const order = Array.from({ length: m }, (_, i) => i);
  for (let i = m - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  for (let i = 1; i < n; i++) {
    // random: any earlier vertex; path: the previous one; caterpillar: a spine with legs (long chains in the
    // tree); star: one of three hubs (high degrees, many equal-λ runts of one point).
    const spine = rand() < 0.5 ? i - 1 : Math.max(0, i - 2);
    const hub = Math.min(i - 1, Math.floor(rand() * 3));
    const j = shape === 'random' ? Math.floor(rand() * i) : shape === 'path' ? i - 1 : shape === 'star' ? hub : spine;
    const e = order[i - 1];
    const flip = rand() < 0.5;
    sources[e] = flip ? ids[i] : ids[j];
    targets[e] = flip ? ids[j] : ids[i];
    const r = rand();
    weights[e] =
      kind === 'continuous'
        ? r
        : kind === 'ties'
          ? Math.floor(r * 6) / 2
          : kind === 'equal'
            ? 0.5
            : r < 0.15
              ? 0
              : r < 0.18
                ? Infinity
                : r;
  }
  return { sources, targets, weights };
}

/** Index of the first element where the arrays differ (Object.is: NaN equals NaN), or −1. */
function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return i;
  return -1;
}

function expectSameLinkage(fast: SingleLinkageTree, oracle: SingleLinkageTree): void {
  for (const key of ['left', 'right', 'distance', 'size'] as const) {
    expect(firstDifference(fast[key], oracle[key]), key).toBe(-1);
  }
}

function expectSameTree(fast: CondensedTree, oracle: CondensedTree, what: string): void {
  expect(fast.numPoints, what).toBe(oracle.numPoints);
  expect(fast.numClusters, what).toBe(oracle.numClusters);
  for (const key of ['parent', 'child', 'lambda', 'childSize'] as const) {
    expect(firstDifference(fast[key], oracle[key]), `${key}, ${what}`).toBe(-1);
  }
}

/** The oracle's per-cluster facts in the shape the per-phase functions take. */
function infoOf(o: OracleCondensed): ClusterTreeInfo {
  const { numPoints, numClusters } = o.tree;
  const { parent, birth, size, firstChild, maxLambda } = o;
  return { numPoints, numClusters, parent, birth, size, firstChild, maxLambda };
}

const cases: [number, Shape, Weights][] = [];
// Up to 2000 points: the condensed-tree oracle is quadratic on stars and paths.
for (const n of [2, 3, 5, 17, 120, 1000, 2000]) {
  for (const shape of ['random', 'path', 'caterpillar', 'star'] as Shape[]) {
    for (const kind of ['continuous', 'ties', 'equal', 'duplicates'] as Weights[]) cases.push([n, shape, kind]);
  }
}

describe('issue 5: fast clustering phases equal the definitions (clusterOracle)', () => {
  it.each(cases)('singleLinkage(n=%i, %s tree, %s weights) equals the oracle', (n, shape, kind) => {
    const mst = randomMst(n, 7 * n + shape.length + kind.length, shape, kind);
    expectSameLinkage(singleLinkage(canonicalMst(mst), n), oracleSingleLinkage(mst, n));
  });

  it('singleLinkage on 2^21 + 5 points (the blocks touched before merging) equals the oracle', () => {
    const n = 2 ** 21 + 5;
    // The oracle still sorts, but gets the edges sorted already (a comparator sort of 2^21 shuffled edges is slow).
    const mst = canonicalMst(randomMst(n, 21, 'random', 'ties'));
    expectSameLinkage(singleLinkage(mst, n), oracleSingleLinkage(mst, n));
  });

  it.each(cases)('condense(n=%i, %s tree, %s weights) equals the top-down oracle', (n, shape, kind) => {
    const mst = randomMst(n, 11 * n + shape.length + kind.length, shape, kind);
    const linkage = oracleSingleLinkage(mst, n);
    for (const minClusterSize of [2, 3, 5, 15, 40]) {
      const what = `minClusterSize ${minClusterSize}`;
      const oracle = oracleCondense(mst, n, minClusterSize);
      const fast = condense(linkage, n, minClusterSize);
      expectSameTree(fast.tree, oracle.tree, what);
      const info = infoOf(oracle);
      const perPhase = clusterTreeInfo(oracle.tree);
      for (const key of ['parent', 'birth', 'size', 'firstChild', 'maxLambda'] as const) {
        expect(firstDifference(fast.info[key], info[key]), `info.${key}, ${what}`).toBe(-1);
        expect(firstDifference(perPhase[key], info[key]), `clusterTreeInfo.${key}, ${what}`).toBe(-1);
      }
      expect(firstDifference(fast.stability, oracle.stability), `stability, ${what}`).toBe(-1);
      expectSameTree(condenseTree(linkage, n, minClusterSize), oracle.tree, `condenseTree, ${what}`);
    }
  });

  const settings: ClusterOptions[] = [
    { minClusterSize: 5 },
    { minClusterSize: 5, clusterSelectionMethod: 'leaf' },
    { minClusterSize: 3, clusterSelectionEpsilon: 0.4 },
    { minClusterSize: 3, clusterSelectionEpsilon: 0.4, clusterSelectionMethod: 'leaf' },
    { minClusterSize: 5, allowSingleCluster: true },
    { minClusterSize: 5, allowSingleCluster: true, clusterSelectionEpsilon: 0.3 },
    { minClusterSize: 40, allowSingleCluster: true },
    { minClusterSize: 4, maxClusterSize: 30 },
    { minClusterSize: 4, maxClusterSize: 30, allowSingleCluster: true, clusterSelectionEpsilon: 0.2 },
  ];

  it.each(cases)('pointResults, exemplars (n=%i, %s tree, %s weights) equal the oracle', (n, shape, kind) => {
    const mst = randomMst(n, 13 * n + shape.length + kind.length, shape, kind);
    const linkage = oracleSingleLinkage(mst, n);
    const oracles = new Map<number, OracleCondensed>();
    for (const options of settings) {
      const what = JSON.stringify(options);
      const resolved = resolveClusterOptions(options);
      const mcs = resolved.minClusterSize;
      if (!oracles.has(mcs)) oracles.set(mcs, oracleCondense(mst, n, mcs));
      const oracle = oracles.get(mcs)!;
      const { tree } = oracle;
      const info = infoOf(oracle);
      const selection = selectClusters(info, oracle.stability, resolved);
      const rows = pointRows(tree);
      const labels = labelPoints(rows, info, selection.selected, resolved);
      const fast = pointResults(tree, info, selection.selected, selection.stability, resolved);
      expect(firstDifference(fast.labels, labels), what).toBe(-1);
      const probabilities = membershipProbabilities(rows, info, selection.selected, labels);
      expect(firstDifference(fast.probabilities, probabilities), what).toBe(-1);
      const scores = outlierScores(rows, info);
      expect(firstDifference(fast.outlierScores, scores), what).toBe(-1);
      const persistence = clusterPersistence(tree, selection.selected, selection.stability, labels);
      expect(firstDifference(fast.persistence, persistence), what).toBe(-1);

      const selected = Uint32Array.from(selection.selected, (c) => c + n);
      const expected = oracleExemplars(tree, selected).map((a) => Array.from(a));
      expect(
        exemplars(tree, selected).map((a) => Array.from(a)),
        what,
      ).toEqual(expected);

      // And the whole path agrees with them, from the linkage and from the shuffled MST, exemplars gathered while
      // labelling included.
      const result = clusterFromSingleLinkage(linkage, n, options);
      expectSameTree(result.condensedTree, tree, what);
      expect(firstDifference(result.labels, labels), what).toBe(-1);
      expect(firstDifference(result.clusterPersistence, persistence), what).toBe(-1);
      const withExemplars = clusterFromMstWithExemplars(mst, n, options);
      expectSameLinkage(withExemplars.result.singleLinkage, linkage);
      expectSameTree(withExemplars.result.condensedTree, tree, what);
      expect(firstDifference(withExemplars.result.labels, labels), what).toBe(-1);
      expect(firstDifference(withExemplars.result.outlierScores, scores), what).toBe(-1);
      expect(
        withExemplars.exemplars.map((a) => Array.from(a)),
        what,
      ).toEqual(expected);
    }
  });
});
