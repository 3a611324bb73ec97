/**
 * Uploads a BVH built by the CPU twin (lbvh.cpu.ts) into GPU buffers of the same layout, for traversals tested or
 * benchmarked apart from the GPU build.
 */
import type { GpuContext } from '../gpu/context.js';
import type { BvhCpu } from './lbvh.cpu.js';
import type { BvhBuffers } from './lbvh.js';
import { boxRecords, boxWords } from './layout.js';

export function uploadBvhCpu(ctx: GpuContext, bvh: BvhCpu, label = 'bvh::uploaded'): BvhBuffers {
  const up = (name: string, a: ArrayBufferView) => ctx.upload(`${label}.${name}`, a);
  const buffers = {
    sortedPoints: up('sortedPoints', bvh.sortedPoints),
    order: up('order', bvh.order),
    links: up('links', bvh.links),
    // At least one record, as the GPU build allocates (the CPU twin's array is empty for n ≤ 1).
    boxes: up('boxes', bvh.boxes.length > 0 ? bvh.boxes : new Float32Array(boxRecords(bvh.n) * boxWords(bvh.dim))),
    ranges: up('ranges', bvh.ranges),
    parents: up('parents', bvh.parents),
  };
  return {
    n: bvh.n,
    dim: bvh.dim,
    ...buffers,
    destroy: () => Object.values(buffers).forEach((b) => b.destroy()),
  };
}
