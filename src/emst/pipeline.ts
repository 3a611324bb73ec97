/**
 * The GPU backend of `emst()`: points in a GPU buffer → linear BVH (src/bvh/lbvh.ts) → for mutual reachability,
 * the minSamples-th neighbour's squared distance of every point (src/knn/knn.ts, 'kth'), gathered into Morton
 * order → single-tree Borůvka (boruvka.ts) → edges on the GPU. `readEdges` brings them back in the canonical
 * (weight, min, max) order, sorted and with weights fround(sqrt(key)) on the GPU (canonical.ts) exactly as the CPU
 * backend takes them.
 *
 * Create once per (maxN, dim, metric), run many: the buffers are sized for maxN.
 *
 * (File names: GPU code has the plain name and its CPU twin `*.cpu.ts`; `emst.ts`, the backend-neutral entry point,
 * holds the folder's name, so the GPU pipeline is `pipeline.ts` and the CPU one `boruvka.cpu.ts`'s emstCpuAsync.)
 */
import { createGpuContext, type GpuContext } from '../gpu/context.js';
import { AbortError, InputError } from '../errors.js';
import type { Binding, Recorder } from '../gpu/recorder.js';
import type { Timer } from '../gpu/timer.js';
import { allocateBvh, createBvhBuilder, type BvhBuilder, type GpuBvh } from '../bvh/lbvh.js';
import { createKnnSearcher, type KnnSearcher } from '../knn/knn.js';
import { Boruvka, type BoruvkaResult } from './boruvka.js';
import { splitFromEnv, traversalSplits } from './nearestsplit.js';
import { readbackPass, readbackStats, type ReadbackInto } from './readback.threads.js';
import type { EdgeList } from './edges.cpu.js';
import { createCanonicalSort, createCanonicalSplit, type CanonicalSort } from './canonical.js';
import { progressSpan, type ProgressCallback } from '../progress.js';
import { EUCLIDEAN, type Metric } from './metric.js';
import { checkPointsOnGpu, createPointChecker } from './pointcheck.js';
import { checkCapacity, type CapacityTask } from '../bvh/capacity.js';
import { boxFormatFor } from '../bvh/layout.js';
import { createGatherer, type Gatherer } from './gather.js';
import { GpuCandidateLists, highDimDefault, highDimK, type CandidateSource } from './highdim.js';
import { inverseAlphaSquared } from './distance.cpu.js';
import { createPointScatterer, type PointScatterer } from '../bvh/scatter.js';

/**
 * Whether GpuEmst.create builds in place by default (its `inPlace`; issue 19's memory: 4·dim bytes a point less):
 * the environment variable TREELINE_EMST_INPLACE=0 turns it off (a separate sorted copy of the points, for A/B runs).
 */
export function inPlaceDefault(): boolean {
  const env = typeof process !== 'undefined' ? process.env?.TREELINE_EMST_INPLACE : undefined;
  if (env === undefined || env === '' || env === '1') return true;
  if (env === '0') return false;
  throw new InputError(`TREELINE_EMST_INPLACE: expected 0 or 1, got '${env}'.`);
}

export interface GpuEmstRunOptions {
  /** Periodic side lengths (points inside [0, L)); required iff created `periodic`. */
  period?: Float32Array;
  /** MiSTree's scale cut (Euclidean only): pairs shorter than this are not edges; the result may be a forest. */
  minEdgeLength?: number;
  /** Borůvka rounds per submission (default: adaptive, see boruvka.ts). */
  roundsPerSubmit?: number;
  timer?: Timer;
  skipBounded?: boolean;
  onProgress?: ProgressCallback;
  signal?: AbortSignal;
}

