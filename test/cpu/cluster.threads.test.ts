/**
 * Issue 5 (speed after the MST): `hdbscan()`'s threaded labelling (src/cluster/pointResults.threads.ts: ranges of
 * the condensed tree's rows on worker threads, the rows and outputs in shared memory) gives bit for bit what one
 * thread gives — labels, probabilities, GLOSH, persistence, exemplars and the condensed tree — on seeded random
 * trees with ties, duplicates (λ = ∞) and every selection option whose labelling differs (EOM, leaf, ε, the
 * single root cluster), also when every array comes from buffers allocated ahead and touched by the workers
 * (src/cluster/buffers.ts; the runts' points are then filled on the threads too, condense.threads.ts) and when the
 * linkage gathers condensing's counts (linkage.ts, QueuedCounts), and when single linkage itself runs on the threads by
 * chunks of edges (linkage.threads.ts, the MST in the buffers as hdbscan() puts it there) and condensing's layout
 * with it (condense.layout.ts). The worker script is bundled from the sources (test/helpers/workers.ts).
 */
import { describe, expect, it } from 'vitest';
import { clusterFromMstWithExemplars, clusterOnHost, type ClusterHost } from '../../src/cluster/clusterFromMst.js';
import { maxCondensedRows, prepareClusterBuffers, type ClusterBuffers } from '../../src/cluster/buffers.js';
import { layoutThreadStats, runtThreadStats } from '../../src/cluster/condense.threads.js';
import { canonicalMst } from '../../src/cluster/edgeOrder.js';
import { linkageThreadStats } from '../../src/cluster/linkage.threads.js';
import { pointThreadStats } from '../../src/cluster/pointResults.threads.js';
import type { ClusterOptions, MstEdges } from '../../src/cluster/types.js';
import { createHost } from '../../src/host/host.js';
import type { Thresholds } from '../../src/host/thresholds.js';
import { mulberry32 } from '../helpers/random.js';
import { useBundledWorkerScript } from '../helpers/workers.js';

useBundledWorkerScript('treeline-cluster-threads-');

/** The knobs these tests turn. */
interface How {
  threads: number;
  fromEmst: boolean;
  buffers?: ClusterBuffers;
  /** Thresholds lowered so that the threaded paths run on small trees (src/host/thresholds.ts). */
  minPoints?: number;
  gatherMinPoints?: number;
  minRunts?: number;
  linkageMinPoints?: number;
  linkageChunks?: number;
}

/** The host `clusterOnHost` runs on for `how`. */
function host(how: How): ClusterHost {
  const lowered: Partial<Thresholds> = {};
  if (how.minPoints !== undefined) lowered.labelMinPoints = how.minPoints;
  if (how.gatherMinPoints !== undefined) lowered.gatherMinPoints = how.gatherMinPoints;
  if (how.minRunts !== undefined) lowered.minRuntsPerThread = how.minRunts;
  if (how.linkageMinPoints !== undefined) lowered.linkageMinPoints = how.linkageMinPoints;
  if (how.linkageChunks !== undefined) lowered.linkageChunks = how.linkageChunks;
  return { ...createHost(how.threads, lowered), buffers: how.buffers, fromEmst: how.fromEmst };
}

/** A random recursive tree of n points with weights drawn from `levels` values (0 among them: duplicates). */
function randomMst(n: number, seed: number, levels: number): MstEdges {
  const rand = mulberry32(seed);
  const sources = new Uint32Array(n - 1);
  const targets = new Uint32Array(n - 1);
  const weights = new Float32Array(n - 1);
  for (let i = 1; i < n; i++) {
    // Mostly attached near the previous point (long chains, as mutual reachability gives), sometimes anywhere.
    const j = rand() < 0.8 ? Math.max(0, i - 1 - Math.floor(rand() * 8)) : Math.floor(rand() * i);
    sources[i - 1] = i;
    targets[i - 1] = j;
    weights[i - 1] = Math.floor(rand() * levels) / levels;
  }
  return { sources, targets, weights };
}

