/**
 * `treeline hdbscan … --centers centroid|medoid|both [--centers-output file.csv]` as a child process: json rows and
 * npy k × dim arrays equal to scikit-learn's store_centers on a golden case, the CSV of centres (also per
 * --min-cluster-size value), and the csv-output rule (csv needs --centers-output) with the input exit code.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/program.js';
import { clusterCenters } from '../../src/cluster/centers.js';
import { clusterFromSingleLinkage } from '../../src/cluster/clusterFromMst.js';
import { blobs } from '../../src/datasets/generate.js';
import { hdbscan } from '../../src/hdbscan.js';
import { parseNpy } from '../../src/io/npy.js';
import { parseCsvColumns, tempDir, writePointsCsv } from '../helpers/cli.js';
import { runCliProcess } from '../helpers/cli.process.js';
import { GOLDEN_DIR, parseGoldenJson, readGoldenText, readPointsCsv, worstAbs } from '../helpers/golden.js';

const dir = tempDir();
const cpu = ['--backend', 'cpu'];
const f64 = (bytes: Uint8Array): number[] => Array.from(new Float64Array(Uint8Array.from(bytes).buffer));

describe('treeline hdbscan --centers', () => {
  it('json rows and npy k × dim equal scikit-learn store_centers (golden blobs3d-900)', async () => {
    const folder = join(GOLDEN_DIR, 'hdbscan-extra', 'blobs3d-900');
    const golden = parseGoldenJson<{ centroids: number[][]; medoids: number[][] }>(
      readGoldenText(join(folder, 'mcs20-ms5.json')),
    );
    const { points, dim } = readPointsCsv(join(folder, 'points.csv'));
    const file = writePointsCsv(join(dir, 'blobs3d.csv'), points, dim);
    const args = ['hdbscan', file, '--min-cluster-size', '20', '--min-samples', '5', '--centers', 'both', ...cpu];
    const r = await runCliProcess([...args, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.centroids).toHaveLength(golden.centroids.length);
    expect(worstAbs(j.centroids.flat(), golden.centroids.flat())).toBeLessThanOrEqual(1e-6);
    expect(j.medoids).toEqual(golden.medoids);
    const out = join(dir, 'npy3d');
    expect((await runCliProcess([...args, '--format', 'npy', '-o', out])).code).toBe(0);
    for (const [name, rows] of [
      ['centroids', golden.centroids],
      ['medoids', golden.medoids],
    ] as const) {
      const a = parseNpy(readFileSync(join(out, `${name}.npy`)));
      expect(a.dtype).toBe('<f8');
      expect(a.shape).toEqual([rows.length, dim]);
      expect(worstAbs(f64(a.data), rows.flat())).toBeLessThanOrEqual(name === 'medoids' ? 0 : 1e-6);
    }
  });

  it('--centers-output: one CSV row per cluster (and per size of a list), beside csv labels', async () => {
    const points = blobs({ n: 300, dim: 2, seed: 9, clusters: 3, noise: 0.05 });
    const file = writePointsCsv(join(dir, 'blobs.csv'), points, 2);
    const centres = join(dir, 'centres.csv');
    const r = await runCliProcess([
      'hdbscan',
      file,
      '--min-cluster-size',
      '10',
      '--centers',
      'medoid',
      '--centers-output',
      centres,
      ...cpu,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(Object.keys(parseCsvColumns(r.stdout))).toEqual(['label', 'probability', 'outlier_score']);
    expect(r.stderr).toContain(`centres written to ${centres}`);
    const fit = await hdbscan(points, {
      keep: { mst: true, singleLinkage: true },
      dim: 2,
      minClusterSize: 10,
      backend: 'cpu',
      centers: 'medoid',
    });
    const k = fit.selectedClusters.length;
    const cols = parseCsvColumns(readFileSync(centres, 'utf8'));
    expect(Object.keys(cols)).toEqual(['label', 'medoid_0', 'medoid_1']);
    expect(cols.label).toEqual(Array.from({ length: k }, (_, i) => i));
    expect(cols.medoid_0.flatMap((x, c) => [x, cols.medoid_1[c]])).toEqual(Array.from(fit.medoids!));

    // A list of sizes: rows per value with a min_cluster_size column, the re-clusterings' centres included.
    const many = join(dir, 'centres-many.csv');
    const m = await runCliProcess([
      'hdbscan',
      file,
      '--min-cluster-size',
      '10,30',
      '--centers',
      'both',
      '--centers-output',
      many,
      '--format',
      'json',
      ...cpu,
    ]);
    expect(m.code, m.stderr).toBe(0);
    const all = parseCsvColumns(readFileSync(many, 'utf8'));
    expect(Object.keys(all)).toEqual(['min_cluster_size', 'label', 'centroid_0', 'centroid_1', 'medoid_0', 'medoid_1']);
    const second = clusterFromSingleLinkage(fit.singleLinkage!, 300, { minClusterSize: 30 }, fit.mst!);
    const expected = clusterCenters(points, { ...second, dim: 2, centers: 'both' });
    const rows = all.min_cluster_size.flatMap((s, i) => (s === 30 ? [i] : []));
    expect(rows.map((i) => [all.medoid_0[i], all.medoid_1[i]]).flat()).toEqual(Array.from(expected.medoids!));
    expect(worstAbs(rows.map((i) => [all.centroid_0[i], all.centroid_1[i]]).flat(), expected.centroids!)).toBeLessThan(
      1e-12,
    );
    expect(JSON.parse(m.stdout).results[1].medoids.flat()).toEqual(Array.from(expected.medoids!));
  });

  it('csv output without --centers-output, --centers-output alone, or a bad kind exit with the input code', async () => {
    const file = writePointsCsv(join(dir, 'small.csv'), blobs({ n: 60, dim: 2, seed: 2 }), 2);
    const labels = join(dir, 'labels.csv');
    const a = await runCliProcess(['hdbscan', file, '--centers', 'both', '-o', labels, ...cpu]);
    expect(a.code).toBe(EXIT.input);
    expect(a.stderr).toMatch(/--centers both with csv output \(one row per point\) needs --centers-output/);
    expect(existsSync(labels)).toBe(false);
    const b = await runCliProcess(['hdbscan', file, '--centers-output', join(dir, 'c.csv'), ...cpu]);
    expect(b.code).toBe(EXIT.input);
    expect(b.stderr).toMatch(/--centers-output .*c\.csv needs --centers centroid\|medoid\|both/);
    const c = await runCliProcess(['hdbscan', file, '--centers', 'mean', '--format', 'json', ...cpu]);
    expect(c.code).toBe(EXIT.input);
    expect(c.stderr).toMatch(/--centers/);
  });
});
