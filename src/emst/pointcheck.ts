/**
 * emst()'s door check of the coordinates on the GPU (issue 17 §4): the points are checked where they already are
 * after the upload, instead of by a host pass over every coordinate before it. One kernel (`emst::check`,
 * shaders/emst/pointcheck.wgsl) finds the first NaN, ±Inf or out-of-range word in row-major order (atomicMax of the
 * complemented index: deterministic) and the largest |coordinate| (atomicMax of the magnitude's bits); the host
 * reads those 8 bytes. A bad word → the InputError validate.ts throws on the host, word for word (row, column and
 * the caller's value at that index: for Float64Array input the float64 value, so 1e39 reads "1e39", not
 * "Infinity"). Scaling needed (scale.ts's exponent from that maximum) → a second kernel (`emst::scale`,
 * shaders/emst/pointscale.wgsl) multiplies the points in place by 2^e on their bits, equal to the host's
 * Math.fround(x · 2^e) bit for bit. CPU twins: pointcheck.cpu.ts.
 *
 * Float64Array input is rounded to float32 on the host as it is written into staging (GpuContext.uploadFloat32), and
 * rounding can bring a value just above 1e38 down to fround(1e38) itself: for it the limit is one below, so such
 * values are flagged as candidates and the host decides in float64 (validate.ts rejectBadCoordinate, from the first
 * candidate on; a legitimate value at exactly that magnitude only costs that host scan).
 *
 * Used by the GPU path of emst() (and hdbscan() through it) where validate.ts deferred the coordinates
 * (`deferred`: open boxes without a scale cut; periodic boxes wrap on the host in float64 and keep the host check).
 * Memory: 8 bytes.
 */
import type { GpuContext } from '../gpu/context.js';
import type { Kernel } from '../gpu/kernel.js';
import type { Binding, Recorder } from '../gpu/recorder.js';
import { windowBinding, windows } from '../gpu/bigarray.js';
import { MAX_COORDINATE_BITS } from './pointcheck.cpu.js';
import { scaleExponent } from './scale.js';
import { rejectBadCoordinate } from './validate.js';

/** pointcheck.wgsl's bindings and uniform block, by their WGSL names. */
const CHECK = {
  bindings: { u: 'uniform', points: 'read', out: 'read_write' },
  uniforms: { count: 'u32', limit: 'u32', base: 'u32', p1: 'u32' },
} as const;

/** pointscale.wgsl's bindings and uniform block, by their WGSL names. */
const SCALE = {
  bindings: { u: 'uniform', points: 'read_write' },
  uniforms: { count: 'u32', exponent: 'i32', p0: 'u32', p1: 'u32' },
} as const;

/** Workgroups of the grid-stride loops: enough to fill a large GPU, few enough to flush cheaply. */
const MAX_GROUPS = 2048;
const WG = 256;

export interface PointChecker {
  /** Records the check of `count` words of `points` into `out` (≥ 8 bytes; cleared here). */
  encodeCheck(rec: Recorder, points: Binding, count: number, out: GPUBuffer, limit: number): void;
  /** Records points[i] ← points[i] · 2^exponent for `count` words, in place. */
  encodeScale(rec: Recorder, points: Binding, count: number, exponent: number): void;
}

/**
 * Compiles both kernels (cached per device by the context). Points larger than one binding are checked and scaled
 * window by window (issue 19, gpu/bigarray.ts; the check's first index offset by the window's `base`): one window,
 * bound as given, wherever they fit. `maxWindow` caps the words per window (tests).
 */
export async function createPointChecker(ctx: GpuContext, options: { maxWindow?: number } = {}): Promise<PointChecker> {
  const [check, scale] = await Promise.all([
    ctx.kernel({
      label: 'emst::check',
      shader: 'emst/pointcheck',
      entry: 'main',
      ...CHECK,
      workgroupSize: WG,
      constants: { LIMIT_BITS: MAX_COORDINATE_BITS },
    }),
    ctx.kernel({ label: 'emst::scale', shader: 'emst/pointscale', entry: 'main', ...SCALE, workgroupSize: WG }),
  ]);
  const groups = (count: number) => Math.min(Math.ceil(count / WG), MAX_GROUPS);
  return {
    encodeCheck(rec, points, count, out, limit) {
      rec.clear(out, 0, 8);
      if (count === 0) return;
      const k = check as Kernel<typeof CHECK.bindings, typeof CHECK.uniforms>;
      for (const w of windows(ctx.limits, count, [4], options.maxWindow)) {
        rec.dispatch(k, {
          buffers: { points: windowBinding(ctx.limits, points, 4, w), out },
          uniforms: { count: w.count, limit, base: w.first },
          groups: groups(w.count),
        });
      }
    },
    encodeScale(rec, points, count, exponent) {
      if (count === 0 || exponent === 0) return;
      const k = scale as Kernel<typeof SCALE.bindings, typeof SCALE.uniforms>;
      for (const w of windows(ctx.limits, count, [4], options.maxWindow)) {
        rec.dispatch(k, {
          buffers: { points: windowBinding(ctx.limits, points, 4, w) },
          uniforms: { count: w.count, exponent },
          groups: groups(w.count),
        });
      }
    },
  };
}

/** The limit on |bits| for points uploaded from `source` (see the header: one below for float64 input). */
export function checkLimit(source: Float32Array | Float64Array): number {
  return source instanceof Float64Array ? MAX_COORDINATE_BITS - 1 : MAX_COORDINATE_BITS;
}

/**
 * Checks the uploaded points (n × dim words in `points`, uploaded from the caller's `source`) and scales them in
 * place where scale.ts asks for it. Returns the exponent e (0: none); throws validate.ts's InputError for the first
 * bad coordinate.
 */
export async function checkPointsOnGpu(
  ctx: GpuContext,
  checker: PointChecker,
  points: GPUBuffer,
  source: Float32Array | Float64Array,
  dim: number,
): Promise<number> {
  const count = source.length;
  if (count === 0) return 0;
  const out = ctx.createBuffer('emst::checkResult', 8);
  try {
    await ctx.submit('emst::check', (rec) => checker.encodeCheck(rec, points, count, out, checkLimit(source)));
    const [first, topBits] = new Uint32Array(await ctx.read(out, 0, 8));
    // The first flagged word is the first bad one for float32 input, and no later than it for float64 input.
    if (first !== 0) rejectBadCoordinate(source, dim, ~first >>> 0);
    const exponent = scaleExponent(new Float32Array(new Uint32Array([topBits]).buffer)[0]);
    if (exponent !== 0) await ctx.submit('emst::scale', (rec) => checker.encodeScale(rec, points, count, exponent));
    return exponent;
  } finally {
    out.destroy();
  }
}
