/**
 * Issue 17: the GPU histograms' CPU twin (src/stats/binning.cpu.ts) — float32 thresholds of float64 edges, the
 * kernel's bin search, the ambiguous branch shapes binned on the host — gives exactly the host's histogram counts
 * (histogram.ts, the oracle) on seeded values placed on, above and below every edge, with ties, zeros, straight and
 * NaN branches, masks, user bins and degenerate sizes; the extremes give binEdges the same edges as the values.
 */
import { describe, expect, it } from 'vitest';
import {
  binCountsCpu,
  binThresholds,
  bitsOf,
  ceilF32,
  extremaCpu,
  extremeValues,
  floatOf,
  floorF32,
  resolveShapes,
  type BinMode,
  type BinSource,
} from '../../src/stats/binning.cpu.js';
import { binEdges, edgesNeedValues, mstHistograms } from '../../src/stats/histogram.js';
import type { StatName } from '../../src/stats/types.js';
import { binningCases, type BinningCase } from '../helpers/binning.js';

function sources(c: BinningCase): Record<StatName, { src: BinSource; mode: BinMode; scale: number }> {
  const walks = c.branchEndToEnd.length;
  const branch = { words: c.branchRecords, count: walks, stride: 4, offset: 3, mask: c.branchMask };
  return {
    degree: { src: { words: c.degree, count: c.degree.length }, mode: 'u32', scale: 1 },
    edgeLength: { src: { words: c.edgeWords, count: c.edgeWords.length }, mode: 'f32', scale: c.scale },
    branchLength: { src: branch, mode: 'f32', scale: c.scale },
    branchShape: { src: { ...branch, other: c.branchEndToEnd }, mode: 'shape', scale: 1 },
  };
}

describe('binning.cpu.ts', () => {
  it('ceilF32 / floorF32 bracket a float64 by the nearest float32s', () => {
    for (const x of [0.1, -0.1, 1 / 3, 1e-45, 3.4028235677973366e38, 1e39, -1e39, 0, 2]) {
      const c = ceilF32(x);
      const f = floorF32(x);
      expect(c >= x && f <= x, `x=${x}`).toBe(true);
      if (Number.isFinite(c) && c !== 0) expect(floatOf(bitsOf(c) + (c > 0 ? -1 : 1)) < x, `ceil ${x}`).toBe(true);
      if (Math.fround(x) === x) expect(c === x && f === x).toBe(true);
    }
  });

  it.each(binningCases().map((c) => [c.name, c] as const))('%s: twin counts = host counts', (_name, c) => {
    const want = mstHistograms(c.host, c.bins, true);
    for (const [name, { src, mode, scale }] of Object.entries(sources(c)) as [
      StatName,
      ReturnType<typeof sources>[StatName],
    ][]) {
      // The edges from the extremes alone, as the GPU path makes them.
      let proxy: number[] = [];
      if (mode !== 'shape' && edgesNeedValues(name, c.bins[name])) {
        proxy = extremeValues(extremaCpu(src), mode, scale);
      }
      const edges = binEdges(name, c.bins[name], proxy);
      expect(Array.from(edges), `${name} edges`).toEqual(Array.from(want[name].edges));
      const { counts, ambiguous } = binCountsCpu(src, binThresholds(edges, mode, scale), mode);
      const got = Float64Array.from(counts);
      resolveShapes(ambiguous, edges, got, scale);
      expect(Array.from(got), `${name} counts`).toEqual(Array.from(want[name].counts));
      if (mode !== 'shape') expect(ambiguous.length).toBe(0);
    }
  });

  it('the adversarial shapes do reach the host: values within the tolerance of an edge are listed', () => {
    const c = binningCases()[0];
    const { src } = sources(c).branchShape;
    const { ambiguous } = binCountsCpu(src, binThresholds(binEdges('branchShape', undefined, []), 'shape'), 'shape');
    expect(ambiguous.length).toBeGreaterThan(20);
    expect(ambiguous.length / 2).toBeLessThan(src.count / 2);
  });

  it('degrees: thresholds are ⌈edge⌉ and the top ⌊edge⌋; a top edge below 0 admits nothing', () => {
    expect(Array.from(binThresholds(Float64Array.of(0.5, 1.5, 6.5), 'u32'))).toEqual([1, 2, 7, 6]);
    const none = binThresholds(Float64Array.of(-3, -1.5), 'u32');
    expect(binCountsCpu({ words: Uint32Array.of(0, 1, 2), count: 3 }, none, 'u32').counts[0]).toBe(0);
  });
});
