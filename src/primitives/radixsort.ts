/**
 * Stable LSD radix sort of (key, value) pairs on the GPU: u32 keys, or 64-bit keys as `vec2u` (.x low word,
 * .y high word), each carrying a u32 value, optionally on a bit range of the key only.
 *
 * Merrill & Grimshaw 2011, "High Performance and Scalable Radix Sorting: a Case Study of Implementing Dynamic
 * Parallelism for GPU Computing" (Parallel Processing Letters 21(2)): each digit pass is reduce-then-scan —
 *   1. `primitives::radixSortHistogram` — the digit histogram of every block of keys (digit-major table),
 *   2. `primitives::radixSortScan`      — one workgroup per digit scans its row over the blocks (exclusive)
 *      and writes the row total,
 *   3. `primitives::radixSortScatter`   — a stable rank of each block's keys, a local sort in workgroup memory,
 *      and coalesced stores to base(digit) + row prefix + position within the block's run of the digit.
 * Two rankings:
 *   - subgroup-free (radixsort_scatter.wgsl), 4-bit digits: CUB's BlockRadixRank, packed 16-bit per-thread
 *     counters in workgroup memory (§4 of the paper);
 *   - subgroups (radixsort_scatter_sg.wgsl), 8-bit digits, half the passes: warp-level multi-split with
 *     ballots (Adinets & Merrill 2022, "Onesweep", §3.3), where the adapter reports subgroups of ≤ 32 lanes.
 * What we changed: no decoupled look-back (Onesweep's single pass) — WebGPU gives no forward-progress guarantee
 * between workgroups and lavapipe hangs on spins — so each pass reads the keys twice; the digit bases (the
 * exclusive scan of the row totals) are scanned inside the scatter kernel, alongside its own block scan.
 *
 * Blocks are WG threads × KPT keys; block counts above 65535 use the recorder's 2D grids.
 *
 * Arrays larger than one storage binding (issue 19, gpu/bigarray.ts): the histogram and scatter read their keys
 * and values by windows of whole blocks (a dispatch per window, `blockBase` its first block and `blockEnd` one past
 * its last: a 2D grid's surplus workgroups must not take the next window's blocks), and the scatter
 * writes through keysOut_set / valsOut_set, generated over as many parts as maxCount needs (at most the stage's
 * storage buffers less 4, shared by keys and values). Where everything fits: one window and one part each.
 */
import type { GpuContext } from '../gpu/context.js';
import type { Bindings } from '../gpu/kernel.js';
import type { Binding, Recorder } from '../gpu/recorder.js';
import {
  bigArrayParts,
  bigArrayWgsl,
  createUnusedParts,
  partBindings,
  windows,
  type BigArrayParts,
  type Window,
} from '../gpu/bigarray.js';
import { InputError } from '../errors.js';
import { pairCount, resolveBitRange, type BitRange, type SortedPairs } from './radixsort.cpu.js';

export type { BitRange, SortedPairs } from './radixsort.cpu.js';

export interface RadixSorterOptions {
  /** The largest `count` that `encode` will be given (scratch is sized for it). */
  maxCount: number;
  /** 1: keys are `array<u32>`; 2: keys are `array<vec2u>` (.x low 32 bits, .y high 32 bits). */
  keyWords: 1 | 2;
  /** Threads per workgroup (a power of two, 16 … 1024); default 256 (tuning). */
  workgroupSize?: number;
  /** Keys per thread (tuning; default: the most of 16, 8, 4, … that fits the workgroup storage limit). */
  keysPerThread?: number;
  /**
   * Bits per digit pass at most (tuning): default 8 on the subgroup path, 4 without; 2 … 9 with subgroups (9 needs
   * 256 threads or more), 2 … 6 without. A sort of B bits takes ⌈B / radixBits⌉ passes of balanced widths.
   */
  radixBits?: number;
  /**
   * Rank with subgroup ballots (wider digits, fewer passes). Default: where the context has `subgroups` and
   * the adapter reports subgroup sizes of at most 32; `false` forces the subgroup-free path.
   */
  subgroups?: boolean;
  /** Tests: fewer keys per part of the scatter's outputs (gpu/bigarray.ts parts; default: a binding's worth). */
  partElements?: number;
  /** Tests: fewer blocks per window of the block kernels' inputs (default: a binding's worth). */
  maxWindowBlocks?: number;
  /**
   * A guarded sorter (issue 18, bvh/prefixsort.ts): every kernel takes one more binding, `guard`, and each workgroup
   * returns at once unless guard[0] ≠ 0 — a sort recorded ahead of time that the GPU itself switches on or off, with
   * direct dispatches only (Dawn validates each indirect one with a pass of its own). encode() then needs `guard`.
   */
  guard?: boolean;
  /** Tests: a guarded sorter's workgroups per block kernel at most (default GUARDED_GROUPS). */
  guardedGroups?: number;
  /**
   * Borrow another sorter's digit table, totals and ping-pong scratch instead of allocating them (issue 18: the
   * BVH's 32-bit prefix sort shares its 64-bit sorter's buffers). The two must never sort at the same time; `shared`
   * must have this sorter's digits and blocks, and scratch of at least maxCount of our keys.
   */
  shared?: RadixSorter;
}

