import { afterAll, describe, expect, it } from 'vitest';
import { createGpuContext, Timer } from '../../src/gpu/index.js';
import { GpuError } from '../../src/errors.js';
import { destroyVariants, gpuVariants, tryGpuContext } from '../helpers/gpu.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

describe.skipIf(variants.length === 0).each(variants)('gpu context ($name)', ({ ctx }) => {
  const fillSpec = (wg: number) => ({
    label: 'test::fill',
    shader: 'test/fill',
    entry: 'main',
    bindings: ['uniform', 'rw'] as const,
    workgroupSize: wg,
  });

  it('dispatch(threads) covers every element, through a 2D grid when the count needs one', async () => {
    const k = await ctx.kernel({ ...fillSpec(32), bindings: ['uniform', 'rw'] });
    for (const n of [1, 31, 32, 33, 1000]) {
      const out = ctx.createBuffer('test::out', n * 4);
      await ctx.submit('test::fill', (rec) => rec.dispatch(k, { buffers: [out], uniforms: [n, 3, 7, 0], threads: n }));
      const got = new Uint32Array(await ctx.read(out));
      out.destroy();
      for (let i = 0; i < n; i++) if (got[i] !== i * 3 + 7) expect.fail(`n=${n}: out[${i}] = ${got[i]}`);
    }
    // 65535 groups of 32 threads is the 1D limit; one element more needs a 2D grid.
    const n = 65535 * 32 + 5;
    const out = ctx.createBuffer('test::out', n * 4);
    await ctx.submit('test::fill', (rec) => rec.dispatch(k, { buffers: [out], uniforms: [n, 1, 1, 0], threads: n }));
    const got = new Uint32Array(await ctx.read(out));
    out.destroy();
    let bad = -1;
    for (let i = 0; i < n; i++)
      if (got[i] !== i + 1) {
        bad = i;
        break;
      }
    expect(bad).toBe(-1);
  });

  it('a deliberately invalid dispatch throws a GpuError naming the kernel label', async () => {
    const k = await ctx.kernel({ ...fillSpec(64), bindings: ['uniform', 'rw'] });
    // A buffer without STORAGE usage cannot be bound as storage: a validation error.
    const bad = ctx.device.createBuffer({ label: 'test::notStorage', size: 64, usage: 0x0008 });
    const p = ctx.submit('test::invalid', (rec) =>
      rec.dispatch(k, { buffers: [bad], uniforms: [4, 1, 0, 0], threads: 4 }),
    );
    await expect(p).rejects.toBeInstanceOf(GpuError);
    await expect(p).rejects.toThrow(/test::fill/);
    bad.destroy();
    // The context stays usable after a caught error.
    const out = ctx.createBuffer('test::out', 16);
    await ctx.submit('test::fill', (rec) => rec.dispatch(k, { buffers: [out], uniforms: [4, 2, 0, 0], threads: 4 }));
    expect([...new Uint32Array(await ctx.read(out))]).toEqual([0, 2, 4, 6]);
    out.destroy();
  });

  it('a WGSL compilation error throws a GpuError naming the kernel label', async () => {
    await expect(
      ctx.kernel({
        label: 'test::broken',
        shader: 'test/fill',
        entry: 'nope',
        bindings: ['uniform', 'rw'],
        workgroupSize: 64,
      }),
    ).rejects.toThrow(/test::broken/);
  });

  it('the timer reports a non-negative time per kernel label when timestamps exist', async () => {
    const k = await ctx.kernel({ ...fillSpec(64), bindings: ['uniform', 'rw'] });
    const timer = new Timer(ctx, 16);
    const out = ctx.createBuffer('test::out', 4096);
    await ctx.submit(
      'test::fill',
      (rec) => {
        rec.dispatch(k, { buffers: [out], uniforms: [1024, 1, 0, 0], threads: 1024 });
        rec.dispatch(k, { buffers: [out], uniforms: [1024, 2, 0, 0], threads: 1024 });
      },
      { timer },
    );
    const summary = await timer.summary();
    if (ctx.features.timestampQuery) {
      expect([...summary.keys()]).toEqual(['test::fill']);
      expect(summary.get('test::fill')!).toBeGreaterThanOrEqual(0);
    } else {
      expect(summary.size).toBe(0);
    }
    timer.destroy();
    out.destroy();
  });

  it('buffers are tracked: live bytes return to where they were and the peak is recorded', async () => {
    const before = ctx.memory.liveBytes;
    ctx.buffers.resetPeak();
    const a = ctx.createBuffer('test::a', 1000);
    const b = ctx.upload('test::b', new Float32Array([1, 2, 3]));
    expect(ctx.memory.liveBytes).toBe(before + 1000 + 12);
    expect(new Float32Array(await ctx.read(b))).toEqual(new Float32Array([1, 2, 3]));
    a.destroy();
    b.destroy();
    expect(ctx.memory.liveBytes).toBe(before);
    expect(ctx.memory.peakBytes).toBe(before + 1012);
  });
});

describe.skipIf(variants.length === 0)('gpu context lifecycle', () => {
  it('destroy() frees every buffer and later use throws', async () => {
    const ctx = (await tryGpuContext())!;
    ctx.createBuffer('test::leak', 256);
    expect(ctx.memory.liveBuffers).toBe(1);
    await ctx.destroy();
    expect(ctx.memory.liveBuffers).toBe(0);
    expect(() => ctx.createBuffer('test::after', 4)).toThrow();
    ctx.destroy();
  });

  it('features: none requests no optional feature', async () => {
    const ctx = await createGpuContext({ features: 'none' });
    expect(ctx.features).toEqual({ subgroups: false, timestampQuery: false, atomicVec2uMinMax: false });
    await ctx.destroy();
  });
});