export class GpuEmst {
  private constructor(
    private readonly ctx: GpuContext,
    readonly maxN: number,
    readonly dim: number,
    readonly metric: Metric,
    private readonly builder: BvhBuilder,
    /** The BVH of the last run. Its codes and parents are Borůvka's scratch once run() has started. */
    readonly bvh: GpuBvh,
    private readonly boruvka: Boruvka,
    private readonly knn: KnnSearcher | null,
    /** Gathers the core distances into Morton order (mutual reachability only). */
    private readonly gather: Gatherer | null,
    private readonly kth: GPUBuffer | null,
    private readonly core2: GPUBuffer | null,
    private readonly boxPartRecords: number | undefined,
    /** High dimensions: every point's nearest neighbours, settling most points without a traversal (highdim.ts). */
    private readonly lists: GpuCandidateLists | null = null,
    /** Built in place (create's `inPlace`): puts a run's points back in their order (restorePoints). */
    private readonly scatter: PointScatterer | null = null,
    /** Borůvka's output edges, lent to it (BoruvkaBorrow), ours to destroy unless detachEdges() handed them over. */
    private edges: GPUBuffer | null = null,
  ) {}

  /**
   * Hands the last run's edge records (its BoruvkaResult's `edges`) to the caller, who destroys them, so that they
   * outlive destroy() without a copy (emstGpu's `afterGpu`: 12 bytes a point less at the hand-over; issue 19).
   */
  detachEdges(): GPUBuffer {
    if (!this.edges) throw new Error('emst::edges: detached already');
    const edges = this.edges;
    this.edges = null;
    return edges;
  }

  /**
   * Whether run() builds in place (create's `inPlace`): it is given a whole buffer of the points, which it leaves in
   * Morton order (the BVH's sorted points) until restorePoints().
   */
  get inPlace(): boolean {
    return this.scatter !== null;
  }

