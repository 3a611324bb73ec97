/**
 * Stable LSD radix sort of (key, value) pairs on the GPU: u32 keys, or 64-bit keys as `vec2u` (.x low word,
 * .y high word), each carrying a u32 value, optionally on a bit range of the key only.
 *
 * Merrill & Grimshaw 2011, "High Performance and Scalable Radix Sorting: a Case Study of Implementing Dynamic
 * Parallelism for GPU Computing" (Parallel Processing Letters 21(2)): each digit pass is reduce-then-scan —
 *   1. `primitives::radixSortHistogram` — the digit histogram of every block of keys (digit-major table),
 *   2. `primitives::radixSortScan`      — an exclusive scan of each digit's row over the blocks, and its total,
 *   3. `primitives::radixSortScatter`   — a stable rank of each block's keys (CUB's BlockRadixRank: packed
 *      16-bit per-thread counters in workgroup memory, §4 of the paper), a local sort in workgroup memory, and
 *      coalesced stores to base(digit) + row prefix + local position.
 * What we changed: no decoupled look-back (Adinets & Merrill 2022, Onesweep) — WebGPU gives no forward-progress
 * guarantee between workgroups and lavapipe hangs on spins — so each pass reads the keys twice; the digit
 * bases are the exclusive scan of the row totals, done inside the scatter kernel's counter scan.
 *
 * Blocks are WG threads × KPT keys; block counts above 65535 use the recorder's 2D grids.
 */
import type { GpuContext } from '../gpu/context.js';
import type { Kernel } from '../gpu/kernel.js';
import type { Recorder } from '../gpu/recorder.js';
import { InputError } from '../errors.js';
import { pairCount, resolveBitRange, type BitRange, type SortedPairs } from './radixsort.cpu.js';

export type { BitRange, SortedPairs } from './radixsort.cpu.js';

export interface RadixSorterOptions {
  /** The largest `count` that `encode` will be given (scratch is sized for it). */
  maxCount: number;
  /** 1: keys are `array<u32>`; 2: keys are `array<vec2u>` (.x low 32 bits, .y high 32 bits). */
  keyWords: 1 | 2;
  /** Threads per workgroup (a power of two, 16 … 1024); default 256 or what fits the device. */
  workgroupSize?: number;
  /** Keys per thread (tuning; default chosen from the workgroup storage limit). */
  keysPerThread?: number;
  /** Bits per digit pass (tuning; 2 … 6, default 4). */
  radixBits?: number;
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

export interface RadixSorter {
  readonly maxCount: number;
  readonly keyWords: 1 | 2;
  /** Threads per workgroup, keys per thread and bits per pass actually used. */
  readonly shape: { workgroupSize: number; keysPerThread: number; radixBits: number };
  /** Records the sort of `count` pairs in place: ascending, stable on the key bits [bitsLo, bitsHi). */
  encode(rec: Recorder, args: RadixSortArgs): void;
  /** Frees the scratch buffers. */
  destroy(): void;
}

const SHADERS = 'primitives/radixsort';

/** Workgroup memory in bytes the kernels need for a shape (the scatter kernel is the largest). */
export function radixSortSharedBytes(wg: number, kpt: number, radixBits: number): number {
  const half = 1 << (radixBits - 1);
  const b = wg * kpt;
  const counters = (half + 1) * wg;
  const scanPart = 2 * 2 * wg;
  const exchange = b + Math.floor(b / 32);
  return 4 * (counters + scanPart + exchange + (1 << radixBits));
}

function isPow2(x: number): boolean {
  return Number.isInteger(x) && x > 0 && (x & (x - 1)) === 0;
}

function chooseShape(ctx: GpuContext, options: RadixSorterOptions) {
  const radixBits = options.radixBits ?? 4;
  if (!Number.isInteger(radixBits) || radixBits < 2 || radixBits > 6) {
    throw new InputError(`Expected radixBits to be an integer in [2, 6], got ${radixBits}.`);
  }
  const limit = ctx.limits.maxComputeWorkgroupStorageSize;
  const maxWg = Math.min(1024, ctx.limits.maxComputeInvocationsPerWorkgroup, ctx.limits.maxComputeWorkgroupSizeX);
  const wg = options.workgroupSize ?? Math.min(256, maxWg);
  if (!isPow2(wg) || wg < Math.max(16, 1 << radixBits) || wg > maxWg) {
    throw new InputError(
      `Expected workgroupSize to be a power of two in [${Math.max(16, 1 << radixBits)}, ${maxWg}], got ${wg}.`,
    );
  }
  let kpt = options.keysPerThread;
  if (kpt === undefined) {
    kpt = 16;
    while (kpt > 1 && radixSortSharedBytes(wg, kpt, radixBits) > limit) kpt >>= 1;
  }
  if (!Number.isInteger(kpt) || kpt < 1 || kpt > 64 || wg * kpt >= 65536) {
    throw new InputError(`Expected keysPerThread to be an integer in [1, 64] with workgroupSize × keysPerThread < 65536, got ${kpt}.`);
  }
  const bytes = radixSortSharedBytes(wg, kpt, radixBits);
  if (bytes > limit) {
    throw new InputError(
      `workgroupSize=${wg}, keysPerThread=${kpt}, radixBits=${radixBits} need ${bytes} bytes of workgroup memory; ` +
        `this device allows ${limit}.`,
    );
  }
  return { workgroupSize: wg, keysPerThread: kpt, radixBits };
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

  const spec = (name: string, label: string, bindings: ('uniform' | 'read' | 'rw')[]) => ({
    label,
    shader: `${SHADERS}_${name}`,
    entry: 'main',
    bindings,
    workgroupSize: wg,
    include: ['common/grid', `${SHADERS}_key${32 * keyWords}`, `${SHADERS}_common`],
    constants: { RADIX_BITS: radixBits, KPT: kpt },
  });
  const [histogram, scan, scatter]: Kernel[] = await Promise.all([
    ctx.kernel(spec('histogram', 'primitives::radixSortHistogram', ['uniform', 'read', 'rw'])),
    ctx.kernel(spec('scan', 'primitives::radixSortScan', ['uniform', 'rw', 'rw'])),
    ctx.kernel(spec('scatter', 'primitives::radixSortScatter', ['uniform', 'read', 'read', 'read', 'read', 'rw', 'rw'])),
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
      throw new InputError(`Expected the keys buffer to hold ${count} keys (${count * 4 * keyWords} bytes), got ${keys.size} bytes.`);
    }
    if (values.size < count * 4) {
      throw new InputError(`Expected the values buffer to hold ${count} values (${count * 4} bytes), got ${values.size} bytes.`);
    }
    const { bitsLo, bitsHi } = resolveBitRange(keyWords, args);
    if (count <= 1 || bitsLo === bitsHi) return;
    const numBlocks = Math.ceil(count / blockKeys);
    let src = { keys, values };
    let dst = { keys: keys2, values: values2 };
    let passes = 0;
    for (let shift = bitsLo; shift < bitsHi; shift += radixBits) {
      const uniforms = [count, shift, Math.min(radixBits, bitsHi - shift), numBlocks];
      rec.dispatch(histogram, { buffers: [src.keys, table], uniforms, groups: numBlocks });
      rec.dispatch(scan, { buffers: [table, totals], uniforms, groups: digits });
      rec.dispatch(scatter, {
        buffers: [src.keys, src.values, table, totals, dst.keys, dst.values],
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
