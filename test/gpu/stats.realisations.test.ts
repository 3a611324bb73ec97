/**
 * Issue 20 §3 on the GPU: realisationStats with the GPU backend equals a direct loop of jitter/subsample(seed + r)
 * and mstStats on the same device (the same histograms to the bit), and the CPU backend's up to values moved across
 * a bin edge (the GPU measures lengths in float32); without a context given, the batch's own context (batchBackend)
 * gives the same; `treeline hdbscan a b -o dir/ --backend gpu` (one context for both files) writes the bytes of
 * the single-file runs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blobs } from '../../src/datasets/generate.js';
import { binsOf } from '../../src/stats/histogram.js';
import { mstStats } from '../../src/stats/mstStats.js';
import { realisationStats } from '../../src/stats/realisations.js';
import { jitter, subsample } from '../../src/stats/resample.js';
import { STAT_NAMES, type MstHistograms } from '../../src/stats/types.js';
import { runCli, tempDir, writePointsCsv } from '../helpers/cli.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

const dim = 3;
const n = 400;
const points = blobs({ n, dim, seed: 21, clusters: 3 });

function expectSame(a: MstHistograms, b: MstHistograms): void {
  for (const name of STAT_NAMES) {
    expect(Array.from(a[name].edges)).toEqual(Array.from(b[name].edges));
    expect(Array.from(a[name].counts), name).toEqual(Array.from(b[name].counts));
  }
}

describe.skipIf(variants.length === 0)('realisationStats on the GPU', () => {
  for (const { name, ctx } of variants) {
    describe(name, () => {
      it('jitter: each realisation equals mstStats of jitter(seed + r) on the same device; the CPU’s within a bin edge', async () => {
        const o = { dim, backend: 'gpu' as const, gpu: ctx, jitter: 0.2, realisations: 3, seed: 5 };
        const r = await realisationStats(points, o);
        const bins = binsOf(r.catalogue);
        for (let i = 0; i < 3; i++) {
          const p = jitter(points, { dim, sigma: 0.2, seed: 5 + i });
          const direct = await mstStats(p, { dim, backend: 'gpu', gpu: ctx, bins, arrays: false });
          expectSame(r.histograms[i], direct.histograms);
          const cpu = await mstStats(p, { dim, backend: 'cpu', bins });
          for (const s of STAT_NAMES) {
            let moved = 0;
            const a = r.histograms[i][s].counts;
            const b = cpu.histograms[s].counts;
            for (let j = 0; j < b.length; j++) moved += Math.abs(a[j] - b[j]);
            expect(moved, `${s} counts against the CPU`).toBeLessThanOrEqual(4);
          }
          expect(r.histograms[i].degree.counts.reduce((x, y) => x + y, 0)).toBe(n);
        }
      });

      it('subsample: the same against subsample(seed + r)', async () => {
        const r = await realisationStats(points, {
          dim,
          backend: 'gpu',
          gpu: ctx,
          subsample: 0.5,
          realisations: 2,
        });
        const bins = binsOf(r.catalogue);
        for (let i = 0; i < 2; i++) {
          const p = subsample(points, { dim, fraction: 0.5, seed: i }).points;
          expectSame(r.histograms[i], (await mstStats(p, { dim, backend: 'gpu', gpu: ctx, bins })).histograms);
        }
      });
    });
  }

  it('without a context given, the batch’s own context gives the same histograms', async () => {
    const o = { dim, backend: 'gpu' as const, jitter: 0.1, realisations: 2, seed: 1 };
    const own = await realisationStats(points, o);
    const given = await realisationStats(points, { ...o, gpu: variants[0].ctx });
    for (let i = 0; i < 2; i++) expectSame(own.histograms[i], given.histograms[i]);
  });

  it('treeline stats --compare --backend gpu (one context for the files): each file’s histograms on the catalogue’s bins', async () => {
    const dir = tempDir('compare-gpu-');
    const cat = writePointsCsv(join(dir, 'cat.csv'), points, dim);
    const mocks = [31, 32].map((seed) => blobs({ n: 250, dim, seed, clusters: 3 }));
    const files = mocks.map((m, i) => writePointsCsv(join(dir, `mock${i}.csv`), m, dim));
    const r = await runCli(['stats', cat, '--compare', ...files, '--backend', 'gpu']);
    expect(r.error).toBeUndefined();
    const j = JSON.parse(r.out);
    const ctx = variants[0].ctx;
    const catalogue = await mstStats(points, { dim, backend: 'gpu', gpu: ctx });
    const rows: MstHistograms[] = [];
    for (const m of mocks) {
      rows.push((await mstStats(m, { dim, backend: 'gpu', gpu: ctx, bins: binsOf(catalogue.histograms) })).histograms);
    }
    for (const name of STAT_NAMES) {
      const mean = rows[0][name].y.map((v, i) => (v + rows[1][name].y[i]) / 2);
      expect(j.comparison[name].mean).toEqual(Array.from(mean));
    }
  });

  it('treeline hdbscan a b -o dir/ --backend gpu writes the single-file runs’ bytes', async () => {
    const dir = tempDir('batch-gpu-');
    const a = writePointsCsv(join(dir, 'a.csv'), blobs({ n: 200, dim: 2, seed: 1, clusters: 3 }), 2);
    const b = writePointsCsv(join(dir, 'b.csv'), blobs({ n: 150, dim: 3, seed: 2, clusters: 2 }), 3);
    const opts = ['--min-cluster-size', '10', '--backend', 'gpu', '--format', 'json'];
    const batch = await runCli(['hdbscan', a, b, ...opts, '-o', join(dir, 'out')]);
    expect(batch.error).toBeUndefined();
    for (const [input, base] of [
      [a, 'a'],
      [b, 'b'],
    ]) {
      const single = join(dir, `${base}-single.json`);
      expect((await runCli(['hdbscan', input, ...opts, '-o', single])).error).toBeUndefined();
      expect(readFileSync(join(dir, 'out', `${base}.json`), 'utf8')).toBe(readFileSync(single, 'utf8'));
      expect(JSON.parse(readFileSync(single, 'utf8')).backend).toBe('gpu');
    }
  });
});
