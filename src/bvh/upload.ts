/**
 * Uploads a BVH built by the CPU twin (lbvh.cpu.ts) into GPU buffers of the same layout, for traversals tested or
 * benchmarked apart from the GPU build.
 */
import type { GpuContext } from '../gpu/context.js';
import type { BvhCpu } from './lbvh.cpu.js';

export interface UploadedBvh {
  n: number;
  dim: number;
  sortedPoints: GPUBuffer;
  order: GPUBuffer;
  links: GPUBuffer;
  boxes: GPUBuffer;
  ranges: GPUBuffer;
  parents: GPUBuffer;
  destroy(): void;
}

export function uploadBvhCpu(ctx: GpuContext, bvh: BvhCpu, label = 'bvh::uploaded'): UploadedBvh {
  const up = (name: string, a: ArrayBufferView) => ctx.upload(`${label}.${name}`, a);
  const buffers = {
    sortedPoints: up('sortedPoints', bvh.sortedPoints),
    order: up('order', bvh.order),
    links: up('links', bvh.links),
    boxes: up('boxes', bvh.boxes),
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
