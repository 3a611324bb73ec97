/**
 * Prefix sums of u32 (wrapping add), exclusive or inclusive. By default reduce-then-scan: Merrill & Garland
 * 2016, "Single-pass Parallel Prefix Scan with Decoupled Look-back" (NVIDIA NVR-2016-002), §3 — the two-pass
 * strategy, which needs no forward progress between workgroups (WebGPU promises none).
 *
 *   upsweep    block g of TILE = WG × ITEMS elements sums itself           → sums[g]
 *   spine      sums is scanned in place the same way (recursively, while it holds more than one block)
 *   downsweep  block g scans itself and adds sums[g]                        → output
 *
 * The input is read twice and the output written once; every level is recorded into the caller's Recorder
 * (no read-back), and the block-sum buffers of all levels are allocated once, in createScanner().
 * `input` and `output` may be the same buffer (an in-place scan).
 *
 * `strategy: 'lookback'` selects the single-pass scan of shaders/primitives/scan_lookback.wgsl instead: their
 * decoupled look-back (§4) with the fallback of Smith, Levien & Owens, "Decoupled Fallback: A Portable
 * Single-Pass GPU Scan" (SPAA 2025), which cannot hang — input read once, output written once. In-place and
 * single-tile scans still take the path above.
 *
 * Above one storage binding (issue 19: more than maxStorageBufferBindingSize / 4 elements, e.g. Borůvka's split
 * path beyond 5.4·10^8 points on the H100) the level-0 upsweep and downsweep go by windows of whole units of
 * A × TILE elements (A = the storage offset alignment in u32, 64), each window bound from its first element and its
 * blocks' sums from its first block (both offsets aligned); the spine scans all windows' block sums at once (they
 * fit: TILE elements a word), so every block gets its global offset. Reduce-then-scan only (the look-back's status
 * words follow the tiles of one dispatch). Where the elements fit one binding nothing changes.
 *
 * This module also holds the block shape shared by reduce.ts and compact.ts.
 */
import type { GpuContext } from '../gpu/context.js';
import type { Bindings, Kernel } from '../gpu/kernel.js';
import type { Binding, Recorder } from '../gpu/recorder.js';
import { InputError } from '../errors.js';

export type ScanMode = 'exclusive' | 'inclusive';

export interface ScannerOptions extends PrimitiveOptions {
  /** 'reduce-then-scan' (default) or 'lookback' (single pass; see the file's comment). */
  strategy?: 'reduce-then-scan' | 'lookback';
  /** Look-back rounds a workgroup waits for a predecessor before reducing its tile itself (default 16). */
  lookbackSpins?: number;
  /**
   * Tests only: 'hide-odd-tiles' makes the look-back's fallback reduce every odd tile; 'aggregates-only' makes
   * it add aggregates back to tile 0. Both give the same (correct) sums, slower.
   */
  lookbackTestMode?: 'hide-odd-tiles' | 'aggregates-only';
}

/** The block shape of the scan, reduce and compact kernels. */
export interface PrimitiveOptions {
  /** Threads per workgroup: a power of two (default 256). */
  workgroupSize?: number;
  /** Elements per thread, 1…32 (default 16, fewer where workgroup memory is short). */
  itemsPerThread?: number;
}

/** Threads per workgroup, elements per thread, and their product: the elements one workgroup handles. */
export interface BlockShape {
  workgroupSize: number;
  itemsPerThread: number;
  tile: number;
}

/** Workgroup memory a scan tile needs: the padded tile plus one word per thread for the workgroup scan. */
function tileBytes(wg: number, items: number): number {
  const t = wg * items;
  return 4 * (t + Math.floor(t / 32) + wg);
}

/** Validates the options against the device's limits and fills in the defaults. */
export function blockShape(ctx: GpuContext, label: string, options: PrimitiveOptions = {}): BlockShape {
  const wg = options.workgroupSize ?? 256;
  const maxWg = Math.min(ctx.limits.maxComputeInvocationsPerWorkgroup, ctx.limits.maxComputeWorkgroupSizeX);
  if (!Number.isInteger(wg) || wg < 1 || (wg & (wg - 1)) !== 0 || wg > maxWg) {
    throw new InputError(`${label}: expected workgroupSize to be a power of two ≤ ${maxWg}, got ${wg}.`);
  }
  const budget = ctx.limits.maxComputeWorkgroupStorageSize;
  let items = options.itemsPerThread;
  if (items === undefined) {
    // 8 items per thread: faster than 16 on large scans (bench/RESULTS.md).
    items = 8;
    while (items > 1 && tileBytes(wg, items) > budget) items >>= 1;
  }
  if (!Number.isInteger(items) || items < 1 || items > 32) {
    throw new InputError(`${label}: expected itemsPerThread to be an integer in 1…32, got ${items}.`);
  }
  if (tileBytes(wg, items) > budget) {
    throw new InputError(
      `${label}: workgroupSize=${wg} × itemsPerThread=${items} needs ${tileBytes(wg, items)} bytes of workgroup ` +
        `memory, more than this device's ${budget}.`,
    );
  }
  return { workgroupSize: wg, itemsPerThread: items, tile: wg * items };
}

