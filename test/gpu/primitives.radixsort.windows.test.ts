/**
 * Issue 19: the radix sort (src/primitives/radixsort.ts) on arrays larger than one binding — its histogram and
 * scatter reading keys and values by windows of blocks, the scatter writing through parts (gpu/bigarray.ts) — sorts
 * exactly as the CPU twin (sortPairsCpu): 200,000 64-bit and 300,000 32-bit keys at a 1 MiB binding limit, on both
 * rankings (features all: subgroups where the adapter has them; none). primitives.radixsort.parts.test.ts takes
 * tiny parts and windows at degenerate sizes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { GpuContext } from '../../src/gpu/context.js';
import { createRadixSorter, type RadixSorterOptions } from '../../src/primitives/radixsort.js';
import { sortPairsCpu, type BitRange } from '../../src/primitives/radixsort.cpu.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { randomU32 } from '../helpers/random.js';

const split = await gpuVariants({ maxBindingBytes: 1048576 });
afterAll(() => destroyVariants(split));

/** Sorts (keys, values) on `ctx` with a sorter made with `options`; returns the sorted copies and its shape. */
async function sortOn(
  ctx: GpuContext,
  keys: Uint32Array,
  values: Uint32Array,
  keyWords: 1 | 2,
  bits: BitRange = {},
  options: Partial<RadixSorterOptions> = {},
) {
  const n = values.length;
  const sorter = await createRadixSorter(ctx, { maxCount: Math.max(n, 1), keyWords, ...options });
  const kb = ctx.upload('test::keys', keys.length > 0 ? keys : new Uint32Array(keyWords));
  const vb = ctx.upload('test::values', values.length > 0 ? values : new Uint32Array(1));
  try {
    await ctx.submit('test::sort', (rec) => sorter.encode(rec, { keys: kb, values: vb, count: n, ...bits }));
    const [k, v] = await Promise.all([ctx.read(kb, 0, 4 * keyWords * n), ctx.read(vb, 0, 4 * n)]);
    return { keys: new Uint32Array(k), values: new Uint32Array(v) };
  } finally {
    kb.destroy();
    vb.destroy();
    sorter.destroy();
  }
}

/** n keys of keyWords words with many ties (few distinct low words), values 0 … n − 1. */
function pairs(n: number, keyWords: 1 | 2, seed: number) {
  const keys = randomU32(n * keyWords, seed);
  for (let i = 0; i < keys.length; i += keyWords) keys[i] %= 5000;
  return { keys, values: Uint32Array.from({ length: n }, (_, i) => i) };
}

describe.skipIf(split.length === 0).each(split)('radix sort through windows and parts ($name)', ({ ctx }) => {
  it('issue 19: 200,000 64-bit keys at a 1 MiB limit (keys in 2 parts, 2 windows), bits [3, 64)', async () => {
    const { keys, values } = pairs(200000, 2, 5);
    const bits = { bitsLo: 3, bitsHi: 64 };
    const got = await sortOn(ctx, keys, values, 2, bits);
    const want = sortPairsCpu(keys, values, 2, bits);
    expect(got.keys).toEqual(want.keys);
    expect(got.values).toEqual(want.values);
    expect(ctx.memory.liveBuffers).toBe(0);
  });

  it('issue 19: 300,000 32-bit keys at a 1 MiB limit (keys and values in 2 parts each)', async () => {
    const { keys, values } = pairs(300000, 1, 6);
    const got = await sortOn(ctx, keys, values, 1);
    const want = sortPairsCpu(keys, values, 1);
    expect(got.keys).toEqual(want.keys);
    expect(got.values).toEqual(want.values);
  });

  it('issue 19: more output parts than the stage binds is an InputError naming them', async () => {
    // As many key parts as the stage has storage buffers, and as many value parts: twice too many.
    const stage = ctx.limits.maxStorageBuffersPerShaderStage;
    await expect(createRadixSorter(ctx, { maxCount: 1024 * stage, keyWords: 2, partElements: 1024 })).rejects.toThrow(
      `primitives::radixSort: maxCount=${1024 * stage} keys of 8 bytes need ${stage} + ${stage} output bindings of 1024 keys`,
    );
  });
});
