/** Reads a GPU BVH back into the CPU twin's layout, to compare it with buildBvhCpu's (issue 16 moved it here from
 * src/bvh/readback.ts: only tests used it). */
import type { GpuContext } from '../../src/gpu/context.js';
import type { BvhCpu } from '../../src/bvh/lbvh.cpu.js';
import type { GpuBvh } from '../../src/bvh/lbvh.js';
import { boxWords } from '../../src/bvh/layout.js';

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
