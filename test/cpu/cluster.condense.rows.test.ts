/**
 * Issue 17 §2: condensing as the GPU does it (condense.rows.cpu.ts, the twin of shaders/cluster/condense.wgsl: ranks
 * from depth and leftmost leaf, runt tops, row keys) then finished on the host (condense.finish.ts) gives exactly
 * condense.ts's tree, per-cluster facts and stabilities (bit for bit), and the top-down oracle's rows
 * (test/helpers/clusterOracle.ts), on seeded trees of every shape with ties, duplicates (λ = ∞) and infinite weights.
 */
import { describe, expect, it } from 'vitest';
import { condense } from '../../src/cluster/condense.js';
import {
  clusterRowFacts,
  clusterRowsIn,
  condensedFromArrays,
  condensedFromRows,
  emptyClusterFacts,
  ownedStabilities,
} from '../../src/cluster/condense.finish.js';
import { packMerges } from '../../src/cluster/condense.rows.js';
import { condenseKeyBits, condenseRowsCpu, condenseRowsFits, maxSplits } from '../../src/cluster/condense.rows.cpu.js';
import { oracleCondense } from '../helpers/clusterOracle.js';
import { ExemplarCollector } from '../../src/cluster/exemplars.js';
import { resolveClusterOptions } from '../../src/cluster/options.js';
import { pointResults, pointResultsFromWords } from '../../src/cluster/pointResults.js';
import { selectClusters } from '../../src/cluster/select.js';
import { linkageOf, randomTree, type TreeShape, type TreeWeights } from '../helpers/condenseCases.js';

const shapes: TreeShape[] = ['random', 'path', 'caterpillar', 'star', 'blobs'];
const kinds: TreeWeights[] = ['continuous', 'ties', 'equal', 'duplicates'];

describe('condensing by ranks and row keys (the GPU twin) + the host finish', () => {
  for (const shape of shapes) {
    for (const kind of kinds) {
      it(`issue 17: ${shape} tree, ${kind} weights: equal to condense.ts and the oracle`, () => {
        let seed = 17;
        for (const n of [2, 3, 4, 7, 31, 200, 1500]) {
          for (const mcs of [2, 3, 5, 15, 64]) {
            const mst = randomTree(n, seed++, shape, kind);
            const linkage = linkageOf(mst, n);
            const rows = condenseRowsCpu(packMerges(linkage), n, mcs);
            const got = condensedFromRows(rows, n);
            const want = condense(linkage, n, mcs);
            const tag = `n=${n} mcs=${mcs}`;
            expect(got.tree.parent, tag).toEqual(want.tree.parent);
            expect(got.tree.child, tag).toEqual(want.tree.child);
            expect(got.tree.childSize, tag).toEqual(want.tree.childSize);
            expect(got.tree.lambda, tag).toEqual(want.tree.lambda);
            expect(got.tree.numClusters, tag).toBe(want.tree.numClusters);
            expect(got.stability, tag).toEqual(want.stability);
            expect(got.info, tag).toEqual(want.info);
            // The pass that knows the cluster rows (the threaded finish's): the same facts and sums.
            const sparse = condensedFromArrays(got.tree, n, clusterRowsIn(got.tree.child, 0, got.tree.child.length, n));
            expect(sparse.stability, tag).toEqual(want.stability);
            expect(sparse.info, tag).toEqual(want.info);
            // Split by cluster ownership (the threaded finish's): facts from the cluster rows, sums per owner.
            const k = want.tree.numClusters;
            const owned = emptyClusterFacts(n, k, (b) => new ArrayBuffer(b));
            const clusterRows = clusterRowsIn(got.tree.child, 0, got.tree.child.length, n);
            const stab = new Float64Array(k);
            const owner = Uint8Array.from({ length: k }, (_, c) => c % 3);
            // Each part writes its own clusters' facts, then sums them, before the next part writes anything (as a
            // worker does, with no other part's facts to lean on).
            for (let part = 0; part < 3; part++) {
              clusterRowFacts(got.tree, n, clusterRows, owned, owner, part);
              ownedStabilities(got.tree, n, owned.birth, stab, owned.maxLambda, part, owner);
            }
            const whole = emptyClusterFacts(n, k, (b) => new ArrayBuffer(b));
            clusterRowFacts(got.tree, n, clusterRows, whole);
            for (const key of ['parent', 'birth', 'size', 'firstChild'] as const) {
              expect(whole[key], `${tag} ${key}`).toEqual(want.info[key]);
            }
            expect(stab, tag).toEqual(want.stability);
            expect(owned, tag).toEqual(want.info);
            if (n <= 200) {
              const oracle = oracleCondense(mst, n, mcs).tree;
              expect(got.tree.child, tag).toEqual(oracle.child);
              expect(got.tree.parent, tag).toEqual(oracle.parent);
            }
            expect((rows.length / 4 - n) / 2, tag).toBeLessThanOrEqual(maxSplits(n, mcs));
          }
        }
      });
    }
  }

  it("issue 17: labelling in point order from each point's own row equals the pass over the rows", () => {
    let seed = 400;
    for (const shape of shapes) {
      for (const n of [2, 3, 50, 1200]) {
        for (const o of [
          { minClusterSize: 5 },
          { minClusterSize: 3, clusterSelectionMethod: 'leaf' as const },
          { minClusterSize: 4, allowSingleCluster: true, clusterSelectionEpsilon: 0.3 },
        ]) {
          const linkage = linkageOf(randomTree(n, seed++, shape, 'ties'), n);
          const rows = condenseRowsCpu(packMerges(linkage), n, o.minClusterSize);
          const { tree, info, stability } = condensedFromRows(rows, n);
          const words = new Uint32Array(2 * n);
          for (let r = 0; r < rows.length / 4; r++) {
            if (rows[4 * r + 1] < n) words.set([rows[4 * r], rows[4 * r + 2]], 2 * rows[4 * r + 1]);
          }
          const resolved = resolveClusterOptions(o);
          const { selected, stability: after } = selectClusters(info, stability, resolved);
          const a = new ExemplarCollector(info.firstChild, info.maxLambda, selected, n);
          const b = new ExemplarCollector(info.firstChild, info.maxLambda, selected, n);
          const want = pointResults(tree, info, selected, after, resolved, a);
          const got = pointResultsFromWords(tree, info, selected, after, resolved, b, { words, scale: 1 });
          expect(got, `${shape} n=${n}`).toEqual(want);
          expect(b.result(), `${shape} n=${n} exemplars`).toEqual(a.result());
        }
      }
    }
  });

  it('issue 17: row keys fit 64 bits for 10^7 points up to minClusterSize 2^19, not beyond', () => {
    expect(condenseRowsFits(1e7, 1 << 19)).toBe(true);
    expect(condenseRowsFits(1e7, (1 << 19) + 2)).toBe(false);
    expect(condenseKeyBits(2, 2)).toEqual({ bm: 1, rank: 1, total: 4 });
    expect(condenseKeyBits(1e7, 15).total).toBe(24 + 1 + 8);
  });

  it('issue 17: rows that are not a condensed tree are refused', () => {
    expect(() => condensedFromRows(new Uint32Array(4 * 5), 5 + 1)).toThrow(/not the rows of a condensed tree/);
  });
});
