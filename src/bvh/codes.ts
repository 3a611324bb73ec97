/**
 * Stage 1 of the BVH build (lbvh.ts): scene bounds, the quantisation frame and the unsorted Morton codes with the
 * identity permutation the sort carries. CPU twin: morton.cpu.ts (sceneFrameCpu, mortonCodesCpu), bit for bit.
 *
 *   bvh::bounds     scene bounds, atomicMax of order-preserving bit patterns     shaders/bvh/bounds.wgsl
 *   bvh::frame      lo, hi, exact scale = RN(2^bits / extent) by integer division shaders/bvh/frame.wgsl
 *                   and the u16 boxes' frame (bvh/box.wgsl box_frame_of)
 *   bvh::morton     64-bit Morton codes (vec2u) and the identity permutation       shaders/bvh/morton.wgsl
 *
 * Every kernel here is element-wise, so arrays larger than one binding are taken window by window (issue 19,
 * gpu/bigarray.ts): the bounds accumulate atomically over the windows of the points, the frame follows once, and
 * the codes are written per window of (points, codes, order) with the window's first index as `base`. Where
 * everything fits (every n up to 1.8·10^8 3D points on the H100) it is one window: the dispatches of before.
 */
import type { GpuContext } from '../gpu/context.js';
import type { Binding, Recorder } from '../gpu/recorder.js';
import { windowBinding, windows } from '../gpu/bigarray.js';
import { bitsPerAxis, maxCell } from './layout.js';

const BOUNDS = {
  bindings: { bp: 'uniform', points: 'read', acc: 'read_write' },
  uniforms: { n: 'u32', threads: 'u32', pad0: 'u32', pad1: 'u32' },
} as const;
const FRAME = {
  bindings: { u: 'uniform', acc: 'read', frame: 'read_write' },
  uniforms: { bits: 'u32', pad0: 'u32', pad1: 'u32', pad2: 'u32' },
} as const;
const MORTON = {
  bindings: { mp: 'uniform', points: 'read', frame: 'read', codes: 'read_write', values: 'read_write' },
  uniforms: { n: 'u32', bits: 'u32', max_cell: 'f32', base: 'u32' },
} as const;

const BOUNDS_MAX_GROUPS = 1024;

/**
 * Whether 2D codes take the magic-mask path (morton.wgsl morton2, as 3D's morton3) instead of the bit loop: on by
 * default, faster on the H100 (bench/RESULTS.md, issue 18); TREELINE_BVH_MORTON2D=fast or loop picks either. The same
 * codes either way.
 */
const FAST_2D = true;

function morton2dDefault(): boolean {
  const env = typeof process !== 'undefined' ? process.env?.TREELINE_BVH_MORTON2D : undefined;
  return env === 'fast' ? true : env === 'loop' ? false : FAST_2D;
}

export interface CodeArgs {
  /** n × dim f32 (a buffer, or a range of one from its start). */
  points: Binding;
  n: number;
  /** FRAME_WORDS(dim) f32 written: lo, hi, scale, and the u16 boxes' origins and cells (layout.ts). */
  frame: GPUBuffer;
  /** n vec2u written: the unsorted codes. */
  codes: GPUBuffer;
  /** n u32 written: 0 … n − 1. */
  order: GPUBuffer;
}

export interface CodeEncoder {
  /** Records bounds, frame and codes of n points (nothing for n = 0). */
  encode(rec: Recorder, args: CodeArgs): void;
  /** Records bounds and frame only (nothing for n = 0): bvh/prefixsort.ts computes the codes itself. */
  encodeFrame(rec: Recorder, args: Pick<CodeArgs, 'points' | 'n' | 'frame'>): void;
  destroy(): void;
}

/**
 * Compiles stage 1's kernels for `dim` and allocates its accumulator. `maxWindow` caps the points per window (tests
 * use it to cut small inputs into many windows); `constants` are added to every kernel's (the builder's box-part
 * constants, so that its kernels share one composition).
 */
export async function createCodeEncoder(
  ctx: GpuContext,
  dim: number,
  options: { workgroupSize?: number; maxWindow?: number; constants?: Record<string, number>; fast2d?: boolean } = {},
): Promise<CodeEncoder> {
  const wg = options.workgroupSize ?? 256;
  const fast2d = options.fast2d ?? morton2dDefault();
  const spec = <const B, const U>(name: string, layout: { bindings: B; uniforms: U }, workgroupSize = wg) => ({
    label: `bvh::${name}`,
    shader: `bvh/${name}`,
    entry: 'main',
    ...layout,
    workgroupSize,
    include: ['common/grid', 'bvh/floatorder', ...(name === 'frame' ? ['bvh/box'] : [])],
    constants: { D: dim, ...(options.constants ?? {}), ...(name === 'morton' ? { MORTON2: fast2d ? 1 : 0 } : {}) },
  });
  const [bounds, frame, morton] = await Promise.all([
    ctx.kernel(spec('bounds', BOUNDS)),
    ctx.kernel(spec('frame', FRAME, 32)),
    ctx.kernel(spec('morton', MORTON)),
  ]);
  const acc = ctx.createBuffer('bvh::boundsAcc', 8 * dim);
  const bits = bitsPerAxis(dim);
  const cell = maxCell(bits);
  const pointBytes = 4 * dim;
  const encoder: CodeEncoder = {
    encodeFrame(rec, { points, n, frame: frameBuffer }) {
      if (n === 0) return;
      rec.clear(acc);
      for (const w of windows(ctx.limits, n, [pointBytes], options.maxWindow)) {
        const groups = Math.min(Math.ceil(w.count / wg), BOUNDS_MAX_GROUPS);
        rec.dispatch(bounds, {
          buffers: { points: windowBinding(ctx.limits, points, pointBytes, w), acc },
          uniforms: { n: w.count, threads: groups * wg },
          groups,
        });
      }
      rec.dispatch(frame, { buffers: { acc, frame: frameBuffer }, uniforms: { bits }, threads: dim });
    },
    encode(rec, args) {
      const { points, n, frame: frameBuffer, codes, order } = args;
      if (n === 0) return;
      encoder.encodeFrame(rec, args);
      for (const w of windows(ctx.limits, n, [pointBytes, 8, 4], options.maxWindow)) {
        rec.dispatch(morton, {
          buffers: {
            points: windowBinding(ctx.limits, points, pointBytes, w),
            frame: frameBuffer,
            codes: windowBinding(ctx.limits, codes, 8, w),
            values: windowBinding(ctx.limits, order, 4, w),
          },
          uniforms: { n: w.count, bits, max_cell: cell, base: w.first },
          threads: w.count,
        });
      }
    },
    destroy() {
      acc.destroy();
    },
  };
  return encoder;
}
