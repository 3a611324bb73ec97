/**
 * Issue 17: the GPU histograms' CPU twin (src/stats/binning.cpu.ts) — float32 thresholds of float64 edges, the
 * kernel's bin search, the ambiguous branch shapes binned on the host — gives exactly the host's histogram counts
 * (histogram.ts, the oracle) on seeded values placed on, above and below every edge, with ties, zeros, straight and
 * NaN branches, masks, user bins and degenerate sizes; the extremes give binEdges the same edges as the values.
 * Issue 17: also on emulated devices whose float32 flushes subnormals (the H100) and rounds division and square root
 * off by up to ±16 ulp — lavapipe cannot show that; the earlier kernel's float comparisons fail there as on the H100.
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
  IEEE_F32,
  NO_BIN,
  orderKey,
  resolveShapes,
  shapeBin,
  SHAPE_TOLERANCE,
  TO_HOST,
  type BinMode,
  type BinSource,
  type F32Device,
} from '../../src/stats/binning.cpu.js';
import { binEdges, edgesNeedValues, mstHistograms } from '../../src/stats/histogram.js';
import type { StatName } from '../../src/stats/types.js';
import { binningCases, SPECIAL_BITS, type BinningCase } from '../helpers/binning.js';
import { mulberry32 } from '../helpers/random.js';

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

/** The twin's counts of every statistic with the ambiguous shapes binned on the host, on device `d`. */
function twinCounts(c: BinningCase, d: F32Device = IEEE_F32): Record<StatName, number[]> {
  const out = {} as Record<StatName, number[]>;
  for (const [name, { src, mode, scale }] of Object.entries(sources(c)) as [
    StatName,
    ReturnType<typeof sources>[StatName],
  ][]) {
    const proxy =
      mode !== 'shape' && edgesNeedValues(name, c.bins[name]) ? extremeValues(extremaCpu(src), mode, scale) : [];
    const edges = binEdges(name, c.bins[name], proxy);
    const { counts, ambiguous } = binCountsCpu(src, binThresholds(edges, mode, scale), mode, d);
    const got = Float64Array.from(counts);
    resolveShapes(ambiguous, edges, got, scale);
    out[name] = Array.from(got);
  }
  return out;
}

