/**
 * The gather of a per-point u32 array into Morton order, out[j] = src[order[j]] (emst/gather.wgsl): the squared core
 * distances for mutual-reachability Borůvka (pipeline.ts). The first kernel bound through gpu/bigarray.ts both ways
 * (issue 19): `order` and `out` by windows, one dispatch each, and `src`, read at any index, in parts through the
 * generated src_get — so n may exceed what one binding holds. Below one binding (every n up to 5.4·10^8 on the H100)
 * it is one window and one part: the bindings and dispatch of a plain kernel.
 */
import type { GpuContext } from '../gpu/context.js';
import type { Kernel } from '../gpu/kernel.js';
import type { Recorder } from '../gpu/recorder.js';
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

const UNIFORMS = { n: 'u32', p0: 'u32', p1: 'u32', p2: 'u32' } as const;

export interface GatherArgs {
  /** n u32: the Morton order (leaf j is point order[j]). */
  order: GPUBuffer;
  /** The per-point array in point order (≥ n u32). */
  src: GPUBuffer;
  /** n u32 written: out[j] = src[order[j]]. */
  out: GPUBuffer;
  n: number;
}

export interface Gatherer {
  /** The largest n encode() takes. */
  readonly maxN: number;
  /** How `src` is bound: parts of this many elements. */
  readonly parts: BigArrayParts;
  /** Records the gather (one dispatch per window of order and out). */
  encode(rec: Recorder, args: GatherArgs): void;
  destroy(): void;
}

/**
 * Compiles the gather for up to maxN points on this device (`partElements`: fewer elements per part of src, for
 * tests; `maxWindow`: fewer elements per window of order and out).
 */
export async function createGatherer(
  ctx: GpuContext,
  maxN: number,
  options: { partElements?: number; maxWindow?: number } = {},
): Promise<Gatherer> {
  const parts = bigArrayParts(ctx.limits, Math.max(maxN, 1), 4, options.partElements);
  const slots = parts.parts;
  // The uniform and order and out, then src's slots: within the device's storage buffers per stage.
  const most = ctx.limits.maxStorageBuffersPerShaderStage - 2;
  if (slots > most) {
    throw new InputError(
      `emst::gather: ${maxN} points need ${slots} bindings of ${parts.partElements} core distances; this device binds ${most} beside the others.`,
    );
  }
  const src =
    slots === 1 ? { src: 'read' } : Object.fromEntries(Array.from({ length: slots }, (_, i) => [`src${i}`, 'read']));
  const kernel = (await ctx.kernel({
    label: 'emst::gather',
    shader: 'emst/gather',
    entry: 'main',
    bindings: { g: 'uniform', order: 'read', out: 'read_write', ...src },
    uniforms: UNIFORMS,
    workgroupSize: 256,
    generated: [
      bigArrayWgsl({ name: 'src', type: 'u32', access: 'read', binding: 3, slots, partElements: parts.partElements }),
    ],
  })) as Kernel<Record<string, 'uniform' | 'read' | 'read_write'>, typeof UNIFORMS>;
  const unused = slots > 1 ? createUnusedParts(ctx, 'emst::gather', slots) : null;
  return {
    maxN,
    parts,
    encode(rec, { order, src: from, out, n }) {
      if (!Number.isInteger(n) || n < 0 || n > maxN) {
        throw new InputError(`emst::gather: expected n to be an integer in [0, ${maxN}], got ${n}.`);
      }
      const srcs = partBindings(
        ctx.limits,
        'src',
        from,
        4,
        n,
        { ...parts, parts: Math.max(1, Math.ceil(n / parts.partElements)) },
        slots,
        unused ?? from,
      );
      for (const w of windows(ctx.limits, n, [4, 4], options.maxWindow)) {
        rec.dispatch(kernel, {
          buffers: {
            order: windowBinding(ctx.limits, order, 4, w),
            out: windowBinding(ctx.limits, out, 4, w),
            ...srcs,
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
