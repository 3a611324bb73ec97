/**
 * Issue 5: single linkage by chunks of edges (src/cluster/linkage.chunks.ts, the threads' algorithm run on one
 * thread) gives exactly `singleLinkage`'s rows, sizes and condensing's queued counts — for any number of chunks,
 * on seeded random trees shaped like mutual-reachability MSTs (long chains) and like random recursive trees, with
 * ties and duplicates, and on paths (the deepest dendrograms) — and throws the same InputError on a cycle.
 * `singleLinkage` itself is checked against the oracles (cluster.linkage.test.ts, the golden files).
 */
import { describe, expect, it } from 'vitest';
import { canonicalMst } from '../../src/cluster/edgeOrder.js';
import { chunkBounds, singleLinkageChunked } from '../../src/cluster/linkage.chunks.js';
import { queuedCounts, singleLinkage } from '../../src/cluster/linkage.js';
import type { MstEdges } from '../../src/cluster/types.js';
import { InputError } from '../../src/errors.js';
import { mulberry32 } from '../helpers/random.js';
import { randomChainTree } from '../helpers/trees.js';

function expectSame(mst: MstEdges, n: number, mcs: number, chunks: number, what: string): void {
  const a = queuedCounts(n, mcs);
  const one = singleLinkage(mst, n, undefined, a);
  const b = queuedCounts(n, mcs);
  const many = singleLinkageChunked(mst, n, b, chunks);
  for (const key of ['left', 'right', 'distance', 'size'] as const) {
    expect(Array.from(many[key]), `${what}: ${key}`).toEqual(Array.from(one[key]));
  }
  for (const key of ['q', 'ql', 'qr'] as const)
    expect(Array.from(b[key]), `${what}: ${key}`).toEqual(Array.from(a[key]));
  expect(b.splits, `${what}: splits`).toBe(a.splits);
}

describe('single linkage by chunks (linkage.chunks.ts)', () => {
  it('equals singleLinkage on random trees, for any number of chunks', () => {
    let seed = 1;
    for (const n of [2, 3, 5, 40, 1000, 6007]) {
      for (const [levels, chain] of [
        [1000, 0.8],
        [3, 0.8],
        [50, 0],
      ] as const) {
        const mst = randomChainTree(n, seed++, levels, chain);
        for (const chunks of [1, 2, 3, 7, 16, 64, n]) {
          for (const mcs of [2, 5, 15])
            expectSame(mst, n, mcs, chunks, `n=${n} levels=${levels} chain=${chain} K=${chunks} mcs=${mcs}`);
        }
      }
    }
  });

  it('equals singleLinkage on a path (each merge the previous one’s parent) and a star', () => {
    const n = 3000;
    const rand = mulberry32(7);
    const path = { sources: new Uint32Array(n - 1), targets: new Uint32Array(n - 1), weights: new Float32Array(n - 1) };
    const star = { sources: new Uint32Array(n - 1), targets: new Uint32Array(n - 1), weights: new Float32Array(n - 1) };
    for (let i = 0; i < n - 1; i++) {
      path.sources[i] = i;
      path.targets[i] = i + 1;
      path.weights[i] = rand();
      star.sources[i] = 0;
      star.targets[i] = i + 1;
      star.weights[i] = Math.floor(rand() * 10);
    }
    for (const [tree, name] of [
      [canonicalMst(path), 'path'],
      [canonicalMst(star), 'star'],
    ] as const) {
      for (const chunks of [2, 9, 100]) expectSame(tree, n, 10, chunks, `${name} K=${chunks}`);
    }
  });

  it('n = 1 and 0 edges; bounds cover every edge once', () => {
    const empty = { sources: new Uint32Array(0), targets: new Uint32Array(0), weights: new Float32Array(0) };
    const l = singleLinkageChunked(empty, 1, queuedCounts(1, 5), 4);
    expect(l.left.length).toBe(0);
    expect(chunkBounds(0, 4)).toEqual([0, 0]);
    expect(chunkBounds(10, 4)).toEqual([0, 2, 5, 7, 10]);
    expect(chunkBounds(3, 8)).toEqual([0, 1, 2, 3]);
  });

  it('throws the InputError singleLinkage throws for a cycle (the first edge closing one)', () => {
    const n = 500;
    const mst = randomChainTree(n, 99, 1000, 0.5);
    // Edge 400 replaced by a copy of edge 100: a cycle, and a point left out.
    mst.sources[400] = mst.sources[100];
    mst.targets[400] = mst.targets[100];
    const fail = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e;
      }
      return null;
    };
    const expected = fail(() => singleLinkage(mst, n, undefined, queuedCounts(n, 5)));
    expect(expected).toBeInstanceOf(InputError);
    for (const chunks of [1, 3, 8]) {
      const got = fail(() => singleLinkageChunked(mst, n, queuedCounts(n, 5), chunks));
      expect(got, `K=${chunks}`).toBeInstanceOf(InputError);
      expect((got as Error).message).toBe((expected as Error).message);
    }
  });
});
