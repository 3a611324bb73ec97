/**
 * Issue 19: the canonical edge order (src/emst/canonical.ts) on arrays above one binding. At a 1 MiB binding limit
 * the raw edges of a 200,000-point tree (2.4 MB), the keys (1.6 MB) and the sorter's arrays exceed one binding: the
 * maps run window by window and the radix sort in parts, and the result must be the CPU twin's (canonicalEdgesCpu)
 * bit for bit, as the unsplit order is (test/gpu/emst.canonical.test.ts). The split into sources and weights runs in
 * small windows (maxWindow) against the same result.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createCanonicalSort, createCanonicalSplit } from '../../src/emst/canonical.js';
import { canonicalEdgesCpu } from '../../src/emst/canonical.cpu.js';
import { createRadixSorter } from '../../src/primitives/radixsort.js';
import { tryGpuContext } from '../helpers/gpu.js';
import { mulberry32 } from '../helpers/random.js';

const LIMIT = 1048576;
const ctx = await tryGpuContext({ maxBindingBytes: LIMIT });
afterAll(() => ctx?.destroy());

/** m raw edges (a, b, key) over n ids, endpoints in random order, keys from few levels (many equal weights). */
function rawEdges(m: number, n: number, seed: number): Uint32Array {
  const rand = mulberry32(seed);
  const raw = new Uint32Array(3 * Math.max(m, 1));
  for (let e = 0; e < m; e++) {
    const a = Math.floor(rand() * n);
    let b = Math.floor(rand() * n);
    if (b === a) b = (a + 1) % n;
    raw[3 * e] = a;
    raw[3 * e + 1] = b;
    raw[3 * e + 2] = 0x3f000000 + Math.floor(rand() * 5000) * 97;
  }
  return raw;
}

describe.skipIf(!ctx)(`issue 19: the canonical edge order at a ${LIMIT}-byte binding limit`, () => {
  it.each([
    [199999, 200000, Number.POSITIVE_INFINITY],
    [0, 1, 64],
    [1, 2, 64],
    [1000, 1001, 64],
  ])('%i edges of %i points (windows of ≤ %d edges): the CPU twin exactly', async (m, n, maxWindow) => {
    const c = ctx!;
    const raw = rawEdges(m, n, 19 + m);
    const canonical = await createCanonicalSort(c, maxWindow);
    const split = await createCanonicalSplit(c, maxWindow);
    const sorter = await createRadixSorter(c, { maxCount: Math.max(m, 1), keyWords: 2 });
    const edges = c.upload('test::rawEdges', raw);
    const keys = c.createBuffer('test::canonicalKeys', 8 * Math.max(m, 1));
    const values = c.createBuffer('test::canonicalValues', 4 * Math.max(m, 1));
    const sources = c.createBuffer('test::sources', 4 * Math.max(m, 1));
    const weights = c.createBuffer('test::weights', 4 * Math.max(m, 1));
    try {
      await c.submit('test::canonical', (rec) => {
        canonical.encode(rec, { edges, count: m, n, sorter, keys, values });
        split.encode(rec, { keys, count: m, sources, weights });
      });
      const want = canonicalEdgesCpu(raw, m);
      const read = async (b: GPUBuffer) => new Uint32Array(await c.read(b, 0, 4 * Math.max(m, 1))).slice(0, m);
      expect(await read(sources)).toEqual(want.sources);
      expect(await read(values)).toEqual(want.targets);
      expect(await read(weights)).toEqual(new Uint32Array(want.weights.buffer));
    } finally {
      for (const b of [edges, keys, values, sources, weights]) b.destroy();
      sorter.destroy();
    }
    expect(c.memory.liveBuffers).toBe(0);
  });
});
