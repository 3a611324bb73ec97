/**
 * The BVH's Morton order by a sort of the codes' top 32 bits (issue 18): stages 1 and 2 of lbvh.ts in 4 passes of
 * 32-bit keys instead of 8 passes of 64-bit ones (3D's 63 bits were ~58 % of the build). CPU twin:
 * prefixsort.cpu.ts; kernels: shaders/bvh/prefix.wgsl (after bvh/morton.wgsl's morton_code).
 *
 *   bvh::bounds, bvh::frame  as codes.ts (encodeFrame)
 *   bvh::prefix     the top 32 bits of each code → the sorter's scratch keys, the identity → its scratch values
 *   (radix sort)    stable, 32-bit keys, in the scratch, the BVH's codes and order as ping-pong (an even number of
 *                   passes ends where it started)
 *   bvh::runs       each point's full code again (from its point: no unsorted codes are kept), into bvh.codes, the
 *                   order into bvh.order, and each run of equal prefixes of ≤ RUN_MAX points sorted by code; the
 *                   points in that order into `sorted` (the build's gather: lbvh.ts then skips bvh::gather)
 *   (radix sort)    the full 64-bit sort of bvh.codes and bvh.order, guarded (radixsort.ts `guard`): it runs only
 *                   where some run was longer (duplicates of a prefix: clustered points, or one far outlier)
 *   bvh::regather   the gather again, guarded the same way (a fixed grid of at most REGATHER_GROUPS workgroups)
 *
 * Why the order is the full sort's, (code, index): the 32-bit sort is stable from the identity, so equal prefixes
 * keep index order; the code order refines the prefix order, so only points of one run can be out of place, and
 * sorting each run stably by code gives (code, index). A long run is left in index order and the full stable sort
 * orders everything by code, equal codes (within one run) keeping index order. Same codes, same order: the same BVH
 * bit for bit.
 *
 * Memory: nothing beyond the builder's 64-bit sorter (its scratch, table and totals, borrowed by the 32-bit and the
 * guarded sorter) and a 16-byte flag.
 */
import type { GpuContext } from '../gpu/context.js';
import type { Binding, Recorder } from '../gpu/recorder.js';
import { createRadixSorter, digitPasses, type RadixSorter } from '../primitives/radixsort.js';
import { bitsPerAxis, codeBits, maxCell } from './layout.js';
import type { CodeEncoder } from './codes.js';
import { RUN_MAX } from './prefixsort.cpu.js';

export { RUN_MAX };

/** Workgroups of bvh::regather at most (its threads stride over the points). */
const REGATHER_GROUPS = 1024;

const PREFIX = {
  bindings: {
    mp: 'uniform',
    points: 'read',
    frame: 'read',
    codes: 'read_write',
    values: 'read_write',
    prefixes: 'read_write',
    sortedOrder: 'read',
    flag: 'read_write',
    sorted: 'read_write',
  },
  uniforms: { n: 'u32', bits: 'u32', max_cell: 'f32', base: 'u32' },
} as const;

/** Whether the prefix sort can order codes of `dim` (more than 32 significant bits) with a sorter of this shape. */
export function prefixSortApplies(dim: number, radixBits: number): boolean {
  const bits = codeBits(dim);
  // The guarded full sort must end where it starts (an odd number of passes would end in an unguarded copy).
  return bits > 32 && digitPasses(0, 64, radixBits).length % 2 === 0;
}

export interface PrefixSortArgs {
  points: Binding;
  n: number;
  frame: GPUBuffer;
  /** n vec2u written: the sorted codes. */
  codes: GPUBuffer;
  /** n u32 written: the sorted order. */
  order: GPUBuffer;
  /** n × dim f32 written: the points in the sorted order (not `points`' buffer). */
  sorted: Binding;
}

export interface PrefixSorter {
  /** Records bounds, frame, codes and the sort (n ≥ 2; one recording, no read-back). */
  encode(rec: Recorder, args: PrefixSortArgs): void;
  /** 16 bytes: word 0 is 1 after a build that took the full sort (a run longer than RUN_MAX), else 0. */
  readonly flag: GPUBuffer;
  destroy(): void;
}