export interface RadixSortArgs {
  /** `count` keys (u32, or vec2u for keyWords 2); sorted in place. */
  keys: GPUBuffer;
  /** `count` u32 values; permuted in place along with the keys. */
  values: GPUBuffer;
  /** Number of pairs (0 … maxCount). */
  count: number;
  /** Lowest key bit that takes part in the ordering (default 0). */
  bitsLo?: number;
  /** One past the highest key bit that takes part in the ordering (default 32 · keyWords). */
  bitsHi?: number;
  /**
   * Where the unsorted pairs are, when not in keys/values (which then receive the sorted ones): another pair of
   * buffers, or the sorter's own `scratch` — where an odd number of passes then ends in keys/values with no copy.
   */
  from?: { keys: GPUBuffer; values: GPUBuffer };
  /**
   * The ping-pong buffers of this sort instead of the sorter's scratch (each holding `count` keys and values):
   * with `from` unset and an even number of passes, the sorted pairs end in keys/values and `scratch` is only
   * passed through (bvh/prefixsort.ts sorts in the sorter's scratch, through the BVH's arrays).
   */
  scratch?: { keys: GPUBuffer; values: GPUBuffer };
  /** A guarded sorter's switch: the sort runs only where guard[0] ≠ 0 when the GPU reaches it. */
  guard?: GPUBuffer;
}

/** How a sorter works: which ranking, threads per workgroup, keys per thread, bits per pass. */
export interface RadixSortShape {
  subgroups: boolean;
  workgroupSize: number;
  keysPerThread: number;
  radixBits: number;
  /** Subgroup path: the most subgroups a workgroup can hold (workgroupSize / smallest subgroup size). */
  maxWarps: number;
}

export interface RadixSorter {
  readonly maxCount: number;
  readonly keyWords: 1 | 2;
  readonly shape: RadixSortShape;
  /**
   * The ping-pong buffers (maxCount keys and values): their contents matter only during a sort, so between sorts
   * others may use them as scratch (emst/boruvka.ts borrows them).
   */
  readonly scratch: { keys: GPUBuffer; values: GPUBuffer };
  /** Records the sort of `count` pairs in place: ascending, stable on the key bits [bitsLo, bitsHi). */
  encode(rec: Recorder, args: RadixSortArgs): void;
  /** Frees the scratch buffers. */
  destroy(): void;
}

const SHADERS = 'primitives/radixsort';
/** radixsort_common.wgsl's uniform block (`SortParams`) and each pass's bindings, by their WGSL names. */
const SORT_PARAMS = {
  count: 'u32',
  shift: 'u32',
  bits: 'u32',
  numBlocks: 'u32',
  blockBase: 'u32',
  stride: 'u32',
  blockEnd: 'u32',
  p2: 'u32',
} as const;
const HISTOGRAM = { u: 'uniform', keys: 'read', table: 'read_write' } as const;
const SCAN = { u: 'uniform', table: 'read_write', totals: 'read_write' } as const;
/** The scatter's bindings before its outputs' (keysOut, valsOut: generated, one or several each: scatterOutputs). */
const SCATTER = { u: 'uniform', keysIn: 'read', valsIn: 'read', table: 'read', totals: 'read' } as const;

/**
 * Workgroups of a guarded sorter's block kernels at most: each takes every GUARDED_GROUPS-th block (uniform `stride`),
 * so that an idle guarded pass costs a few workgroups instead of one per block (0.02 ms per histogram and 0.04 per
 * scatter at 3.7·10^7 keys on the H100 with one workgroup per block).
 */
const GUARDED_GROUPS = 1024;

