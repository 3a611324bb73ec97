/**
 * The linear BVH on the GPU. Seed 002 §2 ("ArborX", after Karras 2012 and Apetrei 2014): bounds, Morton codes,
 * a radix sort along the Z-curve, the Karras hierarchy, and a refit of the boxes. CPU twin: `lbvh.cpu.ts`
 * (bit-identical codes, topology and boxes); layout of every buffer: `layout.ts`.
 *
 *   bvh::bounds     scene bounds, atomicMax of order-preserving bit patterns     shaders/bvh/bounds.wgsl  } codes.ts
 *   bvh::frame      lo, hi, exact scale = RN(2^bits / extent) by integer division shaders/bvh/frame.wgsl   } (windows
 *   bvh::morton     64-bit Morton codes (vec2u) and the identity permutation       shaders/bvh/morton.wgsl  } of big arrays)
 *   (radix sort)    stable, keyed by the code's significant bits                  src/primitives/radixsort.ts
 *   bvh::gather     points in Morton order (gather.ts: big arrays)                 shaders/bvh/gather.wgsl
 *   bvh::karras     Karras 2012: each internal node found independently (karras.ts) shaders/bvh/karras.wgsl
 *   bvh::refit      small subtrees by direct scans, the rest through atomics only (memory model; refit.ts)
 *                                                                                  shaders/bvh/refit.wgsl
 *                   or (refitChunk) chunks of leaves in workgroup memory, the rest as above
 *                                                                                  shaders/bvh/refit_chunk.wgsl
 *
 * Or (prefixsort.ts, PREFIX_SORT / TREELINE_BVH_SORT): codes, sort and gather as bvh::prefix, a 32-bit sort of the
 * codes' top 32 bits, bvh::runs (short runs of equal prefixes by full code, and the gather) and a full sort that runs
 * only where a run is long — the same order, hence the same BVH.
 *
 * Issue 18's variants, each the same BVH bit for bit and off by default until timed on the H100: the refit by
 * chunks (CHUNK_REFIT, TREELINE_BVH_REFIT), 9-bit sort digits (WIDE_DIGITS, TREELINE_BVH_RADIX_BITS; 7 passes for
 * 3D), 2D magic-mask codes (codes.ts, TREELINE_BVH_MORTON2D). On by default: Karras zeroes only the boxes the refit
 * accumulates (karras.ts KarrasZero), and an odd number of sort passes starts from the sorter's scratch (no copy).
 *
 * Create once, run many: `const b = await createBvhBuilder(gpu, { maxCount, dim }); const bvh = allocateBvh(gpu,
 * maxCount, dim); b.encode(rec, points, n, bvh); … bvh.destroy(); b.destroy()`. `buildBvh()` does all of it once.
 * The build is one recording: no read-back, so it can sit in one submission with the traversal that follows.
 */
import type { GpuContext } from '../gpu/context.js';
import type { Binding, Recorder } from '../gpu/recorder.js';
import { InputError } from '../errors.js';
import {
  createRadixSorter,
  digitPasses,
  radixShapeFits,
  type RadixSorter,
  type RadixSorterOptions,
} from '../primitives/radixsort.js';
import { boxLimitMessage, createBoxParts } from './boxparts.js';
import {
  BOX_PARTS,
  boxArrayWords,
  boxFormatFor,
  boxPartRecords,
  boxRecordWords,
  boxRecords,
  codeBits,
  FRAME_WORDS,
  pointsForBoxRecords,
  type BoxFormat,
} from './layout.js';
import { checkPoints } from './points.js';
import { createCodeEncoder } from './codes.js';
import { createPrefixSorter, prefixSortApplies } from './prefixsort.js';
import { createPointGatherer } from './gather.js';
import { createKarras } from './karras.js';
import { createRefit, refitChunkLeaves, refitPasses } from './refit.js';

/**
 * The buffers of an n-point BVH that traversals read (layout.ts): what the k-NN search and Borůvka take, whether
 * the BVH was built on the GPU (GpuBvh) or uploaded from the CPU twin (upload.ts).
 */
