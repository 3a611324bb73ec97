/**
 * The single-linkage dendrogram on the GPU (src/cluster/dendrogram.ts) against its CPU twin (dendrogram.cpu.ts,
 * word for word: children, sizes, parents) and the independent oracle, linkage.ts's singleLinkage (sequential
 * Kruskal: left, right, distance, size), on seeded random trees with many ties, deep chains, stars and paths, at
 * degenerate sizes and sizes that are no multiple of the workgroup; on EMSTs of random points straight from the GPU
 * (canonical.ts's buffers, never read back in between); and on the golden cases' canonical MSTs against hdbscan's
 * own single-linkage rows.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { GpuDendrogram, readDendrogram, type SingleLinkageTreeWithParents } from '../../src/cluster/dendrogram.js';
import { dendrogramCpu } from '../../src/cluster/dendrogram.cpu.js';
import { singleLinkage } from '../../src/cluster/linkage.js';
import { canonicalMst } from '../../src/cluster/edgeOrder.js';
import type { MstEdges } from '../../src/cluster/types.js';
import { createCanonicalSort } from '../../src/emst/canonical.js';
import { GpuEmst } from '../../src/emst/pipeline.js';
import { metricOf } from '../../src/emst/metric.js';
import type { GpuContext } from '../../src/gpu/context.js';
import { createRadixSorter } from '../../src/primitives/radixsort.js';
import { cloud } from '../helpers/clouds.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { goldenCase, goldenIndex, goldenMst } from '../helpers/golden.js';
import { mulberry32 } from '../helpers/random.js';
import { randomChainTree } from '../helpers/trees.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

/** A canonical MST's (source, weight bits) pairs, as canonical.ts leaves them on the GPU. */
function canonicalKeys(mst: MstEdges): Uint32Array {
  const m = mst.sources.length;
  const w = new Uint32Array(Float32Array.from(mst.weights).buffer);
  const keys = new Uint32Array(2 * Math.max(m, 1));
  for (let i = 0; i < m; i++) {
    keys[2 * i] = mst.sources[i];
    keys[2 * i + 1] = w[i];
  }
  return keys;
}

async function dendrogramOnGpu(ctx: GpuContext, mst: MstEdges, n: number): Promise<SingleLinkageTreeWithParents> {
  const d = await GpuDendrogram.create(ctx, Math.max(n, 1));
  const keys = ctx.upload('test::keys', canonicalKeys(mst));
  const targets = ctx.upload('test::targets', mst.targets.length ? mst.targets : new Uint32Array(1));
  try {
    let out = null as ReturnType<GpuDendrogram['encode']> | null;
    await ctx.submit('test::dendrogram', (rec) => (out = d.encode(rec, { keys, targets, n })));
    return await readDendrogram(ctx, out!, keys);
  } finally {
    keys.destroy();
    targets.destroy();
    d.destroy();
  }
}

/** GPU = twin (every array) = singleLinkage (rows), and parents agree with the children. */
function expectDendrogram(got: SingleLinkageTreeWithParents, mst: MstEdges, n: number) {
  const twin = dendrogramCpu(mst.sources, mst.targets, n);
  const want = singleLinkage(mst, n);
  expect(got.left).toEqual(want.left);
  expect(got.right).toEqual(want.right);
  expect(got.size).toEqual(want.size);
  expect(got.distance).toEqual(Float64Array.from(Float32Array.from(mst.weights)));
  expect(got.left).toEqual(twin.left);
  expect(got.right).toEqual(twin.right);
  expect(got.size).toEqual(twin.size);
  expect(got.parent).toEqual(twin.parent);
  const m = Math.max(0, n - 1);
  for (let i = 0; i < m; i++) {
    if (got.parent[got.left[i]] !== n + i || got.parent[got.right[i]] !== n + i) {
      expect.fail(
        `merge ${i}: children ${got.left[i]}, ${got.right[i]} have parents ${got.parent[got.left[i]]}, ${got.parent[got.right[i]]}`,
      );
    }
  }
  if (n > 0) expect(got.parent.filter((p) => p === 0xffffffff).length).toBe(1);
  if (n > 1) expect(got.parent[2 * n - 2]).toBe(0xffffffff);
}

/** A canonical tree from edges (i, j(i)) with weights from `levels` values. */
function treeOf(n: number, seed: number, levels: number, other: (i: number, rand: () => number) => number): MstEdges {
  const rand = mulberry32(seed);
  const m = Math.max(0, n - 1);
  const sources = new Uint32Array(m);
  const targets = new Uint32Array(m);
  const weights = new Float32Array(m);
  for (let i = 1; i < n; i++) {
    sources[i - 1] = i;
    targets[i - 1] = other(i, rand);
    weights[i - 1] = levels === 0 ? i : Math.floor(rand() * levels);
  }
  return canonicalMst({ sources, targets, weights });
}

