/**
 * MiSTree's histograms (histogram.ts) against numpy 2.4 values worked out once and written here: linspace edges to
 * the bit, numpy.histogram's bin rule (last bin closed, outside and NaN in no bin), density normalisation over the
 * values in bins, user bins, and raw counts.
 */
import { describe, expect, it } from 'vitest';
import { binEdges, binsOf, histogram, linspace, mstHistograms } from '../../src/stats/histogram.js';
import { mstStats } from '../../src/stats/mstStats.js';

describe('histogram.ts', () => {
  it('linspace(start, stop, num) equals numpy.linspace to the bit', () => {
    // numpy.linspace(0, 1.05 * 2.7765841742022004, 101)[[1, 3, 37, 99, 100]]
    const e = linspace(0, 1.05 * 2.7765841742022004, 101);
    expect([1, 3, 37, 99, 100].map((i) => e[i])).toEqual([
      0.029154133829123102, 0.0874624014873693, 1.0787029516775548, 2.8862592490831873, 2.9154133829123103,
    ]);
    expect(Array.from(linspace(0.5, 6.5, 7))).toEqual([0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5]);
    expect(Array.from(linspace(0.1, 0.7, 4))).toEqual([0.1, 0.3, 0.5, 0.7]);
  });

  it('histogram() follows numpy.histogram(density=True): last bin closed, 3 and NaN in no bin', () => {
    // numpy.histogram([0, .5, 1, 1.5, 2, 3, nan], bins=linspace(0, 2, 5), density=True) → [0.4, 0.4, 0.4, 0.8]
    const h = histogram([0, 0.5, 1, 1.5, 2, 3, NaN], linspace(0, 2, 5), true);
    expect(Array.from(h.counts)).toEqual([1, 1, 1, 2]);
    expect(Array.from(h.y)).toEqual([0.4, 0.4, 0.4, 0.8]);
    expect(Array.from(h.x)).toEqual([0.25, 0.75, 1.25, 1.75]);
    const raw = histogram([0, 0.5, 1, 1.5, 2, 3, NaN], linspace(0, 2, 5), false);
    expect(Array.from(raw.y)).toEqual([1, 1, 1, 2]);
    expect(raw.normalised).toBe(false);
  });

  it('uneven explicit edges: each bin divides by its own width', () => {
    const h = histogram([0.5, 1.5, 2.5, 3.5], Float64Array.from([0, 1, 3, 4]), true);
    expect(Array.from(h.counts)).toEqual([1, 2, 1]);
    expect(Array.from(h.y)).toEqual([1 / 1 / 4, 2 / 2 / 4, 1 / 1 / 4]);
  });

  it("binEdges: MiSTree's defaults, partial user ranges and explicit edges", () => {
    expect(Array.from(binEdges('degree', undefined, []))).toEqual([0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5]);
    const l = binEdges('edgeLength', undefined, [1, 4, 2]);
    expect(l.length).toBe(101);
    expect(l[100]).toBe(1.05 * 4);
    expect(Array.from(binEdges('branchShape', undefined, [])).slice(0, 3)).toEqual([0, 0.02, 0.04]);
    expect(Array.from(binEdges('edgeLength', { count: 4, max: 2 }, [9]))).toEqual([0, 0.5, 1, 1.5, 2]);
    expect(Array.from(binEdges('degree', [0.5, 1.5, 10.5], []))).toEqual([0.5, 1.5, 10.5]);
  });

  it('issue 21: binEdges with log: geomspace from the smallest positive value to 1.05 × max; zeros in no bin', () => {
    const e = binEdges('edgeLength', { count: 3, log: true }, [0, 0.01, 2, 10]);
    expect(e.length).toBe(4);
    expect(e[0]).toBe(0.01);
    expect(e[3]).toBe(10.5);
    for (let i = 1; i < 3; i++) expect(Math.log10(e[i + 1] / e[i])).toBeCloseTo(Math.log10(e[1] / e[0]), 12);
    const h = histogram([0, 0.01, 2, 10], e, false);
    expect(Array.from(h.counts).reduce((a, b) => a + b, 0)).toBe(3);
    expect(Array.from(binEdges('branchLength', { count: 2, log: true, min: 1, max: 100 }, [5]))).toEqual([1, 10, 100]);
    expect(() => binEdges('edgeLength', { log: true, min: 0 }, [1])).toThrow(/log bins need finite 0 < min < max/);
    // No positive value: three decades below the default max, never an error.
    const z = binEdges('edgeLength', { count: 3, log: true }, [0, 0]);
    expect([z[0], z[3]]).toEqual([0.001, 1]);
  });

  it('mstHistograms uses √(1 − s) for shapes; binsOf gives bins another catalogue can reuse', () => {
    const h = mstHistograms({
      degree: Uint32Array.from([1, 2, 2, 1]),
      edgeLengths: Float64Array.from([1, 2, 3]),
      branchLengths: Float64Array.from([6]),
      branchShapes: Float64Array.from([0.75]),
    });
    // √(1 − 0.75) = 0.5 is the lower edge of bin 25 of 50 on [0, 1].
    expect(h.branchShape.counts[25]).toBe(1);
    const again = mstHistograms(
      {
        degree: Uint32Array.from([3]),
        edgeLengths: Float64Array.from([100]),
        branchLengths: Float64Array.from([]),
        branchShapes: Float64Array.from([]),
      },
      binsOf(h),
    );
    expect(Array.from(again.edgeLength.edges)).toEqual(Array.from(h.edgeLength.edges));
    expect(again.edgeLength.counts.reduce((s, c) => s + c, 0)).toBe(0); // 100 is beyond 1.05 · 3
  });

  it('mstStats passes bins and normalise through', async () => {
    const pts = Float64Array.from([0, 0, 1, 0, 3, 0, 6, 0]);
    const r = await mstStats(pts, { dim: 2, backend: 'cpu', normalise: false, bins: { edgeLength: [0, 1.5, 4] } });
    expect(Array.from(r.histograms.edgeLength.y)).toEqual([1, 2]);
    expect(r.histograms.degree.normalised).toBe(false);
    expect(Array.from(r.histograms.degree.y)).toEqual([2, 2, 0, 0, 0, 0]);
  });
});

describe("histogram(values, linspace edges): the fast bin guess keeps numpy.histogram's rule", () => {
  it('random values, values exactly on edges, the closed last bin, NaN and out-of-range values', () => {
    const edges = linspace(0.1, 7.3, 101);
    const values: number[] = [];
    let x = 7;
    for (let i = 0; i < 20000; i++) {
      x = (x * 16807) % 2147483647;
      values.push(-0.5 + 8.5 * (x / 2147483647));
    }
    for (const e of edges) values.push(e, Math.fround(e), e - 1e-12, e + 1e-12);
    values.push(NaN, 7.3, 0.1, Infinity, -Infinity);
    const want = new Float64Array(100);
    for (const v of values) {
      if (!(v >= edges[0] && v <= edges[100])) continue;
      let i = 0;
      while (i < 99 && !(v < edges[i + 1])) i++;
      want[i]++;
    }
    expect(Array.from(histogram(Float64Array.from(values), edges, false).counts)).toEqual(Array.from(want));
    expect(
      Array.from(histogram(Uint32Array.from([0, 1, 1, 2, 7, 100, 3]), linspace(0.5, 6.5, 7), false).counts),
    ).toEqual([2, 1, 1, 0, 0, 0]);
  });
});
