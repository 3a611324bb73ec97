/**
 * Issue 19: the radix sort's split paths (src/primitives/radixsort.ts, gpu/bigarray.ts) at degenerate sizes: one
 * sorter per key width made for 1,500 pairs in 256-key parts (6 + 6 output bindings) with one 128-key block per
 * window sorts 0, 1, 2, 127, 129, 1000 and 1500 pairs (parts beyond the count bound to the unused buffer) exactly as
 * the CPU twin. A small shape (64 threads × 2 keys) keeps lavapipe's compile short.
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
