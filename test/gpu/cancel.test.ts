/**
 * Issue 15 §3 / §4.3: cancellation on the GPU backend. `emst`, `hdbscan` and `mstStats` with a `signal` stop within
 * one Borůvka round of an abort (one round per submission, read-back waits racing the signal: src/emst/boruvka.ts),
 * reject with AbortError, report no progress after it, free their GPU buffers, and leave a caller's context usable.
 * Before, the first submission held ~0.7·log2(n) rounds — the whole tree — so an abort was noticed only after the MST.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { emst } from '../../src/emst/emst.js';
import { hdbscan } from '../../src/hdbscan.js';
import { mstStats } from '../../src/stats/mstStats.js';
import { AbortError } from '../../src/errors.js';
import { blobs, uniform } from '../../src/datasets/generate.js';
import { tryGpuContext } from '../helpers/gpu.js';

const ctx = await tryGpuContext();
afterAll(() => ctx?.destroy());

/** A progress callback that aborts at the first report from the Borůvka rounds and records every report. */
function abortAtFirstRound() {
  const controller = new AbortController();
  const reports: { fraction: number; phase?: string }[] = [];
  let abortedAfter = -1;
  const onProgress = (fraction: number, phase?: string) => {
    reports.push({ fraction, phase });
    // A round's report: its phase names the round (src/progress.ts), or, from a caller without phases, any after 0.
    const fromRounds = phase !== undefined ? /round \d/.test(phase) : fraction > 0;
    if (fromRounds && !controller.signal.aborted) {
      controller.abort();
      abortedAfter = reports.length;
    }
  };
  return { signal: controller.signal, onProgress, reports, abortedAfter: () => abortedAfter };
}

describe.skipIf(ctx === null)('cancellation on the GPU backend', () => {
  it('issue 15: emst(points, { backend: gpu, signal }) aborted at the first round rejects with AbortError after round 1', async () => {
    const points = uniform({ n: 20_000, dim: 2, seed: 11 });
    const live = ctx!.memory.liveBytes;
    const a = abortAtFirstRound();
    const run = emst(points, { dim: 2, backend: 'gpu', gpu: ctx!, signal: a.signal, onProgress: a.onProgress });
    await expect(run).rejects.toBeInstanceOf(AbortError);
    await expect(run).rejects.toThrow(/after Borůvka round 1 \(/);
    expect(a.abortedAfter()).toBeGreaterThan(0);
    expect(a.reports.length).toBe(a.abortedAfter()); // nothing reported after the abort
    expect(a.reports[a.reports.length - 1].fraction).toBeLessThan(1);
    // Every buffer of the run is freed, and the context still computes the whole tree.
    expect(ctx!.memory.liveBytes).toBe(live);
    const again = await emst(points, { dim: 2, backend: 'gpu', gpu: ctx! });
    expect(again.sources.length).toBe(points.length / 2 - 1);
  });

  it('issue 15: hdbscan(points, { backend: gpu, signal }) stops within one Borůvka round, not after the whole MST', async () => {
    const points = blobs({ n: 20_000, dim: 2, seed: 12 });
    const live = ctx!.memory.liveBytes;
    const a = abortAtFirstRound();
    const run = hdbscan(points, {
      dim: 2,
      minClusterSize: 10,
      backend: 'gpu',
      gpu: ctx!,
      signal: a.signal,
      onProgress: a.onProgress,
    });
    await expect(run).rejects.toBeInstanceOf(AbortError);
    await expect(run).rejects.toThrow(/after Borůvka round 1 \(/);
    expect(a.reports.length).toBe(a.abortedAfter());
    // The MST is the first 90 % of hdbscan's progress: the abort came before it was complete.
    expect(a.reports[a.reports.length - 1].fraction).toBeLessThan(0.9);
    expect(ctx!.memory.liveBytes).toBe(live);
  });

  it('issue 15: mstStats(points, { backend: gpu, signal }) stops within one Borůvka round', async () => {
    const points = uniform({ n: 20_000, dim: 3, seed: 13 });
    const live = ctx!.memory.liveBytes;
    const a = abortAtFirstRound();
    const run = mstStats(points, { dim: 3, backend: 'gpu', gpu: ctx!, signal: a.signal, onProgress: a.onProgress });
    await expect(run).rejects.toBeInstanceOf(AbortError);
    await expect(run).rejects.toThrow(/after Borůvka round 1 \(/);
    expect(a.reports.length).toBe(a.abortedAfter());
    expect(a.reports[a.reports.length - 1].fraction).toBeLessThan(0.9);
    expect(ctx!.memory.liveBytes).toBe(live);
  });

  it('issue 15: emst with a signal that never aborts gives the same tree as without one', async () => {
    const points = uniform({ n: 5_000, dim: 3, seed: 14 });
    const plain = await emst(points, { dim: 3, backend: 'gpu', gpu: ctx! });
    const withSignal = await emst(points, { dim: 3, backend: 'gpu', gpu: ctx!, signal: new AbortController().signal });
    expect(Array.from(withSignal.sources)).toEqual(Array.from(plain.sources));
    expect(Array.from(withSignal.targets)).toEqual(Array.from(plain.targets));
    expect(Array.from(withSignal.weights)).toEqual(Array.from(plain.weights));
  });
});
