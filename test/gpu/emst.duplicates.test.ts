/**
 * Issue 19's note: exact duplicates made the GPU EMST quadratic in the copies (lavapipe, 32,000 equal 3D points:
 * 24.6–35.5 s, random points ~1–3 s). Each copy at key 0 must find the least other index among all copies, and no box
 * bound prunes at radius 0, so the traversal visited every copy; later rounds did the same for the copies of another
 * component's place at the radius. A subtree whose f32 box is one point is now tested as its least-index leaf outside
 * the query's component (emst/traverse.wgsl and nearest_split.wgsl: equal_leaf). That must not change one edge:
 * here the GPU's edges equal the CPU backend's, element for element, and brute-force Prim's edge set, on inputs made
 * of copies — all equal, a few places with many copies each (places at equal distances: ties between groups), copies
 * mixed with distinct points — in 2D and 3D, Euclidean and mutual reachability (copies fewer and more than
 * minSamples), through the plain, the split (TREELINE_EMST_SPLIT) and the u16-box (TREELINE_BVH_BOXES, where the
 * shortcut is off) traversals. That the work is no longer quadratic is counted on the CPU twin
 * (test/cpu/emst.nearestsplit.test.ts, "exact duplicates"): no timing here.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { emst } from '../../src/emst/emst.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { expectSameEdges } from '../helpers/sameEdges.js';
import { primMst } from '../helpers/prim.js';
import { mulberry32 } from '../helpers/random.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

type Shape = 'equal' | 'places' | 'corners' | 'mixed';

/**
 * n points (seeded): 'equal' all at one place; 'places' copies of `k` random places; 'corners' copies of the unit
 * cube's (square's) corners, whose neighbouring groups are all at distance 1; 'mixed' half distinct random points,
 * half copies of `k` of them. Shuffled, so copies are not index neighbours.
 */
function copies(shape: Shape, n: number, dim: number, seed: number, k = 6): Float32Array {
  const r = mulberry32(seed);
  const rand = () => Math.fround(r() * 10 - 5);
  const place = (i: number): number[] => {
    if (shape === 'corners') return Array.from({ length: dim }, (_, a) => (i >> a) & 1);
    return Array.from({ length: dim }, rand);
  };
  const places =
    shape === 'equal'
      ? [place(0)]
      : shape === 'corners'
        ? [...Array(1 << dim)].map((_, i) => place(i))
        : [...Array(k)].map((_, i) => place(i));
  const rows: number[][] = [];
  for (let i = 0; i < n; i++) {
    if (shape === 'mixed' && i < n >> 1) rows.push(place(0));
    else rows.push(places[Math.floor(r() * places.length)]);
  }
  for (let i = rows.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [rows[i], rows[j]] = [rows[j], rows[i]];
  }
  return Float32Array.from(rows.flat());
}

const edgeSet = (s: ArrayLike<number>, t: ArrayLike<number>) =>
  Array.from(s, (a, i) => `${Math.min(a, t[i])}-${Math.max(a, t[i])}`).sort();

describe.skipIf(variants.length === 0).each(variants)('emst() on exact duplicates ($name)', ({ ctx }) => {
  const check = async (pts: Float32Array, dim: number, minSamples = 1) => {
    const n = pts.length / dim;
    const g = await emst(pts, { dim, minSamples, backend: 'gpu', gpu: ctx });
    expect(g.backend).toBe('gpu');
    expectSameEdges(g, await emst(pts, { dim, minSamples, backend: 'cpu' }));
    expect(g.sources.length).toBe(Math.max(n - 1, 0));
    const prim = primMst(pts, dim, minSamples > 1 ? { minSamples } : {});
    expect(edgeSet(g.sources, g.targets)).toEqual(edgeSet(prim.sources, prim.targets));
  };

  it.each([0, 1, 2, 3, 257, 3000])('all equal, n=%i, 2D and 3D: the CPU backend and Prim', async (n) => {
    for (const dim of [2, 3]) await check(copies('equal', n, dim, n + dim), dim);
  });

  it.each([
    ['places', 3001, 3, 1],
    ['places', 2000, 2, 1],
    ['corners', 3000, 3, 1],
    ['corners', 1001, 2, 1],
    ['mixed', 3000, 3, 1],
    ['mixed', 2001, 2, 1],
    ['places', 2000, 3, 5],
    ['mixed', 1500, 3, 5],
    ['corners', 1200, 2, 5],
    ['corners', 600, 3, 100],
  ] as [Shape, number, number, number][])(
    '%s n=%i d=%i minSamples=%i: the CPU backend and Prim',
    async (shape, n, dim, ms) => {
      await check(copies(shape, n, dim, 7 * n + dim), dim, ms);
    },
  );

  it.each([
    ['TREELINE_EMST_SPLIT', '256', 'the split traversal in windows of 256'],
    ['TREELINE_BVH_BOXES', 'u16', 'u16 boxes, where no subtree is taken as one point'],
  ])('%s=%s (%s): the CPU backend and Prim', async (name, value) => {
    const saved = process.env[name];
    process.env[name] = value;
    try {
      await check(copies('corners', 1500, 3, 31), 3);
      await check(copies('mixed', 1200, 2, 37), 2);
      await check(copies('places', 1000, 3, 41), 3, 5);
    } finally {
      if (saved === undefined) delete process.env[name];
      else process.env[name] = saved;
    }
  });
});
