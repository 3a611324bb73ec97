/** Reads a GPU BVH back into the CPU twin's layout, to compare it with buildBvhCpu's (issue 16 moved it here from
 * src/bvh/readback.ts: only tests used it). A BVH with u16 boxes (src/bvh/layout.ts, "Box formats") comes back with
 * `boxes` holding the bits of its n − 1 records and then its frame's two records (`boxFormat` says which);
 * `asBoxFormat` turns the CPU twin's into the same. Its `links` join the GPU's links and minIndex arrays (read them
 * before a GpuEmst's rounds, which write its edges over the minIndex words: emst/pipeline.ts). */
import type { GpuContext } from '../../src/gpu/context.js';
import type { BvhCpu } from '../../src/bvh/lbvh.cpu.js';
import type { GpuBvh } from '../../src/bvh/lbvh.js';
import { boxRecords, boxRecordWords, joinLinks, rangePairs, type BoxFormat } from '../../src/bvh/layout.js';
import { quantiseBoxesCpu } from '../../src/bvh/box.cpu.js';

/** A BVH read back, with its box format. */
export type BvhRead = BvhCpu & { boxFormat: BoxFormat };

export async function readBvh(ctx: GpuContext, bvh: GpuBvh): Promise<BvhRead> {
  const { n, dim } = bvh;
  const rec = Math.max(n, 1);
  const u16 = bvh.boxFormat === 'u16';
  const rw = boxRecordWords(dim, bvh.boxFormat);
  const [frame, codes, order, sortedPoints, links, mins, boxes, boxFrame, ranges, parents] = await Promise.all([
    ctx.read(bvh.frame, 0, 12 * dim),
    ctx.read(bvh.codes, 0, 8 * n),
    ctx.read(bvh.order, 0, 4 * n),
    ctx.read(bvh.sortedPoints, 0, 4 * n * dim),
    ctx.read(bvh.links, 0, 8 * rec),
    ctx.read(bvh.mins, 0, 8 * rec),
    ctx.read(bvh.boxes, 0, 4 * rw * Math.max(n - 1, 0)),
    u16 && n > 0 ? ctx.read(bvh.boxes, 4 * rw * boxRecords(n), 8 * dim) : Promise.resolve(new ArrayBuffer(0)),
    ctx.read(bvh.ranges, 0, 4 * Math.max(n - 1, 0)),
    ctx.read(bvh.parents, 0, 4 * Math.max(2 * n - 1, 0)),
  ]);
  const f = new Float32Array(frame);
  const allBoxes = new Float32Array(boxes.byteLength / 4 + boxFrame.byteLength / 4);
  allBoxes.set(new Float32Array(boxes));
  allBoxes.set(new Float32Array(boxFrame), boxes.byteLength / 4);
  return {
    n,
    dim,
    boxFormat: bvh.boxFormat,
    frame: { lo: f.slice(0, dim), hi: f.slice(dim, 2 * dim), scale: f.slice(2 * dim, 3 * dim) },
    codes: new Uint32Array(codes),
    order: new Uint32Array(order),
    sortedPoints: new Float32Array(sortedPoints),
    // The GPU's links and minIndex words as the CPU twin's four-word records (layout.ts, "Records").
    links: joinLinks(new Uint32Array(links), new Uint32Array(mins)),
    boxes: allBoxes,
    // The GPU keeps one end of each range (layout.ts, "Ranges"): both, as the CPU twin has them.
    ranges: rangePairs(new Uint32Array(ranges)),
    parents: new Uint32Array(parents),
  };
}

/**
 * The CPU twin `cpu` as readBvh returns a GPU BVH with `format` boxes: for u16, its boxes quantised (box.cpu.ts)
 * as n − 1 records and the frame, as bits.
 */
export function asBoxFormat(cpu: BvhCpu, format: BoxFormat): BvhCpu {
  if (format === 'f32') return cpu;
  const { n, dim } = cpu;
  const words = quantiseBoxesCpu(cpu.boxes, n, dim, cpu.frame);
  const rw = boxRecordWords(dim, 'u16');
  const out = new Uint32Array(rw * Math.max(n - 1, 0) + (n > 0 ? 2 * dim : 0));
  out.set(words.subarray(0, rw * Math.max(n - 1, 0)));
  if (n > 0) out.set(words.subarray(rw * boxRecords(n)), rw * Math.max(n - 1, 0));
  return { ...cpu, boxes: new Float32Array(out.buffer) };
}
