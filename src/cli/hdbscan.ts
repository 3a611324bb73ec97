/**
 * `treeline hdbscan <points>`: HDBSCAN* labels, probabilities and GLOSH outlier scores per point. A list of
 * minimum cluster sizes (`--min-cluster-size 5,10,20`) computes the mutual-reachability MST and its single linkage
 * once and re-clusters per value (`clusterFromSingleLinkage`: milliseconds each). Compute (`computeHdbscan`) and
 * printing (`hdbscanPrintable`) stay apart.
 */
import { Command, Option } from 'commander';
import { clusterFromSingleLinkage } from '../cluster/clusterFromMst.js';
import { exemplars } from '../cluster/exemplars.js';
import { saveModel } from '../cluster/model.js';
import { DEFAULT_MIN_CLUSTER_SIZE } from '../cluster/options.js';
import type { ClusterResult } from '../cluster/types.js';
import { relativeValidity } from '../cluster/validity.js';
import { InputError } from '../errors.js';
import { hdbscan, hdbscanModel, type HdbscanResult } from '../hdbscan.js';
import type { PointTable } from '../io/points.js';
import type { Column } from '../io/write.js';
import type { CliIo } from './program.js';
import type { ProgressCallback } from '../progress.js';
import { runCommand } from './run.js';
import {
  addBackendOption,
  addThreadsOption,
  addOutputOptions,
  addPointInputOptions,
  choice,
  integer,
  integerList,
  logTimings,
  number,
  plural,
  POINTS_ARGUMENT,
  outputKind,
  readInputPoints,
  writeOutput,
  type Backend,
  type InputOptions,
  type NpyGroup,
  type OutputOptions,
  type Printable,
} from './options.js';

export interface HdbscanCliOptions extends InputOptions, OutputOptions {
  minClusterSize: number[];
  minSamples?: number;
  method: 'eom' | 'leaf';
  epsilon: number;
  allowSingleCluster?: boolean;
  maxClusterSize: number;
  alpha: number;
  backend: Backend;
  /** CPU backend threads (undefined: the default). */
  threads?: number;
  saveModel?: string;
  /** Also compute each clustering's relative validity (hdbscan's `relative_validity_`, a fast DBCV). */
  validity?: boolean;
}

/** One clustering of the shared MST. */
export interface Clustering {
  minClusterSize: number;
  result: Omit<ClusterResult, 'timings' | 'mst'>;
  exemplars: Uint32Array[];
  /** With --validity: `relativeValidity(mst, labels)`, the DBCV approximation on the mutual-reachability MST. */
  relativeValidity?: number;
}

export interface HdbscanRun {
  table: PointTable;
  /** The fit for the first minimum cluster size (MST, single linkage, timings). */
  fit: HdbscanResult;
  /** One per --min-cluster-size value, in the order given. */
  clusterings: Clustering[];
  timings: Record<string, number>;
}

export async function computeHdbscan(
  file: string,
  o: HdbscanCliOptions,
  progress?: ProgressCallback,
  signal?: AbortSignal,
  warn?: (message: string) => void,
): Promise<HdbscanRun> {
  if (o.saveModel && o.minClusterSize.length > 1) {
    throw new InputError(`--save-model saves one fit: give one --min-cluster-size, got ${o.minClusterSize.join(',')}.`);
  }
  const t0 = performance.now();
  progress?.(0, 'read');
  const table = await readInputPoints(file, o);
  const timings: Record<string, number> = { 'io::read': performance.now() - t0 };
  // Not an error (hdbscan accepts it too), but a newcomer's likely slip: say so before the MST, then run.
  for (const c of o.minClusterSize.filter((c) => c > table.n)) {
    const outcome = o.allowSingleCluster
      ? 'at most one cluster, all the points (--allow-single-cluster)'
      : 'every point will be noise';
    warn?.(
      `hdbscan: warning: --min-cluster-size ${c} is larger than the ${plural(table.n, 'point')} of ${file}: ${outcome}.`,
    );
  }
  const [first, ...rest] = o.minClusterSize;
  const shared = {
    clusterSelectionMethod: o.method,
    clusterSelectionEpsilon: o.epsilon,
    allowSingleCluster: !!o.allowSingleCluster,
    maxClusterSize: o.maxClusterSize,
  };
  const fit = await hdbscan(table.points, {
    dim: table.dim,
    minClusterSize: first,
    minSamples: o.minSamples ?? first,
    alpha: o.alpha,
    backend: o.backend,
    threads: o.threads,
    onProgress: progress,
    signal,
    ...shared,
  });
  Object.assign(timings, fit.timings);
  const clusterings: Clustering[] = [{ minClusterSize: first, result: fit, exemplars: fit.exemplars }];
  if (rest.length > 0) progress?.(1, 'recluster');
  for (const minClusterSize of rest) {
    const t = performance.now();
    const result = clusterFromSingleLinkage(fit.singleLinkage, table.n, { minClusterSize, ...shared }, fit.mst);
    clusterings.push({ minClusterSize, result, exemplars: exemplars(result.condensedTree, result.selectedClusters) });
    timings[`cluster::recluster(${minClusterSize})`] = performance.now() - t;
  }
  if (o.validity) {
    progress?.(1, 'relative validity');
    const t = performance.now();
    for (const c of clusterings) c.relativeValidity = relativeValidity(fit.mst, c.result.labels);
    timings['cluster::validity'] = performance.now() - t;
  }
  return { table, fit, clusterings, timings };
}

