/**
 * Issue 19: the radix sort's split paths (src/primitives/radixsort.ts, gpu/bigarray.ts) at degenerate sizes: one
 * sorter per key width made for 1,500 pairs in 256-key parts (6 + 6 output bindings) with one 128-key block per
 * window sorts 0, 1, 2, 127, 129, 1000 and 1500 pairs (parts beyond the count bound to the unused buffer) exactly as
 * the CPU twin. A small shape (64 threads × 2 keys) keeps lavapipe's compile short. And windows of blocks on 2D grids
 * with surplus workgroups (the H100's 3·10^8-point failure, at small n through a narrow grid limit).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createRadixSorter } from '../../src/primitives/radixsort.js';
import { sortPairsCpu } from '../../src/primitives/radixsort.cpu.js';
import { tryGpuContext } from '../helpers/gpu.js';
import { randomU32 } from '../helpers/random.js';

const ctx = await tryGpuContext({ features: 'none' });
afterAll(() => ctx?.destroy());

describe.skipIf(!ctx)('radix sort in parts and one-block windows', () => {
  it.each([1, 2] as const)(
    'issue 19: %i-word keys at n = 0, 1, 2, 127, 129, 1000, 1500 equal the CPU twin',
    async (keyWords) => {
      const c = ctx!;
      const maxCount = 1500;
      const sorter = await createRadixSorter(c, {
        maxCount,
        keyWords,
        workgroupSize: 64,
        keysPerThread: 2,
        partElements: 256,
        maxWindowBlocks: 1,
      });
      const kb = c.createBuffer('test::keys', 4 * keyWords * maxCount);
      const vb = c.createBuffer('test::values', 4 * maxCount);
      try {
        for (const n of [0, 1, 2, 127, 129, 1000, 1500]) {
          const keys = randomU32(n * keyWords, n + 3 * keyWords);
          for (let i = 0; i < keys.length; i += keyWords) keys[i] %= 300; // ties
          const values = Uint32Array.from({ length: n }, (_, i) => i);
          if (n > 0) {
            await c.writeBuffer(kb, 0, keys);
            await c.writeBuffer(vb, 0, values);
          }
          await c.submit('test::sort', (rec) => sorter.encode(rec, { keys: kb, values: vb, count: n }));
          const want = sortPairsCpu(keys, values, keyWords);
          expect(new Uint32Array(await c.read(kb, 0, 4 * keyWords * n)), `n=${n}`).toEqual(want.keys);
          expect(new Uint32Array(await c.read(vb, 0, 4 * n)), `n=${n}`).toEqual(want.values);
        }
      } finally {
        kb.destroy();
        vb.destroy();
        sorter.destroy();
      }
    },
  );
});

describe.skipIf(!ctx)('radix sort windows on a 2D grid that overshoots', () => {
  // The H100's 3·10^8-point failure (issue 19): a window of 131,071 blocks was dispatched on a 43,691 × 3 grid, and
  // the 2 surplus workgroups took blocks 131,071 and 131,072 — the NEXT window's — through a binding that ends before
  // them (clamped reads: copies of the window's last pair scattered over other keys). Here grids at most 16 groups
  // wide make the same overshoot at small n: windows of 17 blocks take 9 × 2 = 18 workgroups.
  it.each([
    [1, 'none'],
    [2, 'none'],
    [2, 'all'],
  ] as const)(
    'issue 19: %i-word keys, windows of 17 blocks on 16-wide grids, equal the CPU twin (features: %s)',
    async (keyWords, features) => {
      // features 'all': the subgroup ranking (histogram_atomic, scatter_sg) where the adapter has subgroups.
      const narrow = (await tryGpuContext({ features, maxWorkgroupsPerDimension: 16 }))!;
      const maxCount = 40 * 128;
      const sorter = await createRadixSorter(narrow, {
        maxCount,
        keyWords,
        // 128-key blocks either way (8-bit subgroup digits need 128 threads or more).
        workgroupSize: features === 'all' ? 128 : 64,
        keysPerThread: features === 'all' ? 1 : 2,
        maxWindowBlocks: 17,
      });
      const kb = narrow.createBuffer('test::keys', 4 * keyWords * maxCount);
      const vb = narrow.createBuffer('test::values', 4 * maxCount);
      try {
        // 18 blocks: windows of 17 and 1; 34 · 128 + 1 keys: 17, 17 and 1 block (short); 40 blocks: 17, 17 and 6.
        for (const n of [18 * 128, 34 * 128 + 1, maxCount]) {
          const keys = randomU32(n * keyWords, n + 7 * keyWords);
          for (let i = 0; i < keys.length; i += keyWords) keys[i] %= 300; // ties
          const values = Uint32Array.from({ length: n }, (_, i) => i);
          await narrow.writeBuffer(kb, 0, keys);
          await narrow.writeBuffer(vb, 0, values);
          await narrow.submit('test::sort', (rec) => sorter.encode(rec, { keys: kb, values: vb, count: n }));
          const want = sortPairsCpu(keys, values, keyWords);
          expect(new Uint32Array(await narrow.read(kb, 0, 4 * keyWords * n)), `n=${n}`).toEqual(want.keys);
          expect(new Uint32Array(await narrow.read(vb, 0, 4 * n)), `n=${n}`).toEqual(want.values);
        }
      } finally {
        kb.destroy();
        vb.destroy();
        sorter.destroy();
        await narrow.destroy();
      }
    },
  );
});
