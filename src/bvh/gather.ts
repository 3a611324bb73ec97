/**
 * The BVH build's gather of the points into Morton order, sorted[j] = points[order[j]] (bvh/gather.wgsl; stage 3
 * of lbvh.ts). Bound through gpu/bigarray.ts both ways (issue 19): `order` and `sorted` by windows, one dispatch
 * each, and `points`, read at any index, in parts of whole words through the generated points_get. Where the points
 * fit one binding it is one window and one part: the bindings and dispatch of a plain kernel.
 */
import type { GpuContext } from '../gpu/context.js';
import type { Kernel } from '../gpu/kernel.js';
import type { Binding, Recorder } from '../gpu/recorder.js';
import {
  bigArrayParts,
  bigArrayWgsl,
  createUnusedParts,
  partBindings,
  windowBinding,
  windows,
  type BigArrayParts,
} from '../gpu/bigarray.js';
import { InputError } from '../errors.js';

const UNIFORMS = { n: 'u32', pad0: 'u32', pad1: 'u32', pad2: 'u32' } as const;

export interface PointGatherArgs {
  /** n × dim f32 in point order (a buffer, or a range of one from its start). */
  points: Binding;
  /** n u32: leaf j is point order[j]. */
  order: GPUBuffer;
  /** n × dim f32 written in Morton order. */
  sorted: GPUBuffer;
  n: number;
}

export interface PointGatherer {
  /** How `points` is bound: parts of this many words. */
  readonly parts: BigArrayParts;
  encode(rec: Recorder, args: PointGatherArgs): void;
  destroy(): void;
}

/**
 * The points' parts for a kernel that binds them beside two other arrays (bvh::gather, bvh::scatter): words per
 * part, how many, and their binding names (`points`, or `points0`…); an InputError naming `label` where the device
 * binds too few.
 */
export function pointBindings(
  ctx: GpuContext,
  label: string,
  maxCount: number,
  dim: number,
  partElements?: number,
): { parts: BigArrayParts; slots: number; names: string[] } {
  const parts = bigArrayParts(ctx.limits, Math.max(maxCount * dim, 1), 4, partElements);
  const slots = parts.parts;
  const most = ctx.limits.maxStorageBuffersPerShaderStage - 2;
  if (slots > most) {
    throw new InputError(
      `${label}: ${maxCount} points of ${dim} coordinates need ${slots} bindings of ${parts.partElements} words; this device binds ${most} beside the others.`,
    );
  }
  const names = slots === 1 ? ['points'] : Array.from({ length: slots }, (_, i) => `points${i}`);
  return { parts, slots, names };
}

/**
 * Compiles the gather for up to maxCount points of `dim` coordinates (`constants`: added to the kernel's, as the
 * builder's other kernels have them; `partElements` / `maxWindow`: smaller parts (words) and windows (points), tests).
 */
export async function createPointGatherer(
  ctx: GpuContext,
  maxCount: number,
  dim: number,
  options: {
    workgroupSize?: number;
    constants?: Record<string, number>;
    partElements?: number;
    maxWindow?: number;
  } = {},
): Promise<PointGatherer> {
  const { parts, slots, names } = pointBindings(ctx, 'bvh::gather', maxCount, dim, options.partElements);
  const kernel = (await ctx.kernel({
    label: 'bvh::gather',
    shader: 'bvh/gather',
    entry: 'main',
    bindings: {
      gp: 'uniform',
      order: 'read',
      sorted: 'read_write',
      ...Object.fromEntries(names.map((n) => [n, 'read'])),
    },
    uniforms: UNIFORMS,
    workgroupSize: options.workgroupSize ?? 256,
    include: ['common/grid', 'bvh/floatorder'],
    constants: { D: dim, ...(options.constants ?? {}) },
    generated: [
      bigArrayWgsl({
        name: 'points',
        type: 'u32',
        access: 'read',
        binding: 3,
        slots,
        partElements: parts.partElements,
      }),
    ],
  })) as Kernel<Record<string, 'uniform' | 'read' | 'read_write'>, typeof UNIFORMS>;
  const unused = slots > 1 ? createUnusedParts(ctx, 'bvh::gather', slots) : null;
  const pointBytes = 4 * dim;
  return {
    parts,
    encode(rec, { points, order, sorted, n }) {
      if (!Number.isInteger(n) || n < 0 || n > maxCount) {
        throw new InputError(`bvh::gather: expected n to be an integer in [0, ${maxCount}], got ${n}.`);
      }
      const words = n * dim;
      const used = { ...parts, parts: Math.max(1, Math.ceil(words / parts.partElements)) };
      const from = partBindings(ctx.limits, 'points', points, 4, words, used, slots, unused ?? order);
      for (const w of windows(ctx.limits, n, [4, pointBytes], options.maxWindow)) {
        rec.dispatch(kernel, {
          buffers: {
            order: windowBinding(ctx.limits, order, 4, w),
            sorted: windowBinding(ctx.limits, sorted, pointBytes, w),
            ...from,
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
