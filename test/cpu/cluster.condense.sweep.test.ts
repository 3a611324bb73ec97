/**
 * Issue 5: condensing's level sweep by parts of whole chains (src/cluster/condense.sweep.ts, the threads' steps run
 * on one thread, parts in reverse) gives condense.ts's own sweep: rows, per-cluster facts and stabilities bit for
 * bit, for any number of parts, on seeded random trees with ties, duplicates (λ = ∞), long chains, many splits and
 * runts of several points. condense itself is checked against the oracle and the golden files.
 */
import { describe, expect, it } from 'vitest';
import { condense, fillRunts } from '../../src/cluster/condense.js';
import { layOutChunked, layoutArrays } from '../../src/cluster/condense.layout.js';
import { clusterArrays, sweepArrays, sweepByParts } from '../../src/cluster/condense.sweep.js';
import { canonicalMst } from '../../src/cluster/edgeOrder.js';
import { queuedCounts, singleLinkage } from '../../src/cluster/linkage.js';
import type { MstEdges } from '../../src/cluster/types.js';
import { mulberry32 } from '../helpers/random.js';

function randomTree(n: number, seed: number, levels: number, chain: number): MstEdges {
  const rand = mulberry32(seed);
  const sources = new Uint32Array(n - 1);
  const targets = new Uint32Array(n - 1);
  const weights = new Float32Array(n - 1);
  for (let i = 1; i < n; i++) {
    const j = rand() < chain ? Math.max(0, i - 1 - Math.floor(rand() * 8)) : Math.floor(rand() * i);
    sources[i - 1] = i;
    targets[i - 1] = j;
    weights[i - 1] = Math.floor(rand() * levels) / levels;
  }
  return canonicalMst({ sources, targets, weights });
}

describe("condensing's sweep by parts (condense.sweep.ts)", () => {
  it('gives the same rows, facts and stabilities as the sweep, for any number of parts', () => {
    let seed = 21;
    let compared = 0;
    for (const n of [3, 4, 60, 3000, 12007]) {
      for (const [levels, chain] of [
        [1000, 0.8],
        [4, 0.8],
        [100, 0],
        [100000, 0.95],
      ] as const) {
        const mst = randomTree(n, seed++, levels, chain);
        for (const mcs of [2, 5, 12]) {
          const counts = queuedCounts(n, mcs);
          const tree = singleLinkage(mst, n, undefined, counts);
          const m = n - 1;
          const slots = counts.q[n - 2];
          const payload = new ArrayBuffer(16 * Math.max(1, slots));
          const scratch = new Int32Array(4 * m).fill(-7);
          const a = layoutArrays(tree, n, mcs, counts, counts.splits, scratch, payload, new Int32Array(m));
          layOutChunked(a, 3);
          const layout = { slotLambda: a.slotLambda, slotWord: a.slotWord, splitTable: a.splitTable };
          const depth = a.offset.slice(0, slots);
          const one = condense(tree, n, mcs, { counts, layout });
          const rows = n + 2 * counts.splits;
          const k = 1 + 2 * counts.splits;
          for (const parts of [1, 2, 3, 8, 50]) {
            const out = {
              parent: new Uint32Array(rows).fill(7),
              child: new Uint32Array(rows).fill(7),
              lambda: new Float64Array(rows).fill(7),
              childSize: new Uint32Array(rows).fill(7),
            };
            const clusters = clusterArrays(k, n, false);
            const headCluster = new Int32Array(slots).fill(-3);
            const levelRows = new Int32Array(parts * (slots + 1));
            const deferred = new Uint32Array(n);
            const s = sweepArrays(tree, n, layout, depth, headCluster, out, deferred, clusters, levelRows);
            const runts = sweepByParts(s, slots, parts);
            fillRunts(out.child, runts, 0, runts.count, tree.left, tree.right, n, mcs);
            const what = `n=${n} levels=${levels} chain=${chain} mcs=${mcs} parts=${parts}`;
            for (const key of ['parent', 'child', 'lambda', 'childSize'] as const) {
              expect(Array.from(out[key]), `${what}: ${key}`).toEqual(Array.from(one.tree[key]));
            }
            expect(Array.from(clusters.cParent), `${what}: parent`).toEqual(Array.from(one.info.parent));
            expect(Array.from(clusters.birth), `${what}: birth`).toEqual(Array.from(one.info.birth));
            expect(Array.from(clusters.cSize), `${what}: size`).toEqual(Array.from(one.info.size));
            expect(Array.from(clusters.firstChild), `${what}: firstChild`).toEqual(Array.from(one.info.firstChild));
            expect(Array.from(clusters.maxLambda), `${what}: maxLambda`).toEqual(Array.from(one.info.maxLambda));
            expect(Array.from(clusters.stability), `${what}: stability`).toEqual(Array.from(one.stability));
            compared++;
          }
        }
      }
    }
    expect(compared).toBe(5 * 4 * 3 * 5);
  });
});
