import { afterAll, describe, expect, it } from 'vitest';
import type { GpuContext } from '../../src/gpu/index.js';
import { InputError } from '../../src/errors.js';
import { createScanner, scanU32, type ScanMode, type ScannerOptions } from '../../src/primitives/scan.js';
import { scanU32Cpu } from '../../src/primitives/scan.cpu.js';
import { MIN_BINDING_BYTES } from '../../src/gpu/context.js';
import { destroyVariants, gpuVariants, tryGpuContext } from '../helpers/gpu.js';
import { firstDifference, SIZES, u32Data } from '../helpers/primitives.data.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

const MODES: ScanMode[] = ['exclusive', 'inclusive'];

/** Scans `data` with a scanner of the given shape, out of place or in place, and returns the result. */
async function gpuScan(
  ctx: GpuContext,
  data: Uint32Array,
  mode: ScanMode,
  options: ScannerOptions & { inPlace?: boolean } = {},
): Promise<Uint32Array> {
  const n = data.length;
  const scanner = await createScanner(ctx, n, options);
  const input = ctx.upload('test::scanInput', data);
  // The output starts as garbage, so that an element the scan skips shows.
  const output = options.inPlace ? input : ctx.upload('test::scanOutput', new Uint32Array(n).fill(0xdeadbeef));
  await ctx.submit('test::scan', (rec) => scanner.encode(rec, input, output, n, mode));
  const got = new Uint32Array(await ctx.read(output, 0, n * 4));
  input.destroy();
  output.destroy();
  scanner.destroy();
  return got;
}

function expectScan(got: Uint32Array, data: Uint32Array, mode: ScanMode, what: string): void {
  const diff = firstDifference(got, scanU32Cpu(data, mode));
  if (diff) expect.fail(`${what}, ${mode}: ${diff} (GPU vs CPU)`);
}

describe.skipIf(variants.length === 0).each(variants)('scan ($name)', ({ ctx }) => {
  it('scanner.encode matches scanU32Cpu at sizes 0 … 2^20 + 7, exclusive and inclusive, out of place', async () => {
    for (const n of SIZES) {
      const data = u32Data(n, 1000 + n);
      for (const mode of MODES) expectScan(await gpuScan(ctx, data, mode), data, mode, `n=${n}`);
    }
  });

  it('scanner.encode scans in place when input and output are the same buffer', async () => {
    for (const n of [1, 257, (1 << 20) + 7]) {
      const data = u32Data(n, 2000 + n);
      for (const mode of MODES)
        expectScan(await gpuScan(ctx, data, mode, { inPlace: true }), data, mode, `in place n=${n}`);
    }
  });

  it('all-equal values with all bits set wrap mod 2^32', async () => {
    const data = new Uint32Array(100_003).fill(0xffffffff);
    for (const mode of MODES) expectScan(await gpuScan(ctx, data, mode), data, mode, 'all 0xFFFFFFFF');
  });

  it('a small workgroup (32 threads, 1 item) gives a four-level spine', async () => {
    for (const n of [31, 32, 33, 1025, (1 << 20) + 7]) {
      const data = u32Data(n, 3000 + n);
      for (const mode of MODES) {
        expectScan(
          await gpuScan(ctx, data, mode, { workgroupSize: 32, itemsPerThread: 1 }),
          data,
          mode,
          `WG=32 n=${n}`,
        );
      }
    }
  });

  it('other block shapes (64 × 3, 128 × 8) agree with the CPU twin', async () => {
    const n = 50_001;
    const data = u32Data(n, 4000);
    for (const [wg, items] of [
      [64, 3],
      [128, 8],
    ]) {
      expectScan(
        await gpuScan(ctx, data, 'exclusive', { workgroupSize: wg, itemsPerThread: items }),
        data,
        'exclusive',
        `WG=${wg} items=${items}`,
      );
    }
  });

  it('a count above 65535 blocks runs on a 2D dispatch grid', async () => {
    // 32 threads × 2 items = 64 elements per block: 65537 blocks, one more row than a 1D grid holds.
    const n = 65535 * 64 + 100;
    const data = u32Data(n, 5000);
    for (const mode of MODES) {
      expectScan(
        await gpuScan(ctx, data, mode, { workgroupSize: 32, itemsPerThread: 2 }),
        data,
        mode,
        `2D grid n=${n}`,
      );
    }
  });

  it("strategy 'lookback' (single pass) matches scanU32Cpu at sizes 0 … 2^20 + 7 and on a 2D grid", async () => {
    for (const n of SIZES) {
      const data = u32Data(n, 7000 + n);
      for (const mode of MODES)
        expectScan(await gpuScan(ctx, data, mode, { strategy: 'lookback' }), data, mode, `lookback n=${n}`);
    }
    const n = 65535 * 64 + 100;
    const data = u32Data(n, 7100);
    const options = { strategy: 'lookback', workgroupSize: 32, itemsPerThread: 2 } as const;
    expectScan(await gpuScan(ctx, data, 'exclusive', options), data, 'exclusive', `lookback 2D grid n=${n}`);
  });

  it("strategy 'lookback' gives the right sums through its fallback and through windows of aggregates", async () => {
    // 'hide-odd-tiles' hides the status of every odd tile, so the look-back must reduce those tiles itself
    // (after lookbackSpins rounds); lookbackSpins: 0 alone reduces any tile that is not ready at first sight;
    // 'aggregates-only' hides inclusive prefixes, so whole windows of aggregates are added.
    const cases = [
      [257, 32, 1],
      [5000, 32, 1],
      [100_003, 256, 16],
    ];
    for (const [n, wg, items] of cases) {
      const data = u32Data(n, 8000 + n);
      const options: ScannerOptions = { strategy: 'lookback', workgroupSize: wg, itemsPerThread: items };
      expectScan(
        await gpuScan(ctx, data, 'inclusive', { ...options, lookbackSpins: 1, lookbackTestMode: 'hide-odd-tiles' }),
        data,
        'inclusive',
        `lookback fallback WG=${wg} n=${n}`,
      );
      expectScan(
        await gpuScan(ctx, data, 'exclusive', { ...options, lookbackTestMode: 'aggregates-only' }),
        data,
        'exclusive',
        `lookback aggregates only WG=${wg} n=${n}`,
      );
      expectScan(
        await gpuScan(ctx, data, 'exclusive', { ...options, lookbackSpins: 0 }),
        data,
        'exclusive',
        `lookback spins=0 WG=${wg} n=${n}`,
      );
    }
  });

  it("strategy 'lookback' scans in place through reduce-then-scan", async () => {
    const data = u32Data(300_001, 9000);
    expectScan(
      await gpuScan(ctx, data, 'inclusive', { strategy: 'lookback', inPlace: true }),
      data,
      'inclusive',
      'in place',
    );
  });

  it('scanU32 uploads, scans, reads back and frees', async () => {
    const before = ctx.memory.liveBytes;
    const data = u32Data(10_000, 6000);
    for (const mode of MODES) expectScan(await scanU32(ctx, data, mode), data, mode, 'scanU32');
    expect(await scanU32(ctx, new Uint32Array(0), 'exclusive')).toEqual(new Uint32Array(0));
    expect(ctx.memory.liveBytes).toBe(before);
  });

  it('createScanner and encode reject bad arguments, naming the value', async () => {
    await expect(createScanner(ctx, 100, { workgroupSize: 48 })).rejects.toThrow(/workgroupSize.*48/);
    await expect(createScanner(ctx, 100, { itemsPerThread: 0 })).rejects.toThrow(/itemsPerThread.*0/);
    await expect(createScanner(ctx, -1)).rejects.toThrow(InputError);
    await expect(createScanner(ctx, 100, { strategy: 'magic' as 'lookback' })).rejects.toThrow(/magic/);
    await expect(createScanner(ctx, 100, { lookbackSpins: -2 })).rejects.toThrow(/lookbackSpins.*-2/);
    const scanner = await createScanner(ctx, 100);
    const small = ctx.createBuffer('test::small', 40);
    await expect(
      ctx.submit('test::scan', (rec) => scanner.encode(rec, small, small, 101, 'exclusive')),
    ).rejects.toThrow(/101/);
    await expect(ctx.submit('test::scan', (rec) => scanner.encode(rec, small, small, 11, 'exclusive'))).rejects.toThrow(
      /test::small.*10 u32/,
    );
    await expect(
      ctx.submit('test::scan', (rec) => scanner.encode(rec, small, small, 5, 'sideways' as ScanMode)),
    ).rejects.toThrow(/sideways/);
    small.destroy();
    scanner.destroy();
  });

  it('destroy() frees every buffer the scanner made', async () => {
    const before = ctx.memory.liveBytes;
    const scanner = await createScanner(ctx, 1 << 22, { workgroupSize: 32, itemsPerThread: 1, strategy: 'lookback' });
    expect(ctx.memory.liveBytes).toBeGreaterThan(before);
    scanner.destroy();
    expect(ctx.memory.liveBytes).toBe(before);
  });
});