/**
 * Compiles the prefix sort's kernels for `dim` around the builder's 64-bit sorter `full` (whose buffers it borrows)
 * and its stage 1 encoder `codes` (for the frame).
 */
export async function createPrefixSorter(
  ctx: GpuContext,
  dim: number,
  full: RadixSorter,
  codes: CodeEncoder,
  options: { workgroupSize?: number; runMax?: number } = {},
): Promise<PrefixSorter> {
  const wg = options.workgroupSize ?? 256;
  // Tests: shorter runs sorted by bvh::runs (more of them take the guarded full sort).
  const runMax = options.runMax ?? RUN_MAX;
  const bits = bitsPerAxis(dim);
  const total = codeBits(dim);
  if (!prefixSortApplies(dim, full.shape.radixBits)) {
    throw new Error(`bvh::prefix: ${total}-bit codes with ${full.shape.radixBits}-bit digits take the full sort`);
  }
  const spec = (entry: 'prefix' | 'runs' | 'regather') => ({
    label: `bvh::${entry}`,
    shader: 'bvh/prefix',
    entry,
    ...PREFIX,
    workgroupSize: wg,
    include: ['common/grid', 'bvh/floatorder', 'bvh/morton'],
    // MORTON2: the 2D magic masks (the same codes as the bit loop, codes.ts).
    constants: { D: dim, MORTON2: 1, CODE_BITS: total, RUN_MAX: runMax },
  });
  const shape = {
    workgroupSize: full.shape.workgroupSize,
    keysPerThread: full.shape.keysPerThread,
    radixBits: full.shape.radixBits,
  };
  const [prefix, runs, regather, short, guarded] = await Promise.all([
    ctx.kernel(spec('prefix')),
    ctx.kernel(spec('runs')),
    ctx.kernel(spec('regather')),
    createRadixSorter(ctx, { maxCount: full.maxCount, keyWords: 1, ...shape, shared: full }),
    createRadixSorter(ctx, { maxCount: full.maxCount, keyWords: 2, ...shape, shared: full, guard: true }),
  ]);
  const flag = ctx.createBuffer('bvh::runFlag', 16);
  const scratch = full.scratch;
  const uniforms = (n: number) => ({ n, bits, max_cell: maxCell(bits), base: 0 });
  return {
    flag,
    encode(rec, { points, n, frame, codes: sortedCodes, order, sorted }) {
      if (n < 2) throw new Error(`bvh::prefix: n=${n}; n < 2 takes no sort`);
      codes.encodeFrame(rec, { points, n, frame });
      rec.dispatch(prefix, {
        buffers: {
          points,
          frame,
          codes: sortedCodes,
          values: scratch.values,
          prefixes: scratch.keys,
          sortedOrder: order,
          flag,
          sorted,
        },
        uniforms: uniforms(n),
        threads: n,
      });
      short.encode(rec, {
        keys: scratch.keys,
        values: scratch.values,
        count: n,
        scratch: { keys: sortedCodes, values: order },
      });
      rec.dispatch(runs, {
        buffers: {
          points,
          frame,
          codes: sortedCodes,
          values: order,
          prefixes: scratch.keys,
          sortedOrder: scratch.values,
          flag,
          sorted,
        },
        uniforms: uniforms(n),
        threads: n,
      });
      guarded.encode(rec, { keys: sortedCodes, values: order, count: n, bitsLo: 0, bitsHi: 64, guard: flag });
      rec.dispatch(regather, {
        buffers: {
          points,
          frame,
          codes: sortedCodes,
          values: order,
          prefixes: scratch.keys,
          sortedOrder: scratch.values,
          flag,
          sorted,
        },
        uniforms: uniforms(n),
        threads: Math.min(n, REGATHER_GROUPS * wg),
      });
    },
    destroy() {
      short.destroy();
      guarded.destroy();
      flag.destroy();
    },
  };
}
