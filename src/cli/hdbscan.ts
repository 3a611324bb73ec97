/**
 * `treeline hdbscan <points>`: HDBSCAN* labels, probabilities and GLOSH outlier scores per point. A list of
 * minimum cluster sizes (`--min-cluster-size 5,10,20`) computes the mutual-reachability MST and its dendrogram once
 * and condenses it per value (`hdbscanSweep`: on the GPU where the tree stays there, else from the single linkage on
 * the host). The same tree also gives DBSCAN* at `--cut-distance` (`dbscanClustering`), and `--centers` adds each
 * clustering's centroids/medoids (`clusterCenters`). Compute (`computeHdbscan`) and printing (`hdbscanPrintable`)
 * stay apart. Several input files are a batch (hdbscan.batch.ts): each clustered alike, its output in the -o folder
 * under its name.
 */
import { Command, Option } from 'commander';
import { clusterCenters, type CenterKind, type ClusterCenters } from '../cluster/centers.js';
import { dbscanClustering } from '../cluster/dbscan.js';
import { saveModel, type HdbscanModel } from '../cluster/model.js';
import { DEFAULT_MIN_CLUSTER_SIZE } from '../cluster/options.js';
import type { ClusterResult } from '../cluster/types.js';
import { relativeValidity } from '../cluster/validity.js';
import { InputError } from '../errors.js';
import type { GpuContext } from '../gpu/context.js';
import { hdbscanModel, hdbscanSweep, type HdbscanResult } from '../hdbscan.js';
import type { PointTable } from '../io/points.js';
import type { Column } from '../io/write.js';
import type { CliIo } from './program.js';
import type { ProgressCallback } from '../progress.js';
import { runCommand } from './run.js';
import { startGpuAhead } from './gpuahead.js';
import { metricOf } from '../emst/metric.js';
import { warmEmstPipelines } from '../emst/pipeline.js';
import { warmClusterPipelines } from '../cluster/warm.js';
import { hdbscanBatch } from './hdbscan.batch.js';
import { hdbscanNatsRunners } from './hdbscan.nats.js';
import {
  addLocalDirOption,
  addNatsMethodOption,
  addNatsOptions,
  checkNatsOnly,
  localDirOf,
  natsOptionsOf,
  type NatsCliOptions,
} from './nats.js';
import {
  addHdbscanPlotOptions,
  hdbscanPlotOutputs,
  writeHdbscanPlots,
  type HdbscanPlotOptions,
} from './hdbscan.plot.js';
import {
  addSoftOption,
  checkSoftOptions,
  softColumns,
  softJson,
  softMembership,
  softNpy,
  type HdbscanSoftOptions,
  type SoftMembership,
} from './hdbscan.soft.js';
import {
  addBackendOption,
  addThreadsOption,
  addOutputOptions,
  addPointInputOptions,
  choice,
  csvChunks,
  integer,
  integerList,
  logTimings,
  number,
  plural,
  POINTS_ARGUMENT,
  outputKind,
  readInputPoints,
  resolveFormat,
  writeOutput,
  type Backend,
  type InputOptions,
  type NpyGroup,
  type OutputOptions,
  type Printable,
} from './options.js';

export interface HdbscanCliOptions
  extends InputOptions, OutputOptions, HdbscanPlotOptions, HdbscanSoftOptions, NatsCliOptions {
  /** --nats with one file: the MST's partitions and run id. */
  partitions?: number;
  runId?: string;
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
  /** Also the DBSCAN* labels of the single linkage cut at this distance (hdbscan's `dbscan_clustering`). */
  cutDistance?: number;
  /** Also each cluster's centroid and/or medoid (scikit-learn's `store_centers`). */
  centers?: CenterKind;
  /** Where the centres go as CSV (needed with csv output, allowed with any). */
  centersOutput?: string;
}

/** One clustering of the shared MST. */
export interface Clustering {
  minClusterSize: number;
  result: Omit<ClusterResult, 'timings' | 'mst' | 'singleLinkage'>;
  exemplars: Uint32Array[];
  /** With --validity: `relativeValidity(mst, labels)`, the DBCV approximation on the mutual-reachability MST. */
  relativeValidity?: number;
  /** With --centers: k × dim centroids and/or medoids. */
  centers?: ClusterCenters;
}

