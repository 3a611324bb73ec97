/**
 * Issue 18's radix sorter options (src/primitives/radixsort.ts): a guarded sorter sorts exactly as an unguarded one
 * where guard[0] ≠ 0 and leaves keys and values untouched where it is 0 — also with a fixed grid smaller than the
 * blocks (guardedGroups: each workgroup strides over several blocks); `shared` borrows another sorter's buffers and
 * a per-call `scratch` replaces the ping-pong buffers. Oracle: the CPU twin sortPairsCpu. Sizes 2, non-multiples of
 * the block, 0/1-pass ranges refused for guards only where the pass count is odd.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { createRadixSorter } from '../../src/primitives/radixsort.js';
import { sortPairsCpu } from '../../src/primitives/radixsort.cpu.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { mulberry32 } from '../helpers/random.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

/** n 64-bit keys (few distinct high words: ties) and the identity as values. */
function pairs(n: number, seed: number): { keys: Uint32Array; values: Uint32Array } {
  const r = mulberry32(seed);
  const keys = new Uint32Array(2 * n);
  for (let i = 0; i < n; i++) {
    keys[2 * i] = Math.floor(r() * 2 ** 32);
    keys[2 * i + 1] = Math.floor(r() * 5);
  }
  return { keys, values: Uint32Array.from({ length: n }, (_, i) => i) };
}

describe.skipIf(variants.length === 0).each(variants)('radix sort guard, shared, scratch ($name)', ({ ctx }) => {
  it('a guarded sort runs where guard[0] ≠ 0 (also over a fixed grid of 1 and 3 workgroups) and not where it is 0', async () => {
    const maxCount = 20000;
    const owner = await createRadixSorter(ctx, { maxCount, keyWords: 2 });
    const blocks = Math.ceil(maxCount / (owner.shape.workgroupSize * owner.shape.keysPerThread));
    expect(blocks).toBeGreaterThan(3);
    let seed = 1;
    for (const guardedGroups of [1, 3, undefined]) {
      const sorter = await createRadixSorter(ctx, {
        maxCount,
        keyWords: 2,
        guard: true,
        shared: owner,
        guardedGroups,
      });
      for (const n of [2, 2049, maxCount - 7]) {
        for (const on of [1, 0]) {
          const { keys, values } = pairs(n, seed++);
          const kb = ctx.upload('test::keys', keys);
          const vb = ctx.upload('test::values', values);
          const guard = ctx.upload('test::guard', new Uint32Array([on, 0, 0, 0]));
          await ctx.submit('test::guarded', (rec) =>
            sorter.encode(rec, { keys: kb, values: vb, count: n, bitsLo: 0, bitsHi: 64, guard }),
          );
          const got = { keys: new Uint32Array(await ctx.read(kb)), values: new Uint32Array(await ctx.read(vb)) };
          const want = on ? sortPairsCpu(keys, values, 2, { bitsLo: 0, bitsHi: 64 }) : { keys, values };
          const what = `guardedGroups=${guardedGroups} n=${n} guard=${on}`;
          expect(Array.from(got.keys), what).toEqual(Array.from(want.keys));
          expect(Array.from(got.values), what).toEqual(Array.from(want.values));
          for (const b of [kb, vb, guard]) b.destroy();
        }
      }
      // An odd number of passes (or `from`) would end in an unguarded copy: refused.
      const kb = ctx.createBuffer('test::keys', 8 * 16);
      const vb = ctx.createBuffer('test::values', 4 * 16);
      const odd = sorter.shape.radixBits * 3;
      await expect(
        (async () =>
          ctx.submit('test::odd', (rec) =>
            sorter.encode(rec, { keys: kb, values: vb, count: 16, bitsLo: 0, bitsHi: odd, guard: kb }),
          ))(),
      ).rejects.toThrow(InputError);
      kb.destroy();
      vb.destroy();
      sorter.destroy();
    }
    owner.destroy();
  });

  it('a shared 32-bit sorter with a per-call scratch sorts in place and leaves the result in keys/values', async () => {
    const maxCount = 5000;
    const owner = await createRadixSorter(ctx, { maxCount, keyWords: 2 });
    const sorter = await createRadixSorter(ctx, { maxCount, keyWords: 1, shared: owner });
    expect(sorter.scratch.keys).toBe(owner.scratch.keys);
    const r = mulberry32(5);
    for (const n of [2, 777, maxCount]) {
      const keys = Uint32Array.from({ length: n }, () => Math.floor(r() * 1000));
      const values = Uint32Array.from({ length: n }, (_, i) => i);
      const kb = ctx.upload('test::keys', keys);
      const vb = ctx.upload('test::values', values);
      const sk = ctx.createBuffer('test::scratchKeys', 4 * n);
      const sv = ctx.createBuffer('test::scratchValues', 4 * n);
      await ctx.submit('test::shared', (rec) =>
        sorter.encode(rec, { keys: kb, values: vb, count: n, scratch: { keys: sk, values: sv } }),
      );
      const want = sortPairsCpu(keys, values, 1, {});
      expect(Array.from(new Uint32Array(await ctx.read(kb))), `n=${n}`).toEqual(Array.from(want.keys));
      expect(Array.from(new Uint32Array(await ctx.read(vb))), `n=${n}`).toEqual(Array.from(want.values));
      for (const b of [kb, vb, sk, sv]) b.destroy();
    }
    // Destroying a borrower leaves the owner's buffers alive: the owner still sorts.
    sorter.destroy();
    const keys = Uint32Array.from([3, 0, 0, 0, 1, 0]);
    const kb = ctx.upload('test::keys', keys);
    const vb = ctx.upload('test::values', Uint32Array.from([0, 1, 2]));
    await ctx.submit('test::owner', (rec) => owner.encode(rec, { keys: kb, values: vb, count: 3 }));
    expect(Array.from(new Uint32Array(await ctx.read(vb)))).toEqual([1, 2, 0]);
    kb.destroy();
    vb.destroy();
    owner.destroy();
    // A lender of another shape is refused by name.
    const small = await createRadixSorter(ctx, { maxCount: 10, keyWords: 1 });
    await expect(createRadixSorter(ctx, { maxCount, keyWords: 1, shared: small })).rejects.toThrow(/shared needs/);
    small.destroy();
  });
});