/** Each sorter's digit table and totals, for sorters created with `shared`. */
const internals = new WeakMap<RadixSorter, { table: GPUBuffer; totals: GPUBuffer }>();

/**
 * `rs_skip(t)`, which every kernel calls first: always false, or (a guarded sorter) whether guard[0] is 0, read once
 * per workgroup (uniformly: barriers follow), with `guard` declared at binding `binding` (the kernel's last).
 */
function guardWgsl(binding: number | null): string {
  if (binding === null) return 'fn rs_skip(t: u32) -> bool { return false; }';
  return [
    `@group(0) @binding(${binding}) var<storage, read> guard: array<u32>;`,
    'var<workgroup> rs_guard: u32;',
    'fn rs_skip(t: u32) -> bool {',
    '  if (t == 0u) { rs_guard = guard[0]; }',
    '  return workgroupUniformLoad(&rs_guard) == 0u;',
    '}',
  ].join('\n');
}

/** The scatter's output slots as bindings (by name, from @binding(5) on) and their generated WGSL (bigarray.ts). */
function scatterOutputs(keys: BigArrayParts, values: BigArrayParts): { bindings: Bindings; generated: string[] } {
  const names = (name: string, slots: number) =>
    slots === 1 ? [name] : Array.from({ length: slots }, (_, i) => `${name}${i}`);
  const bindings: Record<string, 'read_write'> = {};
  for (const n of [...names('keysOut', keys.parts), ...names('valsOut', values.parts)]) bindings[n] = 'read_write';
  const first = Object.keys(SCATTER).length;
  const decl = (name: string, type: string, binding: number, p: BigArrayParts) =>
    bigArrayWgsl({ name, type, access: 'read_write', binding, slots: p.parts, partElements: p.partElements });
  return {
    bindings,
    generated: [decl('keysOut', 'Key', first, keys), decl('valsOut', 'u32', first + keys.parts, values)],
  };
}

/**
 * The digit passes of a sort of key bits [bitsLo, bitsHi) with digits of at most `radixBits` bits: the fewest
 * passes, ⌈B / radixBits⌉ for B bits, of balanced widths (the wider ones first). Balanced, because a narrower digit
 * has fewer, longer runs per block to store: 63 Morton bits at 9 bits are 7 passes of 9, and 64 bits at 9 are 8
 * passes of 8 — the passes of 8-bit digits.
 */
export function digitPasses(bitsLo: number, bitsHi: number, radixBits: number): { shift: number; bits: number }[] {
  const total = bitsHi - bitsLo;
  const count = Math.ceil(total / radixBits);
  const passes: { shift: number; bits: number }[] = [];
  let shift = bitsLo;
  for (let p = 0; p < count; p++) {
    const bits = Math.floor(total / count) + (p < total % count ? 1 : 0);
    passes.push({ shift, bits });
    shift += bits;
  }
  return passes;
}

/** Workgroup memory in bytes of the largest kernel (the scatter) of a shape. */
export function radixSortSharedBytes(shape: RadixSortShape): number {
  const { workgroupSize: wg, keysPerThread: kpt, radixBits } = shape;
  const digits = 1 << radixBits;
  const half = digits >> 1;
  const b = wg * kpt;
  const exchange = b + Math.floor(b / 32) + digits;
  const ranking = shape.subgroups
    ? shape.maxWarps * half + 1 + 2 * 4 * half // s_wh, s_warps, s_part4
    : (half + 1) * wg + 2 * 2 * wg; // s_cnt, s_part
  return 4 * (exchange + ranking);
}

/** The adapter's subgroup sizes, where the platform reports them. */
function subgroupSizes(ctx: GpuContext): { min: number; max: number } | null {
  const info = (ctx.device as unknown as { adapterInfo?: { subgroupMinSize?: number; subgroupMaxSize?: number } })
    .adapterInfo;
  const min = info?.subgroupMinSize;
  const max = info?.subgroupMaxSize;
  return typeof min === 'number' && typeof max === 'number' && min > 0 ? { min, max } : null;
}

function isPow2(x: number): boolean {
  return Number.isInteger(x) && x > 0 && (x & (x - 1)) === 0;
}

