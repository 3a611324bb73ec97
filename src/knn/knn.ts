/**
 * Exact k nearest neighbours of every point on the GPU: `shaders/knn/knn.wgsl` over a GPU BVH (`../bvh/lbvh.ts`).
 * The algorithm, its ordering and distance rules are those of the CPU twin, `knn.cpu.ts` (seed 002 §3, ArborX's
 * nearest query, with the radius started from Morton neighbours as DESIGN.md measured).
 *
 * Create once, run many: `const s = await createKnnSearcher(gpu, { dim, k }); s.encode(rec, bvh, out); …`.
 * `knn()` is the one-call API on either backend.
 */
import type { GpuContext } from '../gpu/context.js';
import type { Bindings, Kernel } from '../gpu/kernel.js';
import type { Binding, Recorder } from '../gpu/recorder.js';
import { createGpuContext } from '../gpu/context.js';
import { InputError } from '../errors.js';
import {
  BOX_PARTS,
  boxArrayWords,
  boxFormatFor,
  boxPartRecords,
  boxRecordWords,
  boxRecords,
  boxWords,
  pointsForBoxRecords,
  STACK_SIZE,
  type BoxFormat,
} from '../bvh/layout.js';
import { buildBvhCpu } from '../bvh/lbvh.cpu.js';
import { allocateBvh, createBvhBuilder, type BvhBuffers, type GpuBvh } from '../bvh/lbvh.js';
import {
  bigArrayParts,
  bindParts,
  createUnusedParts,
  planParts,
  windowBinding,
  windows,
  type PartArray,
  type Window,
} from '../gpu/bigarray.js';
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
  /**
   * The largest n that encode() will be given (issue 19: the BVH's arrays are bound in as many parts as this n
   * needs, gpu/bigarray.ts). Default: the most the search took before its arrays could be split (links, points and
   * outputs in one binding each, the boxes in up to three).
   */
  maxCount?: number;
  /** Elements per part of the BVH's arrays (tests: several parts with few points); default: a binding's worth. */
  partElements?: number;
  /**
   * Box records per part, as the BVH builder takes them (tests): parts of boxPartRecords · 2·dim elements (the
   * words of that many box records) for every array, where partElements is not given.
   */
  boxPartRecords?: number;
  /** Output rows per window (tests: several windows with few points); default: a binding's worth. */
  maxWindow?: number;
  /** The box format of the BVHs it will search (bvh/layout.ts; default boxFormatFor(dim), as every BVH has). */
  boxes?: BoxFormat;
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

/**
 * knn.wgsl's own bindings and uniform block (`KnnParams`), by their WGSL names; the BVH's arrays follow from
 * binding 3 on, each whole or in parts (bvhArrays, gpu/bigarray.ts).
 */
const KNN_BINDINGS = { u: 'uniform', out_index: 'read_write', out_dist: 'read_write' } as const;
/**
 * `one` = 1.0 for distance.wgsl's add_square; `floor`, `write_index`: 1 or 0 (passes, see encode); `base`, `end`:
 * the leaves of this dispatch's output window.
 */
const KNN_PARAMS = {
  n: 'u32',
  k: 'u32',
  window: 'u32',
  inf_bits: 'u32',
  one: 'f32',
  floor: 'u32',
  write_index: 'u32',
  base: 'u32',
  end: 'u32',
  p0: 'u32',
  p1: 'u32',
  p2: 'u32',
} as const;
/** permute.wgsl's bindings and uniform block. */
const PERMUTE_BINDINGS = { u: 'uniform', order: 'read', src: 'read', dst: 'read_write' } as const;
const PERMUTE_PARAMS = { src_count: 'u32', dst_first: 'u32', dst_count: 'u32', width: 'u32' } as const;

/** The BVH arrays the search reads at random (layout.ts), in binding order from 3 on. */
function bvhArrays(dim: number, format: BoxFormat): PartArray[] {
  return [
    { name: 'points', type: 'f32', stride: 4, length: (n) => n * dim, access: 'read' },
    { name: 'order', type: 'u32', stride: 4, length: (n) => n, access: 'read' },
    { name: 'links', type: 'vec2u', stride: 8, length: (n) => n, access: 'read' },
    { name: 'mins', type: 'vec2u', stride: 8, length: (n) => n, access: 'read' },
    { name: 'boxes', type: 'u32', stride: 4, length: (n) => boxArrayWords(n, dim, format), access: 'read' },
  ];
}
/**
 * createKnnSearcher's maxCount when none is given: what the search took before its arrays could be split (issue 19)
 * — links, points and outputs (`rowWords` a point) in one binding each, the boxes in up to BOX_PARTS — so that a
 * caller that names no size gets the kernel it had; with smaller parts (`perPart` elements, tests), the most points
 * whose parts fit the stage beside the two outputs.
 */
