/**
 * Core distances for mutual reachability (DESIGN.md "HDBSCAN* semantics"): the distance from each point to its
 * minSamples-th nearest neighbour, the point itself excluded by index (hdbscan-contrib, cuML, fast_hdbscan; sklearn's
 * min_samples = s is ours s − 1). minSamples above n − 1 is clamped to n − 1, as hdbscan does; minSamples = 0 gives
 * 0 everywhere. Duplicates count: a point with m duplicates has core distance 0 for minSamples ≤ m.
 *
 * Both backends run the k-th-distance-only k-NN (`knn.cpu.ts`, `shaders/knn/knn.wgsl` with ALL = 0) and take the
 * square root on the host in float64, rounded to f32, so equal squared distances give equal core distances.
 */
import type { GpuContext } from '../gpu/context.js';
import { InputError } from '../errors.js';
import { buildBvhCpu } from '../bvh/lbvh.cpu.js';
import { checkCapacity } from '../bvh/capacity.js';
import { checkPoints } from '../bvh/points.js';
import { kthSquaredDistancesCpu } from './knn.cpu.js';
import { buildSearchBvh, createKnnSearcher, withContext } from './knn.js';

export interface CoreDistanceOptions {
  dim: number;
  /** The neighbour rank, self excluded: 0 or more (clamped to n − 1; above 64 the GPU searches in passes). */
  minSamples: number;
  /** 'gpu' (default when `gpu` is given) or 'cpu' (default otherwise). */
  backend?: 'gpu' | 'cpu';
  /** The GPU context to use; with backend 'gpu' and none given, one is created and destroyed. */
  gpu?: GpuContext;
}

/** Euclidean (not squared) core distance of every point, as f32. */
export async function coreDistances(points: Float32Array, options: CoreDistanceOptions): Promise<Float32Array> {
  const { dim, minSamples } = options;
  const n = checkPoints(points, dim);
  if (!Number.isInteger(minSamples) || minSamples < 0) {
    throw new InputError(`Expected minSamples to be an integer >= 0, got ${minSamples}.`);
  }
  const k = Math.min(minSamples, n - 1);
  if (k <= 0) return new Float32Array(n);
  const backend = options.backend ?? (options.gpu ? 'gpu' : 'cpu');
  let squared: Float32Array;
  if (backend === 'cpu') {
    squared = kthSquaredDistancesCpu(buildBvhCpu(points, dim), k);
  } else if (backend === 'gpu') {
    squared = await withContext(options.gpu, async (ctx) => {
      checkCapacity(ctx.limits, n, dim, { kind: 'knn', k }, ctx.deviceLimits.maxStorageBufferBindingSize);
      const searcher = await createKnnSearcher(ctx, { dim, k, output: 'kth', maxCount: n });
      const bvh = await buildSearchBvh(ctx, points, n, dim).catch((e: unknown) => {
        searcher.destroy();
        throw e;
      });
      const out = ctx.createBuffer('knn::coreDistances', 4 * n);
      try {
        await ctx.submit('knn::coreDistances', (rec) => searcher.encode(rec, bvh, { squaredDistances: out }));
        return new Float32Array(await ctx.read(out, 0, 4 * n));
      } finally {
        out.destroy();
        bvh.destroy();
        searcher.destroy();
      }
    });
  } else {
    throw new InputError(`Expected backend to be 'gpu' or 'cpu', got ${String(backend)}.`);
  }
  const core = new Float32Array(n);
  for (let i = 0; i < n; i++) core[i] = Math.sqrt(squared[i]);
  return core;
}
