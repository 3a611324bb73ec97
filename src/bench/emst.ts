/**
 * EMST benchmark, GPU-resident and timed like ArborX (construction + Borůvka): the points already in a GPU buffer
 * before the timer starts, the tree in a GPU buffer when it stops; pipelines compiled by the warm-up. Mutual
 * reachability runs include the core distances. `check` validates n − 1 edges, no cycle, and the CPU backend's total
 * weight (1e-6 relative) at n ≤ 10^6 up to 3 dimensions, 10^5 up to 8, 2·10^4 above; beyond those, up to 12
 * dimensions, the plain rounds' GPU tree edge for edge (the candidate lists off, src/emst/highdim.ts), and in 2D/3D
 * (plain EMST) the spatial halves (checkHalves): issue 19's check at 4–6·10^8 points, where no CPU run is possible.
 */
import type { GpuContext } from '../gpu/context.js';
import type { BenchCase } from './harness.js';
import { GpuEmst, inPlaceDefault } from '../emst/pipeline.js';
import { emstCpu } from '../emst/boruvka.cpu.js';
import type { GeneratorName } from '../datasets/generate.js';
import { generateThreaded } from '../datasets/generate.threads.js';
import { checkSpanningTree, compareHalves, sharedEdges, splitHalves, toShared } from './check.threads.js';
import { resolveThreads } from '../host/threads.js';
import { MAX_DEFAULT_HOST_THREADS } from '../host/thresholds.js';
import type { BoruvkaResult } from '../emst/boruvka.js';
import { metricOf } from '../emst/metric.js';

export async function benchEmst(
  ctx: GpuContext,
  n: number,
  dim: number,
  kind: GeneratorName,
  options: { minSamples?: number; skipBounded?: boolean } = {},
): Promise<BenchCase> {
  const minSamples = options.minSamples ?? 1;
  const made = performance.now();
  // On the host's threads (uniform, normal: the same values as one thread's; src/datasets/generate.threads.ts).
  const points = await generateThreaded(kind, { n, dim, seed: 1 }, { threads: checkThreads() });
  const setUp = (what: string): void => {
    if (n >= 50_000_000) console.error(`bench::emst (n ${n}): ${what} at ${((performance.now() - made) / 1000).toFixed(1)} s`);
  };
  setUp('points generated');
  // Staged in chunks (a mapped-at-creation buffer cannot be mapped whole above 4 GiB: 4·10^8 3D points).
  const buffer = await ctx.uploadAsync('bench::points', points);
  // Built in place as emst() builds (TREELINE_EMST_INPLACE): each run leaves the points in Morton order, and an
  // untimed submission puts them back (in the wall time, not the GPU time).
  const e = await GpuEmst.create(ctx, n, dim, metricOf(minSamples), false, { inPlace: inPlaceDefault() });
  setUp('uploaded, pipelines made');
  let last: BoruvkaResult | null = null;
  let destroyed = false;
  const release = (): void => {
    if (destroyed) return;
    destroyed = true;
    e.destroy();
    buffer.destroy();
  };
  return {
    run: async (timer) => {
      // TREELINE_EMST_CHUNK overrides the rounds per submission in benchmark sweeps.
      const chunk = Number(process.env.TREELINE_EMST_CHUNK ?? '') || undefined;
      last = await e.run(buffer, n, { timer, skipBounded: options.skipBounded, roundsPerSubmit: chunk });
      await e.restorePoints();
    },
    check: async () => {
      // Each step's seconds on stderr: at 10^8–6·10^8 points the check takes minutes of host work.
      const t0 = performance.now();
      const step = (what: string): void =>
        console.error(`bench::emst check (n ${n}): ${what} at ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      // Into shared arrays where the read-back can (the checks' threads read them), else copied there.
      const threads = checkThreads() ?? (await resolveThreads(undefined, n, MAX_DEFAULT_HOST_THREADS));
      const read = await e.readEdges(last!, undefined, { edges: sharedEdges(last!.count), ready: Promise.resolve() });
      const edges = { sources: toShared(read.sources), targets: toShared(read.targets), weights: toShared(read.weights) };
      step('edges read');
      // n − 1 edges, ends below n, no cycle: a concurrent union-find on the host's threads (check.threads.ts).
      const total = await checkSpanningTree(n, edges, threads);
      step(`spanning, no cycle (${threads} threads)`);
      // The CPU backend's total weight where it takes seconds, not minutes (its BVH prunes less with every dimension).
      if (n <= (dim <= 3 ? 1_000_000 : dim <= 8 ? 100_000 : 20_000)) {
        const cpu = emstCpu(points, dim, { metric: metricOf(minSamples) });
        const want = cpu.weights.reduce((s, w) => s + w, 0);
        if (Math.abs(total - want) > 1e-6 * want) throw new Error(`bench::emst: total ${total}, CPU backend ${want}`);
      } else if (dim <= 3 && minSamples === 1 && process.env.TREELINE_BENCH_HALVES !== '0') {
        // The tree's GPU memory goes first: the halves' trees take half of it each, one after the other. Freed, not
        // pooled (buffers.ts): at 6·10^8 3D points the pooled 62 GB of the whole tree's buffers left the first
        // half's Borůvka out of memory on the H100 (session 13).
        release();
        ctx.trim();
        await ctx.onDone(); // Dawn frees destroyed buffers' memory once the queue has passed their last use
        await checkHalves(ctx, points, n, dim, edges, inPlaceDefault(), step, threads);
      } else if (dim > 3 && dim <= 12) {
        // Instead, the plain rounds' tree on the GPU (no candidate lists, highdim.ts), edge for edge.
        const plain = await GpuEmst.create(ctx, n, dim, metricOf(minSamples), false, { candidates: 'off' });
        try {
          const want = await plain.readEdges(await plain.run(buffer, n));
          for (let i = 0; i < n - 1; i++) {
            if (edges.sources[i] !== want.sources[i] || edges.targets[i] !== want.targets[i])
              throw new Error(`bench::emst: edge ${i} differs from the plain rounds' tree`);
          }
        } finally {
          plain.destroy();
        }
      }
    },
    notes: () => `${last?.rounds ?? 0} rounds encoded; minSamples ${minSamples}`,
    destroy: release,
  };
}

