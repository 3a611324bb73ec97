/**
 * realisationStats (issue 20 §3): the per-bin mean and standard deviation of the MST statistics over seeded jittered
 * or subsampled realisations, held to a direct loop over the realisations with mstStats; realisation r uses seed + r
 * whatever k is; deterministic; periodic boxes wrap; the runOne seam (a remote runner rebuilding the points from the
 * task, out-of-order completion); degenerate catalogues; validation errors naming the option and the value.
 */
import { describe, expect, it } from 'vitest';
import { blobs, uniform } from '../../src/datasets/generate.js';
import { AbortError, InputError } from '../../src/errors.js';
import { binsOf } from '../../src/stats/histogram.js';
import { mstStats } from '../../src/stats/mstStats.js';
import {
  realisationPoints,
  realisationStats,
  type RealisationStats,
  type RealisationTask,
} from '../../src/stats/realisations.js';
import { jitter, subsample } from '../../src/stats/resample.js';
import { STAT_NAMES, type MstHistograms } from '../../src/stats/types.js';

const dim = 3;
const n = 400;
const points = blobs({ n, dim, seed: 11, clusters: 4 });
const cpu = { dim, backend: 'cpu' as const };

/** Mean and unbiased std per bin of each statistic's y over `rows`, summed in realisation order. */
function directMoments(rows: MstHistograms[]) {
  const out: Record<string, { mean: number[]; std: number[] }> = {};
  for (const name of STAT_NAMES) {
    const bins = rows[0][name].y.length;
    const mean = new Array<number>(bins).fill(0);
    const std = new Array<number>(bins).fill(0);
    for (let i = 0; i < bins; i++) {
      for (const h of rows) mean[i] += h[name].y[i];
      mean[i] /= rows.length;
      for (const h of rows) std[i] += (h[name].y[i] - mean[i]) ** 2;
      std[i] = rows.length > 1 ? Math.sqrt(std[i] / (rows.length - 1)) : NaN;
    }
    out[name] = { mean, std };
  }
  return out;
}

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    if (Number.isNaN(expected[i])) expect(actual[i]).toBeNaN();
    else expect(Math.abs(actual[i] - expected[i])).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(expected[i])));
  }
}

function expectSameHistograms(a: MstHistograms, b: MstHistograms): void {
  for (const name of STAT_NAMES) {
    expect(Array.from(a[name].edges)).toEqual(Array.from(b[name].edges));
    expect(Array.from(a[name].counts)).toEqual(Array.from(b[name].counts));
    expect(Array.from(a[name].y)).toEqual(Array.from(b[name].y));
  }
}

function expectSameMoments(a: RealisationStats, b: RealisationStats): void {
  for (const name of STAT_NAMES) {
    expect(Array.from(a.moments[name].mean)).toEqual(Array.from(b.moments[name].mean));
    expect(Array.from(a.moments[name].std)).toEqual(Array.from(b.moments[name].std));
  }
}

