/**
 * Issue 5: `singleLinkageThreaded` (src/cluster/linkage.threads.ts) against `singleLinkage` directly — rows, sizes
 * and the queued counts (q, ql, qr, splits) — for 0 … 40 000 points, 2–8 threads, fewer and more chunks than
 * threads, float32 and float64 weights, buffers holding stale data from an earlier use, and trees with cycles (the
 * same InputError; the workers go back to the pool). The worker script is bundled from the sources.
 */
import { describe, expect, it } from 'vitest';
import { allocateClusterBuffers } from '../../src/cluster/buffers.js';
import { queuedCounts, singleLinkage } from '../../src/cluster/linkage.js';
import { linkageThreadStats, singleLinkageThreaded } from '../../src/cluster/linkage.threads.js';
import type { MstEdges } from '../../src/cluster/types.js';
import { InputError } from '../../src/errors.js';
import { mulberry32 } from '../helpers/random.js';
import { randomChainTree } from '../helpers/trees.js';
import { useBundledWorkerScript } from '../helpers/workers.js';

useBundledWorkerScript('treeline-linkage-threads-');

/** The threaded linkage of `mst` in fresh buffers filled with junk first (stale data from an earlier use). */
async function threaded(
  mst: MstEdges,
  n: number,
  mcs: number,
  threads: number,
  chunks: number | undefined,
  f64: boolean,
) {
  const buffers = allocateClusterBuffers(n, mcs);
  new Int32Array(buffers.payload).fill(0x5a5a5a5a);
  buffers.linkage.left.fill(12345);
  buffers.linkage.size.fill(99);
  buffers.queued.fill(-7);
  buffers.mst.sources.set(mst.sources);
  buffers.mst.targets.set(mst.targets);
  let weights: Float32Array | Float64Array = buffers.mst.weights;
  if (f64) weights = new Float64Array(new SharedArrayBuffer(8 * mst.weights.length));
  weights.set(mst.weights);
  const edges = { sources: buffers.mst.sources, targets: buffers.mst.targets, weights };
  const counts = {
    minClusterSize: mcs,
    q: buffers.queued,
    ql: buffers.queuedLeft,
    qr: buffers.queuedRight,
    splits: -1,
  };
  const into = { linkage: buffers.linkage, unionFind: buffers.unionFind, payload: buffers.payload };
  const tree = await singleLinkageThreaded(edges, n, counts, threads, into, chunks);
  return { tree, counts };
}

describe('single linkage on threads (linkage.threads.ts)', () => {
  it('equals singleLinkage, rows and counts, for any size, threads and chunks', async () => {
    let seed = 1;
    let ran = 0;
    const runs = linkageThreadStats.runs;
    const cases: [number, number, number | undefined, number, number, boolean][] = [];
    for (const n of [2, 3, 5, 17])
      for (const T of [2, 3]) for (const K of [undefined, 1, 7, 20]) cases.push([n, T, K, 3, 2, false]);
    for (const n of [1000, 40000]) {
      for (const T of [2, 4, 8]) for (const K of [undefined, 3, 17]) cases.push([n, T, K, 1000, 5, n === 1000]);
    }
    cases.push([5000, 3, 5, 2, 15, true]);
    for (const [n, T, K, levels, mcs, f64] of cases) {
      const mst = randomChainTree(n, seed++, levels, 0.8);
      const a = queuedCounts(n, mcs);
      const one = singleLinkage(mst, n, undefined, a);
      const { tree, counts } = await threaded(mst, n, mcs, T, K, f64);
      const what = `n=${n} T=${T} K=${K} levels=${levels} mcs=${mcs}${f64 ? ' f64' : ''}`;
      expect(tree, what).not.toBeNull();
      for (const key of ['left', 'right', 'distance', 'size'] as const) {
        expect(Array.from(tree![key]), `${what}: ${key}`).toEqual(Array.from(one[key]));
      }
      for (const key of ['q', 'ql', 'qr'] as const) {
        expect(Array.from(counts[key].subarray(0, n - 1)), `${what}: ${key}`).toEqual(Array.from(a[key]));
      }
      expect(counts.splits, `${what}: splits`).toBe(a.splits);
      ran++;
    }
    expect(linkageThreadStats.runs - runs).toBe(ran);
  });

  it('answers null below 2 points and for one thread (the caller runs singleLinkage)', async () => {
    for (const n of [0, 1])
      expect((await threaded(randomChainTree(n, 5, 3, 0.5), n, 2, 4, undefined, false)).tree).toBeNull();
    expect((await threaded(randomChainTree(100, 5, 3, 0.5), 100, 2, 1, undefined, false)).tree).toBeNull();
  });

  it('throws the InputError singleLinkage throws on a cycle, and can run again after it', async () => {
    let cycles = 0;
    for (let r = 0; r < 12; r++) {
      const n = 60 + 97 * r;
      const mst = randomChainTree(n, 100 + r, 10, 0.5);
      const rand = mulberry32(r);
      for (let c = 0; c < 1 + (r % 3); c++) {
        const f = Math.floor(rand() * (n - 1));
        const g = Math.floor(rand() * (n - 1));
        mst.sources[f] = mst.sources[g];
        mst.targets[f] = mst.targets[g];
      }
      let expected: unknown = null;
      try {
        singleLinkage(mst, n, undefined, queuedCounts(n, 5));
      } catch (e) {
        expected = e;
      }
      if (expected === null) continue; // the copies happened to restore a tree
      expect(expected).toBeInstanceOf(InputError);
      await expect(threaded(mst, n, 5, 2 + (r % 4), [undefined, 3, 9][r % 3], false)).rejects.toThrow(
        (expected as Error).message,
      );
      cycles++;
    }
    expect(cycles).toBeGreaterThan(6);
    const n = 3000;
    const mst = randomChainTree(n, 77, 100, 0.8);
    const { tree } = await threaded(mst, n, 5, 4, undefined, false);
    expect(Array.from(tree!.left)).toEqual(Array.from(singleLinkage(mst, n).left));
  });
});
