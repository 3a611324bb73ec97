import { afterAll, describe, expect, it } from 'vitest';
import type { GpuContext } from '../../src/gpu/index.js';
import { createReducer, reduce, type ReduceOp, type ReduceType } from '../../src/primitives/reduce.js';
import type { PrimitiveOptions } from '../../src/primitives/scan.js';
import { reduceCpu, reduceIdentity } from '../../src/primitives/reduce.cpu.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { f32Data, SIZES, u32Data } from '../helpers/primitives.data.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

const OPS: ReduceOp[] = ['min', 'max', 'sum'];

/** Runs every op on `data` with one reducer; each result lands at its own index of one output buffer. */
async function gpuReduceAll(ctx: GpuContext, data: Uint32Array | Float32Array, options: PrimitiveOptions = {}) {
  const type: ReduceType = data instanceof Float32Array ? 'f32' : 'u32';
  const n = data.length;
  const reducer = await createReducer(ctx, n, options);
  const input = ctx.upload('test::reduceInput', data);
  // Results go to indices 1, 3, 5 of a buffer of sentinels, so that a write to the wrong index shows.
  const output = ctx.upload('test::reduceOutput', new Uint32Array(7).fill(0xdeadbeef));
  await ctx.submit('test::reduce', (rec) =>
    OPS.forEach((op, i) => reducer.encode(rec, input, output, 2 * i + 1, n, op, type)),
  );
  const raw = await ctx.read(output);
  input.destroy();
  output.destroy();
  reducer.destroy();
  const words = new Uint32Array(raw);
  for (const i of [0, 2, 4, 6]) expect(words[i], `output[${i}] was overwritten`).toBe(0xdeadbeef);
  const values = type === 'f32' ? new Float32Array(raw) : words;
  return { min: values[1], max: values[3], sum: values[5] };
}

/**
 * Checks GPU results against reduceCpu. min, max and u32 sums must be equal. f32 sums are added in a different
 * order on the GPU (a tree) than on the CPU (left to right), so they are compared within the bound both orders
 * obey: |GPU − CPU| ≤ n · eps · Σ|x| with eps = 2^−23 (each sum is within (n − 1) · 2^−24 · Σ|x| of the exact one).
 */
function expectReductions(got: Record<ReduceOp, number>, data: Uint32Array | Float32Array, what: string): void {
  for (const op of OPS) {
    const want = reduceCpu(data, op);
    if (op === 'sum' && data instanceof Float32Array) {
      let abs = 0;
      for (const x of data) abs += Math.abs(x);
      const tol = data.length * 2 ** -23 * abs;
      expect(
        Math.abs(got.sum - want),
        `${what} f32 sum: GPU ${got.sum}, CPU ${want}, tolerance ${tol}`,
      ).toBeLessThanOrEqual(tol);
    } else {
      expect(got[op], `${what} ${op}`).toBe(want);
    }
  }
}