/** With --cut-distance: DBSCAN* of the shared single linkage, minClusterSize the first --min-cluster-size. */
export interface DbscanRun {
  cutDistance: number;
  minClusterSize: number;
  labels: Int32Array;
}

export interface HdbscanRun {
  table: PointTable;
  /** The fit for the first minimum cluster size (MST, single linkage, timings). */
  fit: HdbscanResult;
  /** One per --min-cluster-size value, in the order given. */
  clusterings: Clustering[];
  dbscan?: DbscanRun;
  /** With --soft: the fit's model (the first --min-cluster-size), reused by --save-model. */
  model?: HdbscanModel;
  /** With --soft: the fit's all-points membership vectors. */
  membership?: SoftMembership;
  timings: Record<string, number>;
}

export async function computeHdbscan(
  file: string,
  o: HdbscanCliOptions,
  progress?: ProgressCallback,
  signal?: AbortSignal,
  warn?: (message: string) => void,
  /** A GPU context to reuse (a batch's); without one the fit creates and destroys its own. */
  gpu?: GpuContext,
  /** A worker's share of its host (hdbscan.nats.ts): the threads for the file's n points where o.threads is absent. */
  threadsFor?: (n: number) => Promise<number | undefined>,
  /** And the threads the file's read takes (a large body's reads in flight: PointReadOptions.threads). */
  readThreads?: number,
): Promise<HdbscanRun> {
  if (o.saveModel && o.minClusterSize.length > 1) {
    throw new InputError(`--save-model saves one fit: give one --min-cluster-size, got ${o.minClusterSize.join(',')}.`);
  }
  checkCentersOutput(o);
  checkSoftOptions(o);
  const t0 = performance.now();
  progress?.(0, 'read');
  // Without a batch's context (and not on the workers): the device is created and the pipelines compiled while the
  // file is read (gpuahead.ts), one kind after the other so the warm-up never holds more GPU memory than the call.
  const smallest = Math.min(...o.minClusterSize);
  const metric = metricOf(o.minSamples ?? o.minClusterSize[0], o.alpha);
  const ahead = startGpuAhead('hdbscan', gpu || o.nats ? 'cpu' : o.backend, file, o, async (ctx, { n, dim }) => {
    await warmEmstPipelines(ctx, n, dim, metric);
    await warmClusterPipelines(ctx, n, smallest);
    await ctx.warmTransfers();
  });
  try {
    const table = await readInputPoints(file, o, { threads: readThreads });
    const timings: Record<string, number> = { 'io::read': performance.now() - t0 };
    const settled = gpu || o.nats ? null : await ahead.settle();
    const threads = o.threads ?? (await threadsFor?.(table.n));
    return await computeHdbscanOf(
      file,
      table,
      timings,
      threads === o.threads ? o : { ...o, threads },
      progress,
      signal,
      warn,
      gpu ?? settled?.gpu ?? undefined,
      settled?.backend,
    );
  } finally {
    await ahead.dispose();
  }
}

