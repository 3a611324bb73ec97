/**
 * The CPU twin of the GPU dendrogram (src/cluster/dendrogram.cpu.ts: Borůvka with sided parents, chains, an Euler
 * tour ranked by pointer jumping) against linkage.ts's singleLinkage, the sequential Kruskal oracle, on seeded
 * random trees (ties, deep chains, stars, paths) of many sizes and on the golden cases' canonical MSTs.
 */
import { describe, expect, it } from 'vitest';
import {
  dendrogramCpu,
  dendrogramRounds,
  rulingPerm,
  rulingShape,
  rulingUnperm,
} from '../../src/cluster/dendrogram.cpu.js';
import { singleLinkage } from '../../src/cluster/linkage.js';
import { canonicalMst } from '../../src/cluster/edgeOrder.js';
import type { MstEdges } from '../../src/cluster/types.js';
import { goldenCase, goldenIndex, goldenMst } from '../helpers/golden.js';
import { mulberry32 } from '../helpers/random.js';
import { randomChainTree } from '../helpers/trees.js';

function expectOracle(mst: MstEdges, n: number) {
  const got = dendrogramCpu(mst.sources, mst.targets, n);
  const want = singleLinkage(mst, n);
  expect(got.left).toEqual(want.left);
  expect(got.right).toEqual(want.right);
  expect(got.size).toEqual(want.size);
  for (let i = 0; i < n - 1; i++) {
    if (got.parent[got.left[i]] !== n + i || got.parent[got.right[i]] !== n + i) {
      expect.fail(`merge ${i}: its children's parents are ${got.parent[got.left[i]]}, ${got.parent[got.right[i]]}`);
    }
  }
  if (n > 0) expect(got.parent[2 * n - 2]).toBe(0xffffffff);
}

describe('dendrogramCpu (the GPU dendrogram twin) equals singleLinkage', () => {
  it.each([
    [2, 1, 0],
    [3, 2, 0],
    [10, 3, 0.5],
    [100, 5, 0.9],
    [1000, 1e6, 0.9],
    [1000, 3, 0.2],
    [5000, 2, 0.99],
    [20000, 100, 0.5],
  ])('random trees n=%i, %i weight levels, chain %f, 10 seeds', (n, levels, chain) => {
    for (let seed = 1; seed <= 10; seed++) expectOracle(randomChainTree(n, seed, levels, chain), n);
  });

  it('paths and stars with equal, increasing and random weights', () => {
    const n = 2000;
    for (const levels of [0, 1, 4]) {
      for (const shape of ['path', 'star'] as const) {
        const rand = mulberry32(levels + 3);
        const m = n - 1;
        const mst = canonicalMst({
          sources: Uint32Array.from({ length: m }, (_, i) => i + 1),
          targets: Uint32Array.from({ length: m }, (_, i) => (shape === 'path' ? i : 0)),
          weights: Float32Array.from({ length: m }, (_, i) => (levels === 0 ? i : Math.floor(rand() * levels))),
        });
        expectOracle(mst, n);
      }
    }
  });

  it("the golden cases' canonical MSTs", () => {
    for (const entry of goldenIndex()) {
      const g = goldenMst(goldenCase(entry.case, entry.params));
      expectOracle(canonicalMst({ sources: g.sources, targets: g.targets, weights: g.weights }), entry.n);
    }
  });

  it('pass counts: ⌈log2 n⌉ + 1 Borůvka rounds; ⌈T / 32⌉ rulers and ⌈log2(R + 2)⌉ jumps over them', () => {
    expect([0, 1, 2, 3, 4, 5, 1 << 20].map(dendrogramRounds)).toEqual([0, 0, 2, 3, 3, 4, 21]);
    expect(rulingShape(2)).toEqual({ tokens: 4, bits: 2, rulers: 1, passes: 2 });
    expect(rulingShape(1e7)).toEqual({ tokens: 29999998, bits: 25, rulers: 937500, passes: 20 });
  });

  it('the rulers come from a permutation of the tokens (inverted exactly): exactly R of them, whatever T', () => {
    for (const n of [2, 3, 17, 1000, 65537]) {
      const { tokens, bits, rulers } = rulingShape(n);
      const seen = new Uint8Array(tokens);
      for (let t = 0; t < tokens; t++) {
        const p = rulingPerm(t, tokens, bits);
        if (p >= tokens || seen[p]) expect.fail(`n=${n}: token ${t} maps to ${p}, taken or out of range`);
        if (rulingUnperm(p, tokens, bits) !== t)
          expect.fail(`n=${n}: unperm(perm(${t})) = ${rulingUnperm(p, tokens, bits)}`);
        seen[p] = 1;
      }
      expect(rulers).toBe(Math.ceil(tokens / 32));
    }
  });
});