function defaultMaxCount(
  ctx: GpuContext,
  dim: number,
  rowWords: number,
  perPart: number | undefined,
  format: BoxFormat,
): number {
  const limits = ctx.limits;
  const binding = limits.maxStorageBufferBindingSize;
  if (perPart === undefined) {
    const whole = Math.floor(binding / Math.max(16, 4 * dim, 4 * rowWords));
    return Math.min(whole, pointsForBoxRecords(BOX_PARTS * boxPartRecords(binding, dim, format), format));
  }
  const slots = (n: number) =>
    bvhArrays(dim, format).reduce((s, a) => s + bigArrayParts(limits, a.length(n), a.stride, perPart).parts, 2);
  let lo = 0;
  let hi = Math.floor(binding / 4);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (slots(mid) <= limits.maxStorageBuffersPerShaderStage) lo = mid;
    else hi = mid;
  }
  return lo;
}

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
  const limits = ctx.limits;
  const format = boxFormatFor(dim, { given: options.boxes });
  const perPart =
    options.partElements ?? (options.boxPartRecords && options.boxPartRecords * boxRecordWords(dim, format));
  const rowWords = output === 'all' ? Math.min(k, KNN_PASS) : 1;
  const maxCount = options.maxCount ?? defaultMaxCount(ctx, dim, rowWords, perPart, format);
  if (!Number.isInteger(maxCount) || maxCount < 0) {
    throw new InputError(`Expected maxCount to be a non-negative integer, got ${options.maxCount}.`);
  }
  // Issue 19: every BVH array whole where it fits one binding, else in parts (the accessors pick the part).
  const plan = planParts(limits, 'knn::search', bvhArrays(dim, format), Math.max(maxCount, 2), 3, perPart);
  const maxWindow = options.maxWindow ?? Number.POSITIVE_INFINITY;
  // Outputs above one binding: dispatched in windows of leaves, each writing its Morton rows (a window of rows is a
  // window of leaves), which permute.wgsl moves to original rows where those were asked for.
  const windowed = windows(limits, Math.max(maxCount, 1), [4 * rowWords], maxWindow).length > 1;
  const mortonRows = options.rows === 'morton';
  const [kernel, permute] = await Promise.all([
    ctx.kernel({
      label: 'knn::search',
      shader: 'knn/knn',
      entry: 'main',
      bindings: { ...KNN_BINDINGS, ...plan.bindings } as Bindings,
      uniforms: KNN_PARAMS,
      workgroupSize: options.workgroupSize ?? 32,
      include: ['common/grid', 'knn/distance', 'bvh/boxget'],
      constants: {
        D: dim,
        BOX16: format === 'u16' ? 1 : 0,
        BOXW: boxRecordWords(dim, format),
        KMAX: kmax,
        STACK: STACK_SIZE,
        ALL: output === 'all' ? 1 : 0,
        MORTON_ROWS: mortonRows || windowed ? 1 : 0,
      },
      generated: plan.generated,
    }) as Promise<Kernel<Bindings, typeof KNN_PARAMS>>,
    windowed && !mortonRows
      ? ctx.kernel({
          label: 'knn::permute',
          shader: 'knn/permute',
          entry: 'main',
          bindings: PERMUTE_BINDINGS,
          uniforms: PERMUTE_PARAMS,
          workgroupSize: 256,
          include: ['common/grid'],
        })
      : null,
  ]);
  const unused = plan.slots > plan.arrays.length ? createUnusedParts(ctx, 'knn::search', plan.slots) : null;
  // 'kth' writes no indices in one pass, but the binding must exist and must not alias the distances. In passes (or
  // windows) it holds each point's last neighbour so far (the next pass's floor): n words, grown on demand. Split
  // with original rows: the search's Morton rows (indices, distances) before permute.wgsl, grown on demand.
  let indexBuffer = ctx.createBuffer('knn::unusedIndices', 4);
  let mortonIndices: GPUBuffer | null = null;
  let mortonDistances: GPUBuffer | null = null;
  const grow = (buffer: GPUBuffer | null, label: string, bytes: number) => {
    if (buffer && buffer.size >= bytes) return buffer;
    buffer?.destroy();
    return ctx.createBuffer(label, bytes);
  };
  return {
    dim,
    k,
    output,
    encode(rec, bvh, out, opts = {}) {
      if (bvh.dim !== dim) throw new InputError(`Expected a BVH of dim=${dim}, got dim=${bvh.dim}.`);
      if (bvh.boxFormat !== format) {
        throw new InputError(
          `knn::search: expected a BVH with ${format} boxes (the searcher's), got ${bvh.boxFormat}.`,
        );
      }
      const kk = opts.k ?? k;
      if (!Number.isInteger(kk) || kk < 1 || kk > k)
        throw new InputError(`Expected k to be an integer in [1, ${k}], got ${kk}.`);
      const n = bvh.n;
      if (n === 0) return;
      if (n > maxCount) {
        throw new InputError(
          `knn::search: expected a BVH of at most ${maxCount} points (createKnnSearcher's maxCount), got ${n}.`,
        );
      }
      const width = output === 'all' ? kk : 1;
      const permuted = windowed && !mortonRows;
      // Windows bind ranges of the floor indices too: n words wherever the outputs are windowed.
      if (output === 'kth' && !permuted && (kk > KNN_PASS || windowed) && indexBuffer.size < 4 * n) {
        indexBuffer = grow(indexBuffer, 'knn::floorIndices', 4 * n);
      }
      let indices = output === 'all' ? out.indices : indexBuffer;
      if (!indices) throw new InputError("knn::search: output 'all' needs an indices buffer");
      let distances: Binding = out.squaredDistances;
      if (permuted) {
        mortonIndices = grow(mortonIndices, 'knn::mortonIndices', 4 * n * width);
        mortonDistances = grow(mortonDistances, 'knn::mortonDistances', 4 * n * width);
        indices = mortonIndices;
        distances = mortonDistances;
      }
      const tree = bindParts(
        limits,
        plan,
        { points: bvh.sortedPoints, order: bvh.order, links: bvh.links, mins: bvh.mins, boxes: bvh.boxes },
        n,
        unused,
      );
      // Passes of at most KNN_PASS neighbours ('kth' only): each finds the next ones after the previous pass's last.
      for (let done = 0; done < kk;) {
        const kp = Math.min(KNN_PASS, kk - done);
        const rows = output === 'all' ? kp : 1;
        const ws: Window[] = windowed ? windows(limits, n, [4 * rows], maxWindow) : [{ first: 0, count: n }];
        for (const w of ws) {
          rec.dispatch(kernel, {
            buffers: {
              ...tree,
              out_index: windowed ? windowBinding(limits, indices, 4 * rows, w) : indices,
              out_dist: windowed ? windowBinding(limits, distances, 4 * rows, w) : distances,
            },
            uniforms: {
              n,
              k: kp,
              window: window ?? defaultWindow(kp),
              inf_bits: F32_INFINITY_BITS,
              one: 1,
              floor: done > 0 ? 1 : 0,
              write_index: done + kp < kk ? 1 : 0,
              base: w.first,
              end: w.first + w.count,
            },
            threads: w.count,
          });
        }
        done += kp;
      }
      if (permuted) {
        permuteRows(rec, permute!, bvh.order, distances, out.squaredDistances, n, width);
        if (output === 'all') permuteRows(rec, permute!, bvh.order, indices, out.indices!, n, width);
      }
    },
    destroy() {
      indexBuffer.destroy();
      mortonIndices?.destroy();
      mortonDistances?.destroy();
      unused?.destroy();
    },
  };

  /** Moves n rows of `width` words from Morton order (`src`) to original order (`dst`), window pair by pair. */
  function permuteRows(
    rec: Recorder,
    kernel: Kernel<typeof PERMUTE_BINDINGS, typeof PERMUTE_PARAMS>,
    order: GPUBuffer,
    src: Binding,
    dst: Binding,
    n: number,
    width: number,
  ): void {
    for (const s of windows(limits, n, [4, 4 * width], maxWindow)) {
      for (const d of windows(limits, n, [4 * width], maxWindow)) {
        rec.dispatch(kernel, {
          buffers: {
            order: windowBinding(limits, order, 4, s),
            src: windowBinding(limits, src, 4 * width, s),
            dst: windowBinding(limits, dst, 4 * width, d),
          },
          uniforms: { src_count: s.count, dst_first: d.first, dst_count: d.count, width },
          threads: s.count,
        });
      }
    }
  }
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
    // Before anything is allocated (capacity.ts): the parts of the BVH's arrays fit the stage's bindings.
    checkCapacity(ctx.limits, n, dim, { kind: 'knn', k }, ctx.deviceLimits.maxStorageBufferBindingSize);
    const searcher = await createKnnSearcher(ctx, { dim, k, window: options.window, maxCount: n });
    const bvh = await buildSearchBvh(ctx, points, n, dim).catch((e: unknown) => {
      searcher.destroy();
      throw e;
    });
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

