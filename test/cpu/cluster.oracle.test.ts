/**
 * The clustering oracles (test/helpers/clusterOracle.ts) reproduce scikit-learn-contrib hdbscan 0.8.43
 * (test/golden/hdbscan): single linkage and the condensed tree from each case's canonical MST, and the
 * exemplars of the prediction case. This is what lets cluster.condense.test.ts trust them on random trees.
 */
import { describe, expect, it } from 'vitest';
import type { CondensedTree } from '../../src/cluster/types.js';
import { oracleCondense, oracleExemplars, oracleSingleLinkage } from '../helpers/clusterOracle.js';
import { goldenCase, goldenIndex, goldenMst, goldenPredict, type GoldenCondensedTree } from '../helpers/golden.js';

const index = goldenIndex();

/** The golden tree as our type. */
function asTree(g: GoldenCondensedTree, n: number): CondensedTree {
  const clusters = new Set<number>([n, ...g.child.filter((c) => c >= n)]);
  return {
    parent: Uint32Array.from(g.parent),
    child: Uint32Array.from(g.child),
    lambda: Float64Array.from(g.lambda),
    childSize: Uint32Array.from(g.child_size),
    numPoints: n,
    numClusters: clusters.size,
  };
}

/**
 * The condensed-tree id behind each label (labels number the selected clusters in id order): the lowest common
 * ancestor of the clusters its points leave, which is the selected cluster itself (a selected cluster holds all
 * points of its subtree, and a split always leaves points on both sides).
 */
function selectedFromLabels(tree: CondensedTree, labels: number[]): number[] {
  const n = tree.numPoints;
  const up = new Map<number, number>();
  const leaves = new Map<number, number>();
  for (let r = 0; r < tree.parent.length; r++) {
    if (tree.child[r] >= n) up.set(tree.child[r], tree.parent[r]);
    else leaves.set(tree.child[r], tree.parent[r]);
  }
  const path = (c: number): number[] => (up.has(c) ? [c, ...path(up.get(c)!)] : [c]);
  const k = Math.max(-1, ...labels) + 1;
  return Array.from({ length: k }, (_, label) => {
    let common: number[] | undefined;
    labels.forEach((l, x) => {
      if (l !== label) return;
      const p = path(leaves.get(x)!);
      common = common === undefined ? p : common.filter((c) => p.includes(c));
    });
    return common![0];
  });
}

describe('clusterOracle reproduces hdbscan 0.8.43 on the golden cases', () => {
  it('covers the golden cases without near-ties', () => {
    expect(index.filter((e) => !e.near_ties).length).toBeGreaterThanOrEqual(10);
  });

  // The oracles run on canonical.mst_edges (float64, as hdbscan's tree code did), so even near-tie cases must match.
  for (const entry of index) {
    const name = `${entry.case}/${entry.params}${entry.near_ties ? ' (near-ties)' : ''}`;
    const c = goldenCase(entry.case, entry.params);
    const g = c.canonical;

    it(`${name}: oracleSingleLinkage equals canonical.single_linkage_tree`, () => {
      const sl = oracleSingleLinkage(goldenMst(c), c.n);
      expect(Array.from(sl.left)).toEqual(g.single_linkage_tree.map((r) => r[0]));
      expect(Array.from(sl.right)).toEqual(g.single_linkage_tree.map((r) => r[1]));
      expect(Array.from(sl.distance)).toEqual(g.single_linkage_tree.map((r) => r[2]));
      expect(Array.from(sl.size)).toEqual(g.single_linkage_tree.map((r) => r[3]));
    });

    it(`${name}: oracleCondense equals canonical.condensed_tree`, () => {
      const { tree } = oracleCondense(goldenMst(c), c.n, c.params.min_cluster_size);
      expect(Array.from(tree.parent)).toEqual(g.condensed_tree.parent);
      expect(Array.from(tree.child)).toEqual(g.condensed_tree.child);
      expect(Array.from(tree.childSize)).toEqual(g.condensed_tree.child_size);
      // λ = 1/d from the same float64 d: equal, not just close (∞ for duplicates included).
      expect(Array.from(tree.lambda)).toEqual(g.condensed_tree.lambda);
    });
  }

  it('blobs2d-1000/mcs15-ms1: oracleExemplars lists the exemplars of hdbscan.prediction', () => {
    const c = goldenCase('blobs2d-1000', 'mcs15-ms1');
    const p = goldenPredict('blobs2d-1000', 'mcs15-ms1');
    expect(p.labels_fit).toEqual(c.canonical.labels);
    const golden = asTree(c.canonical.condensed_tree, c.n);
    const selected = selectedFromLabels(golden, c.canonical.labels);
    expect(selected).toEqual([...selected].sort((a, b) => a - b));
    const found = oracleExemplars(oracleCondense(goldenMst(c), c.n, 15).tree, selected);
    // hdbscan's own run orders a leaf's points by its tree's row order (its MST's endpoint order): compare sets.
    const sorted = (a: ArrayLike<number>): number[] => Array.from(a).sort((x, y) => x - y);
    expect(found.map(sorted)).toEqual(p.exemplars.map(sorted));
  });
});
