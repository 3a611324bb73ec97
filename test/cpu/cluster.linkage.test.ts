/**
 * The canonical edge order (radix sort + tie runs) and the single-linkage union-find.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { canonicalMst, canonicalPermutation, isCanonicalOrder } from '../../src/cluster/edgeOrder.js';
import { singleLinkage } from '../../src/cluster/linkage.js';
import type { MstEdges } from '../../src/cluster/types.js';
import { mulberry32 } from '../helpers/random.js';

/** A random spanning tree on n points (each point i > 0 attached to an earlier one) with tie-heavy weights. */
function randomTree(n: number, seed: number, float64: boolean): MstEdges {
  const rand = mulberry32(seed);
  const m = n - 1;
  const sources = new Uint32Array(m);
  const targets = new Uint32Array(m);
  const weights = float64 ? new Float64Array(m) : new Float32Array(m);
  for (let i = 0; i < m; i++) {
    const v = i + 1;
    const u = Math.floor(rand() * v);
    const flip = rand() < 0.5;
    sources[i] = flip ? v : u;
    targets[i] = flip ? u : v;
    const r = rand();
    // A few distinct values (ties), −0 next to +0, +∞, tiny and huge magnitudes.
    weights[i] = r < 0.3 ? Math.floor(r * 20) / 4 : r < 0.35 ? -0 : r < 0.38 ? Infinity : r < 0.4 ? 1e-30 * r : r * 1e6;
  }
  // Shuffle the edge order.
  for (let i = m - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [sources[i], sources[j]] = [sources[j], sources[i]];
    [targets[i], targets[j]] = [targets[j], targets[i]];
    [weights[i], weights[j]] = [weights[j], weights[i]];
  }
  return { sources, targets, weights };
}

function referenceOrder(mst: MstEdges): number[] {
  const idx = Array.from({ length: mst.weights.length }, (_, i) => i);
  const lo = (i: number) => Math.min(mst.sources[i], mst.targets[i]);
  const hi = (i: number) => Math.max(mst.sources[i], mst.targets[i]);
  return idx.sort((a, b) => {
    const wa = mst.weights[a] === 0 ? 0 : mst.weights[a];
    const wb = mst.weights[b] === 0 ? 0 : mst.weights[b];
    if (wa !== wb) return wa < wb ? -1 : 1;
    return lo(a) - lo(b) || hi(a) - hi(b);
  });
}

describe('canonicalMst', () => {
  for (const float64 of [false, true]) {
    for (const [n, seed] of [
      [2, 1],
      [50, 2],
      [3000, 3],
      [20000, 4],
    ] as const) {
      it(`sorts ${n} shuffled ${float64 ? 'float64' : 'float32'} edges by (weight, min, max), ties and −0 included`, () => {
        const mst = randomTree(n, seed, float64);
        const perm = canonicalPermutation(mst);
        const expected = referenceOrder(mst);
        // Equal keys cannot occur (endpoints differ per edge), so the order is unique.
        expect(Array.from(perm)).toEqual(expected);
        const sorted = canonicalMst(mst);
        expect(isCanonicalOrder(sorted)).toBe(true);
        expect(sorted.weights).toBeInstanceOf(float64 ? Float64Array : Float32Array);
        for (let i = 0; i < sorted.weights.length; i++) expect(sorted.sources[i]).toBeLessThan(sorted.targets[i]);
      });
    }
  }

  it('returns the input arrays themselves when they are already canonical', () => {
    const sorted = canonicalMst(randomTree(100, 9, false));
    expect(canonicalMst(sorted)).toBe(sorted);
  });

  it('rewrites an edge listed (max, min) even when the order is otherwise canonical', () => {
    const mst = { sources: new Uint32Array([1]), targets: new Uint32Array([0]), weights: new Float32Array([1]) };
    const out = canonicalMst(mst);
    expect(out).not.toBe(mst);
    expect([out.sources[0], out.targets[0]]).toEqual([0, 1]);
  });
});

describe('singleLinkage', () => {
  it('builds scipy rows: (node of min endpoint, node of max endpoint, distance, size), node n + i', () => {
    // Path 0 - 1 - 2 - 3 with weights 1, 3, 2 (sorted: (0,1,1), (2,3,2), (1,2,3)).
    const mst = canonicalMst({
      sources: new Uint32Array([0, 1, 2]),
      targets: new Uint32Array([1, 2, 3]),
      weights: new Float32Array([1, 3, 2]),
    });
    const t = singleLinkage(mst, 4);
    expect(Array.from(t.left)).toEqual([0, 2, 4]);
    expect(Array.from(t.right)).toEqual([1, 3, 5]);
    expect(Array.from(t.distance)).toEqual([1, 2, 3]);
    expect(Array.from(t.size)).toEqual([2, 2, 4]);
  });

  it("puts the min endpoint's component on the left even when it is the newer node", () => {
    // Edges (1,2,w=1) then (0,1,w=2): row 1 is (0, 3): point 0 on the left, node 3 = {1,2} on the right.
    const t = singleLinkage(
      { sources: new Uint32Array([1, 0]), targets: new Uint32Array([2, 1]), weights: new Float32Array([1, 2]) },
      3,
    );
    expect(Array.from(t.left)).toEqual([1, 0]);
    expect(Array.from(t.right)).toEqual([2, 3]);
  });

  it('throws InputError naming the edge that closes a cycle', () => {
    const mst = {
      sources: new Uint32Array([0, 1, 0]),
      targets: new Uint32Array([1, 2, 2]),
      weights: new Float32Array([1, 1, 2]),
    };
    expect(() => singleLinkage(mst, 4)).toThrow(InputError);
    expect(() => singleLinkage(mst, 4)).toThrow(/edge 2 = \(0, 2\) closes a cycle/);
  });
});
