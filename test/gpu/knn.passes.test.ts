/**
 * Issue 15 §4.5: minSamples above 64 on the GPU failed with "Expected k to be an integer in [1, 64]" (the k-NN
 * kernel's private list holds 64). The k-th distance alone now runs in passes of 64 (src/knn/knn.ts,
 * shaders/knn/knn.wgsl: each pass finds the next neighbours after the previous pass's last, in (distance, index)
 * order), so core distances, mutual-reachability MSTs and HDBSCAN* take any minSamples on the GPU — and give what
 * the CPU backend gives, bit for bit.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { coreDistances } from '../../src/knn/core.js';
import { emst } from '../../src/emst/emst.js';
import { hdbscan } from '../../src/hdbscan.js';
import { cloud, type CloudKind } from '../helpers/clouds.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { runCliProcess } from '../helpers/cli.process.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

describe.skipIf(variants.length === 0).each(variants)('minSamples above 64 on the GPU ($name)', ({ ctx }) => {
  it.each([
    ['clustered', 2, 65],
    ['normal', 3, 100],
    ['grid', 3, 150],
    ['duplicates', 2, 130],
    ['normal', 5, 129],
  ] as [CloudKind, number, number][])(
    'issue 15: coreDistances(%s d=%i, { minSamples: %i }) on the GPU equals the CPU backend',
    async (kind, dim, m) => {
      const pts = cloud(kind, 1200, dim, 5);
      const g = await coreDistances(pts, { dim, minSamples: m, backend: 'gpu', gpu: ctx });
      const c = await coreDistances(pts, { dim, minSamples: m, backend: 'cpu' });
      expect([...g]).toEqual([...c]);
    },
  );

  it("issue 15: emst(points, { minSamples: 100 }) on the GPU gives the CPU backend's edge list", async () => {
    const pts = cloud('clustered', 1500, 2, 3);
    const g = await emst(pts, { dim: 2, minSamples: 100, backend: 'gpu', gpu: ctx });
    const c = await emst(pts, { dim: 2, minSamples: 100, backend: 'cpu' });
    expect([...g.sources]).toEqual([...c.sources]);
    expect([...g.targets]).toEqual([...c.targets]);
    expect([...g.weights]).toEqual([...c.weights]);
  });

  it('issue 15: hdbscan(points, { minClusterSize: 100 }) runs on the GPU (minSamples defaults to 100)', async () => {
    const pts = cloud('clustered', 2000, 2, 8);
    const g = await hdbscan(pts, { dim: 2, minClusterSize: 100, backend: 'gpu', gpu: ctx });
    const c = await hdbscan(pts, { dim: 2, minClusterSize: 100, backend: 'cpu' });
    expect([...g.labels]).toEqual([...c.labels]);
  });
});

describe.skipIf(variants.length === 0)('treeline hdbscan --min-cluster-size 100 (CLI)', () => {
  it('issue 15: treeline hdbscan b.csv --min-cluster-size 100 works on both backends, with the same labels', async () => {
    const pts = cloud('clustered', 1500, 2, 9);
    const dir = mkdtempSync(join(tmpdir(), 'treeline-ms100-'));
    const file = join(dir, 'b.csv');
    const rows: string[] = [];
    for (let i = 0; i < 1500; i++) rows.push(`${pts[2 * i]},${pts[2 * i + 1]}`);
    writeFileSync(file, `x,y\n${rows.join('\n')}\n`);
    const labels: string[] = [];
    for (const backend of ['gpu', 'cpu']) {
      const r = await runCliProcess([
        'hdbscan',
        file,
        '--min-cluster-size',
        '100',
        '--backend',
        backend,
        '--format',
        'csv',
      ]);
      expect(r.stderr).not.toMatch(/Expected k/);
      expect(r.code).toBe(0);
      labels.push(r.stdout);
    }
    expect(labels[0]).toBe(labels[1]);
  });
});
