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
 */
import type { GpuContext } from '../gpu/context.js';
import type { Bindings } from '../gpu/kernel.js';
import type { Recorder } from '../gpu/recorder.js';
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
  /** Bits per digit pass (tuning): default 8 on the subgroup path, 4 without; 2 … 6 without subgroups. */
  radixBits?: number;
  /**
   * Rank with subgroup ballots (wider digits, fewer passes). Default: where the context has `subgroups` and
   * the adapter reports subgroup sizes of at most 32; `false` forces the subgroup-free path.
   */
  subgroups?: boolean;
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
const SORT_PARAMS = { count: 'u32', shift: 'u32', bits: 'u32', numBlocks: 'u32' } as const;
const HISTOGRAM = { u: 'uniform', keys: 'read', table: 'read_write' } as const;
const SCAN = { u: 'uniform', table: 'read_write', totals: 'read_write' } as const;
const SCATTER = {
  u: 'uniform',
  keysIn: 'read',
  valsIn: 'read',
  table: 'read',
  totals: 'read',
  keysOut: 'read_write',
  valsOut: 'read_write',
} as const;

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
  const maxBits = subgroups ? 8 : 6;
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

/** Creates a radix sorter for up to `maxCount` pairs; its scratch lives until `destroy()`. */
export async function createRadixSorter(ctx: GpuContext, options: RadixSorterOptions): Promise<RadixSorter> {
  const { maxCount, keyWords } = options;
  if (keyWords !== 1 && keyWords !== 2) throw new InputError(`Expected keyWords to be 1 or 2, got ${keyWords}.`);
  if (!Number.isInteger(maxCount) || maxCount < 0) {
    throw new InputError(`Expected maxCount to be a non-negative integer, got ${maxCount}.`);
  }
  const maxBinding = ctx.limits.maxStorageBufferBindingSize;
  if (maxCount * 4 * keyWords > maxBinding) {
    throw new InputError(
      `maxCount=${maxCount} keys of ${4 * keyWords} bytes exceed this device's storage binding limit of ${maxBinding} bytes.`,
    );
  }
  const shape = chooseShape(ctx, options);
  const { workgroupSize: wg, keysPerThread: kpt, radixBits } = shape;
  const digits = 1 << radixBits;
  const blockKeys = wg * kpt;
  const maxBlocks = Math.ceil(maxCount / blockKeys);

  const spec = <const B extends Bindings>(name: string, label: string, bindings: B, extra: string[] = []) => ({
    label,
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
  });
  const [histogram, scan, scatter] = await Promise.all([
    shape.subgroups
      ? ctx.kernel(spec('histogram_atomic', 'primitives::radixSortHistogram', HISTOGRAM))
      : ctx.kernel(spec('histogram', 'primitives::radixSortHistogram', HISTOGRAM, ['counters'])),
    ctx.kernel(spec('scan', 'primitives::radixSortScan', SCAN)),
    shape.subgroups
      ? ctx.kernel(spec('scatter_sg', 'primitives::radixSortScatter', SCATTER, ['scatter_common']))
      : ctx.kernel(spec('scatter', 'primitives::radixSortScatter', SCATTER, ['counters', 'scatter_common'])),
  ]);

  const keys2 = ctx.createBuffer('primitives::radixSortKeys', maxCount * 4 * keyWords);
  const values2 = ctx.createBuffer('primitives::radixSortValues', maxCount * 4);
  const table = ctx.createBuffer('primitives::radixSortTable', digits * maxBlocks * 4);
  const totals = ctx.createBuffer('primitives::radixSortTotals', digits * 4);
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
    if (count <= 1 || bitsLo === bitsHi) return;
    const numBlocks = Math.ceil(count / blockKeys);
    let src = { keys, values };
    let dst = { keys: keys2, values: values2 };
    let passes = 0;
    for (let shift = bitsLo; shift < bitsHi; shift += radixBits) {
      const uniforms = { count, shift, bits: Math.min(radixBits, bitsHi - shift), numBlocks };
      rec.dispatch(histogram, { buffers: { keys: src.keys, table }, uniforms, groups: numBlocks });
      rec.dispatch(scan, { buffers: { table, totals }, uniforms, groups: digits });
      rec.dispatch(scatter, {
        buffers: { keysIn: src.keys, valsIn: src.values, table, totals, keysOut: dst.keys, valsOut: dst.values },
        uniforms,
        groups: numBlocks,
      });
      [src, dst] = [dst, src];
      passes++;
    }
    if (passes % 2 === 1) {
      rec.copy(keys2, 0, keys, 0, count * 4 * keyWords);
      rec.copy(values2, 0, values, 0, count * 4);
    }
  }

  return {
    maxCount,
    keyWords,
    shape,
    scratch: { keys: keys2, values: values2 },
    encode,
    destroy() {
      if (destroyed) return;
      destroyed = true;
      keys2.destroy();
      values2.destroy();
      table.destroy();
      totals.destroy();
    },
  };
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