/**
 * Builds the BVH of n checked points for a search: split (issue 19: lbvh.ts's `split`, every build kernel on parts
 * and windows) where an array of it exceeds one binding, else as buildBvh() builds it — the same BVH either way.
 */
export async function buildSearchBvh(ctx: GpuContext, points: Float32Array, n: number, dim: number): Promise<GpuBvh> {
  const split = searchSplits(ctx, n, dim);
  const builder = await createBvhBuilder(ctx, { maxCount: n, dim, split });
  const bvh = allocateBvh(ctx, n, dim, { split });
  const input = ctx.upload('bvh::points', points);
  try {
    await ctx.submit('bvh::build', (rec) => builder.encode(rec, input, n, bvh));
    await ctx.onDone();
  } catch (e) {
    bvh.destroy();
    throw e;
  } finally {
    builder.destroy();
    input.destroy();
  }
  return bvh;
}

/** Whether buildSearchBvh splits the BVH of n points: where an array of it (f32 boxes counted) exceeds one binding. */
function searchSplits(ctx: GpuContext, n: number, dim: number): boolean {
  const binding = ctx.limits.maxStorageBufferBindingSize;
  return Math.max(16, 4 * dim) * n > binding || 4 * boxWords(dim) * boxRecords(n) > binding;
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