describe.skipIf(variants.length === 0).each(variants)('GpuDendrogram ($name)', ({ ctx }) => {
  it.each([0, 1, 2, 3, 4, 5, 17])('n=%i: every tree shape of a few points', async (n) => {
    for (let seed = 1; seed <= (n < 4 ? 2 : 6); seed++) {
      const mst = randomChainTree(n, seed, 2, 0.5);
      expectDendrogram(await dendrogramOnGpu(ctx, mst, n), mst, n);
    }
  });

  it.each([
    [255, 3, 0.5],
    [257, 1, 0],
    [1000, 4, 0.9],
    [4097, 1000000, 0.3],
    [20000, 16, 0.99],
    [65537, 2, 0.7],
  ])('random tree n=%i, %i weight levels, chain %f (ties, deep chains)', async (n, levels, chain) => {
    const mst = randomChainTree(n, n + levels, levels, chain);
    expectDendrogram(await dendrogramOnGpu(ctx, mst, n), mst, n);
  });

  it('paths (increasing, decreasing, random, equal weights): the deepest dendrograms', async () => {
    const n = 3001;
    for (const levels of [0, 1, 5]) {
      const path = treeOf(n, 7, levels, (i) => i - 1);
      expectDendrogram(await dendrogramOnGpu(ctx, path, n), path, n);
    }
    // Decreasing along the path: the chain grows from the far end.
    const m = n - 1;
    const down = canonicalMst({
      sources: Uint32Array.from({ length: m }, (_, i) => i),
      targets: Uint32Array.from({ length: m }, (_, i) => i + 1),
      weights: Float32Array.from({ length: m }, (_, i) => m - i),
    });
    expectDendrogram(await dendrogramOnGpu(ctx, down, n), down, n);
  });

  it('stars and caterpillars (one vertex holds most edges; equal weights)', async () => {
    for (const levels of [1, 3, 0]) {
      const star = treeOf(2049, 11, levels, () => 0);
      expectDendrogram(await dendrogramOnGpu(ctx, star, 2049), star, 2049);
      const cat = treeOf(3000, 12, levels, (i, r) => (r() < 0.5 ? 0 : Math.max(0, i - 1)));
      expectDendrogram(await dendrogramOnGpu(ctx, cat, 3000), cat, 3000);
    }
  });

  it('one GpuDendrogram run on trees of several sizes in turn, with a lent sorter (state reset by every encode)', async () => {
    const sorter = await createRadixSorter(ctx, { maxCount: 5000, keyWords: 2 });
    const d = await GpuDendrogram.create(ctx, 5001, { sorter });
    try {
      for (const [n, seed] of [
        [5001, 1],
        [300, 2],
        [2, 3],
        [4097, 4],
      ]) {
        const mst = randomChainTree(n, seed, 3, 0.8);
        const keys = ctx.upload('test::keys', canonicalKeys(mst));
        const targets = ctx.upload('test::targets', mst.targets);
        try {
          let out = null as ReturnType<GpuDendrogram['encode']> | null;
          await ctx.submit('test::dendrogram', (rec) => (out = d.encode(rec, { keys, targets, n })));
          expectDendrogram(await readDendrogram(ctx, out!, keys), mst, n);
        } finally {
          keys.destroy();
          targets.destroy();
        }
      }
    } finally {
      d.destroy();
      sorter.destroy();
    }
    await expect(GpuDendrogram.create(ctx, 9000, { sorter })).rejects.toThrow(
      /lent sorter must sort 64-bit keys for ≥ 8999 pairs/,
    );
  });

  it('2·10^5 points, 8 weight levels', async () => {
    const n = 200_000;
    const mst = randomChainTree(n, 99, 8, 0.6);
    expectDendrogram(await dendrogramOnGpu(ctx, mst, n), mst, n);
  });

  it.each([
    ['normal', 3000, 3, 1],
    ['grid', 2000, 2, 1],
    ['duplicates', 600, 3, 5],
    ['clustered', 5000, 2, 15],
  ] as const)('EMST of %s n=%i d=%i minSamples=%i, GPU-resident from Borůvka to the rows', async (kind, n, dim, ms) => {
    const points = cloud(kind, n, dim, 21);
    const e = await GpuEmst.create(ctx, n, dim, metricOf(ms));
    const canonical = await createCanonicalSort(ctx);
    const sorter = await createRadixSorter(ctx, { maxCount: n, keyWords: 2 });
    const d = await GpuDendrogram.create(ctx, n);
    const buf = ctx.upload('test::points', points);
    const keys = ctx.createBuffer('test::keys', 8 * n);
    const targets = ctx.createBuffer('test::targets', 4 * n);
    try {
      const result = await e.run(buf, n);
      let out = null as ReturnType<GpuDendrogram['encode']> | null;
      await ctx.submit('test::canonicalDendrogram', (rec) => {
        canonical.encode(rec, { edges: result.edges, count: result.count, n, sorter, keys, values: targets });
        out = d.encode(rec, { keys, targets, n });
      });
      const got = await readDendrogram(ctx, out!, keys);
      const edges = await e.readEdges(result);
      expectDendrogram(got, edges, n);
    } finally {
      for (const x of [buf, keys, targets]) x.destroy();
      d.destroy();
      sorter.destroy();
      e.destroy();
    }
  });

  it("every golden case's canonical MST gives hdbscan's own single-linkage rows", async () => {
    const seen = new Set<string>();
    for (const entry of goldenIndex()) {
      if (seen.has(`${entry.case}/${entry.params.split('-')[1]}`)) continue; // one MST per minSamples
      seen.add(`${entry.case}/${entry.params.split('-')[1]}`);
      const c = goldenCase(entry.case, entry.params);
      const g = goldenMst(c);
      const mst = canonicalMst({ sources: g.sources, targets: g.targets, weights: g.weights });
      const n = entry.n;
      const got = await dendrogramOnGpu(ctx, { ...mst, weights: Float32Array.from(mst.weights) }, n);
      const rows = c.canonical.single_linkage_tree;
      expect(Array.from(got.left)).toEqual(rows.map((r) => r[0]));
      expect(Array.from(got.right)).toEqual(rows.map((r) => r[1]));
      expect(Array.from(got.size)).toEqual(rows.map((r) => r[3]));
      expectDendrogram(got, { ...mst, weights: Float32Array.from(mst.weights) }, n);
    }
  });
});