  /**
   * `metric` (metric.ts, decided by validate.ts): Euclidean, or mutual reachability with the minSamples-th
   * neighbour (self excluded; clamped to n − 1) — at minSamples 1 the core distance is the nearest neighbour's, as
   * hdbscan's mutual_reachability(min_points=1) takes it, so only d / alpha changes the tree.
   * periodic: minimum-image distances in a box whose side lengths each run() gives (Euclidean only).
   * `inPlace` (issue 19's memory; default false): the BVH keeps no sorted copy of the points — each run() gathers
   * them into Morton order within the buffer it is given, which stays so until restorePoints() (4·dim bytes a point
   * less at the peak; the same tree bit for bit).
   */
  static async create(
    ctx: GpuContext,
    maxN: number,
    dim: number,
    metric: Metric = EUCLIDEAN,
    periodic = false,
    layout: {
      boxPartRecords?: number;
      lean?: boolean;
      candidates?: CandidateSource | 'off';
      candidatesK?: number;
      inPlace?: boolean;
      /** Borůvka's split traversal with windows of at most this many points (boruvka.ts; default TREELINE_EMST_SPLIT). */
      split?: number;
    } = {},
  ): Promise<GpuEmst> {
    const { boxPartRecords, lean } = layout;
    const inPlace = layout.inPlace === true;
    const mr = metric.kind === 'mutual-reachability';
    // Candidate lists (highdim.ts): `candidates` forces them on or off (tests), else highDimDefault by dimension.
    // Under mutual reachability they also give the core distances (at least minSamples long; at most 64).
    let source = layout.candidates ?? highDimDefault(dim, metric, periodic);
    if (source === 'off') source = null;
    const listK = source ? Math.max(layout.candidatesK ?? highDimK(source), mr ? metric.minSamples : 1) : 0;
    // The split traversal (issue 19) searches every point: no lists. It runs where forced, or where the BVH's arrays
    // exceed one binding: such a BVH is built in parts (nearestsplit.ts, roundsplit.ts).
    const split = layout.split ?? splitFromEnv();
    const splitBvh = traversalSplits(ctx.limits, maxN, dim);
    if (periodic || listK > 64 || !GpuCandidateLists.fits(ctx, maxN, listK) || split !== undefined || splitBvh)
      source = null;
    // Every part's kernels start compiling at once and are awaited together (issue 17 §5); Euclidean runs compile
    // no k-NN, gather or mutual-reachability kernels.
    // The box format (bvh/layout.ts): f32 by default, u16 opt-in (TREELINE_BVH_BOXES).
    const boxes = boxFormatFor(dim);
    // Borůvka's edges (written from its first merge on) hold the BVH's minIndex words, which only the k-NN and the
    // candidate lists read, before the rounds (bvh/layout.ts, "Records"; issue 19's memory: 8 bytes a point).
    const edges = ctx.createBuffer('emst::edges', 12 * Math.max(maxN, 2));
    const bvh = allocateBvh(ctx, maxN, dim, { inPlace, split: splitBvh, boxes, mins: edges });
    const kth = mr ? ctx.createBuffer('emst::kthDistance2', 4 * maxN) : null;
    const core2 = mr ? ctx.createBuffer('emst::core2', 4 * maxN) : null;
    const builderMade = createBvhBuilder(ctx, { maxCount: maxN, dim, boxPartRecords, split: splitBvh, boxes });
    // Arrays whose lifetimes do not overlap Borůvka's share its memory (boruvka.ts, BoruvkaBorrow).
    const borrow = builderMade.then((builder) => ({
      childLabel: bvh.codes,
      cand: bvh.parents,
      best: builder.sorter.scratch.keys,
      pointBound: builder.sorter.scratch.values,
      ub: kth ?? undefined,
      edges,
    }));
    const boruvkaMade = Boruvka.create(ctx, maxN, dim, periodic, boxPartRecords, lean, borrow, {
      reachability: mr,
      split,
      boxes,
    });
    const made = await Promise.allSettled([
      builderMade,
      boruvkaMade,
      mr && !source
        ? createKnnSearcher(ctx, { dim, k: metric.minSamples, output: 'kth', boxPartRecords, maxCount: maxN, boxes })
        : null,
      mr && !source ? createGatherer(ctx, maxN) : null,
      source ? GpuCandidateLists.create(ctx, maxN, dim, source, listK) : null,
      inPlace ? createPointScatterer(ctx, maxN, dim) : null,
    ]);
    const [builder, boruvka, knn, gather, lists, scatter] = made.map((r) =>
      r.status === 'fulfilled' ? r.value : null,
    ) as [
      BvhBuilder | null,
      Boruvka | null,
      KnnSearcher | null,
      Gatherer | null,
      GpuCandidateLists | null,
      PointScatterer | null,
    ];
    const failed = made.find((r) => r.status === 'rejected');
    if (failed) {
      // Say a device too small for the traversal: free what was made for it (the caller may fall back).
      knn?.destroy();
      gather?.destroy();
      lists?.destroy();
      scatter?.destroy();
      boruvka?.destroy();
      core2?.destroy();
      kth?.destroy();
      edges.destroy();
      bvh.destroy();
      builder?.destroy();
      throw failed.reason;
    }
    // The lists only serve the skipping of bounded points, which the lean traversal never does.
    const useLists = boruvka!.lean ? null : lists;
    if (!useLists) lists?.destroy();
    const e = new GpuEmst(
      ctx,
      maxN,
      dim,
      metric,
      builder!,
      bvh,
      boruvka!,
      knn,
      gather,
      kth,
      core2,
      boxPartRecords,
      useLists,
      scatter,
      edges,
    );
    // readEdges' canonical sort compiles in the background, beside the upload and the rounds, not after them; its
    // errors surface in readEdges (callers that keep the tree on the GPU never await it).
    e.canonical = createCanonicalSort(ctx);
    e.canonical.catch(() => undefined);
    // And the split of its pairs for read-backs into shared arrays (readEdges), kept by the context's kernel cache.
    createCanonicalSplit(ctx).catch(() => undefined);
    return e;
  }