describe.skipIf(variants.length === 0)('scan above one storage binding (issue 19)', () => {
  it('at a 1 MiB binding limit (262,144 u32) scans of 262,145 and 600,001 go by windows and equal scanU32Cpu, in place and not', async () => {
    const low = (await tryGpuContext({ maxBindingBytes: 1048576 }))!;
    try {
      for (const n of [262_145, 600_001]) {
        const data = u32Data(n, 7000 + n);
        for (const mode of MODES) {
          expectScan(await gpuScan(low, data, mode), data, mode, `windows, n=${n}`);
          expectScan(await gpuScan(low, data, mode, { inPlace: true }), data, mode, `windows in place, n=${n}`);
        }
      }
      // The look-back strategy takes the windows too where the elements exceed one binding.
      const data = u32Data(300_007, 7100);
      expectScan(await gpuScan(low, data, 'exclusive', { strategy: 'lookback' }), data, 'exclusive', 'lookback');
      expect(low.memory.liveBuffers).toBe(0);
    } finally {
      await low.destroy();
    }
  });

  it('at 64 KiB (16,384 u32) a window must hold 64 tiles: refused with 2048-element tiles, windows with 32-element ones (a three-level spine)', async () => {
    const low = (await tryGpuContext({ maxBindingBytes: MIN_BINDING_BYTES }))!;
    try {
      await expect(createScanner(low, 16_385)).rejects.toThrow(/maxCount to be an integer in 0…16384, got 16385/);
      const small = { workgroupSize: 32, itemsPerThread: 1 };
      for (const n of [16_385, 40_000, 70_001]) {
        const data = u32Data(n, 7200 + n);
        for (const mode of MODES) {
          expectScan(await gpuScan(low, data, mode, small), data, mode, `small tiles, n=${n}`);
          expectScan(await gpuScan(low, data, mode, { ...small, inPlace: true }), data, mode, `in place, n=${n}`);
        }
      }
    } finally {
      await low.destroy();
    }
  });
});
