import { afterAll, describe, expect, it } from 'vitest';
import type { GpuContext } from '../../src/gpu/index.js';
import { compact, createCompactor } from '../../src/primitives/compact.js';
import { compactCpu } from '../../src/primitives/compact.cpu.js';
import type { PrimitiveOptions } from '../../src/primitives/scan.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { mulberry32 } from '../helpers/random.js';
import { firstDifference, SIZES, u32Data } from '../helpers/primitives.data.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

/** Flags with about `density` of them non-zero; the non-zero ones are arbitrary u32, 0xFFFFFFFF among them. */
function flagData(n: number, density: number, seed: number): Uint32Array {
  const r = mulberry32(seed);
  const f = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    if (r() < density) f[i] = r() < 0.3 ? 0xffffffff : 1 + Math.floor(r() * 0xfffffffe);
  }
  return f;
}

/** Compacts on the GPU with a compactor of the given shape; `out` and the count start as garbage. */
async function gpuCompact(ctx: GpuContext, values: Uint32Array, flags: Uint32Array, options: PrimitiveOptions = {}) {
  const n = values.length;
  const compactor = await createCompactor(ctx, n, options);
  const v = ctx.upload('test::values', values);
  const f = ctx.upload('test::flags', flags);
  const out = ctx.upload('test::out', new Uint32Array(n).fill(0xdeadbeef));
  const kept = ctx.upload('test::kept', new Uint32Array([0xdeadbeef]));
  await ctx.submit('test::compact', (rec) => compactor.encode(rec, v, f, out, kept, n));
  const k = new Uint32Array(await ctx.read(kept))[0];
  const all = new Uint32Array(await ctx.read(out, 0, n * 4));
  for (const b of [v, f, out, kept]) b.destroy();
  compactor.destroy();
  return { kept: k, out: all };
}

async function expectCompact(
  ctx: GpuContext,
  values: Uint32Array,
  flags: Uint32Array,
  what: string,
  options?: PrimitiveOptions,
) {
  const want = compactCpu(values, flags);
  const got = await gpuCompact(ctx, values, flags, options);
  expect(got.kept, `${what}: kept count`).toBe(want.length);
  const diff = firstDifference(got.out.subarray(0, want.length), want);
  if (diff) expect.fail(`${what}: ${diff} (GPU vs CPU)`);
  // Nothing is written past the kept elements.
  for (let i = want.length; i < values.length; i++) {
    if (got.out[i] !== 0xdeadbeef) expect.fail(`${what}: out[${i}] = ${got.out[i]} was written past the kept count`);
  }
}

describe.skipIf(variants.length === 0).each(variants)('compact ($name)', ({ ctx }) => {
  it('matches compactCpu at sizes 0 … 2^20 + 7 and flag densities 0, 1 %, 50 %, 100 %', async () => {
    for (const n of SIZES) {
      const values = u32Data(n, 10 + n);
      for (const density of [0, 0.01, 0.5, 1]) {
        await expectCompact(ctx, values, flagData(n, density, 20 + n), `n=${n} density=${density}`);
      }
    }
  });

  it('is stable: kept indices stay in order, also when all values are equal', async () => {
    const n = 300_007;
    const index = Uint32Array.from({ length: n }, (_, i) => i);
    await expectCompact(ctx, index, flagData(n, 0.3, 30), 'indices');
    await expectCompact(ctx, new Uint32Array(n).fill(0xffffffff), flagData(n, 0.7, 31), 'all 0xFFFFFFFF');
  });

  it('values and flags may be the same buffer', async () => {
    const n = 10_000;
    const data = flagData(n, 0.5, 40);
    const compactor = await createCompactor(ctx, n);
    const buf = ctx.upload('test::valuesAndFlags', data);
    const out = ctx.createBuffer('test::out', n * 4);
    const kept = ctx.createBuffer('test::kept', 4);
    await ctx.submit('test::compact', (rec) => compactor.encode(rec, buf, buf, out, kept, n));
    const k = new Uint32Array(await ctx.read(kept))[0];
    expect(firstDifference(new Uint32Array(await ctx.read(out, 0, k * 4)), compactCpu(data, data))).toBeNull();
    for (const b of [buf, out, kept]) b.destroy();
    compactor.destroy();
  });

  it('a small workgroup (32 threads, 1 item) gives a multi-level spine', async () => {
    for (const n of [31, 33, 1025, (1 << 20) + 7]) {
      await expectCompact(ctx, u32Data(n, 50 + n), flagData(n, 0.5, 60 + n), `WG=32 n=${n}`, {
        workgroupSize: 32,
        itemsPerThread: 1,
      });
    }
  });

  it('a count above 65535 blocks runs on a 2D dispatch grid', async () => {
    const n = 65535 * 64 + 100;
    await expectCompact(ctx, u32Data(n, 70), flagData(n, 0.4, 71), `2D grid n=${n}`, {
      workgroupSize: 32,
      itemsPerThread: 2,
    });
  });

  it('compact() uploads, compacts, reads back and frees', async () => {
    const before = ctx.memory.liveBytes;
    const values = u32Data(5000, 80);
    const flags = flagData(5000, 0.2, 81);
    expect(firstDifference(await compact(ctx, values, flags), compactCpu(values, flags))).toBeNull();
    expect(await compact(ctx, new Uint32Array(0), new Uint32Array(0))).toEqual(new Uint32Array(0));
    await expect(compact(ctx, values, flags.subarray(1))).rejects.toThrow(/flags.length.*4999/);
    expect(ctx.memory.liveBytes).toBe(before);
  });

  it('encode rejects bad arguments, naming the value', async () => {
    const compactor = await createCompactor(ctx, 100);
    const a = ctx.createBuffer('test::a', 400);
    const small = ctx.createBuffer('test::small', 40);
    const kept = ctx.createBuffer('test::kept', 4);
    const run = (f: Parameters<typeof ctx.submit>[1]) => ctx.submit('test::compact', f);
    await expect(run((rec) => compactor.encode(rec, a, a, small, kept, 100))).rejects.toThrow(/out 'test::small'/);
    await expect(run((rec) => compactor.encode(rec, a, a, a, kept, 10))).rejects.toThrow(/must not also be an input/);
    await expect(run((rec) => compactor.encode(rec, a, a, small, kept, 101))).rejects.toThrow(/101/);
    for (const b of [a, small, kept]) b.destroy();
    compactor.destroy();
  });
});
