/**
 * Issue 7: degree and branches on the GPU (src/stats/branches.ts) against the CPU twin (src/stats/branches.cpu.ts)
 * on exact EMSTs of seeded point sets — open and periodic boxes, clustered data, duplicates, a scale-cut forest:
 * identical degrees, branch edge counts and ends (same order), lengths and end-to-end distances within float32
 * rounding of the CPU's float64 sums.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { emst } from '../../src/emst/emst.js';
import { branchesGpu } from '../../src/stats/branches.js';
import { degreesOf, findBranches, nodeLinks } from '../../src/stats/branches.cpu.js';
import { edgeLengths } from '../../src/stats/lengths.js';
import { cloud, type CloudKind } from '../helpers/clouds.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { periodicPoints } from '../helpers/periodic.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

function closeTo(got: ArrayLike<number>, want: ArrayLike<number>, rel: number, what: string) {
  expect(got.length, what).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    const tol = rel * Math.max(Math.abs(want[i]), 1e-30) + 1e-12;
    if (!(Math.abs(got[i] - want[i]) <= tol)) expect.fail(`${what}[${i}] = ${got[i]}, CPU twin ${want[i]}`);
  }
}

describe.skipIf(variants.length === 0).each(variants)('branchesGpu against the CPU twin ($name)', ({ ctx }) => {
  const cases: [string, () => { p: Float32Array; dim: number; box?: number[]; cut?: number }][] = [
    ['uniform 2D', () => ({ p: cloud('uniform', 4000, 2, 1), dim: 2 })],
    ['clustered 3D', () => ({ p: cloud('clustered', 4000, 3, 2), dim: 3 })],
    ['normal 5D', () => ({ p: cloud('normal', 1500, 5, 3), dim: 5 })],
    ['duplicates 2D', () => ({ p: cloud('duplicates' as CloudKind, 800, 2, 4), dim: 2 })],
    ['periodic faces 3D', () => ({ p: periodicPoints('faces', 3000, [1, 2, 1.5], 5), dim: 3, box: [1, 2, 1.5] })],
    ['periodic corners 2D', () => ({ p: periodicPoints('corners', 2000, [1, 1], 6), dim: 2, box: [1, 1] })],
    ['scale-cut forest 3D', () => ({ p: cloud('clustered', 2000, 3, 7), dim: 3, cut: 0.3 })],
  ];
  it.each(cases)('%s', async (_name, make) => {
    const { p, dim, box, cut } = make();
    const n = p.length / dim;
    const tree = await emst(p, {
      dim,
      backend: 'cpu',
      ...(box ? { box } : {}),
      ...(cut ? { minEdgeLength: cut } : {}),
    });
    const got = await branchesGpu(ctx, p, dim, tree, box ? Float32Array.from(box) : undefined);
    const links = nodeLinks(n, tree.sources, tree.targets);
    const geometry = { coords: p, dim, box: box ? Float64Array.from(box) : undefined };
    const lengths = edgeLengths(geometry, tree.sources, tree.targets);
    const want = findBranches(tree.sources, tree.targets, links, lengths, geometry);
    expect(Array.from(got.degree)).toEqual(Array.from(degreesOf(links)));
    if (!_name.startsWith('duplicates')) expect(got.edgeCounts.length).toBeGreaterThan(0);
    closeTo(got.edgeLengths, lengths, 2e-7, 'edgeLengths');
    expect(Array.from(got.edgeCounts)).toEqual(Array.from(want.edgeCounts));
    expect(Array.from(got.ends)).toEqual(Array.from(want.ends));
    closeTo(got.lengths, want.lengths, 2e-6, 'lengths');
    closeTo(got.endToEnd, want.endToEnd, 2e-5, 'endToEnd');
  });

  it('periodic steps of exactly half the box take the same image as the CPU twin (−L/2)', async () => {
    // The square (0,0), (1,0), (0,1), (1,1) in the box [2, 2]: every step is ±L/2 on one axis.
    const p = new Float32Array([0, 0, 1, 0, 0, 1, 1, 1]);
    const tree = { sources: Uint32Array.of(0, 0, 1), targets: Uint32Array.of(2, 1, 3) };
    const got = await branchesGpu(ctx, p, 2, tree, Float32Array.of(2, 2));
    const geometry = { coords: p, dim: 2, box: Float64Array.of(2, 2) };
    const want = findBranches(
      tree.sources,
      tree.targets,
      nodeLinks(4, tree.sources, tree.targets),
      edgeLengths(geometry, tree.sources, tree.targets),
      geometry,
    );
    expect(Array.from(got.ends)).toEqual(Array.from(want.ends));
    closeTo(got.endToEnd, want.endToEnd, 1e-6, 'endToEnd');
  });

  it('n = 0, 1, 2 and a path', async () => {
    const empty = { sources: new Uint32Array(0), targets: new Uint32Array(0), weights: new Float32Array(0) };
    expect((await branchesGpu(ctx, new Float32Array(0), 2, empty)).degree.length).toBe(0);
    expect(Array.from((await branchesGpu(ctx, new Float32Array([1, 1]), 2, empty)).degree)).toEqual([0]);
    const two = await branchesGpu(ctx, new Float32Array([0, 0, 3, 4]), 2, {
      sources: Uint32Array.of(0),
      targets: Uint32Array.of(1),
    });
    expect(Array.from(two.degree)).toEqual([1, 1]);
    expect(Array.from(two.edgeLengths)).toEqual([5]);
    expect(two.edgeCounts.length).toBe(0);
    // A path 0 – 1 – 2 – 3 along x with unit steps, edges listed out of order: one branch of 3 edges, length 3.
    const path = await branchesGpu(ctx, new Float32Array([0, 0, 1, 0, 2, 0, 3, 0]), 2, {
      sources: Uint32Array.of(1, 0, 2),
      targets: Uint32Array.of(2, 1, 3),
    });
    expect(Array.from(path.edgeCounts)).toEqual([3]);
    expect(Array.from(path.lengths)).toEqual([3]);
    expect(Array.from(path.endToEnd)).toEqual([3]);
    expect(new Set(path.ends)).toEqual(new Set([0, 3]));
  });
});
