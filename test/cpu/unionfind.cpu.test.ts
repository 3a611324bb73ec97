import { describe, expect, it } from 'vitest';
import { UnionFind, checkPairs, unionFindLabelsCpu } from '../../src/unionfind/unionfind.cpu.js';
import { InputError } from '../../src/errors.js';
import { mulberry32 } from '../helpers/random.js';

/** Naive oracle: BFS over the pair graph; each component is labelled with its smallest vertex. */
function bfsLabels(n: number, a: Uint32Array, b: Uint32Array): Uint32Array {
  const adj: number[][] = Array.from({ length: n }, () => []);
  for (let i = 0; i < a.length; i++) {
    adj[a[i]].push(b[i]);
    adj[b[i]].push(a[i]);
  }
  const label = new Uint32Array(n).fill(0xffffffff);
  for (let s = 0; s < n; s++) {
    if (label[s] !== 0xffffffff) continue;
    // Vertices are visited in increasing order of s, so s is the smallest of its component.
    label[s] = s;
    const queue = [s];
    for (let q = 0; q < queue.length; q++) {
      for (const v of adj[queue[q]]) {
        if (label[v] === 0xffffffff) {
          label[v] = s;
          queue.push(v);
        }
      }
    }
  }
  return label;
}

function randomPairs(n: number, m: number, seed: number): { a: Uint32Array; b: Uint32Array } {
  const r = mulberry32(seed);
  const a = new Uint32Array(m);
  const b = new Uint32Array(m);
  for (let i = 0; i < m; i++) {
    a[i] = Math.floor(r() * n);
    b[i] = Math.floor(r() * n);
  }
  return { a, b };
}

function shuffle(x: Uint32Array, seed: number): Uint32Array {
  const r = mulberry32(seed);
  for (let i = x.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    const t = x[i];
    x[i] = x[j];
    x[j] = t;
  }
  return x;
}

function countDistinct(labels: Uint32Array): number {
  let c = 0;
  for (let i = 0; i < labels.length; i++) if (labels[i] === i) c++;
  return c;
}

describe('UnionFind (CPU)', () => {
  it('labels() equals a BFS oracle on random pairs at several densities', () => {
    let seed = 1;
    for (const n of [1, 2, 3, 17, 1000, 50_000]) {
      for (const density of [0, 0.1, 0.5, 0.9, 1, 2]) {
        const { a, b } = randomPairs(n, Math.round(n * density), seed++);
        const uf = new UnionFind(n);
        let merges = 0;
        for (let i = 0; i < a.length; i++) if (uf.union(a[i], b[i])) merges++;
        const oracle = bfsLabels(n, a, b);
        const got = uf.labels();
        let bad = -1;
        for (let i = 0; i < n; i++)
          if (got[i] !== oracle[i]) {
            bad = i;
            break;
          }
        expect(bad, `n=${n} density=${density}: first differing label`).toBe(-1);
        expect(merges, `n=${n} density=${density}`).toBe(n - countDistinct(oracle));
        expect(uf.countSets()).toBe(countDistinct(oracle));
      }
    }
  });

  it('labels() depend only on the partition: shuffled pairs and swapped endpoints give the same array', () => {
    const n = 5000;
    const { a, b } = randomPairs(n, 4000, 99);
    const ref = unionFindLabelsCpu(n, a, b);
    const order = shuffle(
      Uint32Array.from({ length: a.length }, (_, i) => i),
      7,
    );
    const a2 = new Uint32Array(a.length);
    const b2 = new Uint32Array(a.length);
    order.forEach((k, i) => {
      // Swap every other pair's endpoints too.
      a2[i] = i % 2 ? b[k] : a[k];
      b2[i] = i % 2 ? a[k] : b[k];
    });
    expect(unionFindLabelsCpu(n, a2, b2)).toEqual(ref);
  });

  it('every element in one set, by a random chain and by star patterns, labels all 0', () => {
    const n = 100_000;
    const perm = shuffle(
      Uint32Array.from({ length: n }, (_, i) => i),
      3,
    );
    const chainA = perm.subarray(0, n - 1);
    const chainB = perm.subarray(1, n);
    expect(unionFindLabelsCpu(n, chainA, chainB).every((v) => v === 0)).toBe(true);
    // Star around the largest element, in both directions, shuffled.
    const k = shuffle(
      Uint32Array.from({ length: 2 * (n - 1) }, (_, i) => i),
      4,
    );
    const sa = new Uint32Array(k.length);
    const sb = new Uint32Array(k.length);
    k.forEach((v, i) => {
      const leaf = v >> 1;
      sa[i] = v & 1 ? n - 1 : leaf;
      sb[i] = v & 1 ? leaf : n - 1;
    });
    const uf = new UnionFind(n);
    let merges = 0;
    for (let i = 0; i < sa.length; i++) if (uf.union(sa[i], sb[i])) merges++;
    expect(merges).toBe(n - 1);
    expect(uf.labels().every((v) => v === 0)).toBe(true);
  });

  it('n = 0, 1, 2 and self-pairs', () => {
    expect(unionFindLabelsCpu(0, new Uint32Array(0), new Uint32Array(0))).toEqual(new Uint32Array(0));
    expect(unionFindLabelsCpu(1, Uint32Array.of(0), Uint32Array.of(0))).toEqual(Uint32Array.of(0));
    expect(unionFindLabelsCpu(2, Uint32Array.of(1, 0), Uint32Array.of(1, 0))).toEqual(Uint32Array.of(0, 1));
    expect(unionFindLabelsCpu(2, Uint32Array.of(1), Uint32Array.of(0))).toEqual(Uint32Array.of(0, 0));
    const uf = new UnionFind(3);
    expect(uf.union(2, 2)).toBe(false);
    expect(uf.union(2, 1)).toBe(true);
    expect(uf.union(1, 2)).toBe(false);
    expect(uf.find(2)).toBe(1);
    expect(uf.connected(1, 2)).toBe(true);
    expect(uf.connected(0, 2)).toBe(false);
    expect(uf.countSets()).toBe(2);
  });

  it('the invariant parent[x] <= x holds, and flatten() makes parent the labels', () => {
    const n = 20_000;
    const { a, b } = randomPairs(n, 15_000, 11);
    const uf = new UnionFind(n);
    for (let i = 0; i < a.length; i++) uf.union(a[i], b[i]);
    for (let i = 0; i < n; i++) if (uf.parent[i] > i) expect.fail(`parent[${i}] = ${uf.parent[i]}`);
    const labels = uf.labels();
    uf.flatten();
    expect(uf.parent).toEqual(labels);
    expect(uf.labels()).toEqual(labels);
    uf.reset();
    expect(uf.countSets()).toBe(n);
  });

  it('rejects out-of-range elements and bad sizes with an InputError naming the value', () => {
    const uf = new UnionFind(4);
    expect(() => uf.union(0, 4)).toThrow(InputError);
    expect(() => uf.union(0, 4)).toThrow(/got 4/);
    expect(() => uf.find(-1)).toThrow(/got -1/);
    expect(() => uf.find(1.5)).toThrow(/got 1.5/);
    expect(() => new UnionFind(-2)).toThrow(/got -2/);
    expect(() => checkPairs(3, Uint32Array.of(0, 3), Uint32Array.of(1, 1))).toThrow(/pairsA\[1\] < n=3, got 3/);
    expect(() => checkPairs(3, Uint32Array.of(0), Uint32Array.of(1, 1))).toThrow(/equal length/);
  });
});
