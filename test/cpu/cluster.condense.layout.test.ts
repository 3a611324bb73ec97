/**
 * Issue 5: condensing's layout by ranges and chunks of merges (src/cluster/condense.layout.ts, the threads' steps run
 * on one thread) gives condense.ts's own layout: the whole condensed tree, its per-cluster facts and stabilities
 * come out identical, for any number of chunks, on seeded random trees with ties, duplicates (λ = ∞), long chains and
 * many splits. condense itself is checked against the oracle and the golden files (cluster.condense.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { condense } from '../../src/cluster/condense.js';
import { layOutChunked, layoutArrays } from '../../src/cluster/condense.layout.js';
import { queuedCounts, singleLinkage } from '../../src/cluster/linkage.js';
import { randomChainTree } from '../helpers/trees.js';

describe("condensing's layout by chunks (condense.layout.ts)", () => {
  it('gives the same condensed tree, facts and stabilities as the one-pass layout, for any number of chunks', () => {
    let seed = 11;
    let compared = 0;
    for (const n of [3, 4, 50, 2000, 9001]) {
      for (const [levels, chain] of [
        [1000, 0.8],
        [4, 0.8],
        [100, 0],
      ] as const) {
        const mst = randomChainTree(n, seed++, levels, chain, false);
        for (const mcs of [2, 5, 12]) {
          const reference = queuedCounts(n, mcs);
          const tree = singleLinkage(mst, n, undefined, reference);
          const one = condense(tree, n, mcs, { counts: reference });
          for (const chunks of [1, 2, 3, 8, 64]) {
            const counts = queuedCounts(n, mcs);
            singleLinkage(mst, n, undefined, counts);
            const m = n - 1;
            const payload = new ArrayBuffer(16 * Math.max(1, counts.q[n - 2]));
            const splitTable = new Uint32Array(3 * counts.splits);
            const a = layoutArrays(tree, n, mcs, counts, splitTable, new Int32Array(4 * m).fill(-7), payload);
            layOutChunked(a, chunks);
            const layout = { slotLambda: a.slotLambda, slotWord: a.slotWord, splitTable: a.splitTable };
            const many = condense(tree, n, mcs, { counts, layout });
            const what = `n=${n} levels=${levels} chain=${chain} mcs=${mcs} K=${chunks}`;
            for (const key of ['parent', 'child', 'lambda', 'childSize'] as const) {
              expect(Array.from(many.tree[key]), `${what}: ${key}`).toEqual(Array.from(one.tree[key]));
            }
            for (const key of ['parent', 'birth', 'size', 'firstChild', 'maxLambda'] as const) {
              expect(Array.from(many.info[key]), `${what}: info.${key}`).toEqual(Array.from(one.info[key]));
            }
            expect(Array.from(many.stability), `${what}: stability`).toEqual(Array.from(one.stability));
            compared++;
          }
        }
      }
    }
    expect(compared).toBe(5 * 3 * 3 * 5);
  });

  it('refuses a layout without its counts', () => {
    const n = 40;
    const mst = randomChainTree(n, 3, 10, 0.5, false);
    const tree = singleLinkage(mst, n);
    const layout = { slotLambda: new Float64Array(0), slotWord: new Uint32Array(0), splitTable: new Uint32Array(0) };
    expect(() => condense(tree, n, 5, { layout })).toThrow(/without its counts/);
  });
});