export interface BvhBuffers {
  /** Points of the BVH (for a GpuBvh: of the last build, 0 before any). */
  readonly n: number;
  readonly dim: number;
  /** n u32: original index of leaf j (`bvh::order`). */
  readonly order: GPUBuffer;
  /** n × dim f32: the points in Morton order (`bvh::sortedPoints`). */
  readonly sortedPoints: GPUBuffer;
  /** n records × vec2u: left, right; record n − 1 is the header (`bvh::links`). */
  readonly links: GPUBuffer;
  /**
   * n records × vec2u: minIndex(left), minIndex(right) of links' record (`bvh::minIndex`; layout.ts, "Records"). Read
   * by the k-NN only: an EMST lends its edge buffer for it (allocateBvh's `mins`), dead before Borůvka's first merge.
   */
  readonly mins: GPUBuffer;
  /**
   * n − 1 records (at least one): internal node i's own box (`bvh::boxes`), in `boxFormat` — 2·dim f32, lo then hi,
   * or dim u32 words of u16 cells followed by the frame's two records (layout.ts, "Box formats").
   */
  readonly boxes: GPUBuffer;
  /** The format of `boxes` (layout.ts, boxFormatFor). */
  readonly boxFormat: BoxFormat;
  /**
   * n − 1 u32 (at least one): the end of internal node i's leaf range other than i (`bvh::ranges`; layout.ts, "Ranges":
   * the range is [min(i, e), max(i, e)]).
   */
  readonly ranges: GPUBuffer;
  /** 2n − 1 u32: (parent record << 1) | side per unified index (`bvh::parents`). */
  readonly parents: GPUBuffer;
  /** Frees every buffer. */
  destroy(): void;
}

/** A BVH in GPU buffers, sized for `capacity` points; `n` is the point count of the last build into it. */
export interface GpuBvh extends BvhBuffers {
  n: number;
  /**
   * n × dim f32 in Morton order. For a BVH allocated `inPlace`, the caller's points buffer, set before each build:
   * the build gathers the points into Morton order within it (encodeHierarchy), so no second copy is kept.
   */
  sortedPoints: GPUBuffer;
  /** The largest n the buffers hold. */
  readonly capacity: number;
  /** FRAME_WORDS(dim) f32: lo[dim], hi[dim], scale[dim], the u16 boxes' origin[dim], cell[dim] (`bvh::frame`). */
  readonly frame: GPUBuffer;
  /** n vec2u sorted Morton codes, .x low word (`bvh::codes`). */
  readonly codes: GPUBuffer;
}

/**
 * Allocates the buffers of a BVH of up to `capacity` points of dimension `dim`. `split` (issue 19): its arrays may
 * exceed one binding — only the build (createBvhBuilder with `split`) can fill such a BVH, in parts; the k-NN reads it
 * in parts too (knn/knn.ts), Borůvka by subtree windows (emst/nearestsplit.ts) and windows and parts
 * (emst/roundsplit.ts). `inPlace` (issue 19's memory, 4·dim
 * bytes a point less): no sorted points of its own — the caller sets `sortedPoints` to the points buffer before each
 * build, which leaves the points there in Morton order (a 16-byte stand-in until then).
 */
