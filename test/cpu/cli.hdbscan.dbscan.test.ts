/**
 * `treeline hdbscan … --cut-distance d` as a child process: DBSCAN* labels beside the HDBSCAN* ones in csv, json and
 * npy, equal to hdbscan 0.8.43's dbscan_clustering on a golden case and to dbscanClustering on the fit; bad values
 * exit with the input code.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/program.js';
import { dbscanClustering } from '../../src/cluster/dbscan.js';
import { blobs } from '../../src/datasets/generate.js';
import { hdbscan } from '../../src/hdbscan.js';
import { parseNpy } from '../../src/io/npy.js';
import { parseCsvColumns, tempDir, writePointsCsv } from '../helpers/cli.js';
import { runCliProcess } from '../helpers/cli.process.js';
import { GOLDEN_DIR, parseGoldenJson, readGoldenText, readPointsCsv } from '../helpers/golden.js';

const dir = tempDir();
const cpu = ['--backend', 'cpu'];

describe('treeline hdbscan --cut-distance', () => {
  it('csv: a dbscan_label column equal to hdbscan 0.8.43 dbscan_clustering (golden noisy2d-900, every cut)', async () => {
    const golden = parseGoldenJson<{
      dbscan: { min_cluster_size: number; cuts: { cut_distance: number; labels: number[] }[] };
    }>(readGoldenText(join(GOLDEN_DIR, 'hdbscan-extra', 'noisy2d-900', 'mcs40-ms8.json')));
    const { points, dim } = readPointsCsv(join(GOLDEN_DIR, 'hdbscan-extra', 'noisy2d-900', 'points.csv'));
    const file = writePointsCsv(join(dir, 'noisy.csv'), points, dim);
    for (const cut of golden.dbscan.cuts) {
      const args = ['hdbscan', file, '--min-cluster-size', '40', '--min-samples', '8'];
      const r = await runCliProcess([...args, '--cut-distance', String(cut.cut_distance), ...cpu]);
      expect(r.code, r.stderr).toBe(0);
      const cols = parseCsvColumns(r.stdout);
      expect(Object.keys(cols)).toEqual(['label', 'probability', 'outlier_score', 'dbscan_label']);
      expect(cols.dbscan_label).toEqual(cut.labels);
      const k = new Set(cut.labels.filter((l) => l >= 0)).size;
      expect(r.stderr).toContain(`DBSCAN* at cut distance ${cut.cut_distance} (min cluster size 40): ${k} cluster`);
    }
  });

  it('json and npy: the labels beside the HDBSCAN* result, equal to dbscanClustering on the fit', async () => {
    const points = blobs({ n: 300, dim: 2, seed: 3, clusters: 3, noise: 0.1 });
    const file = writePointsCsv(join(dir, 'blobs.csv'), points, 2);
    const fit = await hdbscan(points, {
      keep: { mst: true, singleLinkage: true },
      dim: 2,
      minClusterSize: 10,
      minSamples: 10,
      backend: 'cpu',
    });
    const expected = Array.from(dbscanClustering(fit.singleLinkage!, 300, { cutDistance: 0.3, minClusterSize: 10 }));
    const args = ['hdbscan', file, '--min-cluster-size', '10', '--cut-distance', '0.3', ...cpu];
    const j = JSON.parse((await runCliProcess([...args, '--format', 'json'])).stdout);
    expect(j.dbscan.labels).toEqual(expected);
    expect(j.dbscan).toMatchObject({
      cutDistance: 0.3,
      minClusterSize: 10,
      numClusters: Math.max(...expected) + 1,
      numNoise: expected.filter((l) => l < 0).length,
    });
    expect(j.labels).toEqual(Array.from(fit.labels)); // the HDBSCAN* labels stay
    const out = join(dir, 'npy');
    expect((await runCliProcess([...args, '--format', 'npy', '-o', out])).code).toBe(0);
    const npy = parseNpy(readFileSync(join(out, 'dbscan_labels.npy')));
    expect(npy.dtype).toBe('<i4');
    expect(Array.from(new Int32Array(Uint8Array.from(npy.data).buffer))).toEqual(expected);
    // With a list of sizes, DBSCAN* uses the first.
    const many = JSON.parse(
      (
        await runCliProcess([
          'hdbscan',
          file,
          '--min-cluster-size',
          '10,20',
          '--cut-distance',
          '0.3',
          '--format',
          'json',
          ...cpu,
        ])
      ).stdout,
    );
    expect(many.dbscan.labels).toEqual(expected);
    expect(many.results).toHaveLength(2);
  });

  it('a negative, infinite or non-numeric cut exits with the input code, naming the option', async () => {
    const file = writePointsCsv(join(dir, 'small.csv'), blobs({ n: 50, dim: 2, seed: 1 }), 2);
    for (const bad of ['-1', 'Infinity', 'abc']) {
      const r = await runCliProcess(['hdbscan', file, '--cut-distance', bad, ...cpu]);
      expect(r.code, bad).toBe(EXIT.input);
      expect(r.stderr).toMatch(/--cut-distance/);
    }
  });
});
