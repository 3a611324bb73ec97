/**
 * Binding the BVH's box array as BOX_PARTS ranges (layout.ts, "Box parts"), for every kernel that reads or writes
 * boxes: `const parts = createBoxParts(ctx, dim, override)`, then `parts.bind(bvh.boxes, n)` gives the three
 * bindings and `parts.constants` the WGSL constant BOX_PART_WORDS. Owns the small buffer unused parts bind to.
 */
import type { GpuContext } from '../gpu/context.js';
import type { Binding } from '../gpu/recorder.js';
import { InputError } from '../errors.js';
import {
  BOX_PARTS,
  boxArrayRecords,
  boxPartAlign,
  boxPartRecords,
  boxRecordWords,
  pointsForBoxRecords,
  type BoxFormat,
} from './layout.js';

export interface BoxParts {
  /** Records per part. */
  readonly records: number;
  /** The largest point count whose records fit in BOX_PARTS parts. */
  readonly maxPoints: number;
  /**
   * The kernel's constants: BOX_PART_WORDS, and BOX_MULTI = 0 when every BVH these kernels will see fits the first
   * part (the multi-part code is then compiled out: its branch slows the EMST, bench/RESULTS.md); the box format's
   * BOX16 (1: u16) and BOXW (u32 words a record; bvh/boxget.wgsl).
   */
  readonly constants: { BOX_PART_WORDS: number; BOX_MULTI: number; BOX16: number; BOXW: number };
  /** The box format these parts bind. */
  readonly format: BoxFormat;
  /**
   * The BOX_PARTS bindings of the records of an n-point BVH's `boxes` buffer (boxArrayRecords(n): max(n − 1, 1)
   * records, and the u16 format's two frame records).
   */
  bind(boxes: GPUBuffer, n: number): Binding[];
  destroy(): void;
}

/**
 * Box parts for `dim`-dimensional BVHs with `format` boxes on this device; `partRecords` overrides the records per
 * part (tests use a small value to exercise several parts with few points); `maxPoints`, when known, compiles the
 * multi-part reads out if every BVH fits one part.
 */
export function createBoxParts(
  ctx: GpuContext,
  dim: number,
  partRecords?: number,
  maxPoints?: number,
  format: BoxFormat = 'f32',
): BoxParts {
  const records = partRecords ?? boxPartRecords(ctx.limits.maxStorageBufferBindingSize, dim, format);
  const align = boxPartAlign(format);
  if (!Number.isInteger(records) || records < align || records % align !== 0) {
    throw new InputError(
      `Expected boxPartRecords to be a positive multiple of ${align} (${format} boxes), got ${partRecords}.`,
    );
  }
  const recordBytes = 4 * boxRecordWords(dim, format);
  if (records * recordBytes > ctx.limits.maxStorageBufferBindingSize) {
    throw new InputError(
      `boxPartRecords=${records} exceeds this device's binding size (${ctx.limits.maxStorageBufferBindingSize} bytes).`,
    );
  }
  const unused = ctx.createBuffer('bvh::boxesUnused', 512);
  const multi = maxPoints === undefined || boxArrayRecords(maxPoints, format) > records;
  const limit = pointsForBoxRecords(multi ? BOX_PARTS * records : records, format);
  const words = boxRecordWords(dim, format);
  return {
    records,
    maxPoints: limit,
    format,
    constants: {
      BOX_PART_WORDS: records * words,
      BOX_MULTI: multi ? 1 : 0,
      BOX16: format === 'u16' ? 1 : 0,
      BOXW: words,
    },
    bind(boxes, n) {
      if (n > limit) throw new InputError(boxLimitMessage(n, dim, limit, ctx, format));
      const out: Binding[] = [];
      for (let i = 0; i < BOX_PARTS; i++) {
        const first = i * records;
        const end = Math.min(boxArrayRecords(n, format), first + records);
        if (end > first) out.push({ buffer: boxes, offset: first * recordBytes, size: (end - first) * recordBytes });
        else out.push({ buffer: unused, offset: 256 * (i - 1), size: 256 });
      }
      return out;
    },
    destroy() {
      unused.destroy();
    },
  };
}

/** The error for a BVH too large for this device's bindings, naming the limit. */
export function boxLimitMessage(
  n: number,
  dim: number,
  maxPoints: number,
  ctx: GpuContext,
  format: BoxFormat = 'f32',
): string {
  return (
    `A BVH of ${n} points in ${dim} dimensions needs ${4 * boxRecordWords(dim, format) * boxArrayRecords(n, format)} bytes of ${format} boxes; this device binds at most ` +
    `${ctx.limits.maxStorageBufferBindingSize} bytes per binding, so ${BOX_PARTS} parts hold at most ${maxPoints} points.`
  );
}