/** Shader modules composed before a kernel that scans tiles: the subgroup path where the device has it. */
export function scanIncludes(ctx: GpuContext): { include: string[]; enable: string[] } {
  const sg = ctx.features.subgroups;
  return {
    include: ['common/grid', sg ? 'primitives/scan_wg_subgroup' : 'primitives/scan_wg_shared', 'primitives/scan_tile'],
    enable: sg ? ['subgroups'] : [],
  };
}

/** The first `count` u32 of `buffer` as a binding (at least one word: bindings cannot be empty). */
export function words(buffer: GPUBuffer, count: number): Binding {
  return { buffer, offset: 0, size: Math.max(4, count * 4) };
}

/** Throws unless `count` is an integer in 0…maxCount. */
export function checkCount(label: string, count: number, maxCount: number): void {
  if (!Number.isInteger(count) || count < 0 || count > maxCount) {
    throw new InputError(`${label}: expected count to be an integer in 0…${maxCount} (maxCount), got ${count}.`);
  }
}

/** Throws unless `buffer` holds at least `count` u32 (after `first` words). */
export function checkBuffer(label: string, name: string, buffer: GPUBuffer, count: number, first = 0): void {
  if (buffer.size < (first + count) * 4) {
    throw new InputError(
      `${label}: ${name} '${buffer.label}' holds ${Math.floor(buffer.size / 4)} u32, ` +
        `fewer than the ${first + count} needed.`,
    );
  }
}

/** Throws unless `maxCount` is a non-negative integer whose u32 fit one storage binding. */
export function checkMaxCount(ctx: GpuContext, label: string, maxCount: number): void {
  const limit = Math.floor(ctx.limits.maxStorageBufferBindingSize / 4);
  if (!Number.isInteger(maxCount) || maxCount < 0 || maxCount > limit) {
    throw new InputError(`${label}: expected maxCount to be an integer in 0…${limit}, got ${maxCount}.`);
  }
}

export interface Scanner {
  /** The largest count encode() accepts. */
  readonly maxCount: number;
  readonly shape: BlockShape;
  /**
   * Records the scan of `input[0 … count)` into `output[0 … count)`. `input` and `output` may be the same
   * buffer. Wrapping (mod 2^32) addition.
   */
  encode(rec: Recorder, input: GPUBuffer, output: GPUBuffer, count: number, mode: ScanMode): void;
  /** Frees the block-sum buffers. */
  destroy(): void;
}

const LABEL = 'primitives::scan';
const TEST_MODES = ['none', 'hide-odd-tiles', 'aggregates-only'];
/** The uniform block of scan.wgsl and scan_lookback.wgsl (`Params`). */
const SCAN_PARAMS = { count: 'u32', flags: 'u32', num_groups: 'u32', pad: 'u32' } as const;
/** Bindings of scan.wgsl's three entry points and of scan_lookback.wgsl, by their WGSL names. */
const UPSWEEP = { u: 'uniform', up_src: 'read', up_sums: 'read_write' } as const;
const DOWNSWEEP = { u: 'uniform', down_src: 'read', down_offsets: 'read', down_dst: 'read_write' } as const;
const IN_PLACE = { u: 'uniform', inplace_data: 'read_write', down_offsets: 'read' } as const;
const LOOKBACK = { u: 'uniform', src: 'read', dst: 'read_write', status: 'read_write' } as const;
type ScanKernel<B extends Bindings> = Kernel<B, typeof SCAN_PARAMS>;
const INCLUSIVE = 1;
const HAS_OFFSETS = 2;

