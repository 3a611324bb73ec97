/**
 * `treeline hdbscan` through buildProgram(io): csv/json/npy for one and several --min-cluster-size values (one MST,
 * re-clustered), the selection options passed through, infinities in JSON, --save-model, and bad options.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitCodeFor, EXIT } from '../../src/cli/program.js';
import { blobs } from '../../src/datasets/generate.js';
import { InputError } from '../../src/errors.js';
import { hdbscan, type HdbscanOptions } from '../../src/hdbscan.js';
import { loadModel } from '../../src/cluster/index.js';
import { parseNpy } from '../../src/io/npy.js';
import { parseCsvColumns, runCli, tempDir, writePointsCsv } from '../helpers/cli.js';

const dir = tempDir();
const n = 300;
const points = blobs({ n, dim: 2, seed: 5, clusters: 3, noise: 0.05 });
const csv = writePointsCsv(join(dir, 'points.csv'), points, 2);
const cpu = ['--backend', 'cpu'];

const lib = (o: Partial<HdbscanOptions> & { minClusterSize: number }) =>
  hdbscan(points, { keep: { mst: true, singleLinkage: true }, dim: 2, backend: 'cpu', ...o });

function expectInputError(r: { error?: unknown }, message: RegExp): void {
  expect(r.error).toBeInstanceOf(InputError);
  expect(exitCodeFor(r.error)).toBe(EXIT.input);
  expect((r.error as Error).message).toMatch(message);
}

describe('treeline hdbscan', () => {
  it('csv: label,probability,outlier_score per point, equal to hdbscan()', async () => {
    const r = await runCli(['hdbscan', csv, '--min-cluster-size', '15', ...cpu]);
    expect(r.error).toBeUndefined();
    const cols = parseCsvColumns(r.out);
    expect(Object.keys(cols)).toEqual(['label', 'probability', 'outlier_score']);
    const expected = await lib({ minClusterSize: 15 });
    expect(cols.label).toEqual(Array.from(expected.labels));
    expect(cols.probability).toEqual(Array.from(expected.probabilities));
    expect(cols.outlier_score).toEqual(Array.from(expected.outlierScores));
    expect(r.log).toMatch(/minClusterSize 15, minSamples 15: \d+ clusters/);
  });

  it('--min-cluster-size 5,10,20: one MST (minSamples = the first value), a column of each array per value', async () => {
    const r = await runCli(['hdbscan', csv, '--min-cluster-size', '5,10,20', ...cpu]);
    expect(r.error).toBeUndefined();
    const cols = parseCsvColumns(r.out);
    expect(Object.keys(cols)).toEqual(
      [5, 10, 20].flatMap((m) => [`label_mcs${m}`, `probability_mcs${m}`, `outlier_score_mcs${m}`]),
    );
    for (const m of [5, 10, 20]) {
      const expected = await lib({ minClusterSize: m, minSamples: 5 });
      expect(cols[`label_mcs${m}`], `mcs ${m}`).toEqual(Array.from(expected.labels));
      expect(cols[`probability_mcs${m}`]).toEqual(Array.from(expected.probabilities));
    }
    expect(r.log.match(/minSamples 5:/g)?.length).toBe(3);
    // --min-samples applies to every value; json holds one result per value and one MST.
    const j = JSON.parse(
      (
        await runCli([
          'hdbscan',
          csv,
          '--min-cluster-size',
          '10,20',
          '--min-samples',
          '3',
          '--format',
          'json',
          '--timings',
          ...cpu,
        ])
      ).out,
    );
    expect(j.results.map((x: { minClusterSize: number }) => x.minClusterSize)).toEqual([10, 20]);
    expect(j.minSamples).toBe(3);
    expect(j.results[1].labels).toEqual(Array.from((await lib({ minClusterSize: 20, minSamples: 3 })).labels));
    expect(j.mst.sources.length).toBe(n - 1);
    expect(Object.keys(j.timings).filter((k) => k === 'emst::total')).toHaveLength(1);
    expect(j.timings['cluster::recluster(20)']).toBeGreaterThanOrEqual(0);
  });

  it('json: every array, including the condensed tree, persistence, exemplars, single linkage and MST', async () => {
    const out = join(dir, 'fit.json');
    const r = await runCli(['hdbscan', csv, '--min-cluster-size', '15', '--min-samples', '4', '-o', out, ...cpu]);
    expect(r.error).toBeUndefined();
    const j = JSON.parse(readFileSync(out, 'utf8'));
    const expected = await lib({ minClusterSize: 15, minSamples: 4 });
    expect(j.labels).toEqual(Array.from(expected.labels));
    expect(j.condensedTree.parent).toEqual(Array.from(expected.condensedTree.parent));
    expect(j.condensedTree.lambda).toEqual(Array.from(expected.condensedTree.lambda));
    expect(j.clusterPersistence).toEqual(Array.from(expected.clusterPersistence));
    expect(j.exemplars).toEqual(expected.exemplars.map((e) => Array.from(e)));
    expect(j.singleLinkage.size.length).toBe(n - 1);
    expect(j.mst!.weights).toEqual(Array.from(expected.mst!.weights));
    expect(j.numClusters).toBe(expected.selectedClusters.length);
    expect(j.options.clusterSelectionMethod).toBe('eom');
    expect(j.timings).toBeUndefined();
  });

  it('json writes λ = ∞ (duplicate points) as "Infinity"', async () => {
    const dup = new Float32Array(2 * 40);
    for (let i = 0; i < 40; i++) dup.set(i < 20 ? [0, 0] : [5, 5], 2 * i);
    const file = writePointsCsv(join(dir, 'dup.csv'), dup, 2);
    const j = JSON.parse((await runCli(['hdbscan', file, '--min-cluster-size', '5', '--format', 'json', ...cpu])).out);
    expect(j.condensedTree.lambda).toContain('Infinity');
    expect(j.numClusters).toBe(2);
  });

  it('--format npy: one .npy per array; with a list, shared MST at the top and a folder per value', async () => {
    const one = join(dir, 'npy1');
    expect(
      (await runCli(['hdbscan', csv, '--min-cluster-size', '15', '--format', 'npy', '-o', one, ...cpu])).error,
    ).toBeUndefined();
    const labels = parseNpy(readFileSync(join(one, 'labels.npy')));
    expect(labels.dtype).toBe('<i4');
    expect(labels.shape).toEqual([n]);
    expect(parseNpy(readFileSync(join(one, 'single_linkage.npy'))).shape).toEqual([n - 1, 4]);
    for (const f of [
      'probabilities',
      'outlier_scores',
      'cluster_persistence',
      'condensed_lambda',
      'exemplars',
      'mst_weights',
    ]) {
      expect(parseNpy(readFileSync(join(one, `${f}.npy`))).dtype, f).toMatch(/^<[fiu][48]$/);
    }
    const many = join(dir, 'npy3');
    expect(
      (await runCli(['hdbscan', csv, '--min-cluster-size', '5,10', '--format', 'npy', '-o', many, ...cpu])).error,
    ).toBeUndefined();
    expect(parseNpy(readFileSync(join(many, 'mst_sources.npy'))).shape).toEqual([n - 1]);
    for (const m of [5, 10]) expect(parseNpy(readFileSync(join(many, `mcs${m}`, 'labels.npy'))).shape).toEqual([n]);
  });

  it('passes --method, --epsilon, --allow-single-cluster, --max-cluster-size and --alpha through', async () => {
    // [base arguments, the option under test, the library's options]: each option changes the labels on these
    // points (checked against the base run), so an ignored option fails the test.
    const cases: [string[], string[], Partial<HdbscanOptions> & { minClusterSize: number }][] = [
      [['--min-cluster-size', '10'], ['--method', 'leaf'], { minClusterSize: 10, clusterSelectionMethod: 'leaf' }],
      [
        ['--min-cluster-size', '10', '--method', 'leaf'],
        ['--epsilon', '2'],
        { minClusterSize: 10, clusterSelectionMethod: 'leaf', clusterSelectionEpsilon: 2 },
      ],
      [['--min-cluster-size', '100'], ['--allow-single-cluster'], { minClusterSize: 100, allowSingleCluster: true }],
      [['--min-cluster-size', '10'], ['--max-cluster-size', '60'], { minClusterSize: 10, maxClusterSize: 60 }],
      [['--min-cluster-size', '10'], ['--alpha', '0.5'], { minClusterSize: 10, alpha: 0.5 }],
    ];
    for (const [base, option, options] of cases) {
      const what = option.join(' ');
      const r = await runCli(['hdbscan', csv, ...base, ...option, ...cpu]);
      expect(r.error, what).toBeUndefined();
      const label = parseCsvColumns(r.out).label;
      expect(label, what).toEqual(Array.from((await lib(options)).labels));
      const without = parseCsvColumns((await runCli(['hdbscan', csv, ...base, ...cpu])).out).label;
      expect(without, `${what} changes the labels`).not.toEqual(label);
    }
  });

  it('--save-model writes a model that loads, with the fit’s labels', async () => {
    const model = join(dir, 'model.json');
    const r = await runCli([
      'hdbscan',
      csv,
      '--min-cluster-size',
      '15',
      '--min-samples',
      '5',
      '-o',
      join(dir, 'l.csv'),
      '--save-model',
      model,
      ...cpu,
    ]);
    expect(r.error).toBeUndefined();
    const m = loadModel(readFileSync(model, 'utf8'));
    expect(m.minSamples).toBe(5);
    expect(Array.from(m.labels)).toEqual(Array.from((await lib({ minClusterSize: 15, minSamples: 5 })).labels));
    expectInputError(
      await runCli(['hdbscan', csv, '--min-cluster-size', '5,10', '--save-model', model, ...cpu]),
      /one --min-cluster-size/,
    );
  });

  it('bad input and options exit with the input code', async () => {
    expectInputError(
      await runCli(['hdbscan', csv, '--min-cluster-size', '1', ...cpu]),
      /--min-cluster-size: expected an integer ≥ 2, got '1'/,
    );
    expectInputError(await runCli(['hdbscan', csv, '--min-cluster-size', '5,x', ...cpu]), /got 'x'/);
    expectInputError(await runCli(['hdbscan', csv, '--min-cluster-size', '5,5', ...cpu]), /distinct/);
    expectInputError(
      await runCli(['hdbscan', csv, '--min-cluster-size', '5', '--method', 'dbscan', ...cpu]),
      /--method/,
    );
    expectInputError(
      await runCli(['hdbscan', csv, '--min-cluster-size', '5', '--epsilon', 'inf', ...cpu]),
      /--epsilon/,
    );
    expectInputError(
      await runCli(['hdbscan', join(dir, 'missing.npy'), '--min-cluster-size', '5', ...cpu]),
      /no such file/,
    );
    const bad = join(dir, 'short.csv');
    writeFileSync(bad, 'x,y\n1,2\n3\n');
    expectInputError(
      await runCli(['hdbscan', bad, '--min-cluster-size', '5', ...cpu]),
      /short\.csv:3: expected 2 fields, got 1/,
    );
  });

  it('--help has examples', async () => {
    const r = await runCli(['hdbscan', '--help']);
    expect(r.out).toMatch(/Examples:/);
    expect(r.out).toMatch(/--save-model/);
  });
});