function chooseShape(ctx: GpuContext, options: RadixSorterOptions): RadixSortShape {
  const sizes = subgroupSizes(ctx);
  const canSubgroups = ctx.features.subgroups && sizes !== null && sizes.max <= 32;
  if (options.subgroups && !canSubgroups) {
    throw new InputError(
      `subgroups: true needs the 'subgroups' feature and subgroup sizes ≤ 32; this context has ` +
        `subgroups=${ctx.features.subgroups}, sizes ${sizes ? `${sizes.min}…${sizes.max}` : 'unknown'}.`,
    );
  }
  const subgroups = options.subgroups ?? canSubgroups;
  const radixBits = options.radixBits ?? (subgroups ? 8 : 4);
  const maxBits = subgroups ? 9 : 6;
  if (!Number.isInteger(radixBits) || radixBits < 2 || radixBits > maxBits) {
    throw new InputError(
      `Expected radixBits to be an integer in [2, ${maxBits}]${subgroups ? '' : ' without subgroups'}, got ${radixBits}.`,
    );
  }
  const limit = ctx.limits.maxComputeWorkgroupStorageSize;
  const maxWg = Math.min(1024, ctx.limits.maxComputeInvocationsPerWorkgroup, ctx.limits.maxComputeWorkgroupSizeX);
  const minWg = Math.max(16, subgroups ? Math.max(32, 1 << (radixBits - 1)) : 1 << radixBits);
  const warpsOf = (wg: number) => (subgroups ? Math.max(1, Math.floor(wg / sizes!.min)) : 0);
  const fits = (wg: number, kpt: number) =>
    radixSortSharedBytes({ subgroups, workgroupSize: wg, radixBits, maxWarps: warpsOf(wg), keysPerThread: kpt }) <=
    limit;
  let wg = options.workgroupSize;
  let kpt = options.keysPerThread;
  if (wg === undefined) {
    // The first of 256, 128, … threads whose workgroup memory fits with the given (or 8) keys per thread.
    wg = Math.min(256, maxWg);
    while (wg > minWg && !fits(wg, kpt ?? 8)) wg >>= 1;
  }
  if (!isPow2(wg) || wg < minWg || wg > maxWg) {
    throw new InputError(`Expected workgroupSize to be a power of two in [${minWg}, ${maxWg}], got ${wg}.`);
  }
  if (kpt === undefined) {
    // 8 keys per thread: faster than 16 (bench/RESULTS.md, radix sweep), as more blocks fit per SM.
    kpt = 8;
    while (kpt > 1 && !fits(wg, kpt)) kpt >>= 1;
  }
  const base = { subgroups, workgroupSize: wg, radixBits, maxWarps: warpsOf(wg) };
  if (!Number.isInteger(kpt) || kpt < 1 || kpt > 64 || wg * kpt >= 65536) {
    throw new InputError(
      `Expected keysPerThread to be an integer in [1, 64] with workgroupSize × keysPerThread < 65536, got ${kpt}.`,
    );
  }
  const shape = { ...base, keysPerThread: kpt };
  const bytes = radixSortSharedBytes(shape);
  if (bytes > limit) {
    throw new InputError(
      `workgroupSize=${wg}, keysPerThread=${kpt}, radixBits=${radixBits}${subgroups ? ' with subgroups' : ''} need ` +
        `${bytes} bytes of workgroup memory; this device allows ${limit}.`,
    );
  }
  return shape;
}

/** Whether a sorter of this shape (the defaults filled in as createRadixSorter fills them) can run on ctx's device. */
export function radixShapeFits(ctx: GpuContext, options: Omit<RadixSorterOptions, 'maxCount' | 'keyWords'>): boolean {
  try {
    chooseShape(ctx, { ...options, maxCount: 0, keyWords: 1 });
    return true;
  } catch (e) {
    if (e instanceof InputError) return false;
    throw e;
  }
}