/** Creates a scanner for up to `maxCount` elements: compiles its kernels and allocates its block sums. */
export async function createScanner(ctx: GpuContext, maxCount: number, options: ScannerOptions = {}): Promise<Scanner> {
  const shape = blockShape(ctx, LABEL, options);
  const window = windowElements(ctx, shape);
  if (!(Number.isInteger(maxCount) && maxCount >= 0 && maxCount <= 2 ** 32 - 1 && window > 0)) {
    checkMaxCount(ctx, LABEL, maxCount);
  }
  const strategy = options.strategy ?? 'reduce-then-scan';
  if (strategy !== 'reduce-then-scan' && strategy !== 'lookback') {
    throw new InputError(`${LABEL}: expected strategy 'reduce-then-scan' or 'lookback', got '${String(strategy)}'.`);
  }
  const spins = options.lookbackSpins ?? 16;
  if (!Number.isInteger(spins) || spins < 0) {
    throw new InputError(`${LABEL}: expected lookbackSpins to be a non-negative integer, got ${spins}.`);
  }
  const { include, enable } = scanIncludes(ctx);
  const base = {
    shader: 'primitives/scan',
    workgroupSize: shape.workgroupSize,
    include,
    enable,
    constants: { ITEMS: shape.itemsPerThread },
    uniforms: SCAN_PARAMS,
  };
  // All of them compiling at once (issue 17 §5).
  const [upsweep, downsweep, inPlace, lookbackKernel] = await Promise.all([
    ctx.kernel({ ...base, label: 'primitives::scanUpsweep', entry: 'upsweep', bindings: UPSWEEP }),
    ctx.kernel({ ...base, label: 'primitives::scanDownsweep', entry: 'downsweep', bindings: DOWNSWEEP }),
    ctx.kernel({ ...base, label: 'primitives::scanDownsweepInPlace', entry: 'downsweep_in_place', bindings: IN_PLACE }),
    strategy === 'lookback'
      ? ctx.kernel({
          ...base,
          shader: 'primitives/scan_lookback',
          label: 'primitives::scanLookback',
          entry: 'single_pass',
          bindings: LOOKBACK,
          overrides: { MAX_SPIN: spins, TEST_MODE: TEST_MODES.indexOf(options.lookbackTestMode ?? 'none') },
        })
      : null,
  ]);
  let lookback: { kernel: ScanKernel<typeof LOOKBACK>; status: GPUBuffer } | null = null;
  if (lookbackKernel) {
    const kernel = lookbackKernel;
    // The tile counter, then four status words per tile.
    const status = ctx.createBuffer('primitives::scanLookbackStatus', 4 + 16 * Math.ceil(maxCount / shape.tile));
    lookback = { kernel, status };
  }
  // Level l holds the block sums of level l's input (level 0's input is the caller's).
  const sums: GPUBuffer[] = [];
  for (let n = maxCount; n > shape.tile;) {
    n = Math.ceil(n / shape.tile);
    sums.push(ctx.createBuffer(`primitives::scanBlockSums${sums.length}`, n * 4));
  }
  const noOffsets = ctx.createBuffer('primitives::scanNoOffsets', 4);
  const fits = Math.floor(ctx.limits.maxStorageBufferBindingSize / 4);
  return new ScannerImpl(maxCount, shape, { upsweep, downsweep, inPlace }, sums, noOffsets, lookback, fits, window);
}

/**
 * Elements per window of a scan above one binding: the most whole units of (offset alignment / 4) × TILE elements
 * within one binding's u32, so that each window's elements and its blocks' sums start at accepted offsets; 0 where
 * not even one unit fits (then a scan takes at most one binding's elements).
 */
function windowElements(ctx: GpuContext, shape: BlockShape): number {
  const unit = (Math.max(ctx.limits.minStorageBufferOffsetAlignment, 4) / 4) * shape.tile;
  return Math.floor(Math.floor(ctx.limits.maxStorageBufferBindingSize / 4) / unit) * unit;
}

class ScannerImpl implements Scanner {
  constructor(
    readonly maxCount: number,
    readonly shape: BlockShape,
    private readonly kernels: {
      upsweep: ScanKernel<typeof UPSWEEP>;
      downsweep: ScanKernel<typeof DOWNSWEEP>;
      inPlace: ScanKernel<typeof IN_PLACE>;
    },
    private readonly sums: GPUBuffer[],
    private readonly noOffsets: GPUBuffer,
    private readonly lookback: { kernel: ScanKernel<typeof LOOKBACK>; status: GPUBuffer } | null,
    /** Elements of one binding, and of one window above it (windowElements). */
    private readonly fits: number,
    private readonly window: number,
  ) {}