/**
 * The spatial halves check (issue 19: "total weight … against the same data's spatial halves"): the points split at
 * the middle of their first coordinate's range (x < mid and x ≥ mid, each half in the points' order, so local ids
 * keep the global ids' order and the canonical tie rule), each half's EMST computed on its own by the GPU path, and
 * every edge of the whole tree with both ends in one half must be an edge of that half's EMST with the same weight
 * (the cycle property: a global MST edge inside a subset is in the subset's MST; as both trees are in the canonical
 * order under one tie rule, the edge and its weight are found by one forward walk over the half's list). An edge the
 * half's tree lacks is reported with its ids. What it does not check: the crossing edges' minimality (the tree spans
 * and has no cycle; each crossing edge is a Borůvka choice of the same run).
 */
async function checkHalves(
  ctx: GpuContext,
  points: Float32Array,
  n: number,
  dim: number,
  whole: EdgeArrays,
  inPlace: boolean,
  step: (what: string) => void,
  threads: number,
): Promise<void> {
  // The split and the comparisons run on the host's threads (check.threads.ts); the halves' EMSTs on the GPU.
  const split = await splitHalves(points, n, dim, threads);
  const { mid, counts } = split;
  step(`halves split (${threads} threads)`);
  const trees: [EdgeArrays | null, EdgeArrays | null] = [null, null];
  for (let h = 0; h < 2; h++) {
    const m = counts[h];
    if (m < 2) continue;
    const buffer = await ctx.uploadAsync('bench::half', split.halves[h]);
    const e = await GpuEmst.create(ctx, m, dim, metricOf(1), false, { inPlace });
    try {
      const result = await e.run(buffer, m);
      trees[h] = await e.readEdges(result, undefined, { edges: sharedEdges(result.count), ready: Promise.resolve() });
    } finally {
      e.destroy();
      buffer.destroy();
      ctx.trim();
      await ctx.onDone();
    }
    step(`half ${h}'s EMST (${m} points)`);
  }
  // All lists are in the canonical (weight, min id, max id) order, and local ids keep the global ids' order: the
  // whole tree's edges inside a half are a subsequence of the half's list, found by forward walks (sequential reads;
  // a lookup per edge in adjacency lists took minutes of cache misses at 1.5·10^8 points), one per range of the
  // whole list and half, from a binary search; both halves in one pass.
  const [in0, in1] = await compareHalves(split, whole, trees, threads);
  const inside = in0 + in1;
  step("both halves' edges compared");
  console.error(
    `bench::emst: halves at x = ${mid}: ${counts[0]} + ${counts[1]} points; ${inside} of ${n - 1} edges inside a half, ` +
      `each in that half's own EMST with its weight`,
  );
}

type EdgeArrays = { sources: Uint32Array; targets: Uint32Array; weights: Float32Array };

/** TREELINE_BENCH_CHECK_THREADS: the host threads of the bench's generation and checks (unset: the host's, ≤ 16). */
function checkThreads(): number | undefined {
  const v = process.env.TREELINE_BENCH_CHECK_THREADS;
  if (v === undefined || v === '') return undefined;
  const t = Number(v);
  if (!Number.isInteger(t) || t < 1) throw new Error(`TREELINE_BENCH_CHECK_THREADS: expected an integer >= 1, got '${v}'.`);
  return t;
}
