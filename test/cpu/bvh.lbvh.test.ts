import { describe, expect, it } from 'vitest';
import { buildBvhCpu } from '../../src/bvh/lbvh.cpu.js';
import { InputError } from '../../src/errors.js';
import { CLOUD_KINDS, cloud } from '../helpers/clouds.js';
import { checkBvhInvariants } from '../helpers/bvh.js';
import { joinLinks, linkWords, minIndexWords } from '../../src/bvh/layout.js';

const DIMS = [1, 2, 3, 4, 5, 6, 7, 8, 16];

describe('buildBvhCpu', () => {
  for (const kind of CLOUD_KINDS) {
    it(`satisfies every invariant for ${kind} points, n = 1, 2, 3, 1000, d = 1 … 8, 16`, () => {
      for (const dim of DIMS) {
        for (const n of [1, 2, 3, 1000]) {
          const pts = cloud(kind, n, dim, n + dim);
          checkBvhInvariants(pts, buildBvhCpu(pts, dim));
        }
      }
    });
  }

  it('satisfies every invariant at n = 2^17 + 3 (a sample of shapes and dimensions)', () => {
    const n = (1 << 17) + 3;
    for (const [kind, dim] of [
      ['normal', 3],
      ['clustered', 2],
      ['duplicates', 5],
      ['collinear', 3],
      ['uniform', 16],
      ['normal', 1],
    ] as const) {
      const pts = cloud(kind, n, dim, dim);
      checkBvhInvariants(pts, buildBvhCpu(pts, dim));
    }
  });

  it('builds an empty BVH for n = 0 and a single leaf under the header for n = 1', () => {
    const e = buildBvhCpu(new Float32Array(0), 3);
    expect(e.n).toBe(0);
    const one = buildBvhCpu(new Float32Array([1, 2, 3]), 3);
    expect([...one.links]).toEqual([0, 0xffffffff, 0, 0]);
    // No internal node, so no box record: the root is leaf 0, whose box is its point (layout.ts).
    expect(one.boxes.length).toBe(0);
    checkBvhInvariants(new Float32Array([1, 2, 3]), one);
  });

  it('issue 19: the GPU layout of the links records (links, then minIndex words, 2 a record) splits and joins back', () => {
    for (const n of [1, 2, 3, 255, 257]) {
      const bvh = buildBvhCpu(cloud('duplicates', n, 3, n), 3);
      const links = linkWords(bvh.links);
      const mins = minIndexWords(bvh.links);
      expect(links.length).toBe(2 * n);
      expect(mins.length).toBe(2 * n);
      for (let r = 0; r < n; r++) {
        expect([links[2 * r], links[2 * r + 1]]).toEqual([bvh.links[4 * r], bvh.links[4 * r + 1]]);
        expect([mins[2 * r], mins[2 * r + 1]]).toEqual([bvh.links[4 * r + 2], bvh.links[4 * r + 3]]);
      }
      // A child's minIndex sits at its parent word ps = (record << 1) | side (layout.ts, "Records"; the refit writes
      // word ps): the least original index of its leaves.
      for (let c = 0; c < 2 * n - 1; c++) {
        const [first, last] = c >= n - 1 ? [c - n + 1, c - n + 1] : [bvh.ranges[2 * c], bvh.ranges[2 * c + 1]];
        expect(mins[bvh.parents[c]], `node ${c}`).toBe(Math.min(...bvh.order.subarray(first, last + 1)));
      }
      expect(joinLinks(links, mins)).toEqual(bvh.links);
    }
  });

  it('integer grids with many duplicates keep equal codes in index order', () => {
    const pts = cloud('grid', 5000, 3, 9);
    checkBvhInvariants(pts, buildBvhCpu(pts, 3));
  });

  it('the invariant checker catches a wrong box, a wrong split and a wrong minIndex', () => {
    const pts = cloud('normal', 300, 3, 5);
    const corrupt = (f: (b: ReturnType<typeof buildBvhCpu>) => void) => {
      const b = buildBvhCpu(pts, 3);
      f(b);
      return () => checkBvhInvariants(pts, b);
    };
    expect(corrupt((b) => (b.boxes[12 * 5 + 1] += 1e-3))).toThrow(/box/);
    expect(corrupt((b) => (b.links[4 * 7 + 2] += 1))).toThrow(/minIndex/);
    expect(corrupt((b) => ([b.links[4 * 3], b.links[4 * 3 + 1]] = [b.links[4 * 3 + 1], b.links[4 * 3]]))).toThrow();
    expect(corrupt((b) => (b.ranges[2 * 10] += 1))).toThrow(/range/);
    expect(corrupt(() => {})).not.toThrow();
  });

  it('rejects bad input naming the value', () => {
    expect(() => buildBvhCpu(new Float32Array(5), 2)).toThrow(/multiple of dim=2, got 5/);
    expect(() => buildBvhCpu(new Float32Array([1, NaN]), 2)).toThrow(InputError);
    expect(() => buildBvhCpu(new Float32Array([1, 2e38]), 1)).toThrow(/point 1, axis 0/);
    expect(() => buildBvhCpu(new Float32Array(4), 0)).toThrow(/dim to be a positive integer, got 0/);
  });
});