  encode(rec: Recorder, input: GPUBuffer, output: GPUBuffer, count: number, mode: ScanMode): void {
    checkCount(LABEL, count, this.maxCount);
    if (mode !== 'exclusive' && mode !== 'inclusive') {
      throw new InputError(`${LABEL}: expected mode 'exclusive' or 'inclusive', got '${String(mode)}'.`);
    }
    checkBuffer(LABEL, 'input', input, count);
    checkBuffer(LABEL, 'output', output, count);
    const flags = mode === 'inclusive' ? INCLUSIVE : 0;
    const tiles = Math.ceil(count / this.shape.tile);
    if (count > this.fits) {
      this.encodeWindows(rec, input, output, count, flags);
    } else if (this.lookback && tiles > 1 && input !== output) {
      const { kernel, status } = this.lookback;
      rec.clear(status, 0, 4 + 16 * tiles);
      rec.dispatch(kernel, {
        buffers: {
          src: words(input, count),
          dst: words(output, count),
          status: { buffer: status, offset: 0, size: 4 + 16 * tiles },
        },
        uniforms: { count, flags, num_groups: tiles },
        groups: tiles,
      });
    } else if (count > 0) {
      this.encodeLevel(rec, input, output, count, flags, 0);
    }
  }

  /** Level 0 by windows (the file's header): every window's upsweep, the spine over all blocks, every downsweep. */
  private encodeWindows(rec: Recorder, input: GPUBuffer, output: GPUBuffer, count: number, flags: number): void {
    const tile = this.shape.tile;
    const sums = this.sums[0];
    const cuts: { first: number; count: number; block: number; blocks: number }[] = [];
    for (let first = 0; first < count; first += this.window) {
      const c = Math.min(this.window, count - first);
      cuts.push({ first, count: c, block: first / tile, blocks: Math.ceil(c / tile) });
    }
    const range = (buffer: GPUBuffer, first: number, n: number): Binding => ({
      buffer,
      offset: 4 * first,
      size: 4 * n,
    });
    for (const w of cuts) {
      rec.dispatch(this.kernels.upsweep, {
        buffers: { up_src: range(input, w.first, w.count), up_sums: range(sums, w.block, w.blocks) },
        uniforms: { count: w.count, num_groups: w.blocks },
        groups: w.blocks,
      });
    }
    this.encodeLevel(rec, sums, sums, Math.ceil(count / tile), 0, 1);
    for (const w of cuts) {
      const uniforms = { count: w.count, flags: flags | HAS_OFFSETS, num_groups: w.blocks };
      const offsets = range(sums, w.block, w.blocks);
      if (input === output) {
        rec.dispatch(this.kernels.inPlace, {
          buffers: { inplace_data: range(input, w.first, w.count), down_offsets: offsets },
          uniforms,
          groups: w.blocks,
        });
      } else {
        rec.dispatch(this.kernels.downsweep, {
          buffers: {
            down_src: range(input, w.first, w.count),
            down_offsets: offsets,
            down_dst: range(output, w.first, w.count),
          },
          uniforms,
          groups: w.blocks,
        });
      }
    }
  }

  /** Scans `count` elements of level `level`; the spine (level + 1) scans this level's block sums. */
  private encodeLevel(
    rec: Recorder,
    input: GPUBuffer,
    output: GPUBuffer,
    count: number,
    flags: number,
    level: number,
  ): void {
    const blocks = Math.ceil(count / this.shape.tile);
    let offsets = this.noOffsets;
    if (blocks > 1) {
      offsets = this.sums[level];
      rec.dispatch(this.kernels.upsweep, {
        buffers: { up_src: words(input, count), up_sums: words(offsets, blocks) },
        uniforms: { count, num_groups: blocks },
        groups: blocks,
      });
      this.encodeLevel(rec, offsets, offsets, blocks, 0, level + 1);
      flags |= HAS_OFFSETS;
    }
    const uniforms = { count, flags, num_groups: blocks };
    if (input === output) {
      rec.dispatch(this.kernels.inPlace, {
        buffers: { inplace_data: words(input, count), down_offsets: words(offsets, blocks) },
        uniforms,
        groups: blocks,
      });
    } else {
      rec.dispatch(this.kernels.downsweep, {
        buffers: {
          down_src: words(input, count),
          down_offsets: words(offsets, blocks),
          down_dst: words(output, count),
        },
        uniforms,
        groups: blocks,
      });
    }
  }

  destroy(): void {
    for (const b of this.sums) b.destroy();
    this.sums.length = 0;
    this.noOffsets.destroy();
    this.lookback?.status.destroy();
  }
}

/** Scans `data` on the GPU (upload, scan in place, read back, free): a convenience over createScanner(). */
export async function scanU32(ctx: GpuContext, data: Uint32Array, mode: ScanMode): Promise<Uint32Array> {
  if (data.length === 0) return new Uint32Array(0);
  const scanner = await createScanner(ctx, data.length);
  const buffer = ctx.upload('primitives::scanData', data);
  try {
    await ctx.submit(LABEL, (rec) => scanner.encode(rec, buffer, buffer, data.length, mode));
    return new Uint32Array(await ctx.read(buffer, 0, data.length * 4));
  } finally {
    buffer.destroy();
    scanner.destroy();
  }
}
