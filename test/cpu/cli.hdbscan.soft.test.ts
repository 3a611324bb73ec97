/**
 * `treeline hdbscan … --soft` as a child process (the real CLI): the all-points membership vectors of the fit as
 * csv columns p0 … p{k−1}, json `membership` and npy `membership.npy`, equal to allPointsMembershipVectors on the
 * library's model of the same fit; --soft with several --min-cluster-size values is an input error. `treeline
 * predict --soft` gives the new points' membershipVector under the saved model.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/program.js';
import { allPointsMembershipVectors, membershipVector } from '../../src/cluster/membership.js';
import { loadModel } from '../../src/cluster/model.js';
import { blobs, uniform } from '../../src/datasets/generate.js';
import { hdbscan, hdbscanModel } from '../../src/hdbscan.js';
import { parseNpy } from '../../src/io/npy.js';
import { parseCsvColumns, tempDir, writePointsCsv } from '../helpers/cli.js';
import { runCliProcess } from '../helpers/cli.process.js';

const dir = tempDir('treeline-soft-');
const n = 300;
const points = blobs({ n, dim: 2, seed: 5, clusters: 3, noise: 0.05 });
const csv = writePointsCsv(join(dir, 'points.csv'), points, 2);
const args = ['hdbscan', csv, '--min-cluster-size', '15', '--backend', 'cpu', '--soft'];

/** The library's memberships of the same fit, n × k. */
async function expected(): Promise<{ vectors: Float64Array; k: number }> {
  const fit = await hdbscan(points, { dim: 2, minClusterSize: 15, backend: 'cpu' });
  const vectors = allPointsMembershipVectors(await hdbscanModel(points, 2, fit));
  return { vectors, k: fit.selectedClusters.length };
}

describe('treeline hdbscan --soft', () => {
  it('csv: p0 … p{k−1} after label, probability, outlier_score, equal to allPointsMembershipVectors', async () => {
    const { vectors, k } = await expected();
    expect(k).toBeGreaterThanOrEqual(2);
    const r = await runCliProcess(args);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    const cols = parseCsvColumns(r.stdout);
    const ps = Array.from({ length: k }, (_, j) => `p${j}`);
    expect(Object.keys(cols)).toEqual(['label', 'probability', 'outlier_score', ...ps]);
    ps.forEach((p, j) => expect(cols[p]).toEqual(Array.from({ length: n }, (_, i) => vectors[i * k + j])));
    // Each row is a probability of being in some cluster: entries in [0, 1], summing to at most 1.
    for (let i = 0; i < n; i++) expect(ps.reduce((s, p) => s + cols[p][i], 0)).toBeLessThanOrEqual(1 + 1e-12);
  });

  it('json: membership holds n rows of k; npy: membership.npy is n × k float64', async () => {
    const { vectors, k } = await expected();
    const jsonPath = join(dir, 'soft.json');
    expect((await runCliProcess([...args, '--format', 'json', '-o', jsonPath])).code).toBe(EXIT.ok);
    const j = JSON.parse(readFileSync(jsonPath, 'utf8')) as { membership: number[][] };
    expect(j.membership.length).toBe(n);
    expect(j.membership.flat()).toEqual(Array.from(vectors));
    expect(j.membership.every((row) => row.length === k)).toBe(true);

    const npyDir = join(dir, 'npy');
    expect((await runCliProcess([...args, '--format', 'npy', '-o', npyDir])).code).toBe(EXIT.ok);
    const m = parseNpy(readFileSync(join(npyDir, 'membership.npy')));
    expect(m.dtype).toBe('<f8');
    expect(m.shape).toEqual([n, k]);
    const data = new Float64Array(Uint8Array.from(m.data).buffer); // a copy: m.data may view a larger Buffer
    expect(data).toEqual(vectors);
  });

  it('issue 21: --soft under the default backend (auto) gives the same memberships within 1e-6', async () => {
    const { vectors, k } = await expected();
    const r = await runCliProcess(args.filter((a, i) => a !== '--backend' && args[i - 1] !== '--backend'));
    expect(r.code, r.stderr).toBe(EXIT.ok);
    const cols = parseCsvColumns(r.stdout);
    for (let j = 0; j < k; j++) {
      const col = cols[`p${j}`];
      expect(col.length).toBe(n);
      for (let i = 0; i < n; i++) expect(Math.abs(col[i] - vectors[i * k + j])).toBeLessThanOrEqual(1e-6);
    }
  });

  it('--soft with several --min-cluster-size values is an input error (exit 2) before any work', async () => {
    const r = await runCliProcess(['hdbscan', csv, '--min-cluster-size', '10,15', '--backend', 'cpu', '--soft']);
    expect(r.code).toBe(EXIT.input);
    expect(r.stderr).toMatch(/--soft gives the memberships of one fit: give one --min-cluster-size, got 10,15/);
    expect(r.stdout).toBe('');
  });

  it('predict --soft: p0 … p{k−1} after label, probability, equal to membershipVector under the saved model', async () => {
    const model = join(dir, 'model.json');
    expect((await runCliProcess([...args, '-o', join(dir, 'fit.csv'), '--save-model', model])).code).toBe(EXIT.ok);
    const m = 30;
    const fresh = uniform({ n: m, dim: 2, seed: 9 }).map((x) => 20 * x - 10);
    const freshCsv = writePointsCsv(join(dir, 'fresh.csv'), fresh, 2);
    const r = await runCliProcess(['predict', model, freshCsv, '--soft']);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    const loaded = loadModel(readFileSync(model, 'utf8'));
    const k = loaded.selectedClusters.length;
    const expectedRows = membershipVector(loaded, Float32Array.from(fresh));
    const cols = parseCsvColumns(r.stdout);
    const ps = Array.from({ length: k }, (_, j) => `p${j}`);
    expect(Object.keys(cols)).toEqual(['label', 'probability', ...ps]);
    ps.forEach((p, j) => expect(cols[p]).toEqual(Array.from({ length: m }, (_, i) => expectedRows[i * k + j])));
    // The model saved with --soft is the one --soft used: its training memberships are the fit's.
    expect(allPointsMembershipVectors(loaded)).toEqual((await expected()).vectors);
  });
});
