/**
 * Issue 18: the CPU twins of the high-dimensional candidate-list kernels (src/emst/highdim.cpu.ts) against
 * independent oracles — the lists against the CPU backend's BVH k-NN (neighbours.cpu.ts), the settle against its
 * definition (the first entry outside the component, the cursor past the entries inside it, the last key as bound).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bruteListsCpu, settleCpu } from '../../src/emst/highdim.cpu.js';
import { highDimDefault, highDimK, highDimQueriesPerThread } from '../../src/emst/highdim.js';
import { EUCLIDEAN, metricOf } from '../../src/emst/metric.js';
import { buildBvhCpu } from '../../src/bvh/lbvh.cpu.js';
import { nearestNeighbours } from '../../src/knn/neighbours.cpu.js';
import { cloud } from '../helpers/clouds.js';

const NONE = 0xffffffff;

describe('high-dimensional candidate lists, CPU twins', () => {
  it.each([
    [1, 8, 4],
    [2, 8, 4],
    [9, 16, 16],
    [200, 8, 16],
    [150, 16, 5],
  ])('bruteListsCpu n=%i d=%i k=%i equals the BVH k-NN of the CPU backend, ties by original index', (n, dim, k) => {
    const pts = cloud('grid', n, dim, 3 * n + dim);
    const bvh = buildBvhCpu(pts, dim);
    const got = bruteListsCpu(bvh.sortedPoints, bvh.order, dim, k);
    const kk = Math.min(k, n - 1);
    if (kk > 0) {
      const want = nearestNeighbours(bvh, kk);
      const bits = new Uint32Array(new Float32Array(want.keys).buffer);
      for (let q = 0; q < n; q++) {
        for (let r = 0; r < kk; r++) {
          expect(got.keys[q * k + r]).toBe(bits[q * kk + r]);
          expect(got.pos[q * k + r]).toBe(want.points[q * kk + r]);
        }
      }
    }
    for (let q = 0; q < n; q++) for (let r = Math.max(kk, 0); r < k; r++) expect(got.pos[q * k + r]).toBe(NONE);
  });

  it('settleCpu: the first entry outside the component is the candidate; entries inside are passed for good', () => {
    // Components: points 0, 1, 2 in 5, point 3 in 7. Lists of 3 (keys ascending), row j = point j.
    const lists = {
      k: 3,
      keys: new Uint32Array([10, 11, 12, 20, 21, 22, 5, 6, 7, 5, 8, 9]),
      pos: new Uint32Array([1, 2, 3, 0, 2, 0, 3, 0, 1, 2, 0, 1]),
    };
    const label = new Uint32Array([5, 5, 5, 7]);
    const cursor = new Uint32Array(4);
    const cand = new Uint32Array(8).fill(NONE);
    const pointBound = new Uint32Array([0, 30, 0, 0]);
    settleCpu(lists, { label, cursor, cand, pointBound });
    // Point 0 passes two entries in its component; point 1's list is spent (its bound stays 30 > 22).
    expect([...cand]).toEqual([12, 3, NONE, NONE, 5, 3, 5, 2]);
    expect([...cursor]).toEqual([2, 3, 0, 0]);
    expect([...pointBound]).toEqual([0, 30, 0, 0]);
    // Later, with point 3 merged into component 5, point 2 finds nothing more: its bound rises to its last key.
    cand.fill(NONE);
    pointBound.fill(0);
    settleCpu(lists, { label: new Uint32Array([5, 5, 5, 5]), cursor, cand, pointBound });
    expect([...cursor]).toEqual([3, 3, 3, 3]);
    expect([...pointBound]).toEqual([12, 22, 7, 9]);
    expect([...cand]).toEqual(new Array(8).fill(NONE));
  });

  it('settleCpu keeps a candidate whose far end is still outside, skips entries below the cut, and ends at NONE', () => {
    const lists = { k: 2, keys: new Uint32Array([1, 9, 4, NONE]), pos: new Uint32Array([1, 0, 0, NONE]) };
    const label = new Uint32Array([0, 1]);
    const cand = new Uint32Array([7, 1, NONE, NONE]);
    const cursor = new Uint32Array(2);
    const pointBound = new Uint32Array(2);
    // Point 0 keeps (7, 1). Point 1: its only entry (key 4) is below the cut 5, then NONE: no edge, bound NONE.
    settleCpu(lists, { label, cursor, cand, pointBound }, 5);
    expect([...cand]).toEqual([7, 1, NONE, NONE]);
    expect([...cursor]).toEqual([0, 1]);
    expect([...pointBound]).toEqual([0, NONE]);
  });
});

describe('high-dimensional candidate lists, defaults', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('highDimDefault: BVH lists in 7 and 8 dimensions, brute-force lists from 12 to 64, else none (and none in periodic boxes)', () => {
    vi.stubEnv('TREELINE_HIGHDIM', '');
    const pick = (dim: number) => highDimDefault(dim, EUCLIDEAN, false);
    expect([2, 3, 6, 7, 8, 9, 11, 12, 16, 64, 65].map(pick)).toEqual([
      null,
      null,
      null,
      'bvh',
      'bvh',
      null,
      null,
      'brute',
      'brute',
      'brute',
      null,
    ]);
    expect(highDimDefault(16, metricOf(5), false)).toBe('brute');
    expect(highDimDefault(16, EUCLIDEAN, true)).toBeNull();
    expect([highDimK('bvh'), highDimK('brute'), highDimQueriesPerThread()]).toEqual([8, 16, 2]);
  });

  it('TREELINE_HIGHDIM, _K and _QPT override the defaults, and a bad value is an input error naming it', () => {
    vi.stubEnv('TREELINE_HIGHDIM', 'off');
    expect(highDimDefault(16, EUCLIDEAN, false)).toBeNull();
    vi.stubEnv('TREELINE_HIGHDIM', 'bvh');
    expect(highDimDefault(3, EUCLIDEAN, false)).toBe('bvh');
    vi.stubEnv('TREELINE_HIGHDIM', 'fast');
    expect(() => highDimDefault(16, EUCLIDEAN, false)).toThrow(/TREELINE_HIGHDIM.*got 'fast'/);
    vi.stubEnv('TREELINE_HIGHDIM_K', '12');
    expect(highDimK('bvh')).toBe(12);
    vi.stubEnv('TREELINE_HIGHDIM_K', '65');
    expect(() => highDimK('bvh')).toThrow(/TREELINE_HIGHDIM_K.*got '65'/);
    vi.stubEnv('TREELINE_HIGHDIM_QPT', '1');
    expect(highDimQueriesPerThread()).toBe(1);
  });
});