  /**
   * Computes the tree of the n points in `points` (n × dim f32 on the GPU). The edges stay on the GPU. Built in place
   * (create's `inPlace`), `points` must be a whole buffer, and holds the points in Morton order afterwards.
   */
  async run(points: Binding, n: number, opts: GpuEmstRunOptions = {}): Promise<BoruvkaResult> {
    const { ctx } = this;
    if (this.inPlace) {
      if ('buffer' in points || points.size < 4 * n * this.dim) {
        throw new InputError(
          `emst: an in-place run needs the points as a whole buffer of at least ${4 * n * this.dim} bytes (${n} × ${this.dim} f32), got ${'buffer' in points ? 'a range of one' : `${points.size} bytes`}.`,
        );
      }
      this.bvh.sortedPoints = points;
    }
    // minSamples above n − 1 is clamped to n − 1, as hdbscan does: a searcher for the smaller k.
    let knn = this.knn;
    let temporary: KnnSearcher | null = null;
    if (knn && n > 1 && knn.k > n - 1) {
      temporary = await createKnnSearcher(ctx, {
        dim: this.dim,
        k: n - 1,
        output: 'kth',
        boxPartRecords: this.boxPartRecords,
        maxCount: this.maxN,
        boxes: this.bvh.boxFormat,
      });
      knn = temporary;
    }
    const build = (rec: Recorder) => {
      this.builder.encode(rec, points, n, this.bvh);
      if (knn && n > 1) {
        knn.encode(rec, this.bvh, { squaredDistances: this.kth! });
        this.gather!.encode(rec, { order: this.bvh.order, src: this.kth!, out: this.core2!, n });
      }
      if (this.lists && n > 1) {
        this.lists.encode(rec, this.bvh);
        if (this.metric.kind === 'mutual-reachability') {
          this.lists.encodeCores(rec, n, this.metric.minSamples, this.core2!);
        }
      }
    };
    const reach =
      this.metric.kind === 'mutual-reachability'
        ? { core2: this.core2!, order: this.bvh.order, ia2: inverseAlphaSquared(this.metric.alpha) }
        : undefined;
    this.bvh.n = n;
    if (n < 2) await ctx.submit('emst::build', build, { timer: opts.timer });
    try {
      return await this.boruvka.run(this.bvh, {
        before: n < 2 ? undefined : build,
        reachability:
          this.metric.kind === 'mutual-reachability' && n > 1
            ? { core2: this.core2!, alpha: this.metric.alpha }
            : undefined,
        period: opts.period,
        minEdgeLength: opts.minEdgeLength,
        timer: opts.timer,
        skipBounded: opts.skipBounded,
        roundsPerSubmit: opts.roundsPerSubmit,
        settle: this.lists ? (rec, r) => this.lists!.settle(rec, r, r.n, r.cut, reach) : undefined,
        onProgress: opts.onProgress,
        signal: opts.signal,
      });
    } finally {
      temporary?.destroy();
    }
  }

  /**
   * Puts the points of the last in-place run back in their own order, bit for bit (bvh/scatter.ts, through the
   * BVH's boxes, dead once the rounds are done: call it after run() and before another). Nothing to do otherwise.
   */
  async restorePoints(): Promise<void> {
    if (!this.scatter) return;
    const { bvh } = this;
    await this.ctx.submit('emst::restorePoints', (rec) =>
      this.scatter!.restore(rec, { points: bvh.sortedPoints, order: bvh.order, scratch: bvh.boxes, n: bvh.n }),
    );
  }

  /** The canonical sort's kernels, compiling from create() on (readEdges awaits them). */
  private canonical: Promise<CanonicalSort> | null = null;