/** Creates a radix sorter for up to `maxCount` pairs; its scratch lives until `destroy()`. */
export async function createRadixSorter(ctx: GpuContext, options: RadixSorterOptions): Promise<RadixSorter> {
  const { maxCount, keyWords } = options;
  if (keyWords !== 1 && keyWords !== 2) throw new InputError(`Expected keyWords to be 1 or 2, got ${keyWords}.`);
  if (!Number.isInteger(maxCount) || maxCount < 0) {
    throw new InputError(`Expected maxCount to be a non-negative integer, got ${maxCount}.`);
  }
  const shape = chooseShape(ctx, options);
  const { workgroupSize: wg, keysPerThread: kpt, radixBits } = shape;
  const digits = 1 << radixBits;
  const blockKeys = wg * kpt;
  const maxBlocks = Math.ceil(maxCount / blockKeys);
  // Arrays larger than one binding (issue 19, gpu/bigarray.ts): the block kernels read their keys and values by
  // windows of whole blocks, the scatter writes its outputs in parts (random destinations); the digit table and
  // totals stay whole. Below one binding: one window, one part each, the kernels of before.
  const keyBytes = 4 * keyWords;
  const keyParts = bigArrayParts(ctx.limits, Math.max(maxCount, 1), keyBytes, options.partElements);
  const valueParts = bigArrayParts(ctx.limits, Math.max(maxCount, 1), 4, options.partElements);
  const stage = ctx.limits.maxStorageBuffersPerShaderStage;
  const tableBytes = digits * maxBlocks * 4;
  if (Object.keys(SCATTER).length - 1 + keyParts.parts + valueParts.parts > stage) {
    throw new InputError(
      `primitives::radixSort: maxCount=${maxCount} keys of ${keyBytes} bytes need ${keyParts.parts} + ${valueParts.parts} ` +
        `output bindings of ${keyParts.partElements} keys; with the scatter's 4 others that exceeds this device's ${stage} storage buffers per stage.`,
    );
  }
  if (tableBytes > ctx.limits.maxStorageBufferBindingSize) {
    throw new InputError(
      `primitives::radixSort: maxCount=${maxCount} needs a ${tableBytes}-byte digit table, above this device's storage binding limit of ${ctx.limits.maxStorageBufferBindingSize} bytes.`,
    );
  }
  const outputs = scatterOutputs(keyParts, valueParts);

  const guarded = options.guard === true;
  // Each variant its own label (`.key32`, `.guarded`): a context may hold several sorters (the BVH's prefix sort:
  // 64-bit, 32-bit and guarded), and phases and compile counts name each pipeline once.
  const variant = `${keyWords === 1 ? '.key32' : ''}${guarded ? '.guarded' : ''}`;
  const spec = <const B extends Bindings>(name: string, label: string, given: B, extra: string[] = []) => {
    const bindings: Bindings = guarded ? { ...given, guard: 'read' } : given;
    const guard = guardWgsl(guarded ? Object.keys(bindings).length - 1 : null);
    return {
      label: label + variant,
      shader: `${SHADERS}_${name}`,
      entry: 'main',
      bindings,
      uniforms: SORT_PARAMS,
      workgroupSize: wg,
      include: [
        'common/grid',
        `${SHADERS}_key${32 * keyWords}`,
        `${SHADERS}_common`,
        ...extra.map((e) => `${SHADERS}_${e}`),
      ],
      constants: { RADIX_BITS: radixBits, KPT: kpt, ...(shape.subgroups ? { MAX_WARPS: shape.maxWarps } : {}) },
      ...(shape.subgroups && name === 'scatter_sg' ? { enable: ['subgroups'] } : {}),
      generated: [...(name.startsWith('scatter') ? outputs.generated : []), guard],
    };
  };
  const scatterBindings: Bindings = { ...SCATTER, ...outputs.bindings };
  const [histogram, scan, scatter] = await Promise.all([
    shape.subgroups
      ? ctx.kernel(spec('histogram_atomic', 'primitives::radixSortHistogram', HISTOGRAM))
      : ctx.kernel(spec('histogram', 'primitives::radixSortHistogram', HISTOGRAM, ['counters'])),
    ctx.kernel(spec('scan', 'primitives::radixSortScan', SCAN)),
    shape.subgroups
      ? ctx.kernel(spec('scatter_sg', 'primitives::radixSortScatter', scatterBindings, ['scatter_common']))
      : ctx.kernel(spec('scatter', 'primitives::radixSortScatter', scatterBindings, ['counters', 'scatter_common'])),
  ]);

  const lender = options.shared ? internals.get(options.shared) : undefined;
  if (options.shared) {
    const other = options.shared;
    const ours = Math.max(maxCount, 1);
    if (
      !lender ||
      other.shape.radixBits !== radixBits ||
      other.shape.workgroupSize * other.shape.keysPerThread !== blockKeys ||
      other.maxCount < maxCount ||
      other.scratch.keys.size < ours * keyBytes ||
      other.scratch.values.size < ours * 4
    ) {
      throw new InputError(
        `primitives::radixSort: shared needs a live sorter of ${radixBits}-bit digits, ${blockKeys}-key blocks and ` +
          `at least ${maxCount} keys of ${keyBytes} bytes; got ${other.shape.radixBits}-bit digits, ` +
          `${other.shape.workgroupSize * other.shape.keysPerThread}-key blocks, maxCount ${other.maxCount}.`,
      );
    }
  }
  const keys2 = options.shared?.scratch.keys ?? ctx.createBuffer('primitives::radixSortKeys', maxCount * 4 * keyWords);
  const values2 = options.shared?.scratch.values ?? ctx.createBuffer('primitives::radixSortValues', maxCount * 4);
  const table = lender?.table ?? ctx.createBuffer('primitives::radixSortTable', digits * maxBlocks * 4);
  const totals = lender?.totals ?? ctx.createBuffer('primitives::radixSortTotals', digits * 4);
  const unused =
    keyParts.parts > 1 || valueParts.parts > 1
      ? createUnusedParts(ctx, 'primitives::radixSort', keyParts.parts + valueParts.parts)
      : null;
  let destroyed = false;

  function encode(rec: Recorder, args: RadixSortArgs): void {
    if (destroyed) throw new InputError('primitives::radixSort: encode() after destroy()');
    const { keys, values, count } = args;
    if (!Number.isInteger(count) || count < 0 || count > maxCount) {
      throw new InputError(`Expected count to be an integer in [0, maxCount=${maxCount}], got ${count}.`);
    }
    if (keys.size < count * 4 * keyWords) {
      throw new InputError(
        `Expected the keys buffer to hold ${count} keys (${count * 4 * keyWords} bytes), got ${keys.size} bytes.`,
      );
    }
    if (values.size < count * 4) {
      throw new InputError(
        `Expected the values buffer to hold ${count} values (${count * 4} bytes), got ${values.size} bytes.`,
      );
    }
    const { bitsLo, bitsHi } = resolveBitRange(keyWords, args);
    if (guarded !== (args.guard !== undefined)) {
      throw new InputError(
        `primitives::radixSort: a ${guarded ? 'guarded sorter needs' : 'sorter created without guard takes no'} guard buffer.`,
      );
    }
    const extra: Record<string, Binding> = args.guard ? { guard: args.guard } : {};
    const target = { keys, values };
    const scratch = args.scratch ?? { keys: keys2, values: values2 };
    if (args.scratch && (scratch.keys.size < count * keyBytes || scratch.values.size < count * 4)) {
      throw new InputError(
        `Expected scratch to hold ${count} keys and values (${count * keyBytes} and ${count * 4} bytes), got ${scratch.keys.size} and ${scratch.values.size} bytes.`,
      );
    }
    const from = args.from ?? target;
    if ((from.keys === keys2) !== (from.values === values2) || (from.keys === keys) !== (from.values === values)) {
      throw new InputError(
        'primitives::radixSort: from.keys and from.values must both be, or both not be, the scratch (or the target) buffers.',
      );
    }
    if (from.keys.size < count * keyBytes || from.values.size < count * 4) {
      throw new InputError(
        `Expected from to hold ${count} keys and values (${count * keyBytes} and ${count * 4} bytes), got ${from.keys.size} and ${from.values.size} bytes.`,
      );
    }
    const plan = count <= 1 ? [] : digitPasses(bitsLo, bitsHi, radixBits);
    // A copy at either end would run whatever the guard says.
    if (guarded && (args.from !== undefined || plan.length % 2 === 1)) {
      throw new InputError(
        `primitives::radixSort: a guarded sort must start in keys/values and take an even number of passes; bits [${bitsLo}, ${bitsHi}) take ${plan.length}.`,
      );
    }
    // The sorted pairs end where the last pass writes: start towards keys/values when the passes are odd.
    let src = from;
    let dst = plan.length % 2 === 1 ? target : scratch;
    if (dst.keys === src.keys) dst = dst === target ? scratch : target;
    if (plan.length === 0) {
      if (from.keys !== keys && count > 0) {
        rec.copy(from.keys, 0, keys, 0, count * keyBytes);
        rec.copy(from.values, 0, values, 0, count * 4);
      }
      return;
    }
    const numBlocks = Math.ceil(count / blockKeys);
    const blockWindows = windows(ctx.limits, numBlocks, [blockKeys * keyBytes, blockKeys * 4], options.maxWindowBlocks);
    if (guarded && blockWindows.length > 1) {
      throw new InputError(`primitives::radixSort: a guarded sort of ${count} keys would need windows of blocks.`);
    }
    // A guarded sorter's fixed grid, each workgroup striding over the blocks; else one workgroup per block.
    const stride = guarded ? Math.min(numBlocks, options.guardedGroups ?? GUARDED_GROUPS) : numBlocks;
    const groupsOf = (w: Window) => (guarded ? stride : w.count);
    // A window of blocks of `buffer` (elements of `bytes`), cut at the last key; the whole buffer where it fits.
    const range = (buffer: GPUBuffer, bytes: number, w: Window): Binding =>
      blockWindows.length === 1 && buffer.size <= ctx.limits.maxStorageBufferBindingSize
        ? buffer
        : {
            buffer,
            offset: w.first * blockKeys * bytes,
            size: (Math.min((w.first + w.count) * blockKeys, count) - w.first * blockKeys) * bytes,
          };
    const parts = (p: BigArrayParts) => ({ ...p, parts: Math.ceil(count / p.partElements) });
    for (const { shift, bits } of plan) {
      const uniforms = { count, shift, bits, numBlocks, stride };
      const out = {
        ...partBindings(
          ctx.limits,
          'keysOut',
          dst.keys,
          keyBytes,
          count,
          parts(keyParts),
          keyParts.parts,
          unused ?? dst.keys,
        ),
        ...partBindings(
          ctx.limits,
          'valsOut',
          dst.values,
          4,
          count,
          parts(valueParts),
          valueParts.parts,
          unused ?? dst.values,
          keyParts.parts,
        ),
      };
      for (const w of blockWindows) {
        rec.dispatch(histogram, {
          buffers: { keys: range(src.keys, keyBytes, w), table, ...extra },
          uniforms: { ...uniforms, blockBase: w.first, blockEnd: w.first + w.count },
          groups: groupsOf(w),
        });
      }
      rec.dispatch(scan, { buffers: { table, totals, ...extra }, uniforms, groups: digits });
      for (const w of blockWindows) {
        rec.dispatch(scatter, {
          buffers: {
            keysIn: range(src.keys, keyBytes, w),
            valsIn: range(src.values, 4, w),
            table,
            totals,
            ...out,
            ...extra,
          },
          uniforms: { ...uniforms, blockBase: w.first, blockEnd: w.first + w.count },
          groups: groupsOf(w),
        });
      }
      src = dst;
      dst = dst === target ? scratch : target;
    }
    if (src.keys !== keys && count > 0) {
      rec.copy(src.keys, 0, keys, 0, count * keyBytes);
      rec.copy(src.values, 0, values, 0, count * 4);
    }
  }

  const sorter: RadixSorter = {
    maxCount,
    keyWords,
    shape,
    scratch: { keys: keys2, values: values2 },
    encode,
    destroy() {
      if (destroyed) return;
      destroyed = true;
      // Borrowed buffers stay with their owner.
      if (!options.shared) {
        keys2.destroy();
        values2.destroy();
        table.destroy();
        totals.destroy();
      }
      unused?.destroy();
    },
  };
  internals.set(sorter, { table, totals });
  return sorter;
}

