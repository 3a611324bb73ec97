/**
 * Issue 5 (speed after the MST): the fast single linkage (blocks of prefetched finds), condensed tree (chain sweep
 * with the per-cluster facts and stabilities gathered on the way), one-pass labelling and exemplars (two passes, or
 * gathered while labelling) give
 * exactly what the straightforward versions give (test/helpers/clusterReference.ts and the per-phase functions), on
 * seeded random trees with ties, duplicates (λ = ∞) and infinite weights.
 */
import { describe, expect, it } from 'vitest';
import { clusterTreeInfo, pointRows } from '../../src/cluster/clusterTree.js';
import { clusterFromMstWithExemplars, clusterFromSingleLinkage } from '../../src/cluster/clusterFromMst.js';
import { condense, condenseTree } from '../../src/cluster/condense.js';
import { canonicalMst } from '../../src/cluster/edgeOrder.js';
import { exemplars } from '../../src/cluster/exemplars.js';
import { outlierScores } from '../../src/cluster/glosh.js';
import { labelPoints } from '../../src/cluster/labels.js';
import { singleLinkage } from '../../src/cluster/linkage.js';
import { resolveClusterOptions } from '../../src/cluster/options.js';
import { clusterPersistence } from '../../src/cluster/persistence.js';
import { pointResults } from '../../src/cluster/pointResults.js';
import { membershipProbabilities } from '../../src/cluster/probabilities.js';
import { selectClusters } from '../../src/cluster/select.js';
import { computeStability } from '../../src/cluster/stability.js';
import type { ClusterOptions, MstEdges } from '../../src/cluster/types.js';
import {
  referenceCondenseTree,
  referenceExemplars,
  referenceSingleLinkage,
} from '../helpers/clusterReference.js';
import { mulberry32 } from '../helpers/random.js';

type Shape = 'random' | 'path' | 'caterpillar';
type Weights = 'continuous' | 'ties' | 'duplicates';

/** A random spanning tree of n points in canonical order: attachment shape × weight kind. */
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
  for (let i = 1; i < n; i++) {
    // random: any earlier vertex; path: the previous one; caterpillar: a spine with legs (long chains in the tree).
    const spine = rand() < 0.5 ? i - 1 : Math.max(0, i - 2);
    const j = shape === 'random' ? Math.floor(rand() * i) : shape === 'path' ? i - 1 : spine;
    sources[i - 1] = ids[j];
    targets[i - 1] = ids[i];
    const r = rand();
    weights[i - 1] =
      kind === 'continuous' ? r : kind === 'ties' ? Math.floor(r * 6) / 2 : r < 0.15 ? 0 : r < 0.18 ? Infinity : r;
  }
  return canonicalMst({ sources, targets, weights });
}

/** Index of the first element where the arrays differ (Object.is: NaN equals NaN), or −1. */
function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return i;
  return -1;
}

const cases: [number, Shape, Weights][] = [];
for (const n of [2, 3, 5, 17, 120, 1000, 3000]) {
  for (const shape of ['random', 'path', 'caterpillar'] as Shape[]) {
    for (const kind of ['continuous', 'ties', 'duplicates'] as Weights[]) cases.push([n, shape, kind]);
  }
}