  /**
   * Reads a result back as the canonical edge list (sources < targets, sorted by (weight, source, target)). The GPU
   * puts the edges in that order itself (canonical.ts: weights fround(sqrt(key)) exactly, two stable sorts) with the
   * BVH build's idle radix sorter, into the BVH's parents and codes (Borůvka's scratch, dead once run() has
   * resolved: no memory beyond the run's); the host only reads 12 bytes per edge and splits the pairs.
   */
  async readEdges(result: BoruvkaResult, timings?: Record<string, number>, into?: ReadbackInto): Promise<EdgeList> {
    const m = result.count;
    let t = performance.now();
    const lap = (label: string) => {
      const now = performance.now();
      if (timings) timings[label] = now - t;
      t = now;
    };
    if (m === 0) return { sources: new Uint32Array(0), targets: new Uint32Array(0), weights: new Float32Array(0) };
    this.canonical ??= createCanonicalSort(this.ctx);
    const canonical = await this.canonical;
    const keys = this.bvh.parents;
    const values = this.bvh.codes;
    // Into shared arrays (the CLI's, hdbscan's host path): the pairs are split on the GPU into sources and weights
    // (in Borůvka's raw-edge buffer, dead once sorted: 12n bytes ≥ 8m + 256), and each of the three arrays is read
    // straight into its destination — no host pass. Otherwise split chunk by chunk as they arrive (ctx.readChunks:
    // `at` in bytes, 8 an edge; no intermediate copies: 10^7 edges are 120 MB).
    const shared = into !== undefined && into.edges.sources.length === m;
    const weightsAt = Math.ceil((4 * m) / 256) * 256;
    const split = shared && result.edges.size >= weightsAt + 4 * m ? await createCanonicalSplit(this.ctx) : null;
    await this.ctx.submit('emst::canonicalSort', (rec) => {
      const sorter = this.builder.sorter;
      canonical.encode(rec, { edges: result.edges, count: m, n: this.bvh.n, sorter, keys, values });
      split?.encode(rec, {
        keys,
        count: m,
        sources: { buffer: result.edges, offset: 0, size: 4 * m },
        weights: { buffer: result.edges, offset: weightsAt, size: 4 * m },
      });
    });
    await this.ctx.onDone();
    // Also waits for the rounds Borůvka queued ahead of the last (up to two short chunks, nearly empty).
    lap('emst::readback.sort');
    if (split) {
      await into!.ready;
      const { sources, targets, weights } = into!.edges;
      await Promise.all([
        this.ctx.readInto(result.edges, 0, 4 * m, sources),
        this.ctx.readInto(result.edges, weightsAt, 4 * m, new Uint32Array(weights.buffer, weights.byteOffset, m)),
        this.ctx.readInto(values, 0, 4 * m, targets),
      ]);
      lap('emst::readback.read');
      readbackStats.direct++;
      return into!.edges;
    }
    const edges: EdgeList = { sources: new Uint32Array(m), targets: new Uint32Array(m), weights: new Float32Array(m) };
    const convert = (words: Uint32Array, p0 = 0) =>
      readbackPass({ pairs: words, edges, e0: p0, e1: p0 + words.length / 2, p0 });
    await Promise.all([
      this.ctx.readChunks(keys, 0, 8 * m, (k, at) => convert(new Uint32Array(k), at / 8)),
      this.ctx.readInto(values, 0, 4 * m, edges.targets),
    ]);
    lap('emst::readback.read');
    return edges;
  }

  destroy(): void {
    this.builder.destroy();
    this.bvh.destroy();
    this.boruvka.destroy();
    this.knn?.destroy();
    this.gather?.destroy();
    this.lists?.destroy();
    this.scatter?.destroy();
    this.edges?.destroy();
    this.kth?.destroy();
    this.core2?.destroy();
  }
}

export interface EmstGpuResult extends EdgeList {
  timings: Record<string, number>;
  /** The power of two 2^e the GPU scaled the points by after checking them (`checkFrom`; 0: none): weights are ×2^e. */
  exponent: number;
}

/**
 * The GPU backend of `emst()` from host arrays: uploads the points, runs the pipeline and reads the canonical edge
 * list back. Uses `ctx` when given (and leaves it alive), else creates a context and destroys it.
 */
/** Where each phase of emstGpu starts in the fraction reported to onProgress (the rounds take most of the time). */
const GPU_PHASES = { upload: 0.05, rounds: 0.1, readback: 0.95 } as const;

