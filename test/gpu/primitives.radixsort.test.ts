import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { createGpuContext, type GpuContext } from '../../src/gpu/index.js';
import {
  createRadixSorter,
  digitPasses,
  radixShapeFits,
  sortPairs,
  type RadixSorterOptions,
} from '../../src/primitives/radixsort.js';
import { sortPairsCpu, type BitRange } from '../../src/primitives/radixsort.cpu.js';
import { benchRadixSort } from '../../src/bench/primitives.radixsort.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { mulberry32, randomU32 } from '../helpers/random.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

/** Values 0 … n − 1, so that a sorted result says where each pair came from. */
const iota = (n: number) => Uint32Array.from({ length: n }, (_, i) => i);

/** The key of pair i restricted to bits [lo, hi), as a bigint. */
function maskedKey(keys: Uint32Array, kw: number, i: number, lo: number, hi: number): bigint {
  const k = kw === 1 ? BigInt(keys[i]) : (BigInt(keys[2 * i + 1]) << 32n) | BigInt(keys[2 * i]);
  return (k >> BigInt(lo)) & ((1n << BigInt(hi - lo)) - 1n);
}

/**
 * Checks a sort of (keys, iota) independently of any twin: every output key is the input key its value names,
 * the masked keys ascend, and equal masked keys keep their input order (values ascend).
 */
function expectSortedStable(
  input: Uint32Array,
  out: { keys: Uint32Array; values: Uint32Array },
  kw: 1 | 2,
  bits: BitRange,
) {
  const lo = bits.bitsLo ?? 0;
  const hi = bits.bitsHi ?? 32 * kw;
  const n = out.values.length;
  const seen = new Uint8Array(n);
  let prev = -1n;
  for (let i = 0; i < n; i++) {
    const v = out.values[i];
    if (v >= n || seen[v]) expect.fail(`values[${i}] = ${v} is not a permutation entry`);
    seen[v] = 1;
    for (let w = 0; w < kw; w++) {
      if (out.keys[kw * i + w] !== input[kw * v + w]) expect.fail(`keys[${i}] word ${w} is not the key of input ${v}`);
    }
    if (lo === hi) {
      if (v !== i) expect.fail(`empty bit range moved pair ${v} to ${i}`);
      continue;
    }
    const k = maskedKey(out.keys, kw, i, lo, hi);
    if (k < prev) expect.fail(`keys[${i}] (${k}) < keys[${i - 1}] (${prev}) on bits ${lo}..${hi}`);
    if (k === prev && out.values[i - 1] > v) expect.fail(`unstable at ${i}: value ${out.values[i - 1]} before ${v}`);
    prev = k;
  }
}

/** Sorts on the GPU and checks the result against the CPU twin and the invariants. */
async function checkSort(
  ctx: GpuContext,
  keys: Uint32Array,
  kw: 1 | 2,
  bits: BitRange = {},
  options?: Partial<RadixSorterOptions>,
) {
  const n = keys.length / kw;
  const values = iota(n);
  let got: { keys: Uint32Array; values: Uint32Array };
  if (options) {
    const sorter = await createRadixSorter(ctx, { maxCount: n, keyWords: kw, ...options });
    const kb = ctx.upload('test::keys', keys);
    const vb = ctx.upload('test::values', values);
    await ctx.submit('test::sort', (rec) => sorter.encode(rec, { keys: kb, values: vb, count: n, ...bits }));
    got = {
      keys: new Uint32Array(await ctx.read(kb, 0, 4 * kw * n)),
      values: new Uint32Array(await ctx.read(vb, 0, 4 * n)),
    };
    kb.destroy();
    vb.destroy();
    sorter.destroy();
  } else {
    got = await sortPairs(ctx, keys, values, kw, bits);
  }
  const want = sortPairsCpu(keys, values, kw, bits);
  expectSortedStable(keys, got, kw, bits);
  if (!arraysEqual(got.values, want.values)) expect.fail('values differ from the CPU twin');
  if (!arraysEqual(got.keys, want.keys)) expect.fail('keys differ from the CPU twin');
}

