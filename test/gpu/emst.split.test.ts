/**
 * Issue 19: Borůvka on split arrays — the subtree-window traversal (src/emst/nearestsplit.ts, emst/subtree_roots.wgsl
 * and nearest_split.wgsl) and the rounds in windows and parts (src/emst/roundsplit.ts, emst/split_*.wgsl) — forced
 * by small windows and parts (GpuEmst layout `split`) so that few points cut every array into many. The roots pass
 * must find the CPU twin's roots (nearestsplit.cpu.ts); the edges must equal the unsplit GPU path's bit for bit (same
 * device) and the CPU backend's, and Prim's edge set (test/helpers/prim.ts, an independent oracle): Euclidean,
 * mutual reachability (minSamples 5), a periodic box, a scale cut, duplicates, and degenerate sizes (2, 3, one
 * window). emst.split.big.test.ts and emst.split.mr.test.ts run emst() at a 1 MiB binding limit, unforced.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { emst } from '../../src/emst/emst.js';
import { GpuEmst } from '../../src/emst/pipeline.js';
import { metricOf } from '../../src/emst/metric.js';
import type { EdgeList } from '../../src/emst/edges.cpu.js';
import type { GpuContext } from '../../src/gpu/context.js';
import { cloud, type CloudKind } from '../helpers/clouds.js';
import { tryGpuContext } from '../helpers/gpu.js';
import { expectSameEdges } from '../helpers/sameEdges.js';
import { primMst } from '../helpers/prim.js';
import { periodicPoints } from '../helpers/periodic.js';
import { readBvh } from '../helpers/bvh.readback.js';
import { allocateBvh, createBvhBuilder } from '../../src/bvh/lbvh.js';
import { ROOT_STRIDE, SplitTraversal } from '../../src/emst/nearestsplit.js';
import { subtreeRootsCpu } from '../../src/emst/nearestsplit.cpu.js';
import { checkSubtreeRoots } from '../../src/emst/splitroots.js';

const ctx = await tryGpuContext();
afterAll(() => ctx?.destroy());

interface Run {
  minSamples?: number;
  period?: Float32Array;
  minEdgeLength?: number;
  split?: number;
  skipBounded?: boolean;
}

async function gpuEmst(c: GpuContext, pts: Float32Array, dim: number, o: Run): Promise<EdgeList> {
  const n = pts.length / dim;
  const e = await GpuEmst.create(c, Math.max(n, 1), dim, metricOf(o.minSamples ?? 1), o.period !== undefined, {
    split: o.split,
  });
  const buf = c.upload('test::points', pts);
  try {
    return await e.readEdges(
      await e.run(buf, n, { period: o.period, minEdgeLength: o.minEdgeLength, skipBounded: o.skipBounded }),
    );
  } finally {
    buf.destroy();
    e.destroy();
  }
}

const edgeSet = (s: Uint32Array, t: Uint32Array) =>
  Array.from(s, (a, i) => `${Math.min(a, t[i])}-${Math.max(a, t[i])}`).sort();

describe.skipIf(!ctx)('Borůvka split traversal', () => {
  it.each([
    [2, 64],
    [3, 64],
    [1000, 64],
    [4099, 256],
    [3000, 5000],
  ])("n=%i, windows of at most %i: the roots pass finds the CPU twin's roots", async (n, most) => {
    const c = ctx!;
    const pts = cloud('duplicates', n, 3, n);
    // The split traversal reads f32 boxes (bvh/layout.ts, boxFormatFor).
    const builder = await createBvhBuilder(c, { maxCount: n, dim: 3, boxes: 'f32' });
    const bvh = allocateBvh(c, n, 3, { boxes: 'f32' });
    const split = await SplitTraversal.create(c, n, 3, false, most);
    const input = c.upload('test::points', pts);
    try {
      await c.submit('test::roots', (rec) => {
        builder.encode(rec, input, n, bvh);
        split.encodeRoots(rec, bvh, n);
      });
      const { trees } = split.windows(n);
      const words = new Uint32Array(await c.read(split.roots, 0, 4 * ROOT_STRIDE * trees.length));
      const got = trees.map((_, w) =>
        Array.from(words.subarray(w * ROOT_STRIDE + 1, w * ROOT_STRIDE + 1 + words[w * ROOT_STRIDE])).sort(
          (a, b) => a - b,
        ),
      );
      const cpu = await readBvh(c, bvh);
      expect(got).toEqual(subtreeRootsCpu(n, cpu.links, cpu.ranges, trees[0].count));
      await checkSubtreeRoots(c, split, n);
      // A window whose count is out of range (as a broken BVH leaves it) fails by name instead of being clamped.
      const last = trees.length - 1;
      for (const bad of [0, ROOT_STRIDE]) {
        await c.writeBuffer(split.roots, 4 * ROOT_STRIDE * last, new Uint32Array([bad]));
        await expect(checkSubtreeRoots(c, split, n)).rejects.toThrow(`emst::subtreeRoots: tree window ${last} (leaves`);
      }
    } finally {
      input.destroy();
      split.destroy();
      bvh.destroy();
      builder.destroy();
    }
  });

  it.each([
    ['normal', 2, 3, 1, 64],
    ['normal', 3, 3, 1, 64],
    ['normal', 200, 3, 1, 1000],
    ['uniform', 1153, 3, 1, 256],
    ['normal', 1200, 3, 5, 256],
    ['duplicates', 700, 2, 1, 128],
    ['duplicates', 600, 3, 5, 256],
    ['grid', 1000, 3, 1, 128],
  ] as [CloudKind, number, number, number, number][])(
    '%s n=%i d=%i minSamples=%i, windows of %i: the unsplit edges, the CPU backend and Prim',
    async (kind, n, dim, ms, split) => {
      const pts = cloud(kind, n, dim, 19);
      const got = await gpuEmst(ctx!, pts, dim, { minSamples: ms, split });
      expectSameEdges(got, await gpuEmst(ctx!, pts, dim, { minSamples: ms }));
      expectSameEdges(got, await emst(pts, { dim, minSamples: ms, backend: 'cpu' }));
      // Prim in float64: the same edge set (its order may differ where float32 weights tie).
      const prim = primMst(pts, dim, ms > 1 ? { minSamples: ms } : {});
      expect(edgeSet(got.sources, got.targets)).toEqual(edgeSet(prim.sources, prim.targets));
    },
  );

  it('issue 19: u16 boxes (TREELINE_BVH_BOXES=u16; the frame copied after the roots) in forced windows: the f32 unsplit edges', async () => {
    const saved = process.env.TREELINE_BVH_BOXES;
    try {
      for (const [kind, n, dim, ms, split] of [
        ['normal', 1200, 3, 1, 256],
        ['normal', 1200, 3, 5, 256],
        ['duplicates', 700, 2, 1, 128],
      ] as [CloudKind, number, number, number, number][]) {
        const pts = cloud(kind, n, dim, 23);
        process.env.TREELINE_BVH_BOXES = 'f32';
        const want = await gpuEmst(ctx!, pts, dim, { minSamples: ms });
        process.env.TREELINE_BVH_BOXES = 'u16';
        expectSameEdges(await gpuEmst(ctx!, pts, dim, { minSamples: ms, split }), want);
        expectSameEdges(await gpuEmst(ctx!, pts, dim, { minSamples: ms }), want);
      }
    } finally {
      if (saved === undefined) delete process.env.TREELINE_BVH_BOXES;
      else process.env.TREELINE_BVH_BOXES = saved;
    }
  });

  it('every point searching every round (skipBounded false): the unsplit edges', async () => {
    const pts = cloud('clustered', 1500, 3, 8);
    const want = await gpuEmst(ctx!, pts, 3, {});
    expectSameEdges(await gpuEmst(ctx!, pts, 3, { split: 256, skipBounded: false }), want);
    expectSameEdges(
      await gpuEmst(ctx!, pts, 3, { minSamples: 5, split: 256, skipBounded: false }),
      await gpuEmst(ctx!, pts, 3, { minSamples: 5 }),
    );
  });

  it('periodic box and scale cut: the unsplit edges', async () => {
    const box = [7, 9, 5];
    const period = Float32Array.from(box);
    const pts = periodicPoints('grid', 600, box, 3);
    expectSameEdges(await gpuEmst(ctx!, pts, 3, { period, split: 128 }), await gpuEmst(ctx!, pts, 3, { period }));
    // A cut at the median MST edge: no pair below it is an edge, so the tree changes.
    const cutPts = cloud('clustered', 1200, 3, 5);
    const weights = Float64Array.from((await gpuEmst(ctx!, cutPts, 3, {})).weights).sort();
    const minEdgeLength = weights[weights.length >> 1];
    const forest = await gpuEmst(ctx!, cutPts, 3, { minEdgeLength, split: 256 });
    expect(forest.weights.length).toBeGreaterThan(0);
    expect(Math.min(...forest.weights)).toBeGreaterThanOrEqual(Math.fround(minEdgeLength) * (1 - 1e-6));
    expectSameEdges(forest, await gpuEmst(ctx!, cutPts, 3, { minEdgeLength }));
  });
});