const cases: { name: string; options: ClusterOptions & { minClusterSize: number } }[] = [
  { name: 'eom', options: { minClusterSize: 10 } },
  { name: 'leaf', options: { minClusterSize: 10, clusterSelectionMethod: 'leaf' } },
  { name: 'epsilon', options: { minClusterSize: 5, clusterSelectionEpsilon: 0.5 } },
  {
    name: 'single root cluster',
    options: { minClusterSize: 10, allowSingleCluster: true, clusterSelectionEpsilon: 2 },
  },
];

describe('threaded labelling (pointResults.threads.ts)', () => {
  for (const { name, options } of cases) {
    it(`equals one thread bit for bit: ${name}`, async () => {
      for (const [n, seed, levels] of [
        [20000, 1, 1000],
        [30011, 2, 7],
      ] as const) {
        const mst = randomMst(n, seed, levels);
        const one = clusterFromMstWithExemplars(mst, n, options);
        const runs = pointThreadStats.runs;
        const how = { threads: 3, fromEmst: false, minPoints: 64, minRunts: 1 };
        const runtRuns = runtThreadStats.runs;
        const plain = await clusterOnHost(mst, n, options, host(how));
        const gathered = await clusterOnHost(mst, n, options, host({ ...how, gatherMinPoints: 0 }));
        const ahead: (typeof plain)[] = [];
        for (const gatherMinPoints of [undefined, 0]) {
          const prepared = await prepareClusterBuffers(n, options.minClusterSize, 2, 64);
          expect(prepared).not.toBeNull();
          await prepared!.touched;
          const { buffers } = prepared!;
          const run = await clusterOnHost(mst, n, options, host({ ...how, buffers, gatherMinPoints }));
          expect(run.result.labels).toBe(buffers.labels);
          expect(run.result.singleLinkage.left).toBe(buffers.linkage.left);
          expect(run.result.condensedTree.parent.buffer).toBe(buffers.rows.parent.buffer);
          ahead.push(run);
        }
        // Single linkage on the threads: the canonical MST in the buffers, as hdbscan() has the GPU's read-back put it.
        const linkageRuns = linkageThreadStats.runs;
        const layoutRuns = layoutThreadStats.runs;
        const sorted = canonicalMst(mst);
        const putSorted = (buffers: ClusterBuffers) => {
          buffers.mst.sources.set(sorted.sources);
          buffers.mst.targets.set(sorted.targets);
          buffers.mst.weights.set(sorted.weights);
        };
        for (const linkageChunks of [3, 8]) {
          const prepared = await prepareClusterBuffers(n, options.minClusterSize, 3, 64);
          await prepared!.touched;
          const { buffers } = prepared!;
          putSorted(buffers);
          const linked = { ...how, threads: 6, buffers, fromEmst: true, linkageMinPoints: 0, linkageChunks };
          ahead.push(await clusterOnHost(buffers.mst, n, options, host(linked)));
        }
        expect(linkageThreadStats.runs, 'single linkage ran on the threads').toBe(linkageRuns + 2);
        expect(layoutThreadStats.runs, "and condensing's layout").toBe(layoutRuns + 2);
        // Below 6 threads the sequential union-find runs (the chunks' extra work would not pay).
        const few = await prepareClusterBuffers(n, options.minClusterSize, 3, 64);
        await few!.touched;
        putSorted(few!.buffers);
        const fewHow = { ...how, threads: 5, buffers: few!.buffers, fromEmst: true, linkageMinPoints: 0 };
        ahead.push(await clusterOnHost(few!.buffers.mst, n, options, host(fewHow)));
        expect(linkageThreadStats.runs, 'not with 5 threads').toBe(linkageRuns + 2);
        expect(layoutThreadStats.runs, 'not with 5 threads').toBe(layoutRuns + 2);
        expect(pointThreadStats.runs, 'the threaded path ran').toBe(runs + 7);
        expect(runtThreadStats.runs, 'the runts were filled on threads (with buffers)').toBe(runtRuns + 5);
        const variants = [
          [plain, 'fresh arrays'],
          [gathered, 'counts gathered by the linkage'],
          [ahead[0], 'buffers ahead'],
          [ahead[1], 'buffers ahead, counts gathered'],
          [ahead[2], 'single linkage on the threads, 3 chunks'],
          [ahead[3], 'single linkage on the threads, 8 chunks'],
          [ahead[4], 'sequential linkage into the buffers, 5 threads'],
        ] as const;
        for (const [many, how] of variants) {
          expect(many.result.labels.buffer).toBeInstanceOf(SharedArrayBuffer);
          const a = one.result;
          const b = many.result;
          const what = `${name}, n=${n}, ${how}`;
          for (const key of ['left', 'right', 'distance', 'size'] as const) {
            expect(Array.from(b.singleLinkage[key]), `${what}: singleLinkage.${key}`).toEqual(
              Array.from(a.singleLinkage[key]),
            );
          }
          expect(a.selectedClusters.length, what).toBeGreaterThan(0);
          for (const key of [
            'labels',
            'probabilities',
            'outlierScores',
            'clusterPersistence',
            'selectedClusters',
          ] as const) {
            expect(Array.from(b[key]), `${what}: ${key}`).toEqual(Array.from(a[key]));
          }
          for (const key of ['parent', 'child', 'lambda', 'childSize'] as const) {
            expect(Array.from(b.condensedTree[key]), `${what}: condensedTree.${key}`).toEqual(
              Array.from(a.condensedTree[key]),
            );
          }
          expect(
            many.exemplars.map((e) => Array.from(e)),
            `${what}: exemplars`,
          ).toEqual(one.exemplars.map((e) => Array.from(e)));
        }
      }
    });
  }

  it('room for the most condensed-tree rows: n + 2 (⌊n / minClusterSize⌋ − 1) at most', () => {
    // Trees that split as often as possible: a balanced merge order over equal-sized runs of equal weights.
    for (const [n, mcs] of [
      [64, 2],
      [1000, 2],
      [999, 3],
      [4096, 16],
    ]) {
      const sources = new Uint32Array(n - 1);
      const targets = new Uint32Array(n - 1);
      const weights = new Float32Array(n - 1);
      let e = 0;
      for (let width = 1; width < n; width *= 2) {
        for (let i = 0; i + width < n; i += 2 * width) {
          sources[e] = i;
          targets[e] = i + width;
          weights[e++] = width;
        }
      }
      const one = clusterFromMstWithExemplars({ sources, targets, weights }, n, { minClusterSize: mcs });
      const rows = one.result.condensedTree.parent.length;
      expect(rows, `n=${n}, mcs=${mcs}`).toBeLessThanOrEqual(maxCondensedRows(n, mcs));
      // A perfect split tree reaches the bound within the last level's remainder.
      if (n % mcs === 0 && (n & (n - 1)) === 0) expect(rows).toBe(maxCondensedRows(n, mcs) - 2);
    }
  });

  it('runs on one thread below its size, or with threads: 1', async () => {
    const mst = randomMst(5000, 3, 100);
    const runs = pointThreadStats.runs;
    const small = await clusterOnHost(mst, 5000, { minClusterSize: 10 }, host({ threads: 4, fromEmst: false }));
    const single = await clusterOnHost(
      mst,
      5000,
      { minClusterSize: 10 },
      host({ threads: 1, fromEmst: false, minPoints: 64 }),
    );
    expect(pointThreadStats.runs).toBe(runs);
    expect(small.result.labels.buffer).toBeInstanceOf(ArrayBuffer);
    expect(Array.from(single.result.labels)).toEqual(Array.from(small.result.labels));
  });
});