function arraysEqual(a: Uint32Array, b: Uint32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Timeout of the heaviest cases: lavapipe compiles every shape's pipelines and shares two CPU cores. */
const SLOW = 900_000;
const SIZES = [0, 1, 255, 256, 257, (1 << 20) + 7];
const RANGES: Record<1 | 2, BitRange[]> = {
  1: [{}, { bitsLo: 0, bitsHi: 20 }, { bitsLo: 3, bitsHi: 29 }],
  2: [{}, { bitsLo: 0, bitsHi: 20 }, { bitsLo: 3, bitsHi: 61 }],
};
const show = (b: BitRange) => (b.bitsLo === undefined ? 'all bits' : `bits ${b.bitsLo}..${b.bitsHi}`);

describe('sortPairsCpu', () => {
  it('sortPairsCpu(keys, values) is a stable sort on the bit range (checked against the invariants)', () => {
    for (const kw of [1, 2] as const) {
      for (const bits of [...RANGES[kw], { bitsLo: 5, bitsHi: 5 }, { bitsLo: 31, bitsHi: 33 }].filter(
        (b) => (b.bitsHi ?? 0) <= 32 * kw,
      )) {
        const keys = randomU32(3000 * kw, 7 + kw);
        for (let i = 0; i < keys.length; i += 3) keys[i] &= 0x0f0f00ff; // duplicates on some bit ranges
        expectSortedStable(keys, sortPairsCpu(keys, iota(3000), kw, bits), kw, bits);
      }
    }
  });

  it('digitPasses(lo, hi, width) takes the fewest passes of balanced widths that cover the range', () => {
    expect(digitPasses(0, 63, 9)).toEqual([0, 9, 18, 27, 36, 45, 54].map((shift) => ({ shift, bits: 9 })));
    expect(digitPasses(0, 63, 8).map((p) => p.bits)).toEqual([8, 8, 8, 8, 8, 8, 8, 7]);
    expect(digitPasses(0, 64, 9).map((p) => p.bits)).toEqual([8, 8, 8, 8, 8, 8, 8, 8]);
    expect(digitPasses(3, 29, 8)).toEqual([
      { shift: 3, bits: 7 },
      { shift: 10, bits: 7 },
      { shift: 17, bits: 6 },
      { shift: 23, bits: 6 },
    ]);
    expect(digitPasses(5, 5, 8)).toEqual([]);
    for (let lo = 0; lo <= 64; lo += 7) {
      for (let hi = lo; hi <= 64; hi++) {
        for (const w of [2, 4, 8, 9]) {
          const ps = digitPasses(lo, hi, w);
          expect(ps.length).toBe(Math.ceil((hi - lo) / w));
          let at = lo;
          for (const p of ps) {
            expect(p.shift).toBe(at);
            expect(p.bits).toBeGreaterThanOrEqual(1);
            expect(p.bits).toBeLessThanOrEqual(w);
            at += p.bits;
          }
          expect(at).toBe(hi);
        }
      }
    }
  });

  it('sortPairsCpu names the bad value', () => {
    expect(() => sortPairsCpu(new Uint32Array(3), iota(2), 2)).toThrow(/keys.length .* got 3/);
    expect(() => sortPairsCpu(new Uint32Array(2), iota(2), 1, { bitsHi: 33 })).toThrow(/bitsHi .* got 33/);
    expect(() => sortPairsCpu(new Uint32Array(2), iota(2), 1, { bitsLo: 9, bitsHi: 4 })).toThrow(InputError);
  });
});

describe.skipIf(variants.length === 0).each(variants)('radix sort ($name)', ({ ctx }) => {
  for (const kw of [1, 2] as const) {
    for (const bits of RANGES[kw]) {
      it(`sortPairs(${32 * kw}-bit keys, ${show(bits)}) matches the CPU twin for n = ${SIZES.join(', ')}`, async () => {
        for (const n of SIZES) await checkSort(ctx, randomU32(n * kw, 1000 + n + kw), kw, bits);
      });
    }
  }

  it('keys with all bits set sort after everything else and stay stable', async () => {
    for (const kw of [1, 2] as const) {
      const n = 5000;
      const keys = randomU32(n * kw, 42);
      for (let i = 0; i < n; i += 3) for (let w = 0; w < kw; w++) keys[kw * i + w] = 0xffffffff;
      await checkSort(ctx, keys, kw);
      await checkSort(ctx, new Uint32Array(n * kw).fill(0xffffffff), kw);
    }
  });

  it('all-equal keys keep their input order (stability)', async () => {
    for (const kw of [1, 2] as const) {
      const n = 70_001;
      const keys = new Uint32Array(n * kw).fill(0x12345678);
      const out = await sortPairs(ctx, keys, iota(n), kw);
      expect(arraysEqual(out.values, iota(n))).toBe(true);
      expect(arraysEqual(out.keys, keys)).toBe(true);
    }
  });

  it('many duplicates: keys drawn from 7 values (whole keys, and 8 bits inside random noise)', async () => {
    const r = mulberry32(9);
    for (const kw of [1, 2] as const) {
      const n = 100_000;
      const pool = randomU32(7 * kw, 10 + kw);
      const whole = new Uint32Array(n * kw);
      const noisy = randomU32(n * kw, 11 + kw);
      for (let i = 0; i < n; i++) {
        const d = Math.floor(r() * 7);
        for (let w = 0; w < kw; w++) whole[kw * i + w] = pool[kw * d + w];
        // Bits 4..11 of the top word hold d; every other bit is noise outside the sorted range.
        const top = kw * i + kw - 1;
        noisy[top] = ((noisy[top] & ~0x0ff0) | (d << 4)) >>> 0;
      }
      await checkSort(ctx, whole, kw);
      await checkSort(ctx, noisy, kw, { bitsLo: 32 * kw - 28, bitsHi: 32 * kw - 20 });
    }
  });

  it(
    'other shapes: small workgroups, few keys per thread, 2 … 8 bits per pass, with and without subgroups',
    async () => {
      const shapes: Partial<RadixSorterOptions>[] = [
        { subgroups: false, workgroupSize: 16, keysPerThread: 1, radixBits: 4 },
        { subgroups: false, workgroupSize: 32, keysPerThread: 3, radixBits: 2 },
        { subgroups: false, workgroupSize: 64, keysPerThread: 5, radixBits: 5 },
        { subgroups: false, workgroupSize: 64, keysPerThread: 7, radixBits: 6 },
      ];
      if (ctx.features.subgroups) {
        shapes.push(
          { subgroups: true, workgroupSize: 32, keysPerThread: 3, radixBits: 5 },
          { subgroups: true, workgroupSize: 128, keysPerThread: 5, radixBits: 8 },
        );
      }
      for (const shape of shapes) {
        for (const kw of [1, 2] as const) {
          await checkSort(ctx, randomU32(6007 * kw, 5), kw, {}, shape);
          await checkSort(ctx, randomU32(3001 * kw, 6), kw, { bitsLo: 1, bitsHi: 32 * kw - 2 }, shape);
        }
      }
    },
    SLOW,
  );

  it(
    '9-bit digits (subgroups, 256 and 512 threads) where the device holds their workgroup memory: 63- and 64-bit ranges, ties, sizes 1 … 50,001; refused by name elsewhere',
    async () => {
      const shape: Partial<RadixSorterOptions> = { subgroups: true, radixBits: 9, workgroupSize: 256 };
      const wide = { ...shape, workgroupSize: 512, keysPerThread: 8 };
      if (!radixShapeFits(ctx, shape)) {
        // lavapipe: 8-lane subgroups need 32 warps' counters of 256 words, beyond its 32 KiB.
        await expect(createRadixSorter(ctx, { maxCount: 10, keyWords: 2, ...shape })).rejects.toThrow(
          ctx.features.subgroups ? /workgroup memory/ : /subgroups: true needs/,
        );
        return;
      }
      for (const n of [1, 2, 255, 2049, 50_001]) {
        const keys = randomU32(2 * n, 90 + n);
        // Ties: every third key keeps only a few bits in each word.
        for (let i = 0; i < keys.length; i += 3) keys[i] &= 0x8000_0101;
        for (const bits of [{ bitsLo: 0, bitsHi: 63 }, {}, { bitsLo: 27, bitsHi: 45 }, { bitsLo: 1, bitsHi: 9 }]) {
          await checkSort(ctx, keys, 2, bits, shape);
          if (radixShapeFits(ctx, wide)) await checkSort(ctx, keys, 2, bits, wide);
        }
        await checkSort(ctx, keys.subarray(0, n), 1, {}, { ...shape, keysPerThread: 3 });
      }
    },
    SLOW,
  );

  it(
    'more than 65535 blocks use a 2D dispatch grid',
    async () => {
      // 16 (32 with subgroups) threads × 1–2 keys per block: 65535 blocks hold 2,097,120 keys.
      const n = 65535 * 32 + 1000;
      const shapes: Partial<RadixSorterOptions>[] = [
        { subgroups: false, workgroupSize: 16, keysPerThread: 2, radixBits: 4 },
      ];
      if (ctx.features.subgroups) shapes.push({ subgroups: true, workgroupSize: 32, keysPerThread: 1, radixBits: 4 });
      for (const shape of shapes) {
        await checkSort(ctx, randomU32(n, 77), 1, {}, shape);
        // A range across the word boundary (4 passes, to keep lavapipe's time down).
        await checkSort(ctx, randomU32(2 * n, 78), 2, { bitsLo: 26, bitsHi: 42 }, shape);
      }
    },
    SLOW,
  );

  it('the default shape on a 2D grid (a context whose grids are at most 64 groups wide)', async () => {
    const narrow = await createGpuContext({
      features: ctx.features.subgroups ? 'all' : 'none',
      maxWorkgroupsPerDimension: 64,
    });
    try {
      for (const kw of [1, 2] as const) await checkSort(narrow, randomU32(300_007 * kw, 79), kw, {});
    } finally {
      await narrow.destroy();
    }
  });

  it('subgroups: true without the feature is an InputError', async () => {
    if (ctx.features.subgroups) return;
    await expect(createRadixSorter(ctx, { maxCount: 10, keyWords: 1, subgroups: true })).rejects.toThrow(
      /subgroups: true needs/,
    );
  });

  it('a sorter is reused for smaller counts, sorts in place, and frees its scratch', async () => {
    const before = ctx.memory.liveBytes;
    const sorter = await createRadixSorter(ctx, { maxCount: 10_000, keyWords: 2 });
    const keys = randomU32(20_000, 3);
    const kb = ctx.upload('test::keys', keys);
    const vb = ctx.upload('test::values', iota(10_000));
    for (const count of [10_000, 4321, 2]) {
      const k0 = new Uint32Array(await ctx.read(kb, 0, 8 * count));
      const v0 = new Uint32Array(await ctx.read(vb, 0, 4 * count));
      // 5 passes (odd: the result is copied back), then 8 (even).
      await ctx.submit('test::sort', (rec) =>
        sorter.encode(rec, { keys: kb, values: vb, count, bitsLo: 40, bitsHi: 60 }),
      );
      const want1 = sortPairsCpu(k0, v0, 2, { bitsLo: 40, bitsHi: 60 });
      const got1 = {
        keys: new Uint32Array(await ctx.read(kb, 0, 8 * count)),
        values: new Uint32Array(await ctx.read(vb, 0, 4 * count)),
      };
      expect(arraysEqual(got1.keys, want1.keys) && arraysEqual(got1.values, want1.values)).toBe(true);
      await ctx.submit('test::sort', (rec) =>
        sorter.encode(rec, { keys: kb, values: vb, count, bitsLo: 0, bitsHi: 32 }),
      );
      const want2 = sortPairsCpu(want1.keys, want1.values, 2, { bitsLo: 0, bitsHi: 32 });
      const got2 = {
        keys: new Uint32Array(await ctx.read(kb, 0, 8 * count)),
        values: new Uint32Array(await ctx.read(vb, 0, 4 * count)),
      };
      expect(arraysEqual(got2.keys, want2.keys) && arraysEqual(got2.values, want2.values)).toBe(true);
    }
    // Pairs past `count` are untouched.
    const tail = new Uint32Array(await ctx.read(kb, 8 * 10_000 - 8, 8));
    expect(tail.length).toBe(2);
    kb.destroy();
    vb.destroy();
    sorter.destroy();
    sorter.destroy();
    expect(ctx.memory.liveBytes).toBe(before);
  });

  it("issue 18: from = the sorter's scratch or another buffer pair, odd and even passes, n = 0 … 30,001", async () => {
    const most = 30_001;
    const sorter = await createRadixSorter(ctx, { maxCount: most, keyWords: 2 });
    const kb = ctx.createBuffer('test::keys', 8 * most);
    const vb = ctx.createBuffer('test::values', 4 * most);
    const other = {
      keys: ctx.createBuffer('test::fromKeys', 8 * most),
      values: ctx.createBuffer('test::fromValues', 4 * most),
    };
    const width = sorter.shape.radixBits;
    for (const n of [0, 1, 2, 1000, most]) {
      const keys = randomU32(2 * n, 400 + n);
      for (let i = 0; i < keys.length; i += 4) keys[i] &= 0xff; // ties
      // 1, 2 and 3 passes of the sorter's width, and all 64 bits.
      for (const bits of [
        { bitsLo: 3, bitsHi: 3 + width },
        { bitsLo: 0, bitsHi: 2 * width },
        { bitsLo: 5, bitsHi: 5 + 3 * width },
        {},
      ]) {
        for (const from of [sorter.scratch, other]) {
          ctx.device.queue.writeBuffer(kb, 0, new Uint32Array(2 * most).fill(7));
          if (n > 0) {
            ctx.device.queue.writeBuffer(from.keys, 0, new Uint32Array(keys));
            ctx.device.queue.writeBuffer(from.values, 0, iota(n));
          }
          await ctx.submit('test::sort', (rec) =>
            sorter.encode(rec, { keys: kb, values: vb, count: n, ...bits, from }),
          );
          const got = {
            keys: new Uint32Array(await ctx.read(kb, 0, 8 * n)),
            values: new Uint32Array(await ctx.read(vb, 0, 4 * n)),
          };
          const want = sortPairsCpu(keys, iota(n), 2, bits);
          const what = `n=${n} ${show(bits)} from ${from === other ? 'other buffers' : 'scratch'}`;
          expect(arraysEqual(got.keys, want.keys), what).toBe(true);
          expect(arraysEqual(got.values, want.values), what).toBe(true);
        }
      }
    }
    await expect(
      ctx.submit('test::bad', (rec) =>
        sorter.encode(rec, {
          keys: kb,
          values: vb,
          count: 10,
          from: { keys: sorter.scratch.keys, values: other.values },
        }),
      ),
    ).rejects.toThrow(/both be, or both not be/);
    for (const b of [kb, vb, other.keys, other.values]) b.destroy();
    sorter.destroy();
  });

  it('benchRadixSort(ctx, n, keyWords) can be encoded repeatedly and checks itself', async () => {
    for (const kw of [1, 2] as const) {
      const before = ctx.memory.liveBytes;
      const c = await benchRadixSort(ctx, 30_001, kw);
      await ctx.submit('test::bench', (rec) => {
        c.encode(rec);
        c.encode(rec);
      });
      await c.check();
      c.destroy();
      expect(ctx.memory.liveBytes).toBe(before);
    }
  });

  it('bad arguments throw InputErrors naming the value', async () => {
    await expect(createRadixSorter(ctx, { maxCount: -1, keyWords: 1 })).rejects.toThrow(/maxCount.*got -1/);
    await expect(createRadixSorter(ctx, { maxCount: 10, keyWords: 3 as 1 })).rejects.toThrow(/keyWords.*got 3/);
    await expect(createRadixSorter(ctx, { maxCount: 10, keyWords: 1, workgroupSize: 48 })).rejects.toThrow(
      /workgroupSize.*got 48/,
    );
    const sorter = await createRadixSorter(ctx, { maxCount: 100, keyWords: 1 });
    const b = ctx.createBuffer('test::b', 1000);
    await expect(
      ctx.submit('test::bad', (rec) => sorter.encode(rec, { keys: b, values: b, count: 101 })),
    ).rejects.toThrow(/count.*got 101/);
    await expect(
      ctx.submit('test::bad', (rec) => sorter.encode(rec, { keys: b, values: b, count: 10, bitsHi: 40 })),
    ).rejects.toThrow(/bitsHi.*got 40/);
    b.destroy();
    sorter.destroy();
  });
});
