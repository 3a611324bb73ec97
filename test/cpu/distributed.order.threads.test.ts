/**
 * Issue 20 (session 19): the 'forest' task's rows renumbered in a coarse Morton order on threads (order.threads.ts) —
 * a permutation, the ids and the edges' rows moved with it, the rows' cells in order (the renumbering a stable counting
 * sort by cell), and nothing run below minRows or without shared memory.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { localOrderThreaded, orderCount, orderThreading } from '../../src/distributed/order.threads.js';
import { mulberry32 } from '../helpers/random.js';
import { sharedOf } from '../helpers/shared.js';
import { useBundledWorkerScript } from '../helpers/workers.js';

useBundledWorkerScript('treeline-order-threads-');
const minRows = orderThreading.minRows;
afterEach(() => {
  orderThreading.minRows = minRows;
});

function setUp(n: number, dim: number, m: number, seed: number, flat = false) {
  const rand = mulberry32(seed);
  const points = new Float32Array(n * dim);
  // (A few duplicates, and with `flat` one axis of one value.)
  for (let i = 0; i < n * dim; i++) points[i] = flat && i % dim === 0 ? 7 : Math.fround(rand() * 100 - 50);
  for (let r = 0; r < n; r += 17) points.copyWithin(r * dim, 0, dim);
  const ids = Uint32Array.from({ length: n }, (_, r) => 3 * r + 1);
  const lo = Uint32Array.from({ length: m }, () => Math.floor(rand() * n));
  const hi = Uint32Array.from({ length: m }, () => Math.floor(rand() * n));
  const u32 = () => new Uint32Array(new SharedArrayBuffer(4 * n));
  const arrays = {
    points: sharedOf(points),
    dim,
    ids: sharedOf(ids),
    lo: sharedOf(lo),
    hi: sharedOf(hi),
    cell: u32(),
    rank: u32(),
    newIds: u32(),
  };
  return { points, ids, lo, hi, arrays };
}

describe('localOrderThreaded', () => {
  it.each([
    [5000, 1, 3],
    [5000, 2, 3],
    [6007, 3, 4],
    [4000, 5, 2],
    [3000, 3, 7],
    [1500, 20, 3],
  ])('n=%i d=%i on %i threads: a permutation, ids and edges moved with it, cells in order', async (n, dim, threads) => {
    orderThreading.minRows = 0;
    for (const flat of [false, true]) {
      const { ids, lo, hi, arrays } = setUp(n, dim, 2 * n, n + dim, flat);
      const runs = orderThreading.runs;
      const order = await localOrderThreaded(threads, arrays, n, lo.length);
      expect(order).not.toBeNull();
      expect(orderThreading.runs).toBe(runs + 1);
      const { rank, ids: newIds } = order!;
      const old = new Int32Array(n).fill(-1);
      for (let r = 0; r < n; r++) {
        expect(old[rank[r]]).toBe(-1);
        old[rank[r]] = r;
        expect(newIds[rank[r]]).toBe(ids[r]);
      }
      for (let e = 0; e < lo.length; e++) {
        expect(arrays.lo[e]).toBe(rank[lo[e]]);
        expect(arrays.hi[e]).toBe(rank[hi[e]]);
      }
      // At most 2^18 cells whatever the dimension (above 18 the first 18 axes, a bit each).
      for (let r = 0; r < n; r++) expect(arrays.cell[r]).toBeLessThan(2 ** 18);
      // Cells ascend along the new rows; within a cell, the old rows ascend (stable).
      for (let i = 1; i < n; i++) {
        const a = arrays.cell[old[i - 1]];
        const b = arrays.cell[old[i]];
        expect(a < b || (a === b && old[i - 1] < old[i])).toBe(true);
      }
    }
  });

  it('cells follow Morton order: in 2D with 2 bits an axis, (x, y) cells interleave y then x bits', () => {
    // 2D, bits 2: cell (cx, cy) → code bits cx1 cy1 cx0 cy0 (axis 0 first at each level).
    const points = new Float32Array([0, 0, 3.9, 0, 0, 3.9, 3.9, 3.9, 2.1, 1.1]);
    const cell = new Uint32Array(5);
    const counts = new Uint32Array(16);
    orderCount({ points, dim: 2, low: [0, 0], scale: [1, 1], axes: 2, bits: 2, cell, counts, at: 0, start: 0, end: 5 });
    // (3, 0) → 1010 = 10; (0, 3) → 0101 = 5; (3, 3) → 15; (2, 1) → 1001 = 9.
    expect([...cell]).toEqual([0, 10, 5, 15, 9]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(5);
  });

  it('below minRows, with one thread, or with an array not shared: null, nothing moved', async () => {
    const { lo, arrays } = setUp(3000, 3, 6000, 5);
    const before = [...arrays.lo];
    orderThreading.minRows = 4000;
    expect(await localOrderThreaded(3, arrays, 3000, lo.length)).toBeNull();
    orderThreading.minRows = 0;
    expect(await localOrderThreaded(1, arrays, 3000, lo.length)).toBeNull();
    expect(await localOrderThreaded(3, { ...arrays, rank: new Uint32Array(3000) }, 3000, lo.length)).toBeNull();
    expect([...arrays.lo]).toEqual(before);
  });
});
