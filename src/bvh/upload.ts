/**
 * Uploads a BVH built by the CPU twin (lbvh.cpu.ts) into GPU buffers of the same layout, for traversals tested or
 * benchmarked apart from the GPU build. The boxes go up in `format` (layout.ts, boxFormatFor): the twin's f32 boxes,
 * or those quantised as the GPU build quantises them (box.cpu.ts).
 */
import type { GpuContext } from '../gpu/context.js';
import type { BvhCpu } from './lbvh.cpu.js';
import type { BvhBuffers } from './lbvh.js';
import { boxFormatFor, boxRecords, boxWords, linkWords, minIndexWords, rangeOthers, type BoxFormat } from './layout.js';
import { quantiseBoxesCpu } from './box.cpu.js';

export function uploadBvhCpu(
  ctx: GpuContext,
  bvh: BvhCpu,
  label = 'bvh::uploaded',
  format: BoxFormat = boxFormatFor(bvh.dim),
): BvhBuffers {
  const up = (name: string, a: ArrayBufferView) => ctx.upload(`${label}.${name}`, a);
  const boxes =
    format === 'u16'
      ? quantiseBoxesCpu(bvh.boxes, bvh.n, bvh.dim, bvh.frame)
      : // At least one record, as the GPU build allocates (the CPU twin's array is empty for n ≤ 1).
        bvh.boxes.length > 0
        ? bvh.boxes
        : new Float32Array(boxRecords(bvh.n) * boxWords(bvh.dim));
  const buffers = {
    sortedPoints: up('sortedPoints', bvh.sortedPoints),
    order: up('order', bvh.order),
    // The twin's four-word records as the GPU's two arrays (layout.ts, "Records").
    links: up('links', linkWords(bvh.links)),
    mins: up('mins', minIndexWords(bvh.links)),
    boxes: up('boxes', boxes),
    // One end of each range (layout.ts, "Ranges"); at least one word.
    ranges: up('ranges', bvh.n > 1 ? rangeOthers(bvh.ranges) : new Uint32Array(1)),
    parents: up('parents', bvh.parents),
  };
  return {
    n: bvh.n,
    dim: bvh.dim,
    boxFormat: format,
    ...buffers,
    destroy: () => Object.values(buffers).forEach((b) => b.destroy()),
  };
}
