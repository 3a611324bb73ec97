/**
 * Benchmark case: one reduction of n seeded values into one, GPU-resident. `bytesMoved` is 4n (each element
 * read once). u32 sums and min/max are checked exactly; f32 sums within n·eps·Σ|x| (the GPU sums in a tree).
 */
import type { GpuContext } from '../gpu/context.js';
import type { Recorder } from '../gpu/recorder.js';
import { createReducer, type ReduceOp, type ReduceType } from '../primitives/reduce.js';
import { reduceCpu } from '../primitives/reduce.cpu.js';
import type { PrimitiveOptions } from '../primitives/scan.js';
import { seededU32 } from './primitives.scan.js';

export interface BenchReduceOptions extends PrimitiveOptions {
  /** Default 'sum'. */
  op?: ReduceOp;
  /** Default 'u32'. */
  type?: ReduceType;
}

export async function benchReduce(
  ctx: GpuContext,
  n: number,
  options: BenchReduceOptions = {},
): Promise<{ encode: (rec: Recorder) => void; check: () => Promise<void>; bytesMoved: number; destroy: () => void }> {
  const op = options.op ?? 'sum';
  const type = options.type ?? 'u32';
  const reducer = await createReducer(ctx, n, options);
  const bits = seededU32(n, 0x0dd5eed5);
  // f32 data: uniform in [−1, 1), exact in f32.
  let data: Uint32Array | Float32Array = bits;
  if (type === 'f32') {
    // A loop, not Float32Array.from(bits, fn): that builds a JS array first and runs out of heap at 2^28.
    data = new Float32Array(n);
    for (let i = 0; i < n; i++) data[i] = bits[i] / 2 ** 31 - 1;
  }
  const input = ctx.upload('bench::reduceInput', data);
  const output = ctx.createBuffer('bench::reduceOutput', 4);
  return {
    encode: (rec) => reducer.encode(rec, input, output, 0, n, op, type),
    check: async () => {
      const raw = await ctx.read(output, 0, 4);
      const got = type === 'f32' ? new Float32Array(raw)[0] : new Uint32Array(raw)[0];
      const want = reduceCpu(data, op);
      let tol = 0;
      if (type === 'f32' && op === 'sum') {
        let abs = 0;
        for (let i = 0; i < n; i++) abs += Math.abs(data[i]);
        tol = n * 2 ** -23 * abs;
      }
      if (!(Math.abs(got - want) <= tol) && got !== want) {
        throw new Error(`bench::reduce: ${op} ${type} of n=${n} gave ${got}, expected ${want} (tolerance ${tol})`);
      }
    },
    bytesMoved: 4 * n,
    destroy: () => {
      input.destroy();
      output.destroy();
      reducer.destroy();
    },
  };
}