describe.skipIf(variants.length === 0).each(variants)('reduce ($name)', ({ ctx }) => {
  it('u32 min, max and sum (mod 2^32) match reduceCpu at sizes 0 … 2^20 + 7', async () => {
    for (const n of SIZES) {
      const data = u32Data(n, 100 + n);
      expectReductions(await gpuReduceAll(ctx, data), data, `u32 n=${n}`);
    }
  });

  it('f32 min, max and sum match reduceCpu at sizes 0 … 2^20 + 7 (sums within n·eps·Σ|x|)', async () => {
    for (const n of SIZES) {
      const data = f32Data(n, 200 + n);
      expectReductions(await gpuReduceAll(ctx, data), data, `f32 n=${n}`);
    }
  });

  it('count = 0 writes the identity of every op and type', async () => {
    for (const type of ['u32', 'f32'] as const) {
      const got = await gpuReduceAll(ctx, type === 'u32' ? new Uint32Array(0) : new Float32Array(0));
      for (const op of OPS) expect(got[op], `${op} ${type}`).toBe(reduceIdentity(op, type));
    }
  });

  it('all-equal values with all bits set, and extreme f32 values', async () => {
    const ones = new Uint32Array(70_001).fill(0xffffffff);
    expectReductions(await gpuReduceAll(ctx, ones), ones, 'all 0xFFFFFFFF');
    const equal = new Float32Array(5000).fill(-3.25);
    expectReductions(await gpuReduceAll(ctx, equal), equal, 'all −3.25');
    // min/max only: the sum of ±Inf is NaN, of ±FLT_MAX overflows.
    const extreme = f32Data(10_000, 300);
    extreme[17] = Infinity;
    extreme[4000] = -Infinity;
    extreme[9999] = 3.4028234663852886e38;
    extreme[0] = -3.4028234663852886e38;
    const got = await gpuReduceAll(ctx, extreme);
    expect(got.min).toBe(-Infinity);
    expect(got.max).toBe(Infinity);
    const finite = extreme.filter((x) => Number.isFinite(x));
    const gotFinite = await gpuReduceAll(ctx, finite);
    expect(gotFinite.min).toBe(-3.4028234663852886e38);
    expect(gotFinite.max).toBe(3.4028234663852886e38);
  });

  it('a small workgroup (32 threads, 1 item) gives four passes', async () => {
    for (const n of [31, 33, 1025, (1 << 20) + 7]) {
      const data = u32Data(n, 400 + n);
      expectReductions(await gpuReduceAll(ctx, data, { workgroupSize: 32, itemsPerThread: 1 }), data, `WG=32 n=${n}`);
      const f = f32Data(n, 500 + n);
      expectReductions(await gpuReduceAll(ctx, f, { workgroupSize: 32, itemsPerThread: 1 }), f, `WG=32 f32 n=${n}`);
    }
  });

  it('a count above 65535 blocks runs on a 2D dispatch grid', async () => {
    const n = 65535 * 64 + 100;
    const data = u32Data(n, 600);
    expectReductions(await gpuReduceAll(ctx, data, { workgroupSize: 32, itemsPerThread: 2 }), data, `2D grid n=${n}`);
  });

  it('reduce() uploads, reduces, reads back and frees', async () => {
    const before = ctx.memory.liveBytes;
    const u = u32Data(3000, 700);
    const f = f32Data(3000, 701);
    for (const op of ['min', 'max'] as const) {
      expect(await reduce(ctx, u, op)).toBe(reduceCpu(u, op));
      expect(await reduce(ctx, f, op)).toBe(reduceCpu(f, op));
    }
    expect(await reduce(ctx, u, 'sum')).toBe(reduceCpu(u, 'sum'));
    expect(await reduce(ctx, new Float32Array(0), 'min')).toBe(Infinity);
    expect(ctx.memory.liveBytes).toBe(before);
  });

  it('encode rejects bad arguments, naming the value', async () => {
    const reducer = await createReducer(ctx, 100);
    const buf = ctx.createBuffer('test::buf', 400);
    const out = ctx.createBuffer('test::out', 8);
    const run = (f: Parameters<typeof ctx.submit>[1]) => ctx.submit('test::reduce', f);
    await expect(run((rec) => reducer.encode(rec, buf, out, 0, 101, 'sum', 'u32'))).rejects.toThrow(/101/);
    await expect(run((rec) => reducer.encode(rec, buf, out, 2, 10, 'sum', 'u32'))).rejects.toThrow(/test::out.*2 u32/);
    await expect(run((rec) => reducer.encode(rec, buf, buf, 0, 10, 'sum', 'u32'))).rejects.toThrow(
      /must not be the input/,
    );
    await expect(run((rec) => reducer.encode(rec, buf, out, 0, 10, 'avg' as ReduceOp, 'u32'))).rejects.toThrow(/avg/);
    buf.destroy();
    out.destroy();
    reducer.destroy();
  });
});
