/**
 * The canonical edge order on the GPU (src/emst/canonical.ts) against its CPU twin (canonical.cpu.ts): weights
 * bit-equal to Math.fround(Math.sqrt(key)) on the edge cases and a million random patterns, the order on tie-heavy
 * raw edge lists of degenerate and odd sizes, and — the point of it — equal to the order the host used to finish
 * (raw edges read back, fround(sqrt(key)), sortEdgesCanonical) on EMSTs with many equal weights (integer grids,
 * duplicates, mutual reachability); readEdges, which now reads the GPU's order, gives it too.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createCanonicalSort } from '../../src/emst/canonical.js';
import { canonicalEdgesCpu } from '../../src/emst/canonical.cpu.js';
import { sortEdgesCanonical, type EdgeList } from '../../src/emst/edges.cpu.js';
import { GpuEmst } from '../../src/emst/pipeline.js';
import { metricOf } from '../../src/emst/metric.js';
import type { GpuContext } from '../../src/gpu/context.js';
import { createRadixSorter } from '../../src/primitives/radixsort.js';
import { cloud, type CloudKind } from '../helpers/clouds.js';
import { edgeCaseKeys } from '../helpers/floatBits.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { mulberry32 } from '../helpers/random.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

/** Runs the canonical sort of `m` raw edges on `ctx` from a GPU buffer, and reads the result as an EdgeList. */
async function canonicalOnGpu(ctx: GpuContext, edges: GPUBuffer, m: number, n: number): Promise<EdgeList> {
  const canonical = await createCanonicalSort(ctx);
  const sorter = await createRadixSorter(ctx, { maxCount: Math.max(m, 1), keyWords: 2 });
  const keys = ctx.createBuffer('test::canonicalKeys', 8 * Math.max(m, 1));
  const values = ctx.createBuffer('test::canonicalValues', 4 * Math.max(m, 1));
  try {
    await ctx.submit('test::canonical', (rec) => canonical.encode(rec, { edges, count: m, n, sorter, keys, values }));
    const k = new Uint32Array(await ctx.read(keys, 0, 8 * Math.max(m, 1)));
    const v = new Uint32Array(await ctx.read(values, 0, 4 * Math.max(m, 1)));
    const out: EdgeList = {
      sources: Uint32Array.from({ length: m }, (_, i) => k[2 * i]),
      targets: v.slice(0, m),
      weights: new Float32Array(m),
    };
    new Uint32Array(out.weights.buffer).set(Uint32Array.from({ length: m }, (_, i) => k[2 * i + 1]));
    return out;
  } finally {
    keys.destroy();
    values.destroy();
    sorter.destroy();
  }
}

function expectSameEdges(got: EdgeList, want: EdgeList) {
  expect(got.sources).toEqual(want.sources);
  expect(got.targets).toEqual(want.targets);
  expect(new Uint32Array(got.weights.buffer)).toEqual(new Uint32Array(want.weights.buffer));
}

/** Raw edges (a, b, key) with random endpoint order; keys from `keyOf`. */
function rawEdges(m: number, n: number, seed: number, keyOf: (e: number, rand: () => number) => number): Uint32Array {
  const rand = mulberry32(seed);
  const raw = new Uint32Array(3 * Math.max(m, 1));
  for (let e = 0; e < m; e++) {
    const a = Math.floor(rand() * n);
    let b = Math.floor(rand() * n);
    if (b === a) b = (a + 1) % n;
    raw[3 * e] = a;
    raw[3 * e + 1] = b;
    raw[3 * e + 2] = keyOf(e, rand) >>> 0;
  }
  return raw;
}

describe.skipIf(variants.length === 0).each(variants)('emst::canonical on the GPU ($name)', ({ ctx }) => {
  async function check(raw: Uint32Array, m: number, n: number) {
    const edges = ctx.upload('test::rawEdges', raw);
    try {
      expectSameEdges(await canonicalOnGpu(ctx, edges, m, n), canonicalEdgesCpu(raw, m));
    } finally {
      edges.destroy();
    }
  }

  it('weights of every edge-case key (zeros, subnormals, exponent boundaries, +∞) equal the twin', async () => {
    const keys = edgeCaseKeys().filter((x) => x <= 0x7f800000);
    await check(
      rawEdges(keys.length, keys.length + 1, 5, (e) => keys[e]),
      keys.length,
      keys.length + 1,
    );
  });

  it('weights of a million random finite patterns equal the twin (seeded)', async () => {
    const m = 1 << 20;
    await check(
      rawEdges(m, m + 1, 6, (_, r) => Math.floor(r() * 0x7f800000)),
      m,
      m + 1,
    );
  });

  it.each([
    [0, 1, 4],
    [1, 2, 4],
    [2, 3, 1],
    [3, 4, 2],
    [255, 256, 3],
    [257, 1000, 5],
    [1000, 70000, 7],
    [40000, 40001, 16],
  ])('m=%i n=%i: the order of keys from %i neighbouring patterns (equal weights, equal ends)', async (m, n, levels) => {
    const base = 0x40490fdb;
    await check(
      rawEdges(m, n, 100 + m, (_, r) => base + Math.floor(r() * levels)),
      m,
      n,
    );
  });

  const emsts: [CloudKind, number, number, number][] = [
    ['grid', 3000, 2, 1],
    ['grid', 1500, 3, 4],
    ['duplicates', 500, 3, 1],
    ['duplicates', 400, 2, 5],
    ['normal', 2000, 3, 15],
  ];
  it.each(emsts)(
    '%s n=%i d=%i minSamples=%i: equal to the host-finished order (and so is readEdges)',
    async (kind, n, dim, ms) => {
      const points = cloud(kind, n, dim, 11);
      const e = await GpuEmst.create(ctx, n, dim, metricOf(ms));
      const buf = ctx.upload('test::points', points);
      try {
        const result = await e.run(buf, n);
        const got = await canonicalOnGpu(ctx, result.edges, result.count, n);
        // The host's former path: raw edges read back, weights fround(sqrt(key)), sortEdgesCanonical.
        const m = result.count;
        const raw = new Uint32Array(await ctx.read(result.edges, 0, 12 * m));
        const keys = new Float32Array(raw.buffer);
        const host = sortEdgesCanonical({
          sources: Uint32Array.from({ length: m }, (_, i) => Math.min(raw[3 * i], raw[3 * i + 1])),
          targets: Uint32Array.from({ length: m }, (_, i) => Math.max(raw[3 * i], raw[3 * i + 1])),
          weights: Float32Array.from({ length: m }, (_, i) => Math.sqrt(keys[3 * i + 2])),
        });
        expectSameEdges(got, host);
        expectSameEdges(await e.readEdges(result), host);
      } finally {
        buf.destroy();
        e.destroy();
      }
    },
  );
});
