/** Reads a GPU BVH back into the CPU twin's layout (tests, debugging, and GPU-built trees on the CPU). */
import type { GpuContext } from '../gpu/context.js';
import type { BvhCpu } from './lbvh.cpu.js';
import type { GpuBvh } from './lbvh.js';
import { boxWords } from './layout.js';

export async function readBvh(ctx: GpuContext, bvh: GpuBvh): Promise<BvhCpu> {
  const { n, dim } = bvh;
  const rec = Math.max(n, 1);
  const [frame, codes, order, sortedPoints, links, boxes, ranges, parents] = await Promise.all([
    ctx.read(bvh.frame, 0, 12 * dim),
    ctx.read(bvh.codes, 0, 8 * n),
    ctx.read(bvh.order, 0, 4 * n),
    ctx.read(bvh.sortedPoints, 0, 4 * n * dim),
    ctx.read(bvh.links, 0, 16 * rec),
    ctx.read(bvh.boxes, 0, 4 * boxWords(dim) * Math.max(n - 1, 0)),
    ctx.read(bvh.ranges, 0, 8 * Math.max(n - 1, 0)),
    ctx.read(bvh.parents, 0, 4 * Math.max(2 * n - 1, 0)),
  ]);
  const f = new Float32Array(frame);
  return {
    n,
    dim,
    frame: { lo: f.slice(0, dim), hi: f.slice(dim, 2 * dim), scale: f.slice(2 * dim, 3 * dim) },
    codes: new Uint32Array(codes),
    order: new Uint32Array(order),
    sortedPoints: new Float32Array(sortedPoints),
    links: new Uint32Array(links),
    boxes: new Float32Array(boxes),
    ranges: new Uint32Array(ranges),
    parents: new Uint32Array(parents),
  };
}
