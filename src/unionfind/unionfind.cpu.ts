/**
 * Union-find (disjoint sets) on the CPU: the twin of the GPU union-find (`unionfind.ts`,
 * `shaders/unionfind/*.wgsl`), and the structure Kruskal, the single-linkage tree and every MST validity check use.
 *
 * Find halves paths (Tarjan & van Leeuwen 1984: each visited node skips its parent); union links the larger root
 * under the smaller one, as the GPU does (ECL-MST, ../shared/seeds/000, §3.2, with the link direction reversed).
 *
 * Important! Because the smaller index always wins, every tree's root is the smallest element of its set, so
 * `labels()` (the flattened parent array) depends only on the partition, never on the order of the unions: the
 * GPU and the CPU give identical label arrays, not merely equal partitions.
 *
 * Invariant: `parent[x] <= x`, with equality exactly at roots.
 */
import { InputError } from '../errors.js';

export class UnionFind {
  /** parent[x]: a member of x's set that is <= x; parent[x] === x exactly when x is a root. */
  readonly parent: Uint32Array;

  /** `n` singleton sets {0}, {1}, …, {n − 1}. */
  constructor(n: number) {
    if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) {
      throw new InputError(`Expected the union-find size n to be an integer in [0, 2^32 − 1], got ${n}.`);
    }
    this.parent = new Uint32Array(n);
    this.reset();
  }

  /** Number of elements. */
  get size(): number {
    return this.parent.length;
  }

  /** Makes every element its own set again. */
  reset(): void {
    const p = this.parent;
    for (let i = 0; i < p.length; i++) p[i] = i;
  }

  /** The root of x's set: its smallest element. */
  find(x: number): number {
    this.check(x, 'x');
    return this.root(x);
  }

  /** True if a and b are in the same set. */
  connected(a: number, b: number): boolean {
    this.check(a, 'a');
    this.check(b, 'b');
    return this.root(a) === this.root(b);
  }

  /** Merges the sets of a and b; true iff they were different sets. The smaller root becomes the root. */
  union(a: number, b: number): boolean {
    this.check(a, 'a');
    this.check(b, 'b');
    let ra = this.root(a);
    let rb = this.root(b);
    if (ra === rb) return false;
    if (ra > rb) {
      const t = ra;
      ra = rb;
      rb = t;
    }
    this.parent[rb] = ra;
    return true;
  }

  /**
   * The canonical label of every element: the smallest index of its set (into `out` when given).
   * O(n) without finds: parent[i] < i for non-roots, so labels[parent[i]] is final when i is reached.
   */
  labels(out: Uint32Array = new Uint32Array(this.parent.length)): Uint32Array {
    const p = this.parent;
    if (out.length < p.length) {
      throw new InputError(`Expected labels' output to hold at least n=${p.length} elements, got ${out.length}.`);
    }
    for (let i = 0; i < p.length; i++) {
      const q = p[i];
      out[i] = q === i ? i : out[q];
    }
    return out;
  }

  /** Compresses every path: afterwards parent[i] is the smallest index of i's set, as after the GPU's flatten. */
  flatten(): Uint32Array {
    return this.labels(this.parent);
  }

  /** Number of sets (roots). */
  countSets(): number {
    const p = this.parent;
    let c = 0;
    for (let i = 0; i < p.length; i++) if (p[i] === i) c++;
    return c;
  }

  /** Path-halving find without bounds checks. */
  private root(x: number): number {
    const p = this.parent;
    let q = p[x];
    while (q !== x) {
      const g = p[q];
      p[x] = g;
      x = g;
      q = p[x];
    }
    return x;
  }

  private check(x: number, name: string): void {
    // `>>> 0 !== x` rejects negatives, fractions and NaN in one comparison.
    if (x >>> 0 !== x || x >= this.parent.length) {
      throw new InputError(`Expected union-find element ${name} in [0, ${this.parent.length}), got ${x}.`);
    }
  }
}

/** Checks that pairsA and pairsB have equal lengths and every entry is an element index below n. */
export function checkPairs(n: number, pairsA: Uint32Array, pairsB: Uint32Array): void {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) {
    throw new InputError(`Expected the union-find size n to be an integer in [0, 2^32 − 1], got ${n}.`);
  }
  if (pairsA.length !== pairsB.length) {
    throw new InputError(`Expected pairsA and pairsB of equal length, got ${pairsA.length} and ${pairsB.length}.`);
  }
  for (let i = 0; i < pairsA.length; i++) {
    if (pairsA[i] >= n) throw new InputError(`Expected pairsA[${i}] < n=${n}, got ${pairsA[i]}.`);
    if (pairsB[i] >= n) throw new InputError(`Expected pairsB[${i}] < n=${n}, got ${pairsB[i]}.`);
  }
}

/** The CPU twin of `unionFindLabels`: unions every pair (pairsA[i], pairsB[i]) and returns the canonical labels. */
export function unionFindLabelsCpu(n: number, pairsA: Uint32Array, pairsB: Uint32Array): Uint32Array {
  checkPairs(n, pairsA, pairsB);
  const uf = new UnionFind(n);
  for (let i = 0; i < pairsA.length; i++) uf.union(pairsA[i], pairsB[i]);
  return uf.labels();
}