describe('realisationStats', () => {
  it('jitter: mean and std per bin equal a direct loop of jitter(seed + r) and mstStats on the catalogue’s bins', async () => {
    const k = 4;
    const sigma = 0.05;
    const seed = 7;
    const r = await realisationStats(points, { ...cpu, jitter: sigma, realisations: k, seed });
    const catalogue = (await mstStats(points, cpu)).histograms;
    expectSameHistograms(r.catalogue, catalogue);
    const rows: MstHistograms[] = [];
    for (let i = 0; i < k; i++) {
      const p = jitter(points, { dim, sigma, seed: seed + i });
      rows.push((await mstStats(p, { ...cpu, bins: binsOf(catalogue) })).histograms);
    }
    rows.forEach((h, i) => expectSameHistograms(r.histograms[i], h));
    const direct = directMoments(rows);
    for (const name of STAT_NAMES) {
      expectClose(r.moments[name].mean, direct[name].mean);
      expectClose(r.moments[name].std, direct[name].std);
      expect(Array.from(r.moments[name].catalogue)).toEqual(Array.from(catalogue[name].y));
      expect(Array.from(r.moments[name].edges)).toEqual(Array.from(catalogue[name].edges));
    }
    // The jitter moved the points: the edge-length histograms vary across realisations.
    expect(r.moments.edgeLength.std.some((s) => s > 0)).toBe(true);
    expect(r).toMatchObject({ method: 'jitter', sigma, realisations: k, seed });
  });

  it('subsample: the same against subsample(seed + r), counts with normalise: false', async () => {
    const k = 3;
    const fraction = 0.6;
    const r = await realisationStats(points, { ...cpu, subsample: fraction, realisations: k, normalise: false });
    const catalogue = (await mstStats(points, { ...cpu, normalise: false })).histograms;
    const rows: MstHistograms[] = [];
    for (let i = 0; i < k; i++) {
      const p = subsample(points, { dim, fraction, seed: i }).points;
      expect(p.length).toBe(Math.round(fraction * n) * dim);
      rows.push((await mstStats(p, { ...cpu, normalise: false, bins: binsOf(catalogue) })).histograms);
    }
    const direct = directMoments(rows);
    for (const name of STAT_NAMES) {
      expectClose(r.moments[name].mean, direct[name].mean);
      expectClose(r.moments[name].std, direct[name].std);
    }
    // Raw counts: the degree histogram of each realisation counts its round(0.6 n) nodes.
    expect(r.histograms[0].degree.counts.reduce((s, c) => s + c, 0)).toBe(Math.round(fraction * n));
    expect(r).toMatchObject({ method: 'subsample', fraction, realisations: k, seed: 0 });
  });

  it('realisation r is the same whatever k is, and seed s, r = 1 is seed s + 1, r = 0', async () => {
    const two = await realisationStats(points, { ...cpu, jitter: 0.1, realisations: 2, seed: 3 });
    const four = await realisationStats(points, { ...cpu, jitter: 0.1, realisations: 4, seed: 3 });
    expectSameHistograms(two.histograms[0], four.histograms[0]);
    expectSameHistograms(two.histograms[1], four.histograms[1]);
    const shifted = await realisationStats(points, {
      ...cpu,
      jitter: 0.1,
      realisations: 1,
      seed: 4,
      catalogue: two.catalogue,
    });
    expectSameHistograms(shifted.histograms[0], two.histograms[1]);
  });

  it('is deterministic: two runs give the same moments bit for bit; another seed does not', async () => {
    const o = { ...cpu, subsample: 0.5, realisations: 3, seed: 9 };
    const a = await realisationStats(points, o);
    const b = await realisationStats(points, o);
    expectSameMoments(a, b);
    const c = await realisationStats(points, { ...o, seed: 10 });
    expect(Array.from(c.moments.edgeLength.mean)).not.toEqual(Array.from(a.moments.edgeLength.mean));
  });

  it('periodic box: jittered points are wrapped into [0, L) and measured with minimum images', async () => {
    const L = 1;
    const box = uniform({ n: 300, dim: 2, seed: 2 });
    const seen: Float32Array[] = [];
    const r0 = await mstStats(box, { dim: 2, backend: 'cpu', box: [L, L] });
    const o = { dim: 2, backend: 'cpu' as const, box: [L, L], jitter: 0.2, realisations: 2, seed: 1 };
    const r = await realisationStats(box, o, async (i, p, task) => {
      seen[i] = p;
      expect(task).toEqual({ r: i, seed: 1 + i, method: 'jitter', sigma: 0.2, dim: 2, box: [L, L] });
      return (await mstStats(p, { dim: 2, backend: 'cpu', box: [L, L], bins: binsOf(r0.histograms) })).histograms;
    });
    expect(seen.length).toBe(2);
    for (const p of seen) for (const v of p) expect(v >= 0 && v < L).toBe(true);
    // Without wrapping, σ = 0.2 takes some of the points out of the box.
    const open = jitter(box, { dim: 2, sigma: 0.2, seed: 1 });
    expect(open.some((v) => v < 0 || v >= L)).toBe(true);
    expect(Array.from(seen[0])).toEqual(Array.from(jitter(box, { dim: 2, sigma: 0.2, seed: 1, box: [L, L] })));
    // The default runner measures the same wrapped points.
    const local = await realisationStats(box, o);
    expectSameMoments(local, r);
  });

  it('runOne seam: a runner that rebuilds the points from the task and finishes out of order gives the same moments', async () => {
    const o = { ...cpu, jitter: [0.02, 0.05, 0.1], realisations: 5, seed: 20 };
    const local = await realisationStats(points, o);
    const bins = binsOf(local.catalogue);
    const order: number[] = [];
    const remote = await realisationStats(
      points,
      { ...o, catalogue: local.catalogue, concurrency: 3 },
      async (r, _points, task: RealisationTask) => {
        // Later realisations finish first.
        await new Promise((resolve) => setTimeout(resolve, 5 * (5 - r)));
        const rebuilt = realisationPoints(points, task);
        const h = (await mstStats(rebuilt, { ...cpu, bins })).histograms;
        order.push(r);
        return h;
      },
    );
    expect(order).not.toEqual([0, 1, 2, 3, 4]);
    expectSameMoments(remote, local);
    expect(remote.timings['stats::catalogue']).toBeUndefined();
  });

  it('one realisation: the mean is its histogram and the std NaN', async () => {
    const r = await realisationStats(points, { ...cpu, jitter: 0.01, realisations: 1 });
    expect(Array.from(r.moments.degree.mean)).toEqual(Array.from(r.histograms[0].degree.y));
    expect(r.moments.degree.std.every(Number.isNaN)).toBe(true);
  });

  it('degenerate catalogues (0, 1, 2 points, duplicates) give valid results', async () => {
    for (const pts of [
      new Float32Array(0),
      new Float32Array([1, 2, 3]),
      new Float32Array([0, 0, 0, 1, 1, 1]),
      new Float32Array(30).fill(0.5),
    ]) {
      for (const method of [{ jitter: 0.1 }, { subsample: 0.5 }, { jitter: 0 }]) {
        const r = await realisationStats(pts, { ...cpu, ...method, realisations: 2 });
        expect(r.histograms.length).toBe(2);
        for (const name of STAT_NAMES) expect(r.moments[name].mean.length).toBe(r.catalogue[name].x.length);
      }
    }
    // σ = 0 leaves the points where they are: every realisation is the catalogue.
    const still = await realisationStats(points, { ...cpu, jitter: 0, realisations: 2 });
    expect(Array.from(still.moments.edgeLength.mean)).toEqual(Array.from(still.catalogue.edgeLength.y));
    expect(still.moments.edgeLength.std.every((s) => s === 0)).toBe(true);
  });

  it('a runner measuring on other bins, or failing, is an error', async () => {
    const o = { ...cpu, jitter: 0.05, realisations: 2 };
    await expect(
      realisationStats(points, o, async (_r, p) => (await mstStats(p, { ...cpu, bins: {} })).histograms),
    ).rejects.toThrow(/bin edges|bins/);
    await expect(
      realisationStats(points, o, async () => {
        throw new InputError('worker 2 failed');
      }),
    ).rejects.toThrow('worker 2 failed');
  });

  it('an aborted signal stops before the next realisation with AbortError', async () => {
    const controller = new AbortController();
    const ran: number[] = [];
    const call = realisationStats(
      points,
      { ...cpu, jitter: 0.05, realisations: 5, signal: controller.signal },
      async (r, p) => {
        ran.push(r);
        if (r === 1) controller.abort();
        return (await mstStats(p, { ...cpu, bins: binsOf((await mstStats(points, cpu)).histograms) })).histograms;
      },
    );
    await expect(call).rejects.toBeInstanceOf(AbortError);
    await expect(call).rejects.toThrow('aborted with 2 of 5 done.');
    expect(ran).toEqual([0, 1]);
  });

  it('validation: messages name the option and the value', async () => {
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ realisations: 2 }, /exactly one of options\.jitter.*jitter=undefined, subsample=undefined/],
      [{ jitter: 0.1, subsample: 0.5, realisations: 2 }, /exactly one of options\.jitter/],
      [{ jitter: -1, realisations: 2 }, /options\.jitter \(σ\) to be finite and ≥ 0, got -1/],
      [{ jitter: NaN, realisations: 2 }, /options\.jitter \(σ\) to be finite and ≥ 0, got NaN/],
      [{ jitter: Infinity, realisations: 2 }, /got Infinity/],
      [{ jitter: [0.1, -2, 0.1], realisations: 2 }, /options\.jitter\[1\] \(σ\) to be finite and ≥ 0, got -2/],
      [{ subsample: 0, realisations: 2 }, /options\.subsample \(the fraction kept\) in \(0, 1\], got 0/],
      [{ subsample: 1.5, realisations: 2 }, /in \(0, 1\], got 1\.5/],
      [{ jitter: 0.1, realisations: 0 }, /options\.realisations to be an integer ≥ 1, got 0/],
      [{ jitter: 0.1, realisations: 2.5 }, /options\.realisations to be an integer ≥ 1, got 2\.5/],
      [{ jitter: 0.1, realisations: 2, seed: 1.5 }, /options\.seed to be an integer, got 1\.5/],
      [{ jitter: 0.1, realisations: 2, concurrency: 0 }, /options\.concurrency to be an integer ≥ 1, got 0/],
      [{ jitter: 0.1, realisations: 2, coords: 'radec' }, /coords 'radec'.*not supported/],
    ];
    for (const [o, message] of bad) {
      const call = realisationStats(points, { ...cpu, ...o } as never);
      await expect(call).rejects.toBeInstanceOf(InputError);
      await expect(realisationStats(points, { ...cpu, ...o } as never)).rejects.toThrow(message);
    }
    // A σ per axis of the wrong length is resample.ts's error.
    await expect(realisationStats(points, { ...cpu, jitter: [0.1, 0.1], realisations: 1 })).rejects.toThrow(
      /options\.sigma to have dim=3 entries, got 2/,
    );
  });
});
