/**
 * Benchmark case: exact k-NN of all n seeded points on the GPU, GPU-resident. The BVH is built once in setup
 * (timed apart by the `bvh` suite); `encode` records one search of every point. `output: 'kth'` writes only the
 * k-th squared distance — the core distances of HDBSCAN* (ArborX on the same H100, normal 3D 10^7, its
 * core_min_size 17 = our k 16: 73 ms); `'all'` writes n × k indices and distances.
 *
 * `check`: up to 10^6 points the whole result against the CPU twin (distances within 2 ulps — GPUs fuse
 * multiply-adds — and differing indices only at near-ties); above, 64 sampled queries against a float64 brute
 * force (distances within 2 ulps, index sets where no near-tie sits at the k-th place).
 */
import type { GpuContext } from '../gpu/context.js';
import type { BenchCase } from './harness.js';
import { allocateBvh, createBvhBuilder } from '../bvh/lbvh.js';
import { buildBvhCpu } from '../bvh/lbvh.cpu.js';
import { createKnnSearcher } from '../knn/knn.js';
import { knnCpu } from '../knn/knn.cpu.js';
import { generate, type GeneratorName } from '../datasets/generate.js';

export interface KnnBenchOptions {
  k: number;
  output?: 'all' | 'kth';
  dim?: number;
  kind?: GeneratorName;
  /** Morton window (default k + 3). */
  window?: number;
  /** Threads per workgroup of the search (default 32). */
  workgroupSize?: number;
  /** 'twin' (default up to 10^6 points) or 'sampled'. */
  check?: 'twin' | 'sampled';
}

const TWIN_LIMIT = 1_000_000;

/** One ulp of the f32 at x ≥ 0. */
function ulp(x: number): number {
  if (!(x > 0)) return 2 ** -149;
  const e = Math.floor(Math.log2(x));
  return 2 ** (Math.max((Math.fround(2 ** e) > x ? e - 1 : e) - 23, -149));
}

export async function benchKnn(ctx: GpuContext, n: number, options: KnnBenchOptions): Promise<BenchCase> {
  const { k } = options;
  const dim = options.dim ?? 3;
  const output = options.output ?? 'all';
  const points = generate(options.kind ?? 'normal', { n, dim, seed: 1 });
  const input = ctx.upload('bench::knnPoints', points);
  const builder = await createBvhBuilder(ctx, { maxCount: n, dim });
  const bvh = allocateBvh(ctx, n, dim);
  await ctx.submit('bench::knnBuild', (rec) => builder.encode(rec, input, n, bvh));
  builder.destroy();
  input.destroy();
  const searcher = await createKnnSearcher(ctx, {
    dim,
    k,
    output,
    window: options.window,
    workgroupSize: options.workgroupSize,
    maxCount: n,
  });
  const rows = output === 'all' ? k : 1;
  const outI = output === 'all' ? ctx.createBuffer('bench::knnIndices', 4 * n * k) : undefined;
  const outD = ctx.createBuffer('bench::knnSquaredDistances', 4 * n * rows);
  const twin = (options.check ?? (n <= TWIN_LIMIT ? 'twin' : 'sampled')) === 'twin';
  const fail = (msg: string): never => {
    throw new Error(`bench::knn (n=${n}, d=${dim}, k=${k}, ${output}): ${msg}`);
  };

  /** The squared distances (n × k, or n for 'kth') and indices (n × k, or null). */
  async function readRows(): Promise<{ d: Float32Array; i: Uint32Array | null }> {
    const d = new Float32Array(await ctx.read(outD, 0, 4 * n * rows));
    const i = outI ? new Uint32Array(await ctx.read(outI, 0, 4 * n * k)) : null;
    return { d, i };
  }

  async function checkTwin(): Promise<void> {
    const want = knnCpu(buildBvhCpu(points, dim), k, { window: options.window });
    const { d, i } = await readRows();
    for (let q = 0; q < n; q++) {
      for (let r = output === 'all' ? 0 : k - 1; r < k; r++) {
        const g = d[output === 'all' ? q * k + r : q];
        const c = want.squaredDistances[q * k + r];
        if (g !== c && !(Math.abs(g - c) <= 2 * ulp(c))) fail(`point ${q} rank ${r}: ${g}, CPU twin ${c}`);
        if (i && i[q * k + r] !== want.indices[q * k + r]) {
          const gi = i[q * k + r];
          let s = 0;
          for (let a = 0; a < dim; a++) s += (points[q * dim + a] - points[gi * dim + a]) ** 2;
          if (!(Math.abs(s - c) <= 4 * ulp(c))) fail(`point ${q} rank ${r}: index ${gi} at ${s}, CPU twin ${want.indices[q * k + r]} at ${c}`);
        }
      }
    }
  }

  async function checkSampled(): Promise<void> {
    const { d, i } = await readRows();
    for (let s = 0; s < 64; s++) {
      const q = Math.floor(((s * 0.6180339887498949) % 1) * n);
      // Float64 brute force: the k + 1 smallest squared distances (ties by index).
      const best: [number, number][] = [];
      for (let j = 0; j < n; j++) {
        if (j === q) continue;
        let t = 0;
        for (let a = 0; a < dim; a++) t += (points[q * dim + a] - points[j * dim + a]) ** 2;
        if (best.length === k + 1 && t >= best[k][0]) continue;
        let p = Math.min(best.length, k);
        best[p] = [t, j];
        while (p > 0 && best[p - 1][0] > t) {
          [best[p - 1], best[p]] = [best[p], best[p - 1]];
          p--;
        }
      }
      for (let r = output === 'all' ? 0 : k - 1; r < k; r++) {
        const g = Math.sqrt(d[output === 'all' ? q * k + r : q]);
        const want = Math.sqrt(best[r][0]);
        if (!(Math.abs(g - want) <= 2 * ulp(want))) fail(`query ${q} rank ${r}: distance ${g}, brute force ${want}`);
      }
      if (i && best.length > k && Math.sqrt(best[k][0]) - Math.sqrt(best[k - 1][0]) > 4 * ulp(Math.sqrt(best[k][0]))) {
        const want = new Set(best.slice(0, k).map((b) => b[1]));
        for (let r = 0; r < k; r++) if (!want.has(i[q * k + r])) fail(`query ${q}: index ${i[q * k + r]} is not among the ${k} nearest`);
      }
    }
  }

  return {
    encode: (rec) => searcher.encode(rec, bvh, { indices: outI, squaredDistances: outD }),
    check: () => (twin ? checkTwin() : checkSampled()),
    notes: () => (twin ? 'checked against the CPU twin' : 'checked: 64 queries against a float64 brute force'),
    destroy: () => {
      outI?.destroy();
      outD.destroy();
      searcher.destroy();
      bvh.destroy();
    },
  };
}
