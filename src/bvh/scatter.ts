/**
 * The scatter of points out of Morton order, points[order[j]] = sorted[j] (bvh/scatter.wgsl; CPU twin
 * scatter.cpu.ts): the inverse of the build's gather (gather.ts). An in-place build (lbvh.ts, allocateBvh's
 * `inPlace`; issue 19's memory) leaves the caller's points in Morton order; `restore` puts them back, bit for bit,
 * through a scratch buffer of at least n × dim words (the BVH's boxes once nothing reads them: 8·dim bytes for each
 * of n − 1 records). Every array is bound whole, or the scratch as its first n × dim words: the points of an in-place
 * BVH fit one binding (Borůvka binds them whole).
 */
import type { GpuContext } from '../gpu/context.js';
import type { Kernel } from '../gpu/kernel.js';
import type { Recorder } from '../gpu/recorder.js';
import { InputError } from '../errors.js';

const UNIFORMS = { n: 'u32', pad0: 'u32', pad1: 'u32', pad2: 'u32' } as const;
const BINDINGS = { sp: 'uniform', order: 'read', sorted: 'read', points: 'read_write' } as const;

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
  /** Records the copy of the points into the scratch and the scatter back (no submit). */
  restore(rec: Recorder, args: RestoreArgs): void;
}

/** Compiles (once per device and dim: the context's kernel cache) the scatter of `dim`-word rows. */
export async function createPointScatterer(ctx: GpuContext, dim: number): Promise<PointScatterer> {
  const kernel = (await ctx.kernel({
    label: 'bvh::scatter',
    shader: 'bvh/scatter',
    entry: 'main',
    bindings: BINDINGS,
    uniforms: UNIFORMS,
    workgroupSize: 256,
    include: ['common/grid'],
    constants: { D: dim },
  })) as Kernel<typeof BINDINGS, typeof UNIFORMS>;
  return {
    dim,
    restore(rec, { points, order, scratch, n }) {
      const bytes = 4 * n * dim;
      if (!Number.isInteger(n) || n < 0 || points.size < bytes || scratch.size < bytes || order.size < 4 * n) {
        throw new InputError(
          `bvh::scatter: expected ${n} points of ${dim} words (${bytes} bytes in the points and the scratch, ${4 * n} in the order), got ${points.size}, ${scratch.size} and ${order.size}.`,
        );
      }
      if (n === 0) return;
      rec.copy(points, 0, scratch, 0, bytes);
      rec.dispatch(kernel, {
        buffers: { order, sorted: { buffer: scratch, offset: 0, size: bytes }, points },
        uniforms: { n },
        threads: n,
      });
    },
  };
}
