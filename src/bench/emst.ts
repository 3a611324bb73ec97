/**
 * EMST benchmark, GPU-resident and timed like ArborX (construction + Borůvka): the points already in a GPU buffer
 * before the timer starts, the tree in a GPU buffer when it stops; pipelines compiled by the warm-up. Mutual
 * reachability runs include the core distances. `check` validates n − 1 edges, no cycle, and the CPU backend's total
 * weight (1e-6 relative) at n ≤ 10^6 up to 3 dimensions, 10^5 up to 8, 2·10^4 above; beyond those, up to 12
 * dimensions, the plain rounds' GPU tree edge for edge (the candidate lists off, src/emst/highdim.ts).
 */
import type { GpuContext } from '../gpu/context.js';
import type { BenchCase } from './harness.js';
import { GpuEmst, inPlaceDefault } from '../emst/pipeline.js';
import { emstCpu } from '../emst/boruvka.cpu.js';
import { generate, type GeneratorName } from '../datasets/generate.js';
import { UnionFind } from '../unionfind/unionfind.cpu.js';
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
  const points = generate(kind, { n, dim, seed: 1 });
  const buffer = ctx.upload('bench::points', points);
  // Built in place as emst() builds (TREELINE_EMST_INPLACE): each run leaves the points in Morton order, and an
  // untimed submission puts them back (in the wall time, not the GPU time).
  const e = await GpuEmst.create(ctx, n, dim, metricOf(minSamples), false, { inPlace: inPlaceDefault() });
  let last: BoruvkaResult | null = null;
  return {
    run: async (timer) => {
      // TREELINE_EMST_CHUNK overrides the rounds per submission in benchmark sweeps.
      const chunk = Number(process.env.TREELINE_EMST_CHUNK ?? '') || undefined;
      last = await e.run(buffer, n, { timer, skipBounded: options.skipBounded, roundsPerSubmit: chunk });
      await e.restorePoints();
    },
    check: async () => {
      const edges = await e.readEdges(last!);
      if (edges.sources.length !== n - 1) throw new Error(`bench::emst: ${edges.sources.length} edges for n=${n}`);
      const uf = new UnionFind(n);
      let total = 0;
      for (let i = 0; i < n - 1; i++) {
        if (!uf.union(edges.sources[i], edges.targets[i])) throw new Error(`bench::emst: edge ${i} closes a cycle`);
        total += edges.weights[i];
      }
      // The CPU backend's total weight where it takes seconds, not minutes (its BVH prunes less with every dimension).
      if (n <= (dim <= 3 ? 1_000_000 : dim <= 8 ? 100_000 : 20_000)) {
        const cpu = emstCpu(points, dim, { metric: metricOf(minSamples) });
        const want = cpu.weights.reduce((s, w) => s + w, 0);
        if (Math.abs(total - want) > 1e-6 * want) throw new Error(`bench::emst: total ${total}, CPU backend ${want}`);
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
    destroy: () => {
      e.destroy();
      buffer.destroy();
    },
  };
}