export function allocateBvh(
  ctx: GpuContext,
  capacity: number,
  dim: number,
  options: {
    split?: boolean;
    inPlace?: boolean;
    boxes?: BoxFormat;
    /**
     * A buffer of at least 8·max(capacity, 1) bytes to hold the minIndex words (BvhBuffers.mins), lent by a caller that
     * reads them never or only before it writes the buffer itself (GpuEmst: Borůvka's edges); not destroyed here.
     */
    mins?: GPUBuffer;
  } = {},
): GpuBvh {
  const boxFormat = boxFormatFor(dim, { given: options.boxes });
  checkShape(ctx, capacity, dim, options.split === true, boxFormat);
  const c = Math.max(capacity, 1);
  const buffers = {
    frame: ctx.createBuffer('bvh::frame', 4 * FRAME_WORDS(dim)),
    codes: ctx.createBuffer('bvh::codes', 8 * c),
    order: ctx.createBuffer('bvh::order', 4 * c),
    sortedPoints: options.inPlace
      ? ctx.createBuffer('bvh::sortedPointsUnset', 16)
      : ctx.createBuffer('bvh::sortedPoints', 4 * dim * c),
    links: ctx.createBuffer('bvh::links', 8 * c),
    boxes: ctx.createBuffer('bvh::boxes', 4 * boxArrayWords(c, dim, boxFormat)),
    ranges: ctx.createBuffer('bvh::ranges', 4 * Math.max(c - 1, 1)),
    // One word beyond the 2c − 1 parents, so that Borůvka's 8-byte candidates fit once the parents are dead.
    parents: ctx.createBuffer('bvh::parents', 8 * c),
  };
  if (options.mins && options.mins.size < 8 * c) {
    throw new InputError(`bvh::minIndex: a lent buffer of ${options.mins.size} bytes, expected at least ${8 * c}.`);
  }
  const mins = options.mins ?? ctx.createBuffer('bvh::minIndex', 8 * c);
  return {
    n: 0,
    dim,
    capacity,
    boxFormat,
    ...buffers,
    mins,
    destroy() {
      if (mins !== options.mins) mins.destroy();
      for (const b of Object.values(buffers)) b.destroy();
    },
  };
}

function checkShape(ctx: GpuContext, capacity: number, dim: number, split: boolean, format: BoxFormat): void {
  if (!Number.isInteger(dim) || dim < 1) throw new InputError(`Expected dim to be a positive integer, got ${dim}.`);
  if (!Number.isInteger(capacity) || capacity < 0) {
    throw new InputError(`Expected maxCount to be a non-negative integer, got ${capacity}.`);
  }
  // A split BVH's arrays are bound in parts by the build's kernels, which refuse by name what the stage cannot bind.
  if (split) return;
  // The box array is bound in BOX_PARTS ranges (layout.ts, "Box parts"); every other array fits one binding.
  const maxPoints = pointsForBoxRecords(
    BOX_PARTS * boxPartRecords(ctx.limits.maxStorageBufferBindingSize, dim, format),
    format,
  );
  if (capacity > maxPoints) throw new InputError(boxLimitMessage(capacity, dim, maxPoints, ctx, format));
  const largest = Math.max(8 * capacity, 4 * dim * capacity);
  if (largest > ctx.limits.maxStorageBufferBindingSize) {
    throw new InputError(
      `A BVH of ${capacity} points in ${dim} dimensions needs ${largest}-byte arrays; this device binds at most ${ctx.limits.maxStorageBufferBindingSize} bytes.`,
    );
  }
}

export interface BvhBuilderOptions {
  /** The largest n that `encode` will be given. */
  maxCount: number;
  dim: number;
  /** Threads per workgroup of the build kernels (default 256). */
  workgroupSize?: number;
  /** Box records per binding (layout.ts, "Box parts"); default: as many as the device binds. */
  boxPartRecords?: number;
  /**
   * Builds BVHs whose arrays may exceed one binding (allocateBvh's `split`; issue 19): every build kernel binds them
   * in parts or windows (codes.ts, radixsort.ts, gather.ts, karras.ts, refit.ts). The k-NN (knn/knn.ts: its arrays
   * in parts) and Borůvka (emst/nearestsplit.ts, emst/roundsplit.ts) traverse such a BVH. Default false.
   */
  split?: boolean;
  /**
   * The refit scans nodes of at most this many leaves directly instead of through the atomic walk (default 32;
   * 1 = the atomic walk from every leaf). Any value gives the same boxes.
   */
  refitDirect?: number;
  /**
   * Refit by chunks of leaves in workgroup memory (refit.ts, shaders/bvh/refit_chunk.wgsl) instead of direct scans
   * (then refitDirect is unused), where the device holds a chunk of ≥ 32 leaves. Default: CHUNK_REFIT, or the
   * environment variable TREELINE_BVH_REFIT=chunk or direct where nothing is given (or =legacy: the direct scans
   * with every internal box zeroed first, the build before issue 18; =passes: the direct scans in two passes with
   * Karras's boxes cleared instead of bound, the shape past the stage's storage buffers (issue 19: karras.ts,
   * refit.ts) — both for A/B runs). Same boxes either way.
   */
  refitChunk?: boolean;
  /**
   * The shape of the Morton code sort (radixsort.ts: radixBits, workgroupSize, keysPerThread). Default: WIDE_DIGITS'
   * choice, or the environment variable TREELINE_BVH_RADIX_BITS where nothing is given: 8 (the sorter's default
   * shape), 9 (WIDE_SHAPE where it fits) or 9-256 (9-bit digits with 256 threads: a digit table of 1 byte per key),
   * for A/B runs. The sorted codes, hence the BVH, are the same whatever the shape.
   */
  sort?: Partial<Pick<RadixSorterOptions, 'radixBits' | 'workgroupSize' | 'keysPerThread'>>;
  /**
   * Sort the codes by their top 32 bits first, then each short run of equal prefixes by the full code, with the
   * full sort only where a run is long (prefixsort.ts; issue 18). Default: PREFIX_SORT for 2D and 3D, or the
   * environment variable TREELINE_BVH_SORT=prefix (every dim whose codes exceed 32 bits) or full (the 64-bit sort of
   * before) where nothing is given. Never for split BVHs. The same BVH either way.
   */
  prefixSort?: boolean;
  /** The box format of the BVHs it builds (layout.ts, boxFormatFor; allocateBvh's must match). */
  boxes?: BoxFormat;
}

