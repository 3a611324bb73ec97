/**
 * Soft clustering's distance part on the GPU (issue 21): for every point and every selected cluster, the smallest
 * squared distance to that cluster's exemplars — the O(n · E · d) inner loop of hdbscan's `dist_membership_vector`
 * (`_prediction_utils.pyx`), which `allPointsMembershipVectors` turns into 1 / distance per column. Kernel:
 * shaders/cluster/exemplar_distance.wgsl, one thread per point; CPU twin: exemplars.distance.cpu.ts (the same f32
 * bits, add_square's rounding).
 *
 * Memory: the exemplars (E · d · 4 bytes) stay on the device; points go up and the n × k table comes back in blocks
 * of rows whose points and table each fit maxStorageBufferBindingSize (and 2^26 rows, to keep each read-back
 * modest), so n is bounded only by host memory.
 */
import type { GpuContext } from '../gpu/context.js';
import type { Kernel } from '../gpu/kernel.js';
import { InputError } from '../errors.js';
import type { ExemplarSets } from './exemplars.distance.cpu.js';

const LABEL = 'cluster::exemplarDistance';
/** exemplar_distance.wgsl's uniform block and bindings, by their WGSL names. */
const PARAMS = { rows: 'u32', k: 'u32', one: 'f32', pad: 'u32' } as const;
const BINDINGS = {
  u: 'uniform',
  points: 'read',
  exemplars: 'read',
  starts: 'read',
  out: 'read_write',
} as const;
const WORKGROUP = 64;
const MAX_BLOCK_ROWS = 1 << 26;

export interface ExemplarDistanceKernel {
  /** The n × k table of smallest squared f32 distances (row-major) of `points` (n × dim) to `sets`' columns. */
  run(points: Float32Array, sets: ExemplarSets): Promise<Float32Array>;
}

/** Compiles the kernel for points of `dim` coordinates (pipelines are cached per device and dim). */
export async function createExemplarDistanceKernel(ctx: GpuContext, dim: number): Promise<ExemplarDistanceKernel> {
  if (!Number.isInteger(dim) || dim < 1) throw new InputError(`${LABEL}: expected dim ≥ 1, got ${dim}.`);
  const kernel = await ctx.kernel({
    label: LABEL,
    shader: 'cluster/exemplar_distance',
    entry: 'exemplar_distance',
    bindings: BINDINGS,
    uniforms: PARAMS,
    workgroupSize: WORKGROUP,
    include: ['common/grid', 'knn/distance'],
    constants: { D: dim },
  });
  return { run: (points, sets) => runBlocks(ctx, kernel, dim, points, sets) };
}

async function runBlocks(
  ctx: GpuContext,
  kernel: Kernel<typeof BINDINGS, typeof PARAMS>,
  dim: number,
  points: Float32Array,
  sets: ExemplarSets,
): Promise<Float32Array> {
  const n = points.length / dim;
  const k = sets.starts.length - 1;
  if (!Number.isInteger(n)) {
    throw new InputError(`${LABEL}: expected points.length to be a multiple of dim=${dim}, got ${points.length}.`);
  }
  if (sets.coords.length !== sets.starts[k] * dim) {
    throw new InputError(
      `${LABEL}: expected ${sets.starts[k]} exemplars × dim=${dim} coordinates, got ${sets.coords.length}.`,
    );
  }
  const out = new Float32Array(n * k);
  if (n === 0 || k === 0) return out;
  const maxBinding = ctx.limits.maxStorageBufferBindingSize;
  const blockRows = Math.max(1, Math.min(n, MAX_BLOCK_ROWS, Math.floor(maxBinding / (4 * Math.max(k, dim)))));
  // One dummy word where there are no exemplars at all: a binding cannot be empty.
  const exemplars = ctx.upload(`${LABEL}Exemplars`, sets.coords.length ? sets.coords : new Float32Array(1));
  const starts = ctx.upload(`${LABEL}Starts`, sets.starts);
  const table = ctx.createBuffer(`${LABEL}Table`, blockRows * k * 4);
  try {
    for (let row0 = 0; row0 < n; row0 += blockRows) {
      const rows = Math.min(blockRows, n - row0);
      const block = ctx.upload(`${LABEL}Points`, points.subarray(row0 * dim, (row0 + rows) * dim));
      try {
        await ctx.submit(LABEL, (rec) =>
          rec.dispatch(kernel, {
            buffers: { points: block, exemplars, starts, out: table },
            uniforms: { rows, k, one: 1 },
            threads: rows,
          }),
        );
        await ctx.readInto(table, 0, rows * k * 4, out.subarray(row0 * k, (row0 + rows) * k));
      } finally {
        block.destroy();
      }
    }
  } finally {
    exemplars.destroy();
    starts.destroy();
    table.destroy();
  }
  return out;
}

/** The table of `createExemplarDistanceKernel(ctx, dim).run(points, sets)` in one call. */
export async function exemplarDistances(
  ctx: GpuContext,
  points: Float32Array,
  dim: number,
  sets: ExemplarSets,
): Promise<Float32Array> {
  return (await createExemplarDistanceKernel(ctx, dim)).run(points, sets);
}