describe('issue 5: fast clustering phases equal the straightforward ones', () => {
  it.each(cases)('singleLinkage(n=%i, %s tree, %s weights) equals edge-by-edge Kruskal', (n, shape, kind) => {
    const mst = randomMst(n, 7 * n + shape.length + kind.length, shape, kind);
    const fast = singleLinkage(mst, n);
    const ref = referenceSingleLinkage(mst, n);
    expect(firstDifference(fast.left, ref.left)).toBe(-1);
    expect(firstDifference(fast.right, ref.right)).toBe(-1);
    expect(firstDifference(fast.distance, ref.distance)).toBe(-1);
    expect(firstDifference(fast.size, ref.size)).toBe(-1);
  });

  it('singleLinkage on 2^21 + 5 points (the blocks touched before merging) equals edge-by-edge Kruskal', () => {
    const n = 2 ** 21 + 5;
    const mst = randomMst(n, 21, 'random', 'ties');
    const fast = singleLinkage(mst, n);
    const ref = referenceSingleLinkage(mst, n);
    expect(firstDifference(fast.left, ref.left)).toBe(-1);
    expect(firstDifference(fast.right, ref.right)).toBe(-1);
    expect(firstDifference(fast.size, ref.size)).toBe(-1);
  });

  it.each(cases)('condense(n=%i, %s tree, %s weights) equals the breadth-first walk', (n, shape, kind) => {
    const mst = randomMst(n, 11 * n + shape.length + kind.length, shape, kind);
    const linkage = singleLinkage(mst, n);
    for (const minClusterSize of [2, 3, 5, 15, 40]) {
      const fast = condense(linkage, n, minClusterSize);
      const ref = referenceCondenseTree(linkage, n, minClusterSize);
      const { tree } = fast;
      expect(tree.numPoints).toBe(ref.numPoints);
      expect(tree.numClusters).toBe(ref.numClusters);
      for (const key of ['parent', 'child', 'lambda', 'childSize'] as const) {
        expect(firstDifference(tree[key], ref[key]), `${key}, minClusterSize ${minClusterSize}`).toBe(-1);
      }
      const info = clusterTreeInfo(ref);
      for (const key of ['parent', 'birth', 'size', 'firstChild', 'maxLambda'] as const) {
        expect(firstDifference(fast.info[key], info[key]), `info.${key}, minClusterSize ${minClusterSize}`).toBe(-1);
      }
      expect(firstDifference(fast.stability, computeStability(ref, info))).toBe(-1);
      expect(firstDifference(condenseTree(linkage, n, minClusterSize).lambda, ref.lambda)).toBe(-1);
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

  it.each(cases)('pointResults, exemplars (n=%i, %s tree, %s weights) equal per-phase ones', (n, shape, kind) => {
    const mst = randomMst(n, 13 * n + shape.length + kind.length, shape, kind);
    const linkage = singleLinkage(mst, n);
    for (const options of settings) {
      const resolved = resolveClusterOptions(options);
      const tree = referenceCondenseTree(linkage, n, resolved.minClusterSize);
      const info = clusterTreeInfo(tree);
      const selection = selectClusters(info, computeStability(tree, info), resolved);
      const rows = pointRows(tree);
      const labels = labelPoints(rows, info, selection.selected, resolved);
      const fast = pointResults(tree, info, selection.selected, selection.stability, resolved);
      const what = JSON.stringify(options);
      expect(firstDifference(fast.labels, labels), what).toBe(-1);
      const probabilities = membershipProbabilities(rows, info, selection.selected, labels);
      expect(firstDifference(fast.probabilities, probabilities), what).toBe(-1);
      expect(firstDifference(fast.outlierScores, outlierScores(rows, info)), what).toBe(-1);
      const persistence = clusterPersistence(tree, selection.selected, selection.stability, labels);
      expect(firstDifference(fast.persistence, persistence), what).toBe(-1);

      const selected = Uint32Array.from(selection.selected, (c) => c + n);
      const found = exemplars(tree, selected);
      const ref = referenceExemplars(tree, selected);
      expect(found.map((a) => Array.from(a)), what).toEqual(ref.map((a) => Array.from(a)));

      // And the whole path agrees with them, exemplars gathered while labelling included.
      const result = clusterFromSingleLinkage(linkage, n, options);
      expect(firstDifference(result.labels, labels), what).toBe(-1);
      expect(firstDifference(result.clusterPersistence, persistence), what).toBe(-1);
      const withExemplars = clusterFromMstWithExemplars(mst, n, options);
      expect(firstDifference(withExemplars.result.outlierScores, outlierScores(rows, info)), what).toBe(-1);
      expect(withExemplars.exemplars.map((a) => Array.from(a)), what).toEqual(ref.map((a) => Array.from(a)));
    }
  });
});