/**
 * Whether the BVH's sort takes 9-bit digits by default (bvh bench, RESULTS.md): where they save a pass (3D's 63
 * bits: 7 passes instead of 8) and the device holds the wide shape — 512 threads × 8 keys, so that the digit table
 * stays at 4 · 2^9 / 4096 = 0.5 bytes per key, as with 8-bit digits and 256 threads (the EMST's memory budget).
 */
const WIDE_DIGITS = false;
const WIDE_SHAPE = { radixBits: 9, workgroupSize: 512, keysPerThread: 8 } as const;

/**
 * Whether 2D and 3D builds sort by code prefixes by default (prefixsort.ts). On: the H100 (2db53dd, bench/RESULTS.md)
 * built normal 3D 10^7 in 3.82 ms instead of 4.99 and 3.7·10^7 in 12.98 instead of 17.47; EMST normal 3D and
 * uniform 2D 10^7 took 51.0 and 46.8 ms instead of 52.3 and 48.5, peaks unchanged.
 */
const PREFIX_SORT = true;

/** Whether the build sorts by prefixes: an explicit choice, else TREELINE_BVH_SORT, else PREFIX_SORT for 2D/3D. */
function prefixMode(given: boolean | undefined, dim: number): boolean {
  if (given !== undefined) return given;
  const env = typeof process !== 'undefined' ? process.env?.TREELINE_BVH_SORT : undefined;
  if (env === 'prefix' || env === 'full') return env === 'prefix';
  return PREFIX_SORT && (dim === 2 || dim === 3);
}

/** Whether the refit goes by chunks by default (bvh bench, RESULTS.md). Off: direct scans of small subtrees. */
const CHUNK_REFIT = false;

/** The refit's mode: an explicit one, else TREELINE_BVH_REFIT, else CHUNK_REFIT. */
function refitMode(given: boolean | undefined): 'chunk' | 'direct' | 'legacy' | 'passes' {
  if (given !== undefined) return given ? 'chunk' : 'direct';
  const env = typeof process !== 'undefined' ? process.env?.TREELINE_BVH_REFIT : undefined;
  if (env === 'chunk' || env === 'direct' || env === 'legacy' || env === 'passes') return env;
  return CHUNK_REFIT ? 'chunk' : 'direct';
}

/** The sort's shape: an explicit one, else TREELINE_BVH_RADIX_BITS, else WIDE_DIGITS' choice. */
function sortShape(ctx: GpuContext, dim: number, given: BvhBuilderOptions['sort']): Partial<RadixSorterOptions> {
  if (given !== undefined) return given;
  const env = typeof process !== 'undefined' ? process.env?.TREELINE_BVH_RADIX_BITS : undefined;
  if (env === '9-256') return radixShapeFits(ctx, { radixBits: 9 }) ? { radixBits: 9 } : {};
  const wide = env === '9' ? true : env === '8' ? false : WIDE_DIGITS;
  const bits = codeBits(dim);
  if (!wide || Math.ceil(bits / 9) >= Math.ceil(bits / 8)) return {};
  return radixShapeFits(ctx, WIDE_SHAPE) ? WIDE_SHAPE : {};
}