/** computeHdbscan once the points are read: `backend` overrides o.backend where gpuahead settled it. */
async function computeHdbscanOf(
  file: string,
  table: PointTable,
  timings: Record<string, number>,
  o: HdbscanCliOptions,
  progress: ProgressCallback | undefined,
  signal: AbortSignal | undefined,
  warn: ((message: string) => void) | undefined,
  gpu: GpuContext | undefined,
  backend: Backend = o.backend,
): Promise<HdbscanRun> {
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
  // The MST and the single linkage only where something here uses them (on the GPU they otherwise stay there).
  const whole = resolveFormat(o) !== 'csv';
  const keep = {
    mst: whole || !!o.validity || !!o.plotMst,
    singleLinkage: whole || o.cutDistance !== undefined || o.plotDendrogram !== undefined,
  };
  // One MST for every value: the rest condensed from the same tree (on the GPU when it stays there: hdbscanSweep).
  const { fit, more } = await hdbscanSweep(
    table.points,
    {
      keep,
      dim: table.dim,
      minClusterSize: first,
      minSamples: o.minSamples ?? first,
      alpha: o.alpha,
      backend,
      ...(gpu ? { gpu } : {}),
      // --nats (one file): the MST from the workers, the clustering here on the host.
      ...(o.nats && !gpu
        ? {
            backend: 'cpu' as const,
            cluster: {
              ...natsOptionsOf(o, 'treeline hdbscan'),
              partitions: o.partitions,
              runId: o.runId,
              localDir: localDirOf(o),
              ...(o.natsMethod ? { method: o.natsMethod } : {}),
              log: warn,
            },
          }
        : {}),
      threads: o.threads,
      onProgress: progress,
      signal,
      centers: o.centers,
      ...shared,
    },
    rest,
  );
  Object.assign(timings, fit.timings);
  const centersOf = (r: HdbscanResult | ClusterResult): ClusterCenters | undefined =>
    o.centers ? clusterCenters(table.points, { ...r, dim: table.dim, centers: o.centers }) : undefined;
  const fitCenters = o.centers ? { centroids: fit.centroids, medoids: fit.medoids } : undefined;
  const clusterings: Clustering[] = [
    { minClusterSize: first, result: fit, exemplars: fit.exemplars, centers: fitCenters },
  ];
  for (const { minClusterSize, result, exemplars: ex } of more) {
    clusterings.push({ minClusterSize, result, exemplars: ex, centers: centersOf(result) });
  }
  if (o.validity) {
    progress?.(1, 'relative validity');
    const t = performance.now();
    for (const c of clusterings) c.relativeValidity = relativeValidity(fit.mst!, c.result.labels);
    timings['cluster::validity'] = performance.now() - t;
  }
  let dbscan: DbscanRun | undefined;
  if (o.cutDistance !== undefined) {
    const t = performance.now();
    const cut = { cutDistance: o.cutDistance, minClusterSize: first };
    dbscan = { ...cut, labels: dbscanClustering(fit.singleLinkage!, table.n, cut) };
    timings['cluster::dbscan'] = performance.now() - t;
  }
  let model: HdbscanModel | undefined;
  let membership: SoftMembership | undefined;
  if (o.soft) {
    progress?.(1, 'soft clustering');
    const t = performance.now();
    model = await hdbscanModel(table.points, table.dim, fit);
    membership = await softMembership(model, o.backend);
    timings['cluster::membership'] = performance.now() - t;
  }
  return { table, fit, clusterings, dbscan, model, membership, timings };
}

/** csv holds one row per point, so the k rows of centres need their own file there. */
function checkCentersOutput(o: HdbscanCliOptions): void {
  if (o.centersOutput && !o.centers) {
    throw new InputError(`--centers-output ${o.centersOutput} needs --centers centroid|medoid|both.`);
  }
  if (o.centers && !o.centersOutput && resolveFormat(o) === 'csv') {
    throw new InputError(
      `--centers ${o.centers} with csv output (one row per point) needs --centers-output <file.csv>, or --format json|npy.`,
    );
  }
}

/** k × dim row-major as k rows, for JSON. */
const rows = (a: Float64Array, dim: number): Float64Array[] =>
  Array.from({ length: a.length / dim }, (_, c) => a.subarray(c * dim, (c + 1) * dim));

