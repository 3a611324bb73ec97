/**
 * Benchmark of the GPU Borůvka phase alone, on a BVH built by the CPU twin and uploaded (until the GPU build is
 * wired in, src/bench/emst.ts times construction + Borůvka). Checks n − 1 edges and no cycle.
 */
import type { GpuContext } from '../gpu/context.js';
import type { BenchCase } from './harness.js';
import { Boruvka, type BoruvkaResult } from '../emst/boruvka.js';
import { uploadBvhCpu } from '../bvh/upload.js';
import { buildBvhCpu } from '../bvh/lbvh.cpu.js';
import { generate, type GeneratorName } from '../datasets/generate.js';
import { UnionFind } from '../unionfind/unionfind.cpu.js';

export async function benchBoruvka(
  ctx: GpuContext,
  n: number,
  dim: number,
  kind: GeneratorName,
  options: { skipBounded?: boolean } = {},
): Promise<BenchCase> {
  const points = generate(kind, { n, dim, seed: 1 });
  const bvh = buildBvhCpu(points, dim);
  const bufs = uploadBvhCpu(ctx, bvh, 'bench::bvh');
  const boruvka = await Boruvka.create(ctx, n, dim);
  let last: BoruvkaResult | null = null;
  return {
    run: async (timer) => {
      last = await boruvka.run(bufs, { timer, skipBounded: options.skipBounded });
    },
    check: async () => {
      if (!last || last.count !== n - 1) throw new Error(`bench::boruvka: ${last?.count ?? 0} edges for n=${n}`);
      const raw = new Uint32Array(await ctx.read(last.edges, 0, 12 * last.count));
      const uf = new UnionFind(n);
      for (let e = 0; e < last.count; e++) {
        if (!uf.union(raw[3 * e], raw[3 * e + 1])) throw new Error(`bench::boruvka: edge ${e} closes a cycle`);
      }
    },
    notes: () => `${last?.rounds ?? 0} rounds encoded up to the chunk that completed the tree`,
    destroy: () => {
      boruvka.destroy();
      bufs.destroy();
    },
  };
}