export interface BvhBuilder {
  readonly maxCount: number;
  readonly dim: number;
  /** The 64-bit-key radix sorter of the build (maxCount pairs), idle between builds: others may borrow it. */
  readonly sorter: RadixSorter;
  /** Leaves per chunk of the refit where it goes by chunks (refit.ts), else 0 (direct scans). */
  readonly refitChunkLeaves: number;
  /** Records the whole build of the n points in `points` (n × dim f32) into `bvh`. */
  encode(rec: Recorder, points: Binding, n: number, bvh: GpuBvh): void;
  /** Stage 1: bounds, frame, unsorted codes into bvh.codes and the identity into bvh.order. */
  encodeCodes(rec: Recorder, points: Binding, n: number, bvh: GpuBvh): void;
  /** Stage 2: the stable radix sort of (bvh.codes, bvh.order). */
  encodeSort(rec: Recorder, n: number, bvh: GpuBvh): void;
  /** Stage 3: gather, Karras hierarchy and refit, from sorted bvh.codes and bvh.order. */
  encodeHierarchy(rec: Recorder, points: Binding, n: number, bvh: GpuBvh): void;
  /** Frees the scratch. */
  destroy(): void;
}

/** Compiles (once per device and dim) the build kernels and allocates the scratch for up to maxCount points. */
export async function createBvhBuilder(ctx: GpuContext, options: BvhBuilderOptions): Promise<BvhBuilder> {
  const { maxCount, dim } = options;
  const split = options.split === true;
  const boxFormat = boxFormatFor(dim, { given: options.boxes });
  checkShape(ctx, maxCount, dim, split, boxFormat);
  const wg = options.workgroupSize ?? 256;
  // The traversals' box parts (layout.ts): their constants go to every build kernel, and a BVH they cannot bind is
  // refused before it is built — unless it is split, which no traversal reads.
  const parts = createBoxParts(ctx, dim, options.boxPartRecords, split ? undefined : maxCount, boxFormat);
  const direct = options.refitDirect ?? 32;
  if (!Number.isInteger(direct) || direct < 1) {
    throw new InputError(`Expected refitDirect to be an integer ≥ 1, got ${direct}.`);
  }
  // The refit's mode decides which boxes the Karras kernel zeroes (karras.ts, KarrasZero).
  // The chunked refit (an opt-in variant) writes f32 boxes only: u16 boxes take the direct scans.
  // So does a refit in two passes (refit.ts refitPasses: where one dispatch's parts exceed the stage), or forced
  // (TREELINE_BVH_REFIT=passes, for A/B runs: Karras clears its boxes too, as it does where they exceed it).
  const forced = refitMode(options.refitChunk) === 'passes';
  const twoPasses = forced || refitPasses(ctx.limits, Math.max(maxCount, 1), dim, boxFormat) === 2;
  const mode =
    (boxFormat === 'u16' || twoPasses) && refitMode(options.refitChunk) === 'chunk'
      ? 'direct'
      : refitMode(options.refitChunk);
  // TREELINE_BVH_CHUNK: the most leaves per chunk (a power of two from 32 to 1024), for A/B runs; default 256.
  const env = typeof process !== 'undefined' ? Number(process.env?.TREELINE_BVH_CHUNK) : NaN;
  const chunkMost = [32, 64, 128, 256, 512, 1024].includes(env) ? env : wg;
  const chunk = mode === 'chunk' ? refitChunkLeaves(ctx, dim, chunkMost) : 0;
  // The sorter's kernels compile together with ours (issue 17 §5).
  const [codeEncoder, gather, karras, refit, sorter] = await Promise.all([
    // Stage 1 (codes.ts), windowed where the points or codes exceed one binding; with the same constants as ours.
    createCodeEncoder(ctx, dim, { workgroupSize: wg, constants: parts.constants }),
    // The gather (gather.ts), with the points in parts where they exceed one binding.
    createPointGatherer(ctx, Math.max(maxCount, 1), dim, { workgroupSize: wg, constants: parts.constants }),
    // The hierarchy (karras.ts), every array in parts where it exceeds one binding.
    createKarras(ctx, Math.max(maxCount, 1), dim, {
      workgroupSize: wg,
      constants: parts.constants,
      zero: chunk > 0 ? { chunk } : { direct: mode === 'legacy' ? 1 : direct },
      boxes: boxFormat,
      clearBoxes: forced,
    }),
    // The refit (refit.ts), every array in parts where it exceeds one binding.
    createRefit(ctx, Math.max(maxCount, 1), dim, direct, {
      workgroupSize: chunk > 0 ? chunkMost : wg,
      constants: parts.constants,
      chunk: chunk > 0,
      boxes: boxFormat,
      twoPasses: forced,
    }),
    createRadixSorter(ctx, {
      maxCount: Math.max(maxCount, 1),
      keyWords: 2,
      ...sortShape(ctx, dim, options.sort),
    }) as Promise<RadixSorter>,
  ]);
  if (refit.chunkLeaves !== chunk)
    throw new Error(`bvh::builder: refit chunks of ${refit.chunkLeaves}, Karras ${chunk}`);
  // The prefix sort (prefixsort.ts) where chosen and possible: it borrows the sorter's buffers.
  const prefixSorter =
    !split && maxCount >= 2 && prefixMode(options.prefixSort, dim) && prefixSortApplies(dim, sorter.shape.radixBits)
      ? await createPrefixSorter(ctx, dim, sorter, codeEncoder, { workgroupSize: wg })
      : null;
  let destroyed = false;

  const check = (n: number, bvh: GpuBvh) => {
    if (destroyed) throw new InputError('bvh::builder: encode() after destroy()');
    if (!Number.isInteger(n) || n < 0 || n > maxCount || n > bvh.capacity) {
      throw new InputError(`Expected n to be an integer in [0, ${Math.min(maxCount, bvh.capacity)}], got ${n}.`);
    }
    if (bvh.dim !== dim) throw new InputError(`Expected a BVH of dim=${dim}, got dim=${bvh.dim}.`);
    if (bvh.boxFormat !== boxFormat) {
      throw new InputError(`Expected a BVH with ${boxFormat} boxes (the builder's), got ${bvh.boxFormat}.`);
    }
  };

  /** Stage 3; `gathered`: the points are in Morton order already where the gather would put them (prefix sort). */
  const hierarchy = (rec: Recorder, points: Binding, n: number, bvh: GpuBvh, gathered: boolean) => {
    check(n, bvh);
    bvh.n = n;
    if (n === 0) return;
    // The traversals read the boxes in BOX_PARTS parts (layout.ts): a BVH they cannot bind is refused here.
    if (!split) parts.bind(bvh.boxes, n);
    const { order, links, ranges, parents, boxes } = bvh;
    if (points === bvh.sortedPoints) {
      // In place (allocateBvh's `inPlace`): gathered into the boxes, free until Karras writes them (8·dim bytes
      // for each of n − 1 records ≥ 4·dim bytes for each of n points when n ≥ 2; u16: 4·dim bytes for each of
      // n + 1 records), and copied back over the points.
      if (!gathered) gather.encode(rec, { points, order, sorted: bvh.boxes, n });
      rec.copy(bvh.boxes, 0, bvh.sortedPoints, 0, 4 * dim * n);
    } else if (!gathered) {
      gather.encode(rec, { points, order, sorted: bvh.sortedPoints, n });
    }
    karras.encode(rec, { codes: bvh.codes, links, ranges, parents, boxes, n });
    // u16 boxes: the frame (codes.ts) after the last record, where the refit and the readers take it (layout.ts).
    if (boxFormat === 'u16') {
      rec.copy(bvh.frame, 12 * dim, bvh.boxes, 4 * boxRecordWords(dim, 'u16') * boxRecords(n), 8 * dim);
    }
    refit.encode(rec, { sorted: bvh.sortedPoints, order, parents, mins: bvh.mins, boxes, ranges, n });
  };

  const builder: BvhBuilder = {
    maxCount,
    dim,
    sorter,
    refitChunkLeaves: chunk,
    encodeCodes(rec, points, n, bvh) {
      check(n, bvh);
      bvh.n = n;
      codeEncoder.encode(rec, { points, n, frame: bvh.frame, codes: bvh.codes, order: bvh.order });
    },
    encodeSort(rec, n, bvh) {
      check(n, bvh);
      sorter.encode(rec, { keys: bvh.codes, values: bvh.order, count: n, bitsLo: 0, bitsHi: codeBits(dim) });
    },
    encodeHierarchy(rec, points, n, bvh) {
      hierarchy(rec, points, n, bvh, false);
    },
    encode(rec, points, n, bvh) {
      if (prefixSorter && n >= 2) {
        check(n, bvh);
        bvh.n = n;
        // The prefix sort gathers the points too (prefixsort.ts, bvh::runs), to where the gather would put them.
        const inPlace = points === bvh.sortedPoints;
        const sorted = inPlace ? { buffer: bvh.boxes, offset: 0, size: 4 * dim * n } : bvh.sortedPoints;
        prefixSorter.encode(rec, { points, n, frame: bvh.frame, codes: bvh.codes, order: bvh.order, sorted });
        hierarchy(rec, points, n, bvh, true);
        return;
      }
      const passes = n > 1 ? digitPasses(0, codeBits(dim), sorter.shape.radixBits).length : 0;
      if (passes % 2 === 0) {
        builder.encodeCodes(rec, points, n, bvh);
        builder.encodeSort(rec, n, bvh);
      } else {
        // An odd number of passes ends where it started: the codes go to the sorter's scratch first, so that the
        // sorted ones land in bvh.codes and bvh.order without a copy.
        check(n, bvh);
        bvh.n = n;
        const from = sorter.scratch;
        codeEncoder.encode(rec, { points, n, frame: bvh.frame, codes: from.keys, order: from.values });
        sorter.encode(rec, { keys: bvh.codes, values: bvh.order, count: n, bitsLo: 0, bitsHi: codeBits(dim), from });
      }
      builder.encodeHierarchy(rec, points, n, bvh);
    },
    destroy() {
      if (destroyed) return;
      destroyed = true;
      prefixSorter?.destroy();
      sorter.destroy();
      codeEncoder.destroy();
      gather.destroy();
      karras.destroy();
      refit.destroy();
      parts.destroy();
    },
  };
  return builder;
}