/** The centres as a CSV: one row per (clustering, label), the centroid's and/or the medoid's coordinates. */
export function centersCsv(r: HdbscanRun): Record<string, Column> {
  const dim = r.table.dim;
  const keys = (['centroids', 'medoids'] as const).filter((key) => r.clusterings[0].centers?.[key]);
  const parts = r.clusterings.map((c) => ({ c, k: c.centers![keys[0]]!.length / dim }));
  const total = parts.reduce((s, p) => s + p.k, 0);
  const cols: Record<string, Column> = {};
  const labels = parts.flatMap(({ c, k }) => Array.from({ length: k }, (_, l) => [c.minClusterSize, l]));
  if (r.clusterings.length > 1) cols.min_cluster_size = Uint32Array.from(labels, ([m]) => m);
  cols.label = Int32Array.from(labels, ([, l]) => l);
  for (const key of keys) {
    for (let d = 0; d < dim; d++) {
      const col = new Float64Array(total);
      let row = 0;
      for (const { c, k } of parts) for (let l = 0; l < k; l++) col[row++] = c.centers![key]![l * dim + d];
      cols[`${key.slice(0, -1)}_${d}`] = col;
    }
  }
  return cols;
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
function clusteringJson(c: Clustering, dim: number): Record<string, unknown> {
  const r = c.result;
  const t = r.condensedTree;
  return {
    minClusterSize: c.minClusterSize,
    options: r.options,
    numClusters: r.selectedClusters.length,
    numNoise: noiseCount(r.labels),
    ...(c.relativeValidity !== undefined ? { relativeValidity: c.relativeValidity } : {}),
    ...centersJson(c, dim),
    labels: r.labels,
    probabilities: r.probabilities,
    outlierScores: r.outlierScores,
    clusterPersistence: r.clusterPersistence,
    selectedClusters: r.selectedClusters,
    exemplars: c.exemplars,
    condensedTree: { parent: t.parent, child: t.child, lambda: t.lambda, childSize: t.childSize },
  };
}

function clusteringNpy(c: Clustering, dir: string, dim: number): NpyGroup {
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
      ...c.centers,
    },
    shapes: {
      ...(c.relativeValidity !== undefined ? { relative_validity: [] } : {}),
      ...(c.centers?.centroids ? { centroids: [c.centers.centroids.length / dim, dim] } : {}),
      ...(c.centers?.medoids ? { medoids: [c.centers.medoids.length / dim, dim] } : {}),
    },
  };
}

function centersJson(c: Clustering, dim: number): Record<string, unknown> {
  const { centroids, medoids } = c.centers ?? {};
  return {
    ...(centroids ? { centroids: rows(centroids, dim) } : {}),
    ...(medoids ? { medoids: rows(medoids, dim) } : {}),
  };
}

/** The single linkage as scipy's Z, (n − 1) × 4 float64. */
function linkageMatrix(fit: HdbscanResult): Float64Array {
  const { left, right, distance, size } = fit.singleLinkage!;
  const z = new Float64Array(4 * left.length);
  for (let i = 0; i < left.length; i++) z.set([left[i], right[i], distance[i], size[i]], 4 * i);
  return z;
}

export function hdbscanPrintable(r: HdbscanRun, o: HdbscanCliOptions): Printable {
  const { fit, clusterings } = r;
  const single = clusterings.length === 1;
  // Kept by the fit for json and npy (computeHdbscan's keep).
  const mst = () => ({ sources: fit.mst!.sources, targets: fit.mst!.targets, weights: fit.mst!.weights });
  const header = { n: r.table.n, dim: r.table.dim, minSamples: fit.minSamples, alpha: o.alpha, backend: fit.backend };
  const linkage = () => {
    const s = fit.singleLinkage!;
    return { left: s.left, right: s.right, distance: s.distance, size: s.size };
  };
  const timings = o.timings ? { timings: r.timings } : {};
  const dim = r.table.dim;
  const soft = r.membership ? softJson(r.membership, r.table.n) : {};
  const d = r.dbscan;
  const dbscan = d
    ? {
        dbscan: {
          ...d,
          numClusters: d.labels.reduce((m, l) => Math.max(m, l), -1) + 1,
          numNoise: noiseCount(d.labels),
        },
      }
    : {};
  return {
    csv: () => {
      const cols: Record<string, Column> = {};
      for (const c of clusterings) {
        const suffix = single ? '' : `_mcs${c.minClusterSize}`;
        cols[`label${suffix}`] = c.result.labels;
        cols[`probability${suffix}`] = c.result.probabilities;
        cols[`outlier_score${suffix}`] = c.result.outlierScores;
      }
      if (r.membership) Object.assign(cols, softColumns(r.membership));
      if (d) cols.dbscan_label = d.labels;
      return cols;
    },
    json: () =>
      single
        ? {
            ...header,
            ...clusteringJson(clusterings[0], dim),
            ...soft,
            ...dbscan,
            singleLinkage: linkage(),
            mst: mst(),
            ...timings,
          }
        : {
            ...header,
            results: clusterings.map((c) => clusteringJson(c, dim)),
            ...dbscan,
            singleLinkage: linkage(),
            mst: mst(),
            ...timings,
          },
    npy: () => {
      const top: NpyGroup = {
        dir: '',
        arrays: {
          single_linkage: linkageMatrix(fit),
          mst_sources: fit.mst!.sources,
          mst_targets: fit.mst!.targets,
          mst_weights: fit.mst!.weights,
          ...(d ? { dbscan_labels: d.labels } : {}),
        },
        shapes: { single_linkage: [fit.singleLinkage!.left.length, 4] },
      };
      if (single) {
        const own = clusteringNpy(clusterings[0], '', dim);
        const s = r.membership ? softNpy(r.membership, r.table.n) : { arrays: {}, shapes: {} };
        return [
          {
            ...top,
            arrays: { ...own.arrays, ...s.arrays, ...top.arrays },
            shapes: { ...own.shapes, ...s.shapes, ...top.shapes },
          },
        ];
      }
      return [top, ...clusterings.map((c) => clusteringNpy(c, `mcs${c.minClusterSize}`, dim))];
    },
  };
}

