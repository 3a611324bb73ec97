/**
 * `treeline predict <model.json> <points>`: labels and membership probabilities of new points under a model saved
 * by `treeline hdbscan --save-model` (hdbscan's `approximate_predict`); with `--soft` also their soft memberships
 * (hdbscan's `membership_vector`, columns p0 … p{k−1} as `treeline hdbscan --soft` writes them). Compute and printing
 * stay apart.
 */
import { Command } from 'commander';
import { loadModel, type HdbscanModel } from '../cluster/model.js';
import { membershipVector } from '../cluster/membership.js';
import { approximatePredict, type ApproximatePrediction } from '../cluster/predict.js';
import { InputError } from '../errors.js';
import type { PointTable } from '../io/points.js';
import type { CliIo } from './program.js';
import { softColumns, softJson, softNpy, type HdbscanSoftOptions, type SoftMembership } from './hdbscan.soft.js';
import { runCommand } from './run.js';
import {
  addOutputOptions,
  addPointInputOptions,
  logTimings,
  plural,
  outputKind,
  readInputPoints,
  readTextFile,
  writeOutput,
  type InputOptions,
  type OutputOptions,
  type Printable,
} from './options.js';

export type PredictCliOptions = InputOptions & OutputOptions & HdbscanSoftOptions;

export interface PredictRun {
  model: HdbscanModel;
  table: PointTable;
  prediction: ApproximatePrediction;
  /** With --soft: the new points' membership vectors. */
  membership?: SoftMembership;
  timings: Record<string, number>;
}

export async function computePredict(modelFile: string, file: string, o: PredictCliOptions): Promise<PredictRun> {
  const t0 = performance.now();
  const text = await readTextFile(modelFile);
  let model: HdbscanModel;
  try {
    model = loadModel(text);
  } catch (e) {
    if (e instanceof InputError) throw new InputError(`${modelFile}: ${e.message}`);
    throw e;
  }
  const t1 = performance.now();
  const table = await readInputPoints(file, o);
  if (table.dim !== model.dim) {
    throw new InputError(
      `${file}: the model was fitted on ${model.dim}-dimensional points, got ${plural(table.dim, 'column')}.`,
    );
  }
  const t2 = performance.now();
  let prediction: ApproximatePrediction;
  let membership: SoftMembership | undefined;
  try {
    prediction = approximatePredict(model, table.points);
    if (o.soft) membership = { vectors: membershipVector(model, table.points), k: model.selectedClusters.length };
  } catch (e) {
    // The reader checked finiteness; the range rule (and anything else about the points) is reported with the file.
    if (e instanceof InputError) throw new InputError(`${file}: ${e.message}`);
    throw e;
  }
  const t3 = performance.now();
  return {
    model,
    table,
    prediction,
    membership,
    timings: { 'io::model': t1 - t0, 'io::read': t2 - t1, 'cluster::predict': t3 - t2 },
  };
}

export function predictPrintable(r: PredictRun, o: PredictCliOptions): Printable {
  const { labels, probabilities } = r.prediction;
  const m = r.membership;
  const n = r.table.n;
  const soft = m ? softNpy(m, n) : { arrays: {}, shapes: {} };
  return {
    csv: () => ({ label: labels, probability: probabilities, ...(m ? softColumns(m) : {}) }),
    json: () => ({
      n,
      dim: r.table.dim,
      labels,
      probabilities,
      ...(m ? softJson(m, n) : {}),
      ...(o.timings ? { timings: r.timings } : {}),
    }),
    npy: () => [{ dir: '', arrays: { labels, probabilities, ...soft.arrays }, shapes: soft.shapes }],
  };
}

export function predictCommand(io: CliIo): Command {
  const cmd = new Command('predict')
    .description('labels and probabilities of new points under a saved HDBSCAN* model (approximate_predict)')
    .argument('<model>', 'model file written by `treeline hdbscan --save-model`')
    .argument('<points>', 'new points, in any point format, with the columns the model was fitted on')
    .option(
      '--soft',
      "also each new point's soft membership in every cluster (hdbscan's membership_vector): csv p0,p1,…; json membership; npy membership.npy (m × k)",
    );
  addPointInputOptions(cmd);
  addOutputOptions(cmd);
  return cmd
    .addHelpText(
      'after',
      [
        '',
        'Output: csv: label,probability per new point (label −1: noise); json and npy: the same two arrays.',
        '--soft: csv columns p0,p1,… (one per cluster), json membership (m rows of k), npy membership.npy (m × k).',
        '',
        'Examples:',
        '  $ treeline hdbscan datasets/blobs2d-2000.csv --min-cluster-size 15 -o labels.csv --save-model model.json',
        '  $ treeline predict model.json new.csv -o predicted.csv',
        '  $ treeline predict model.json new.npy --format json',
      ].join('\n'),
    )
    .action(async (modelFile: string, file: string, o: PredictCliOptions) => {
      const outputs = [{ path: o.output, option: '-o', kind: outputKind(o) }];
      const { r, where } = await runCommand(io, 'predict', { verbose: o.verbose, outputs }, async (run) => {
        run.progress.phase('read');
        const r = await computePredict(modelFile, file, o);
        run.progress.phase('write', 1);
        return { r, where: await writeOutput(io, o, predictPrintable(r, o), run) };
      });
      const clustered = r.prediction.labels.reduce((s, l) => s + (l >= 0 ? 1 : 0), 0);
      io.log(
        `predict: ${plural(r.table.n, 'point')}, ${clustered} in the model's ${plural(r.model.selectedClusters.length, 'cluster')} → ${where}`,
      );
      if (o.timings) logTimings(io, r.timings);
    });
}
