/**
 * The scatter of points out of Morton order, points[order[j]] = sorted[j] (bvh/scatter.wgsl; CPU twin
 * scatter.cpu.ts): the inverse of the build's gather (gather.ts). An in-place build (lbvh.ts, allocateBvh's
 * `inPlace`; issue 19's memory) leaves the caller's points in Morton order; `restore` puts them back, bit for bit,
 * through a scratch buffer of at least n × dim words (the BVH's boxes once nothing reads them: 8·dim bytes for each
 * of n − 1 records). Bound through gpu/bigarray.ts as the gather is (issue 19): `order` and the scratch by windows,
 * one dispatch each, and `points`, written at any index, in parts of whole words through the generated points_set.
 * Where the points fit one binding it is one window and one part: the bindings and dispatch of a plain kernel.
 */
import type { GpuContext } from '../gpu/context.js';
import type { Kernel } from '../gpu/kernel.js';
import type { Recorder } from '../gpu/recorder.js';
import {
  bigArrayWgsl,
  createUnusedParts,
  partBindings,
  windowBinding,
  windows,
  type BigArrayParts,
} from '../gpu/bigarray.js';
import { InputError } from '../errors.js';
import { pointBindings } from './gather.js';

const UNIFORMS = { n: 'u32', pad0: 'u32', pad1: 'u32', pad2: 'u32' } as const;

export interface RestoreArgs {
  /** n × dim f32 in Morton order, written back in point order (the whole buffer). */
  points: GPUBuffer;
  /** n u32: leaf j is point order[j]. */
  order: GPUBuffer;
  /** ≥ 4·n·dim bytes whose contents are dead: the Morton-order copy goes there first. */
  scratch: GPUBuffer;
  n: number;
}

export interface PointScatterer {
  readonly dim: number;
  /** How `points` is bound: parts of this many words. */
  readonly parts: BigArrayParts;
  /** Records the copy of the points into the scratch and the scatter back (no submit). */
  restore(rec: Recorder, args: RestoreArgs): void;
  destroy(): void;
}

/**
 * Compiles the scatter for up to maxCount points of `dim` words (`partElements` / `maxWindow`: smaller parts (words)
 * and windows (points), tests).
 */
export async function createPointScatterer(
  ctx: GpuContext,
  maxCount: number,
  dim: number,
  options: { partElements?: number; maxWindow?: number } = {},
): Promise<PointScatterer> {
  const { parts, slots, names } = pointBindings(ctx, 'bvh::scatter', maxCount, dim, options.partElements);
  const kernel = (await ctx.kernel({
    label: 'bvh::scatter',
    shader: 'bvh/scatter',
    entry: 'main',
    bindings: {
      sp: 'uniform',
      order: 'read',
      sorted: 'read',
      ...Object.fromEntries(names.map((n) => [n, 'read_write'])),
    },
    uniforms: UNIFORMS,
    workgroupSize: 256,
    include: ['common/grid'],
    constants: { D: dim },
    generated: [
      bigArrayWgsl({
        name: 'points',
        type: 'u32',
        access: 'read_write',
        binding: 3,
        slots,
        partElements: parts.partElements,
      }),
    ],
  })) as Kernel<Record<string, 'uniform' | 'read' | 'read_write'>, typeof UNIFORMS>;
  const unused = slots > 1 ? createUnusedParts(ctx, 'bvh::scatter', slots) : null;
  const pointBytes = 4 * dim;
  return {
    dim,
    parts,
    restore(rec, { points, order, scratch, n }) {
      const bytes = pointBytes * n;
      if (!Number.isInteger(n) || n < 0 || n > maxCount) {
        throw new InputError(`bvh::scatter: expected n to be an integer in [0, ${maxCount}], got ${n}.`);
      }
      if (points.size < bytes || scratch.size < bytes || order.size < 4 * n) {
        throw new InputError(
          `bvh::scatter: expected ${n} points of ${dim} words (${bytes} bytes in the points and the scratch, ${4 * n} in the order), got ${points.size}, ${scratch.size} and ${order.size}.`,
        );
      }
      if (n === 0) return;
      rec.copy(points, 0, scratch, 0, bytes);
      const words = n * dim;
      const used = { ...parts, parts: Math.max(1, Math.ceil(words / parts.partElements)) };
      const to = partBindings(ctx.limits, 'points', points, 4, words, used, slots, unused ?? order);
      for (const w of windows(ctx.limits, n, [4, pointBytes], options.maxWindow)) {
        rec.dispatch(kernel, {
          buffers: {
            order: windowBinding(ctx.limits, order, 4, w),
            sorted: windowBinding(ctx.limits, { buffer: scratch, offset: 0, size: bytes }, pointBytes, w),
            ...to,
          },
          uniforms: { n: w.count },
          threads: w.count,
        });
      }
    },
    destroy() {
      unused?.destroy();
    },
  };
}