/**
 * Sorts (key, value) pairs on the GPU and returns sorted copies (keys interleaved low, high for keyWords 2).
 * One upload, one submission, one read-back; for repeated sorts keep a sorter and use `encode`.
 */
export async function sortPairs(
  ctx: GpuContext,
  keys: Uint32Array,
  values: Uint32Array,
  keyWords: 1 | 2,
  bits: BitRange = {},
): Promise<SortedPairs> {
  const n = pairCount(keys, values, keyWords);
  resolveBitRange(keyWords, bits);
  if (n === 0) return { keys: new Uint32Array(0), values: new Uint32Array(0) };
  const sorter = await createRadixSorter(ctx, { maxCount: n, keyWords });
  const kb = ctx.upload('primitives::sortPairsKeys', keys);
  const vb = ctx.upload('primitives::sortPairsValues', values);
  try {
    await ctx.submit('primitives::sortPairs', (rec) => sorter.encode(rec, { keys: kb, values: vb, count: n, ...bits }));
    const [k, v] = await Promise.all([ctx.read(kb, 0, n * 4 * keyWords), ctx.read(vb, 0, n * 4)]);
    return { keys: new Uint32Array(k), values: new Uint32Array(v) };
  } finally {
    kb.destroy();
    vb.destroy();
    sorter.destroy();
  }
}