const noiseCount = (labels: Int32Array): number => labels.reduce((s, l) => s + (l < 0 ? 1 : 0), 0);

/** Exemplars flattened: point indices and the label of each. */
function flatExemplars(ex: Uint32Array[]): { exemplars: Uint32Array; exemplar_labels: Int32Array } {
  const total = ex.reduce((s, e) => s + e.length, 0);
  const points = new Uint32Array(total);
  const labels = new Int32Array(total);
  let k = 0;
  ex.forEach((e, label) => e.forEach((p) => ((points[k] = p), (labels[k++] = label))));
  return { exemplars: points, exemplar_labels: labels };
}

/** The per-clustering part of the JSON output. */
function clusteringJson(c: Clustering): Record<string, unknown> {
  const r = c.result;
  const t = r.condensedTree;
  return {
    minClusterSize: c.minClusterSize,
    options: r.options,
    numClusters: r.selectedClusters.length,
    numNoise: noiseCount(r.labels),
    ...(c.relativeValidity !== undefined ? { relativeValidity: c.relativeValidity } : {}),
    labels: r.labels,
    probabilities: r.probabilities,
    outlierScores: r.outlierScores,
    clusterPersistence: r.clusterPersistence,
    selectedClusters: r.selectedClusters,
    exemplars: c.exemplars,
    condensedTree: { parent: t.parent, child: t.child, lambda: t.lambda, childSize: t.childSize },
  };
}

function clusteringNpy(c: Clustering, dir: string): NpyGroup {
  const r = c.result;
  const t = r.condensedTree;
  return {
    dir,
    arrays: {
      labels: r.labels,
      probabilities: r.probabilities,
      outlier_scores: r.outlierScores,
      cluster_persistence: r.clusterPersistence,
      selected_clusters: r.selectedClusters,
      ...flatExemplars(c.exemplars),
      condensed_parent: t.parent,
      condensed_child: t.child,
      condensed_lambda: t.lambda,
      condensed_child_size: t.childSize,
      ...(c.relativeValidity !== undefined ? { relative_validity: new Float64Array([c.relativeValidity]) } : {}),
    },
    shapes: c.relativeValidity !== undefined ? { relative_validity: [] } : undefined,
  };
}

/** The single linkage as scipy's Z, (n − 1) × 4 float64. */
function linkageMatrix(fit: HdbscanResult): Float64Array {
  const { left, right, distance, size } = fit.singleLinkage;
  const z = new Float64Array(4 * left.length);
  for (let i = 0; i < left.length; i++) z.set([left[i], right[i], distance[i], size[i]], 4 * i);
  return z;
}

export function hdbscanPrintable(r: HdbscanRun, o: HdbscanCliOptions): Printable {
  const { fit, clusterings } = r;
  const single = clusterings.length === 1;
  const mst = { sources: fit.mst.sources, targets: fit.mst.targets, weights: fit.mst.weights };
  const header = { n: r.table.n, dim: r.table.dim, minSamples: fit.minSamples, alpha: o.alpha, backend: fit.backend };
  const linkage = () => {
    const s = fit.singleLinkage;
    return { left: s.left, right: s.right, distance: s.distance, size: s.size };
  };
  const timings = o.timings ? { timings: r.timings } : {};
  return {
    csv: () => {
      const cols: Record<string, Column> = {};
      for (const c of clusterings) {
        const suffix = single ? '' : `_mcs${c.minClusterSize}`;
        cols[`label${suffix}`] = c.result.labels;
        cols[`probability${suffix}`] = c.result.probabilities;
        cols[`outlier_score${suffix}`] = c.result.outlierScores;
      }
      return cols;
    },
    json: () =>
      single
        ? { ...header, ...clusteringJson(clusterings[0]), singleLinkage: linkage(), mst, ...timings }
        : { ...header, results: clusterings.map(clusteringJson), singleLinkage: linkage(), mst, ...timings },
    npy: () => {
      const top: NpyGroup = {
        dir: '',
        arrays: {
          single_linkage: linkageMatrix(fit),
          mst_sources: mst.sources,
          mst_targets: mst.targets,
          mst_weights: mst.weights,
        },
        shapes: { single_linkage: [fit.singleLinkage.left.length, 4] },
      };
      if (single) {
        const own = clusteringNpy(clusterings[0], '');
        return [{ ...top, arrays: { ...own.arrays, ...top.arrays }, shapes: { ...own.shapes, ...top.shapes } }];
      }
      return [top, ...clusterings.map((c) => clusteringNpy(c, `mcs${c.minClusterSize}`))];
    },
  };
}

