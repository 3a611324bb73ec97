/**
 * Reductions (min, max, sum) of u32 or f32 to one value, as a tree of blocks (Harris, "Optimizing Parallel
 * Reduction in CUDA", NVIDIA 2007; the multi-pass structure of Merrill & Garland 2016, NVR-2016-002, §3):
 * each pass combines blocks of TILE = WG × ITEMS elements into one value per block, and the passes repeat
 * over the block results until one block is left, whose result is written at output[outputIndex]. No
 * workgroup waits for another; all passes go into the caller's Recorder.
 *
 * u32 sums wrap mod 2^32. f32 sums are summed in a tree, so they differ from a left-to-right sum by rounding
 * (within n·eps·Σ|x|). NaN inputs give an unspecified result; -0 and +0 compare equal, so min/max may return
 * either. The output must not be the input buffer.
 */
import type { GpuContext } from '../gpu/context.js';
import type { Kernel } from '../gpu/kernel.js';
import type { Recorder } from '../gpu/recorder.js';
import { InputError } from '../errors.js';
import {
  blockShape,
  checkBuffer,
  checkCount,
  checkMaxCount,
  words,
  type BlockShape,
  type PrimitiveOptions,
} from './scan.js';

export type ReduceOp = 'min' | 'max' | 'sum';
export type ReduceType = 'u32' | 'f32';

export interface Reducer {
  /** The largest count encode() accepts. */
  readonly maxCount: number;
  readonly shape: BlockShape;
  /**
   * Records the reduction of `input[0 … count)` into `output[outputIndex]` (the identity when count = 0:
   * min → 0xFFFFFFFF or +Inf, max → 0 or −Inf, sum → 0). `output` must not be `input`.
   */
  encode(
    rec: Recorder,
    input: GPUBuffer,
    output: GPUBuffer,
    outputIndex: number,
    count: number,
    op: ReduceOp,
    type: ReduceType,
  ): void;
  /** Frees the block-result buffers. */
  destroy(): void;
}

const LABEL = 'primitives::reduce';
const OPS: Record<ReduceOp, number> = { sum: 0, min: 1, max: 2 };
const TYPES: ReduceType[] = ['u32', 'f32'];
/** reduce.wgsl's uniform block (`Params`) and bindings, by their WGSL names. */
const REDUCE_PARAMS = { count: 'u32', out_index: 'u32', num_groups: 'u32', pad: 'u32' } as const;
const REDUCE = { u: 'uniform', src: 'read', dst: 'read_write' } as const;
type ReduceKernel = Kernel<typeof REDUCE, typeof REDUCE_PARAMS>;

/** Creates a reducer for up to `maxCount` elements: compiles its six kernels (3 ops × 2 types), allocates scratch. */
export async function createReducer(
  ctx: GpuContext,
  maxCount: number,
  options: PrimitiveOptions = {},
): Promise<Reducer> {
  checkMaxCount(ctx, LABEL, maxCount);
  const shape = blockShape(ctx, LABEL, options);
  const sg = ctx.features.subgroups;
  const kernels = new Map<string, ReduceKernel>();
  await Promise.all(
    (Object.keys(OPS) as ReduceOp[]).flatMap((op) =>
      TYPES.map(async (type) => {
        const k = await ctx.kernel({
          label: `primitives::reduce${op[0].toUpperCase()}${op.slice(1)}${type.toUpperCase()}`,
          shader: 'primitives/reduce',
          entry: 'reduce',
          bindings: REDUCE,
          uniforms: REDUCE_PARAMS,
          workgroupSize: shape.workgroupSize,
          include: ['common/grid', sg ? 'primitives/reduce_wg_subgroup' : 'primitives/reduce_wg_shared'],
          enable: sg ? ['subgroups'] : [],
          constants: { ITEMS: shape.itemsPerThread },
          overrides: { OP: OPS[op], F32: type === 'f32' ? 1 : 0 },
        });
        kernels.set(`${op}:${type}`, k);
      }),
    ),
  );
  // Pass p writes its block results into partials[p]; the last pass writes the caller's output.
  const partials: GPUBuffer[] = [];
  for (let n = maxCount; n > shape.tile;) {
    n = Math.ceil(n / shape.tile);
    partials.push(ctx.createBuffer(`primitives::reducePartials${partials.length}`, n * 4));
  }
  return new ReducerImpl(maxCount, shape, kernels, partials);
}

class ReducerImpl implements Reducer {
  constructor(
    readonly maxCount: number,
    readonly shape: BlockShape,
    private readonly kernels: Map<string, ReduceKernel>,
    private readonly partials: GPUBuffer[],
  ) {}

  encode(
    rec: Recorder,
    input: GPUBuffer,
    output: GPUBuffer,
    outputIndex: number,
    count: number,
    op: ReduceOp,
    type: ReduceType,
  ): void {
    checkCount(LABEL, count, this.maxCount);
    const kernel = this.kernels.get(`${op}:${type}`);
    if (!kernel) {
      throw new InputError(
        `${LABEL}: expected op 'min' | 'max' | 'sum' and type 'u32' | 'f32', got '${op}', '${type}'.`,
      );
    }
    if (!Number.isInteger(outputIndex) || outputIndex < 0) {
      throw new InputError(`${LABEL}: expected outputIndex to be a non-negative integer, got ${outputIndex}.`);
    }
    if (output === input) throw new InputError(`${LABEL}: the output buffer '${output.label}' must not be the input.`);
    checkBuffer(LABEL, 'input', input, count);
    checkBuffer(LABEL, 'output', output, 1, outputIndex);
    let src = input;
    let n = count;
    for (let pass = 0; ; pass++) {
      const blocks = Math.max(1, Math.ceil(n / this.shape.tile));
      const last = blocks === 1;
      const dst = last ? output : this.partials[pass];
      rec.dispatch(kernel, {
        buffers: { src: words(src, n), dst: last ? words(output, outputIndex + 1) : words(dst, blocks) },
        uniforms: { count: n, out_index: last ? outputIndex : 0, num_groups: blocks },
        groups: blocks,
      });
      if (last) return;
      src = dst;
      n = blocks;
    }
  }

  destroy(): void {
    for (const b of this.partials) b.destroy();
    this.partials.length = 0;
  }
}

/** Reduces `data` on the GPU (upload, reduce, read back, free): a convenience over createReducer(). */
export async function reduce(ctx: GpuContext, data: Uint32Array | Float32Array, op: ReduceOp): Promise<number> {
  const type: ReduceType = data instanceof Float32Array ? 'f32' : 'u32';
  if (type === 'u32' && !(data instanceof Uint32Array)) {
    throw new InputError(
      `${LABEL}: expected a Uint32Array or Float32Array, got ${Object.prototype.toString.call(data)}.`,
    );
  }
  const reducer = await createReducer(ctx, data.length);
  const input = ctx.upload('primitives::reduceData', data);
  const output = ctx.createBuffer('primitives::reduceResult', 4);
  try {
    await ctx.submit(LABEL, (rec) => reducer.encode(rec, input, output, 0, data.length, op, type));
    const raw = await ctx.read(output, 0, 4);
    return type === 'f32' ? new Float32Array(raw)[0] : new Uint32Array(raw)[0];
  } finally {
    input.destroy();
    output.destroy();
    reducer.destroy();
  }
}