/** Devices WGSL allows: subnormals flushed to zero (the H100), division and square root off by up to ±k ulp. */
const DEVICES: [string, Omit<F32Device, 'random'>][] = [
  ['flushes subnormals', { flushSubnormals: true, ulps: 0 }],
  ['flushes subnormals, ±1 ulp', { flushSubnormals: true, ulps: 1 }],
  ['flushes subnormals, ±4 ulp', { flushSubnormals: true, ulps: 4 }],
  ['keeps subnormals, ±16 ulp', { flushSubnormals: false, ulps: 16 }],
  ['flushes subnormals, ±16 ulp', { flushSubnormals: true, ulps: 16 }],
];

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

  const onDevices = binningCases().flatMap((c) => DEVICES.map(([dn, d]) => [c.name, dn, c, d] as const));
  it.each(onDevices)('issue 17: %s, on a device that %s: counts = host counts', (_c, _d, c, d) => {
    const want = mstHistograms(c.host, c.bins, false);
    for (const seed of [1, 2, 3]) {
      const got = twinCounts(c, { ...d, random: mulberry32(seed) });
      for (const name of Object.keys(got) as StatName[]) {
        expect(got[name], `${name} counts, seed ${seed}`).toEqual(Array.from(want[name].counts));
      }
    }
  });

  it('issue 17: the earlier kernel (float compares: L > 0, T[b] ≤ v) loses counts where subnormals flush (H100)', () => {
    // binning.wgsl before the fix, on a device that flushes subnormal operands: L = 2^−149 reads as 0, the branch is
    // dropped; the H100 gave [180, 19, …, 59] for [181, 19, …, 60] on this case.
    const c = binningCases()[0];
    const flush = (x: number) => (Math.abs(x) < 2 ** -126 ? 0 : x);
    const edges = binEdges('branchShape', undefined, []);
    const t = Array.from(binThresholds(edges, 'shape'), (w) => flush(floatOf(w)));
    const k = edges.length - 1;
    const old = new Float64Array(k);
    for (let i = 0; i < c.branchEndToEnd.length; i++) {
      if (c.branchMask[i] === 0) continue;
      const L = flush(floatOf(c.branchRecords[4 * i + 3]));
      const e = flush(c.branchEndToEnd[i]);
      if (!(L > 0) || !(e <= L)) continue;
      const v = e === L ? 0 : Math.fround(Math.sqrt(Math.fround(Math.fround(L - e) / L)));
      if (v > 0 && t.some((x) => Math.abs(v - x) <= SHAPE_TOLERANCE * v)) {
        resolveShapes([floatOf(c.branchRecords[4 * i + 3]), c.branchEndToEnd[i]], edges, old, c.scale);
        continue;
      }
      if (!(v >= t[0] && v <= t[k + 1])) continue;
      let b = 0;
      while (b + 1 < k && t[b + 1] <= v) b++;
      old[b]++;
    }
    const want = Array.from(mstHistograms(c.host, {}, false).branchShape.counts);
    const before = Array.from(old);
    expect(before[0]).toBe(want[0] - 1);
    expect(before[k - 1]).toBe(want[k - 1] - 1);
    expect(twinCounts(c, { flushSubnormals: true, ulps: 0, random: () => 0.5 }).branchShape).toEqual(want);
  });

  it('issue 17: shapeBin decides ±0, subnormal, extreme and non-finite lengths by their bits', () => {
    const table = binThresholds(binEdges('branchShape', undefined, []), 'shape');
    const ftz: F32Device = { flushSubnormals: true, ulps: 0, random: () => 0.5 };
    const one = bitsOf(1);
    for (const d of [IEEE_F32, ftz]) {
      expect(shapeBin(0, 0, table, d)).toBe(NO_BIN); // L = 0: NaN on the host
      expect(shapeBin(0x80000000, one, table, d)).toBe(NO_BIN); // L = −0: −∞ → √ = +∞
      expect(shapeBin(one, bitsOf(Math.fround(1 + 2 ** -23)), table, d)).toBe(NO_BIN); // e > L
      expect(shapeBin(one, one, table, d)).toBe(0); // e = L: 0, the first bin
      expect(shapeBin(one, 0, table, d)).toBe(49); // e = 0: 1, the last (closed) bin
      expect(shapeBin(1, 1, table, d)).toBe(TO_HOST); // L subnormal
      expect(shapeBin(one, 1, table, d)).toBe(TO_HOST); // e subnormal
      expect(shapeBin(one, 0x80000000, table, d)).toBe(TO_HOST); // e = −0
      expect(shapeBin(0x6e800000, 0, table, d)).toBe(TO_HOST); // L = 2^94
      expect(shapeBin(0x0fffffff, 0, table, d)).toBe(TO_HOST); // L just below 2^−95
      expect(shapeBin(0x10000000, 0, table, d)).toBe(49); // L = 2^−95: the kernel's own
      expect(shapeBin(bitsOf(-1), bitsOf(0.5), table, d)).toBe(TO_HOST);
      expect(shapeBin(0x7fc00000, one, table, d)).toBe(TO_HOST);
      expect(shapeBin(bitsOf(4), one, table, d)).toBe(43); // √0.75 = 0.866
    }
  });

  it('orderKey orders float32 bits as the floats, −0 = +0, subnormals exact', () => {
    const finite = SPECIAL_BITS.filter((b) => floatOf(b) === floatOf(b));
    for (const a of finite) {
      for (const b of finite) {
        const [x, y] = [floatOf(a), floatOf(b)];
        expect(orderKey(a) <= orderKey(b), `${x} ≤ ${y}`).toBe(x <= y);
      }
    }
    expect(orderKey(0x7fc00000)).toBeGreaterThan(orderKey(0x7f800000)); // NaN beyond +∞
    expect(orderKey(0xffc00000)).toBeLessThan(orderKey(0xff800000)); // −NaN below −∞
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
