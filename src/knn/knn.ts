/**
 * Exact k nearest neighbours of every point on the GPU: `shaders/knn/knn.wgsl` over a GPU BVH (`../bvh/lbvh.ts`).
 * The algorithm, its ordering and distance rules are those of the CPU twin, `knn.cpu.ts` (seed 002 §3, ArborX's
 * nearest query, with the radius started from Morton neighbours as DESIGN.md measured).
 *
 * Create once, run many: `const s = await createKnnSearcher(gpu, { dim, k }); s.encode(rec, bvh, out); …`.
 * `knn()` is the one-call API on either backend.
 */
import type { GpuContext } from '../gpu/context.js';
import type { Binding, Recorder } from '../gpu/recorder.js';
import { createGpuContext } from '../gpu/context.js';
import { createBoxParts } from '../bvh/boxparts.js';
import { InputError } from '../errors.js';
import { STACK_SIZE } from '../bvh/layout.js';
import { buildBvhCpu } from '../bvh/lbvh.cpu.js';
import { buildBvh, type BvhBuffers } from '../bvh/lbvh.js';
import { checkPoints } from '../bvh/points.js';
import { checkCapacity } from '../bvh/capacity.js';
import { checkK, checkKth, defaultWindow, KNN_PASS, knnCpu, type KnnResult } from './knn.cpu.js';

export type { KnnResult } from './knn.cpu.js';

export interface KnnSearcherOptions {
  dim: number;
  /**
   * Neighbours per point: 1 … 64 for 'all'; any k ≥ 1 for 'kth', whose k above 64 runs in passes of 64 (each pass
   * finds the next neighbours after the previous pass's last, in (distance, index) order).
   */
  k: number;
  /** 'all': n × k indices and squared distances; 'kth': the k-th squared distance of each point only. */
  output?: 'all' | 'kth';
  /** Morton candidates that set the initial radius (default k + 3). */
  window?: number;
  /** Threads per workgroup (default 32: DESIGN.md measured 64 as 14 % slower). */
  workgroupSize?: number;
  /**
   * 'original' (default): row i belongs to point i. 'morton': row j belongs to leaf j (the point order[j]), as
   * traversals over the BVH want it (no gather needed).
   */
  rows?: 'original' | 'morton';
  /** Box records per binding (src/bvh/layout.ts, "Box parts"); default: as many as the device binds. */
  boxPartRecords?: number;
}

export interface KnnOutput {
  /** 'all': n × k u32 original indices (nearest first, ties by index, 0xFFFFFFFF past n − 1). Unused for 'kth'. */
  indices?: Binding;
  /** 'all': n × k f32 squared distances (+∞ past n − 1); 'kth': n f32, the k-th squared distance of point i. */
  squaredDistances: Binding;
}

export interface KnnSearcher {
  readonly dim: number;
  readonly k: number;
  readonly output: 'all' | 'kth';
  /**
   * Records the search of every point of `bvh`. `k` (default the searcher's) may be lowered per call — e.g. to
   * n − 1 when minSamples is clamped — without another pipeline; rows then hold k entries.
   */
  encode(rec: Recorder, bvh: BvhBuffers, out: KnnOutput, options?: { k?: number }): void;
  /** Frees the searcher's small buffers. */
  destroy(): void;
}

/** knn.wgsl's bindings and uniform block (`KnnParams`), by their WGSL names. */
const KNN_BINDINGS = {
  u: 'uniform',
  points: 'read',
  order: 'read',
  links: 'read',
  boxes0: 'read',
  out_index: 'read_write',
  out_dist: 'read_write',
  boxes1: 'read',
  boxes2: 'read',
} as const;
/** `one` = 1.0 for distance.wgsl's add_square; `floor`, `write_index`: 1 or 0 (passes, see encode). */
const KNN_PARAMS = {
  n: 'u32',
  k: 'u32',
  window: 'u32',
  inf_bits: 'u32',
  one: 'f32',
  floor: 'u32',
  write_index: 'u32',
  p1: 'u32',
} as const;
/** The bits of f32 +∞ (KnnParams.inf_bits). */
const F32_INFINITY_BITS = 0x7f800000;