export async function emstGpu(
  points: Float32Array | Float64Array,
  dim: number,
  options: {
    /** Euclidean (default) or mutual reachability (metric.ts). */
    metric?: Metric;
    period?: Float32Array | null;
    minEdgeLength?: number;
    ctx?: GpuContext;
    /** Without `ctx`: refuse a software adapter (GpuUnavailableError), as `backend: 'auto'` does (src/gpu/adapter.ts). */
    hardwareOnly?: boolean;
    /** 'compile', 'upload', then the rounds (the BVH and k-NN run in the first submission), 'readback'. */
    onProgress?: ProgressCallback;
    signal?: AbortSignal;
    /**
     * Called with the points' GPU buffer and the edge list before the buffers are freed (the statistics use it), and
     * the exponent the GPU scaled the points by (`checkFrom`; 0: none).
     */
    after?: (points: GPUBuffer, edges: EdgeList, exponent: number) => Promise<void>;
    /**
     * Instead of the read-back and `after`: called with the points' GPU buffer and the m edges as they stay on the
     * GPU — | source | target | key | records in the order Borůvka found them (boruvka.ts) — and the result's edge
     * arrays are empty (mstStats without its arrays: only the histograms cross the bus).
     */
    afterGpu?: (
      points: GPUBuffer,
      edges: { records: GPUBuffer; count: number },
      ctx: GpuContext,
      exponent: number,
    ) => Promise<void>;
    /**
     * The caller's points when validation left their coordinates to the GPU (validate.ts `deferred`): checked after
     * the upload (`emst::check`, pointcheck.ts: the host's InputError for the first bad row and column) and scaled
     * there by scale.ts's power of two, returned as the result's `exponent` (and afterGpu's).
     */
    checkFrom?: Float32Array | Float64Array;
    /** Shared arrays to read the edges into, each straight from the GPU (readback.threads.ts; hdbscan's, the CLI's). */
    readInto?: ReadbackInto;
    /** Called once the points are on the GPU, before the rounds. */
    afterUpload?: () => void;
    /**
     * `afterGpu` takes the points' buffer as scratch (hdbscan()'s resident clustering): an in-place build's points are
     * not put back in their order first (restorePoints). Default false.
     */
    scratchPoints?: boolean;
    /**
     * What the caller does with the tree, for the size check before anything is allocated (capacity.ts; default
     * `{ kind: 'emst' }`, with `mutualReachability` for that metric): an n above what the device's bindings take is a
     * one-line InputError.
     */
    capacity?: CapacityTask;
  },
): Promise<EmstGpuResult> {
  const ctx = options.ctx ?? (await createGpuContext({ hardwareOnly: options.hardwareOnly }));
  const n = points.length / dim;
  const timings: Record<string, number> = {};
  let t = performance.now();
  const lap = (label: string) => {
    const now = performance.now();
    timings[label] = now - t;
    t = now;
  };
  let e: GpuEmst | null = null;
  let creating: Promise<GpuEmst> | null = null;
  let buffer: GPUBuffer | null = null;
  try {
    checkCapacity(
      ctx.limits,
      n,
      dim,
      options.capacity ?? { kind: 'emst', mutualReachability: options.metric?.kind === 'mutual-reachability' },
      ctx.deviceLimits.maxStorageBufferBindingSize,
    );
    const period = options.period ?? undefined;
    const report = options.onProgress;
    report?.(0, 'compile');
    // The door check's two small kernels compile beside the pipeline's (awaited in emst::check).
    const checking = options.checkFrom ? createPointChecker(ctx) : null;
    checking?.catch(() => undefined);
    // The pipelines compile on Dawn's workers while the points upload (issue 17 §5): emst::upload is the upload,
    // emst::compile what is left of the compile after it (~0 when warm; a fresh process's ~90 ms less the upload).
    // In place (issue 19's memory): the uploaded buffer becomes the BVH's sorted points; `after` and `afterGpu` get
    // the points back in their order (restorePoints).
    creating = GpuEmst.create(ctx, Math.max(n, 1), dim, options.metric ?? EUCLIDEAN, period !== undefined, {
      inPlace: inPlaceDefault(),
    });
    creating.catch(() => undefined); // awaited below; a failed upload frees it in `finally`
    report?.(GPU_PHASES.upload, 'upload');
    // Through the context's staging ring (gpu/upload.ts): chunked, overlapped, no fresh staging memory per call.
    // A Float64Array (emst()'s deferred input, validate.ts) is rounded to float32 as it is written into staging.
    buffer = await ctx.uploadFloat32('emst::points', points);
    await ctx.onDone();
    lap('emst::upload');
    e = await creating;
    creating = null;
    lap('emst::compile');
    options.afterUpload?.();
    let exponent = 0;
    if (checking) {
      exponent = await checkPointsOnGpu(ctx, await checking, buffer, options.checkFrom!, dim);
      lap('emst::check');
    }
    if (options.signal?.aborted) throw new AbortError('emst was aborted before its Borůvka rounds (emst::upload).');
    report?.(GPU_PHASES.rounds, 'bvh, k-NN and Borůvka rounds');
    const result = await e.run(buffer, n, {
      period,
      minEdgeLength: options.minEdgeLength,
      onProgress: progressSpan(report, GPU_PHASES.rounds, GPU_PHASES.readback),
      signal: options.signal,
    });
    lap('emst::gpu');
    if (options.signal?.aborted) throw new AbortError('emst was aborted before its read-back (emst::readback).');
    if (options.afterGpu) {
      // Borůvka's records are handed over as they are (detachEdges: no copy), so that its scratch is freed first.
      const records = e.detachEdges();
      try {
        if (!options.scratchPoints) await e.restorePoints();
        e.destroy();
        e = null;
        await options.afterGpu(buffer, { records, count: result.count }, ctx, exponent);
      } finally {
        records.destroy();
      }
      const none = { sources: new Uint32Array(0), targets: new Uint32Array(0), weights: new Float32Array(0) };
      return { ...none, timings, exponent };
    }
    report?.(GPU_PHASES.readback, 'readback');
    const t0 = performance.now();
    const edges = await e.readEdges(result, timings, options.readInto);
    t = t0;
    lap('emst::readback');
    if (options.after) {
      await e.restorePoints();
      e.destroy();
      e = null;
      await options.after(buffer, edges, exponent);
    }
    return { ...edges, timings, exponent };
  } finally {
    buffer?.destroy();
    e?.destroy();
    if (creating)
      await creating.then(
        (made) => made.destroy(),
        () => undefined,
      );
    if (!options.ctx) await ctx.destroy();
  }
}

/**
 * Compiles, into `ctx`'s pipeline cache, every kernel an emstGpu call on n × dim points with `metric` will use
 * (GpuEmst.create's, the canonical sort's and split's, the point check's), allocating nothing that outlives it: what the CLI
 * starts while it still reads the point file, once the header has told n and dim (src/io/peek.ts), so that the
 * call finds its pipelines compiled. Errors are left to the call itself (it compiles again and reports them).
 */
export async function warmEmstPipelines(
  ctx: GpuContext,
  n: number,
  dim: number,
  metric: Metric = EUCLIDEAN,
  periodic = false,
): Promise<void> {
  try {
    const others = Promise.all([createPointChecker(ctx), createCanonicalSort(ctx), createCanonicalSplit(ctx)]);
    others.catch(() => undefined);
    // The same layout as emstGpu's (in place: its point scatter too).
    const e = await GpuEmst.create(ctx, Math.max(n, 1), dim, metric, periodic, { inPlace: inPlaceDefault() });
    try {
      await others;
    } finally {
      e.destroy();
    }
  } catch {
    // The call itself reports what failed.
  }
}
