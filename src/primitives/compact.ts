/**
 * Stable stream compaction: keeps values[i] where flags[i] != 0, in order, and writes how many were kept to a
 * GPU buffer (so that later work can size an indirect dispatch without a read-back). Reduce-then-scan over
 * the flags (Merrill & Garland 2016, NVR-2016-002, §3) with the scatter fused into the downsweep:
 *
 *   count    block g counts its non-zero flags                  → counts[g]
 *   spine    counts is scanned in place (exclusive) by a Scanner → block offsets
 *   scatter  block g ranks its kept elements and writes them at offset + rank; the last block writes the total
 *
 * Flags and values are read once each (flags twice), kept values written once; no index array is stored.
 * `out` must be neither `values` nor `flags`; `values` and `flags` may be the same buffer.
 */
import type { GpuContext } from '../gpu/context.js';
import type { Kernel } from '../gpu/kernel.js';
import type { Recorder } from '../gpu/recorder.js';
import { InputError } from '../errors.js';
import {
  blockShape,
  checkBuffer,
  checkCount,
  checkMaxCount,
  createScanner,
  scanIncludes,
  words,
  type BlockShape,
  type PrimitiveOptions,
  type Scanner,
} from './scan.js';

export interface Compactor {
  /** The largest count encode() accepts. */
  readonly maxCount: number;
  readonly shape: BlockShape;
  /**
   * Records the compaction of `values[0 … count)` by `flags[0 … count)` into `out` (which must hold `count`
   * u32) and writes the number kept to `countOut[0]`.
   */
  encode(rec: Recorder, values: GPUBuffer, flags: GPUBuffer, out: GPUBuffer, countOut: GPUBuffer, count: number): void;
  /** Frees the block counts and the spine scanner. */
  destroy(): void;
}

const LABEL = 'primitives::compact';
const HAS_OFFSETS = 2;
/** compact.wgsl's uniform block (`Params`) and its two entry points' bindings, by their WGSL names. */
const COMPACT_PARAMS = { count: 'u32', flags: 'u32', num_groups: 'u32', pad: 'u32' } as const;
const COUNT = { u: 'uniform', count_flags: 'read', count_counts: 'read_write' } as const;
const SCATTER = {
  u: 'uniform',
  values: 'read',
  flags: 'read',
  offsets: 'read',
  out: 'read_write',
  count_out: 'read_write',
} as const;

/** Creates a compactor for up to `maxCount` elements: compiles its kernels and allocates its block counts. */
export async function createCompactor(
  ctx: GpuContext,
  maxCount: number,
  options: PrimitiveOptions = {},
): Promise<Compactor> {
  checkMaxCount(ctx, LABEL, maxCount);
  const shape = blockShape(ctx, LABEL, options);
  const { include, enable } = scanIncludes(ctx);
  const base = {
    shader: 'primitives/compact',
    workgroupSize: shape.workgroupSize,
    include,
    enable,
    constants: { ITEMS: shape.itemsPerThread },
    uniforms: COMPACT_PARAMS,
  };
  const maxBlocks = Math.ceil(maxCount / shape.tile);
  const [countKernel, scatter, spine] = await Promise.all([
    ctx.kernel({ ...base, label: 'primitives::compactCount', entry: 'count', bindings: COUNT }),
    ctx.kernel({ ...base, label: 'primitives::compactScatter', entry: 'scatter', bindings: SCATTER }),
    createScanner(ctx, maxBlocks, options),
  ]);
  const counts = ctx.createBuffer('primitives::compactBlockCounts', maxBlocks * 4);
  return new CompactorImpl(maxCount, shape, countKernel, scatter, spine, counts);
}

class CompactorImpl implements Compactor {
  constructor(
    readonly maxCount: number,
    readonly shape: BlockShape,
    private readonly countKernel: Kernel<typeof COUNT, typeof COMPACT_PARAMS>,
    private readonly scatter: Kernel<typeof SCATTER, typeof COMPACT_PARAMS>,
    private readonly spine: Scanner,
    private readonly counts: GPUBuffer,
  ) {}

  encode(rec: Recorder, values: GPUBuffer, flags: GPUBuffer, out: GPUBuffer, countOut: GPUBuffer, count: number): void {
    checkCount(LABEL, count, this.maxCount);
    checkBuffer(LABEL, 'values', values, count);
    checkBuffer(LABEL, 'flags', flags, count);
    checkBuffer(LABEL, 'out', out, count);
    checkBuffer(LABEL, 'countOut', countOut, 1);
    for (const b of [values, flags, countOut]) {
      if (b === out) throw new InputError(`${LABEL}: the output buffer '${out.label}' must not also be an input.`);
    }
    if (countOut === values || countOut === flags) {
      throw new InputError(`${LABEL}: countOut '${countOut.label}' must not also be an input.`);
    }
    if (count === 0) {
      rec.clear(countOut, 0, 4);
      return;
    }
    const blocks = Math.ceil(count / this.shape.tile);
    let flagBits = 0;
    if (blocks > 1) {
      rec.dispatch(this.countKernel, {
        buffers: { count_flags: words(flags, count), count_counts: words(this.counts, blocks) },
        uniforms: { count, num_groups: blocks },
        groups: blocks,
      });
      this.spine.encode(rec, this.counts, this.counts, blocks, 'exclusive');
      flagBits = HAS_OFFSETS;
    }
    rec.dispatch(this.scatter, {
      buffers: {
        values: words(values, count),
        flags: words(flags, count),
        offsets: words(this.counts, blocks),
        out: words(out, count),
        count_out: words(countOut, 1),
      },
      uniforms: { count, flags: flagBits, num_groups: blocks },
      groups: blocks,
    });
  }

  destroy(): void {
    this.spine.destroy();
    this.counts.destroy();
  }
}

/** Compacts `values` by `flags` on the GPU (upload, compact, read back, free): a convenience over createCompactor(). */
export async function compact(ctx: GpuContext, values: Uint32Array, flags: Uint32Array): Promise<Uint32Array> {
  if (flags.length !== values.length) {
    throw new InputError(
      `${LABEL}: expected flags.length to equal values.length=${values.length}, got ${flags.length}.`,
    );
  }
  const n = values.length;
  const compactor = await createCompactor(ctx, n);
  const v = ctx.upload('primitives::compactValues', values);
  const f = ctx.upload('primitives::compactFlags', flags);
  const out = ctx.createBuffer('primitives::compactOut', n * 4);
  const kept = ctx.createBuffer('primitives::compactCount', 4);
  try {
    await ctx.submit(LABEL, (rec) => compactor.encode(rec, v, f, out, kept, n));
    const k = new Uint32Array(await ctx.read(kept, 0, 4))[0];
    return new Uint32Array(await ctx.read(out, 0, k * 4));
  } finally {
    for (const b of [v, f, out, kept]) b.destroy();
    compactor.destroy();
  }
}
