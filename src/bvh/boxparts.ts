/**
 * Binding the BVH's box array as BOX_PARTS ranges (layout.ts, "Box parts"), for every kernel that reads or writes
 * boxes: `const parts = createBoxParts(ctx, dim, override)`, then `parts.bind(bvh.boxes, n)` gives the three
 * bindings and `parts.constants` the WGSL constant BOX_PART_WORDS. Owns the small buffer unused parts bind to.
 */
import type { GpuContext } from '../gpu/context.js';
import type { Binding } from '../gpu/recorder.js';
import { InputError } from '../errors.js';
import { BOX_PART_ALIGN, BOX_PARTS, boxPartRecords, boxRecords, boxWords, pointsForBoxRecords } from './layout.js';

export interface BoxParts {
  /** Records per part. */
  readonly records: number;
  /** The largest point count whose records fit in BOX_PARTS parts. */
  readonly maxPoints: number;
  /**
   * The kernel's constants: BOX_PART_WORDS, and BOX_MULTI = 0 when every BVH these kernels will see fits the first
   * part (the multi-part code is then compiled out: its branch slows the EMST, bench/RESULTS.md).
   */
  readonly constants: { BOX_PART_WORDS: number; BOX_MULTI: number };
  /** The BOX_PARTS bindings of the records of an n-point BVH's `boxes` buffer (boxRecords(n) = max(n − 1, 1) records). */
  bind(boxes: GPUBuffer, n: number): Binding[];
  destroy(): void;
}

/**
 * Box parts for `dim`-dimensional BVHs on this device; `partRecords` overrides the records per part (tests use a
 * small value to exercise several parts with few points); `maxPoints`, when known, compiles the multi-part reads
 * out if every BVH fits one part.
 */
export function createBoxParts(ctx: GpuContext, dim: number, partRecords?: number, maxPoints?: number): BoxParts {
  const records = partRecords ?? boxPartRecords(ctx.limits.maxStorageBufferBindingSize, dim);
  if (!Number.isInteger(records) || records < BOX_PART_ALIGN || records % BOX_PART_ALIGN !== 0) {
    throw new InputError(`Expected boxPartRecords to be a positive multiple of ${BOX_PART_ALIGN}, got ${partRecords}.`);
  }
  const recordBytes = 4 * boxWords(dim);
  if (records * recordBytes > ctx.limits.maxStorageBufferBindingSize) {
    throw new InputError(
      `boxPartRecords=${records} exceeds this device's binding size (${ctx.limits.maxStorageBufferBindingSize} bytes).`,
    );
  }
  const unused = ctx.createBuffer('bvh::boxesUnused', 512);
  const multi = maxPoints === undefined || boxRecords(maxPoints) > records;
  const limit = pointsForBoxRecords(multi ? BOX_PARTS * records : records);
  return {
    records,
    maxPoints: limit,
    constants: { BOX_PART_WORDS: records * boxWords(dim), BOX_MULTI: multi ? 1 : 0 },
    bind(boxes, n) {
      if (n > limit) throw new InputError(boxLimitMessage(n, dim, limit, ctx));
      const out: Binding[] = [];
      for (let i = 0; i < BOX_PARTS; i++) {
        const first = i * records;
        const end = Math.min(boxRecords(n), first + records);
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
export function boxLimitMessage(n: number, dim: number, maxPoints: number, ctx: GpuContext): string {
  return (
    `A BVH of ${n} points in ${dim} dimensions needs ${4 * boxWords(dim) * boxRecords(n)} bytes of boxes; this device binds at most ` +
    `${ctx.limits.maxStorageBufferBindingSize} bytes per binding, so ${BOX_PARTS} parts hold at most ${maxPoints} points.`
  );
}