export function hdbscanCommand(io: CliIo): Command {
  const cmd = new Command('hdbscan')
    .description('HDBSCAN* clustering of a point file: labels, probabilities and GLOSH outlier scores per point')
    .argument('<points...>', `${POINTS_ARGUMENT}; several: each clustered alike, outputs into the -o folder`)
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
    )
    .option(
      '--cut-distance <d>',
      "also DBSCAN* labels: the single linkage cut at d (hdbscan's dbscan_clustering; its min_cluster_size: the first --min-cluster-size)",
      number('--cut-distance', (v) => v >= 0 && Number.isFinite(v), 'a finite number ≥ 0'),
    )
    .option(
      '--centers <kind>',
      "also each cluster's centre (scikit-learn's store_centers): centroid | medoid | both",
      choice('--centers', ['centroid', 'medoid', 'both'] as const),
    )
    .option('--centers-output <file>', 'write the centres as CSV, one row per cluster (needed with csv output)');
  addHdbscanPlotOptions(cmd);
  addSoftOption(cmd);
  addPointInputOptions(cmd);
  addBackendOption(cmd);
  addThreadsOption(cmd);
  addOutputOptions(cmd);
  addNatsOptions(
    cmd,
    ': one file: its MST on `treeline worker` processes (partitioned, exact), clustered here; several files: each on a worker (paths shared with them)',
  );
  cmd
    .option('--partitions <k>', 'spatial partitions of one file with --nats (default 8)', integer('--partitions', 1))
    .option('--run-id <id>', "with --nats and one file: name the MST's run; the same id resumes it");
  addLocalDirOption(cmd);
  addNatsMethodOption(cmd);
  return cmd
    .addHelpText(
      'after',
      [
        '',
        'Output: csv: label,probability,outlier_score per point (with a list: one column of each per value);',
        'json: every array (condensed tree, persistence, exemplars, single linkage, MST as mst.sources/targets/weights);',
        'npy: one .npy per array in -o (the MST as mst_sources, mst_targets, mst_weights).',
        '--cut-distance: csv column dbscan_label, json dbscan {cutDistance, minClusterSize, labels, …}, npy dbscan_labels.',
        '--centers: json centroids/medoids (k rows), npy centroids.npy/medoids.npy (k × dim), or --centers-output',
        'a CSV of label,centroid_0…,medoid_0… (with a list of sizes: per value, and a min_cluster_size column).',
        '--soft: csv columns p0,p1,… (one per cluster), json membership (n rows of k), npy membership.npy (n × k).',
        '',
        'Examples:',
        '  $ treeline hdbscan datasets/blobs2d-2000.csv --min-cluster-size 15 -o labels.csv',
        '  $ treeline hdbscan datasets/moons-1000.csv --min-cluster-size 5,10,20 --min-samples 5',
        '  $ treeline hdbscan points.csv --min-cluster-size 25 --method leaf --format json -o fit.json',
        '  $ treeline hdbscan datasets/normal3d-5000.npy --min-cluster-size 50 --format npy -o out/ --save-model model.json',
        '  $ treeline hdbscan datasets/blobs2d-2000.csv --min-cluster-size 15 --cut-distance 0.5 --centers both --centers-output centres.csv -o labels.csv',
        '  $ treeline hdbscan datasets/blobs2d-2000.csv --min-cluster-size 15 --plot clusters.png --plot-mst --plot-tree tree.svg',
        '  $ treeline hdbscan mock1.npy mock2.npy mock3.npy --min-cluster-size 50 --format json -o fits/',
        '',
        'Several inputs: each clustered with the same options on one GPU context; its output goes into the -o folder',
        'named after it (fits/mock1.json; csv by default; with --format npy the folder fits/mock1/), renamed into place',
        'as each file finishes. Inputs must have distinct names; --save-model, --centers-output and --plot* take one file.',
      ].join('\n'),
    )
    .action(async (files: string[], o: HdbscanCliOptions) => {
      checkNatsOnly(o);
      if (files.length > 1 && o.nats) {
        const nats = await hdbscanNatsRunners(o, io.log);
        try {
          return await hdbscanBatch(io, files, o, nats.runners);
        } finally {
          await nats.close();
        }
      }
      if (files.length > 1) return hdbscanBatch(io, files, o);

      const file = files[0];
      const outputs = [
        { path: o.output, option: '-o', kind: outputKind(o) },
        { path: o.saveModel, option: '--save-model' },
        { path: o.centersOutput, option: '--centers-output' },
        ...hdbscanPlotOutputs(o),
      ];
      const { r, where } = await runCommand(io, 'hdbscan', { verbose: o.verbose, outputs }, async (run) => {
        const r = await computeHdbscan(file, o, run.progress.onProgress, run.signal, (m) => run.progress.log(m));
        run.progress.phase('write', 1);
        const where = await writeOutput(io, o, hdbscanPrintable(r, o), run);
        if (o.centersOutput) await run.outputs.write(o.centersOutput, csvChunks(centersCsv(r)), run.signal);
        if (o.saveModel) {
          run.progress.phase('save model', 1);
          await run.outputs.write(
            o.saveModel,
            [saveModel(r.model ?? (await hdbscanModel(r.table.points, r.table.dim, r.fit)))],
            run.signal,
          );
        }
        await writeHdbscanPlots(r, o, run);
        return { r, where };
      });
      if (o.saveModel) io.log(`hdbscan: model saved to ${o.saveModel}`);
      for (const path of [o.plot, o.plotTree, o.plotDendrogram]) if (path) io.log(`hdbscan: figure written to ${path}`);
      logHdbscanRun(io, r, where, o);
    });
}

