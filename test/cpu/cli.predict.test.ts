/**
 * `treeline predict <model> <points>` through buildProgram(io): a model saved by `treeline hdbscan --save-model`,
 * every --format, equality with the library's approximatePredict, and bad models and inputs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { exitCodeFor, EXIT } from '../../src/cli/program.js';
import { approximatePredict, loadModel } from '../../src/cluster/index.js';
import { blobs, uniform } from '../../src/datasets/generate.js';
import { InputError } from '../../src/errors.js';
import { parseNpy } from '../../src/io/npy.js';
import { parseCsvColumns, runCli, tempDir, writePointsCsv, type CliRun } from '../helpers/cli.js';

const dir = tempDir();
const train = writePointsCsv(join(dir, 'train.csv'), blobs({ n: 300, dim: 2, seed: 8, clusters: 3 }), 2);
const fresh = blobs({ n: 40, dim: 2, seed: 9, clusters: 3 });
const queries = writePointsCsv(join(dir, 'new.csv'), fresh, 2);
const modelFile = join(dir, 'model.json');

function expectInputError(r: { error?: unknown }, message: RegExp): void {
  expect(r.error).toBeInstanceOf(InputError);
  expect(exitCodeFor(r.error)).toBe(EXIT.input);
  expect((r.error as Error).message).toMatch(message);
}

describe('treeline predict', () => {
  let fit: CliRun;
  beforeAll(async () => {
    const args = [
      '--min-cluster-size',
      '15',
      '--min-samples',
      '5',
      '-o',
      join(dir, 'fit.csv'),
      '--save-model',
      modelFile,
    ];
    fit = await runCli(['hdbscan', train, ...args, '--backend', 'cpu']);
  });

  it('csv: label,probability per new point, equal to approximatePredict on the saved model', async () => {
    expect(fit.error).toBeUndefined();
    const r = await runCli(['predict', modelFile, queries]);
    expect(r.error).toBeUndefined();
    const cols = parseCsvColumns(r.out);
    expect(Object.keys(cols)).toEqual(['label', 'probability']);
    const expected = approximatePredict(loadModel(readFileSync(modelFile, 'utf8')), fresh);
    expect(cols.label).toEqual(Array.from(expected.labels));
    expect(cols.probability).toEqual(Array.from(expected.probabilities));
    expect(new Set(cols.label).size).toBeGreaterThan(1);
    expect(r.log).toMatch(/predict: 40 points/);
  });

  it('json and npy carry the same arrays', async () => {
    const csv = parseCsvColumns((await runCli(['predict', modelFile, queries])).out);
    const j = JSON.parse((await runCli(['predict', modelFile, queries, '--format', 'json', '--timings'])).out);
    expect(j.labels).toEqual(csv.label);
    expect(j.probabilities).toEqual(csv.probability);
    expect(j.timings['cluster::predict']).toBeGreaterThanOrEqual(0);
    const out = join(dir, 'pred');
    expect((await runCli(['predict', modelFile, queries, '--format', 'npy', '-o', out])).error).toBeUndefined();
    const labels = parseNpy(readFileSync(join(out, 'labels.npy')));
    expect(labels.dtype).toBe('<i4');
    expect(Array.from(new Int32Array(new Uint8Array(labels.data).buffer))).toEqual(csv.label);
    expect(parseNpy(readFileSync(join(out, 'probabilities.npy'))).shape).toEqual([40]);
  });

  it('bad model or points: missing, corrupt, wrong dimension — the input exit code', async () => {
    expectInputError(await runCli(['predict', join(dir, 'none.json'), queries]), /none\.json: no such file/);
    const corrupt = join(dir, 'corrupt.json');
    writeFileSync(corrupt, '{"format": "something-else"}');
    expectInputError(await runCli(['predict', corrupt, queries]), /corrupt\.json: Expected a treeline-hdbscan-model/);
    const q3 = writePointsCsv(join(dir, 'new3d.csv'), uniform({ n: 5, dim: 3 }), 3);
    expectInputError(await runCli(['predict', modelFile, q3]), /fitted on 2-dimensional points, got 3 columns/);
    expectInputError(await runCli(['predict', modelFile, q3, '--columns', '0,5']), /no column '5'/);
    expect((await runCli(['predict', modelFile, q3, '--columns', '0,2'])).error).toBeUndefined();
  });

  it('--help has examples', async () => {
    expect((await runCli(['predict', '--help'])).out).toMatch(/Examples:/);
  });
});