/**
 * Builds the BVH of n points of dimension `dim` given as a GPU buffer (n × dim f32, finite, |x| ≤ 1e38: the
 * caller's responsibility) or a Float32Array (checked). The returned BVH owns its buffers: call destroy().
 */
export async function buildBvh(
  ctx: GpuContext,
  points: GPUBuffer | Float32Array,
  n: number,
  dim: number,
): Promise<GpuBvh> {
  let input: GPUBuffer;
  let owned: GPUBuffer | null = null;
  if (points instanceof Float32Array) {
    const m = checkPoints(points, dim);
    if (m !== n)
      throw new InputError(`Expected ${n} points of dim=${dim} (${n * dim} floats), got ${points.length} floats.`);
    owned = ctx.upload('bvh::points', points);
    input = owned;
  } else {
    if (points.size < 4 * n * dim) {
      throw new InputError(
        `Expected the points buffer to hold ${n} × ${dim} f32 (${4 * n * dim} bytes), got ${points.size} bytes.`,
      );
    }
    input = points;
  }
  const builder = await createBvhBuilder(ctx, { maxCount: n, dim });
  const bvh = allocateBvh(ctx, n, dim);
  try {
    await ctx.submit('bvh::build', (rec) => builder.encode(rec, input, n, bvh));
    await ctx.onDone();
  } catch (e) {
    bvh.destroy();
    throw e;
  } finally {
    builder.destroy();
    owned?.destroy();
  }
  return bvh;
}