export function hdbscanCommand(io: CliIo): Command {
  const cmd = new Command('hdbscan')
    .description('HDBSCAN* clustering of a point file: labels, probabilities and GLOSH outlier scores per point')
    .argument('<points>', POINTS_ARGUMENT)
    .addOption(
      new Option(
        '--min-cluster-size <sizes>',
        "smallest cluster (≥ 2; hdbscan's min_cluster_size); a comma list re-clusters one MST per value",
      )
        .argParser(integerList('--min-cluster-size', 2))
        .default([DEFAULT_MIN_CLUSTER_SIZE], String(DEFAULT_MIN_CLUSTER_SIZE)),
    )
    .option(
      '--min-samples <m>',
      "core distance's neighbour count, the point excluded (hdbscan's min_samples; default: the first min cluster size)",
      integer('--min-samples', 1),
    )
    .option('--method <m>', 'cluster selection: eom | leaf', choice('--method', ['eom', 'leaf'] as const), 'eom')
    .option(
      '--epsilon <e>',
      'cluster_selection_epsilon: do not split clusters below this distance',
      number('--epsilon', (v) => v >= 0 && Number.isFinite(v), 'a finite number ≥ 0'),
      0,
    )
    .option('--allow-single-cluster', 'the root may be the one cluster')
    .option(
      '--max-cluster-size <m>',
      'EOM selects no cluster larger than this (0: no limit)',
      integer('--max-cluster-size', 0),
      0,
    )
    .option(
      '--alpha <a>',
      'mutual reachability divides distances by alpha',
      number('--alpha', (v) => v > 0 && Number.isFinite(v), 'a finite number > 0'),
      1,
    )
    .option('--save-model <file>', 'also save the fitted model (JSON) for `treeline predict`')
    .option(
      '--validity',
      "also report each clustering's relative validity (hdbscan's relative_validity_, a fast DBCV) on stderr and in json/npy",
    );
  addPointInputOptions(cmd);
  addBackendOption(cmd);
  addThreadsOption(cmd);
  addOutputOptions(cmd);
  return cmd
    .addHelpText(
      'after',
      [
        '',
        'Output: csv: label,probability,outlier_score per point (with a list: one column of each per value);',
        'json: every array (condensed tree, persistence, exemplars, single linkage, MST as mst.sources/targets/weights);',
        'npy: one .npy per array in -o (the MST as mst_sources, mst_targets, mst_weights).',
        '',
        'Examples:',
        '  $ treeline hdbscan datasets/blobs2d-2000.csv --min-cluster-size 15 -o labels.csv',
        '  $ treeline hdbscan datasets/moons-1000.csv --min-cluster-size 5,10,20 --min-samples 5',
        '  $ treeline hdbscan points.csv --min-cluster-size 25 --method leaf --format json -o fit.json',
        '  $ treeline hdbscan datasets/normal3d-5000.npy --min-cluster-size 50 --format npy -o out/ --save-model model.json',
      ].join('\n'),
    )
    .action(async (file: string, o: HdbscanCliOptions) => {
      const outputs = [
        { path: o.output, option: '-o', kind: outputKind(o) },
        { path: o.saveModel, option: '--save-model' },
      ];
      const { r, where } = await runCommand(io, 'hdbscan', { verbose: o.verbose, outputs }, async (run) => {
        const r = await computeHdbscan(file, o, run.progress.onProgress, run.signal, (m) => run.progress.log(m));
        run.progress.phase('write', 1);
        const where = await writeOutput(io, o, hdbscanPrintable(r, o), run);
        if (o.saveModel) {
          run.progress.phase('save model', 1);
          await run.outputs.write(
            o.saveModel,
            [saveModel(await hdbscanModel(r.table.points, r.table.dim, r.fit))],
            run.signal,
          );
        }
        return { r, where };
      });
      if (o.saveModel) io.log(`hdbscan: model saved to ${o.saveModel}`);
      for (const c of r.clusterings) {
        io.log(
          `hdbscan: ${plural(r.table.n, 'point')} × ${r.table.dim}, minClusterSize ${c.minClusterSize}, minSamples ${r.fit.minSamples}: ` +
            `${plural(c.result.selectedClusters.length, 'cluster')}, ${noiseCount(c.result.labels)} noise` +
            (c.relativeValidity !== undefined ? `, relative validity ${c.relativeValidity.toPrecision(4)}` : ''),
        );
      }
      io.log(`hdbscan: ${r.fit.backend} backend, ${r.fit.timings['hdbscan::total'].toFixed(1)} ms → ${where}`);
      if (o.timings) logTimings(io, r.timings);
    });
}
