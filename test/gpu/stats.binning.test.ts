/**
 * Issue 17: MiSTree's histograms counted on the GPU (src/stats/binning.ts, shaders/stats/extrema.wgsl and
 * binning.wgsl) against the CPU twin (binning.cpu.ts) and the host's float64 histograms (histogram.ts, the oracle) on
 * the seeded adversarial values of test/helpers/binning.ts — values on, above and below every edge, ties, zeros,
 * straight and NaN branches, masks, user bins, more bins than shared memory, sizes 0, 1, 2, 257: identical counts,
 * edges and normalised heights; the same extremes as the twin; the second pass when the ambiguous list overflows.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { GpuBinning, gpuMstHistograms, type GpuMstValues } from '../../src/stats/binning.js';
import { binCountsCpu, binThresholds, extremaCpu } from '../../src/stats/binning.cpu.js';
import { binEdges, mstHistograms } from '../../src/stats/histogram.js';
import { STAT_NAMES } from '../../src/stats/types.js';
import type { GpuContext } from '../../src/gpu/context.js';
import { binningCases, type BinningCase } from '../helpers/binning.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

function upload(ctx: GpuContext, c: BinningCase) {
  const up = (label: string, a: Uint32Array | Float32Array) =>
    ctx.upload(`test::${label}`, a.length > 0 ? a : new Uint32Array(1));
  const bufs = {
    degree: up('degree', c.degree),
    edges: up('edges', c.edgeWords),
    records: up('records', c.branchRecords),
    e2e: up('e2e', c.branchEndToEnd),
    mask: up('mask', c.branchMask),
  };
  const walks = c.branchEndToEnd.length;
  const branch = { words: bufs.records, count: walks, stride: 4, offset: 3, mask: bufs.mask };
  const values: GpuMstValues = {
    degree: { words: bufs.degree, count: c.degree.length },
    edgeLengths: { words: bufs.edges, count: c.edgeWords.length },
    branchLengths: branch,
    branchShapes: { ...branch, other: bufs.e2e },
  };
  return { values, destroy: () => Object.values(bufs).forEach((b) => b.destroy()) };
}

describe.skipIf(variants.length === 0).each(variants)('GPU histograms ($name)', ({ ctx }) => {
  it.each(binningCases().map((c) => [c.name, c] as const))('%s: counts = the host histograms', async (_n, c) => {
    const binning = await GpuBinning.create(ctx);
    const { values, destroy } = upload(ctx, c);
    try {
      for (const normalised of [true, false]) {
        const got = await gpuMstHistograms(ctx, binning, values, { bins: c.bins, normalised, scale: c.scale });
        const want = mstHistograms(c.host, c.bins, normalised);
        for (const name of STAT_NAMES) {
          expect(Array.from(got[name].edges), `${name} edges`).toEqual(Array.from(want[name].edges));
          expect(Array.from(got[name].counts), `${name} counts`).toEqual(Array.from(want[name].counts));
          expect(Array.from(got[name].y), `${name} y`).toEqual(Array.from(want[name].y));
        }
      }
    } finally {
      destroy();
      binning.destroy();
    }
  });

  it('extrema and the degree and length counts equal the CPU twin word for word', async () => {
    const c = binningCases()[0];
    const binning = await GpuBinning.create(ctx);
    const { values, destroy } = upload(ctx, c);
    const out = ctx.createBuffer('test::extrema', 48);
    const edges = binEdges('edgeLength', undefined, c.host.edgeLengths);
    const table = binThresholds(edges, 'f32', c.scale);
    const thresholds = ctx.upload('test::thresholds', table);
    const counts = ctx.createBuffer('test::counts', 4 * (table.length - 2));
    try {
      await ctx.submit('test::binning', (r) => {
        r.clear(out);
        r.clear(counts);
        binning.encodeExtrema(r, values.edgeLengths, out, 0);
        binning.encodeExtrema(r, values.branchLengths, out, 4);
        binning.encodeExtrema(r, values.degree, out, 8);
        const at = { thresholds, tbase: 0, bins: table.length - 2, counts, cbase: 0 };
        binning.encodeCounts(r, values.edgeLengths, 'f32', at, null);
      });
      const w = new Uint32Array(await ctx.read(out));
      const twin = [
        extremaCpu({ words: c.edgeWords, count: c.edgeWords.length }),
        extremaCpu({ words: c.branchRecords, count: c.branchMask.length, stride: 4, offset: 3, mask: c.branchMask }),
        extremaCpu({ words: c.degree, count: c.degree.length }),
      ];
      twin.forEach((t, j) => {
        expect([w[4 * j], ~w[4 * j + 1] >>> 0, w[4 * j + 2]]).toEqual([t.maxBits, t.minPositiveBits, t.count]);
      });
      const want = binCountsCpu({ words: c.edgeWords, count: c.edgeWords.length }, table, 'f32').counts;
      expect(Array.from(new Uint32Array(await ctx.read(counts)))).toEqual(Array.from(want));
    } finally {
      for (const b of [out, thresholds, counts]) b.destroy();
      destroy();
      binning.destroy();
    }
  });

  it('more ambiguous shapes than the list holds: a second pass with room for all gives the same counts', async () => {
    const c = binningCases()[0];
    const binning = await GpuBinning.create(ctx);
    const { values, destroy } = upload(ctx, c);
    try {
      const got = await gpuMstHistograms(ctx, binning, values, { scale: c.scale, capacity: 1 });
      const want = mstHistograms(c.host, {}, true);
      expect(Array.from(got.branchShape.counts)).toEqual(Array.from(want.branchShape.counts));
    } finally {
      destroy();
      binning.destroy();
    }
  });
});