/** The summary lines of one fit on stderr: each clustering, DBSCAN*, centres, the backend and time, timings. */
export function logHdbscanRun(io: CliIo, r: HdbscanRun, where: string, o: HdbscanCliOptions): void {
  for (const c of r.clusterings) {
    io.log(
      `hdbscan: ${plural(r.table.n, 'point')} × ${r.table.dim}, minClusterSize ${c.minClusterSize}, minSamples ${r.fit.minSamples}: ` +
        `${plural(c.result.selectedClusters.length, 'cluster')}, ${noiseCount(c.result.labels)} noise` +
        (c.relativeValidity !== undefined ? `, relative validity ${c.relativeValidity.toPrecision(4)}` : ''),
    );
  }
  if (r.dbscan) {
    const { cutDistance, minClusterSize, labels } = r.dbscan;
    const k = labels.reduce((m, l) => Math.max(m, l), -1) + 1;
    io.log(
      `hdbscan: DBSCAN* at cut distance ${cutDistance} (min cluster size ${minClusterSize}): ` +
        `${plural(k, 'cluster')}, ${noiseCount(labels)} noise`,
    );
  }
  if (o.centersOutput) io.log(`hdbscan: centres written to ${o.centersOutput}`);
  io.log(`hdbscan: ${r.fit.backend} backend, ${r.fit.timings['hdbscan::total'].toFixed(1)} ms → ${where}`);
  if (o.timings) logTimings(io, r.timings);
}