/** Compiles (once per device, dim, list capacity and output) the k-NN kernel. */
export async function createKnnSearcher(ctx: GpuContext, options: KnnSearcherOptions): Promise<KnnSearcher> {
  const { dim, k } = options;
  const output = options.output ?? 'all';
  if (output === 'kth') checkKth(k);
  else checkK(k);
  if (!Number.isInteger(dim) || dim < 1) throw new InputError(`Expected dim to be a positive integer, got ${dim}.`);
  const window = options.window;
  if (window !== undefined && (!Number.isInteger(window) || window < 0)) {
    throw new InputError(`Expected window to be a non-negative integer, got ${window}.`);
  }
  let kmax = 1;
  while (kmax < Math.min(k, KNN_PASS)) kmax *= 2;
  const parts = createBoxParts(ctx, dim, options.boxPartRecords);
  const kernel = await ctx.kernel({
    label: 'knn::search',
    shader: 'knn/knn',
    entry: 'main',
    bindings: KNN_BINDINGS,
    uniforms: KNN_PARAMS,
    workgroupSize: options.workgroupSize ?? 32,
    include: ['common/grid', 'knn/distance', 'bvh/boxread'],
    constants: {
      D: dim,
      KMAX: kmax,
      STACK: STACK_SIZE,
      ALL: output === 'all' ? 1 : 0,
      MORTON_ROWS: options.rows === 'morton' ? 1 : 0,
      ...parts.constants,
    },
  });
  // 'kth' writes no indices in one pass, but the binding must exist and must not alias the distances. In passes it
  // holds each point's last neighbour so far (the next pass's floor): n words, grown on demand.
  let indexBuffer = ctx.createBuffer('knn::unusedIndices', 4);
  return {
    dim,
    k,
    output,
    encode(rec, bvh, out, opts = {}) {
      if (bvh.dim !== dim) throw new InputError(`Expected a BVH of dim=${dim}, got dim=${bvh.dim}.`);
      const kk = opts.k ?? k;
      if (!Number.isInteger(kk) || kk < 1 || kk > k)
        throw new InputError(`Expected k to be an integer in [1, ${k}], got ${kk}.`);
      if (bvh.n === 0) return;
      if (kk > KNN_PASS && indexBuffer.size < 4 * bvh.n) {
        indexBuffer.destroy();
        indexBuffer = ctx.createBuffer('knn::floorIndices', 4 * bvh.n);
      }
      const indices = output === 'all' ? out.indices : indexBuffer;
      if (!indices) throw new InputError("knn::search: output 'all' needs an indices buffer");
      const [boxes0, boxes1, boxes2] = parts.bind(bvh.boxes, bvh.n);
      // Passes of at most KNN_PASS neighbours ('kth' only): each finds the next ones after the previous pass's last.
      for (let done = 0; done < kk;) {
        const kp = Math.min(KNN_PASS, kk - done);
        rec.dispatch(kernel, {
          buffers: {
            points: bvh.sortedPoints,
            order: bvh.order,
            links: bvh.links,
            boxes0,
            out_index: indices,
            out_dist: out.squaredDistances,
            boxes1,
            boxes2,
          },
          uniforms: {
            n: bvh.n,
            k: kp,
            window: window ?? defaultWindow(kp),
            inf_bits: F32_INFINITY_BITS,
            one: 1,
            floor: done > 0 ? 1 : 0,
            write_index: done + kp < kk ? 1 : 0,
          },
          threads: bvh.n,
        });
        done += kp;
      }
    },
    destroy() {
      indexBuffer.destroy();
      parts.destroy();
    },
  };
}

export interface KnnOptions {
  dim: number;
  /** Neighbours per point, 1 … 64 (the point itself excluded by index: a duplicate is a neighbour at 0). */
  k: number;
  /** 'gpu' (default when `gpu` is given) or 'cpu' (default otherwise). */
  backend?: 'gpu' | 'cpu';
  /** The GPU context to use; with backend 'gpu' and none given, one is created and destroyed. */
  gpu?: GpuContext;
  /** Morton candidates that set the initial radius (default k + 3). */
  window?: number;
}

/**
 * The k nearest neighbours of every point of `points` (row-major n × dim): indices and squared distances,
 * nearest first, ties broken by the smaller index.
 */
export async function knn(points: Float32Array, options: KnnOptions): Promise<KnnResult> {
  const { dim, k } = options;
  checkK(k);
  const n = checkPoints(points, dim);
  const backend = options.backend ?? (options.gpu ? 'gpu' : 'cpu');
  if (backend === 'cpu') return knnCpu(buildBvhCpu(points, dim), k, { window: options.window });
  if (backend !== 'gpu') throw new InputError(`Expected backend to be 'gpu' or 'cpu', got ${String(backend)}.`);
  return withContext(options.gpu, async (ctx) => {
    const indices = new Uint32Array(n * k).fill(0xffffffff);
    const squaredDistances = new Float32Array(n * k).fill(Infinity);
    if (n === 0) return { k, indices, squaredDistances };
    // Before anything is allocated (capacity.ts): n × k results, the BVH's arrays and the points in single bindings.
    checkCapacity(ctx.limits, n, dim, { kind: 'knn', k }, ctx.deviceLimits.maxStorageBufferBindingSize);
    const searcher = await createKnnSearcher(ctx, { dim, k, window: options.window });
    const bvh = await buildBvh(ctx, points, n, dim);
    const outI = ctx.createBuffer('knn::indices', 4 * n * k);
    const outD = ctx.createBuffer('knn::squaredDistances', 4 * n * k);
    try {
      await ctx.submit('knn::search', (rec) => searcher.encode(rec, bvh, { indices: outI, squaredDistances: outD }));
      const [ib, db] = await Promise.all([ctx.read(outI), ctx.read(outD)]);
      indices.set(new Uint32Array(ib, 0, n * k));
      squaredDistances.set(new Float32Array(db, 0, n * k));
      return { k, indices, squaredDistances };
    } finally {
      outI.destroy();
      outD.destroy();
      bvh.destroy();
      searcher.destroy();
    }
  });
}

/** Runs `fn` with the given context, or with a fresh one that is destroyed afterwards. */
export async function withContext<T>(gpu: GpuContext | undefined, fn: (ctx: GpuContext) => Promise<T>): Promise<T> {
  if (gpu) return fn(gpu);
  const ctx = await createGpuContext();
  try {
    return await fn(ctx);
  } finally {
    await ctx.destroy();
  }
}
