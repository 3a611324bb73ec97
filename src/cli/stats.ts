/**
 * `treeline stats <points>`: MiSTree's MST statistics (degree, edge length, branch length, branch shape) on the exact
 * EMST of a point file — summaries and histograms, optionally the raw arrays, the 4-panel SVG figure, and a
 * comparison against realisations (other files measured on the same bins), or the per-bin mean and standard deviation
 * over seeded jittered or subsampled realisations of the catalogue (--jitter / --subsample with --realisations:
 * realisationStats, src/stats/realisations.ts). Compute (`computeStats`) and printing (`statsPrintable`) stay apart.
 */
import { basename } from 'node:path';
import { Command } from 'commander';
import { InputError } from '../errors.js';
import { checkCelestial } from '../stats/coords.js';
import type { PointTable } from '../io/points.js';
import type { Column } from '../io/write.js';
import { compareStats, type StatsComparison } from '../stats/compare.js';
import { degreeCounts } from '../stats/degree.js';
import { binsOf, type MstBins } from '../stats/histogram.js';
import { mstStats, type MstStats, type MstStatsOptions } from '../stats/mstStats.js';
import { mstPlotSvg, type MstTreePanel } from '../stats/plot.js';
import { runIndexed, realisationStats, type RealisationStats, type RunRealisation } from '../stats/realisations.js';
import { batchBackend } from '../gpu/fallback.js';
import type { GpuContext } from '../gpu/context.js';
import { summarise } from '../stats/summary.js';
import { STAT_NAMES, type MstHistograms, type StatName } from '../stats/types.js';
import type { CliIo } from './program.js';
import { progressSpan, type ProgressCallback } from '../progress.js';
import { plotBytes, plotFormat } from './plot.js';
import { runCommand } from './run.js';
import { addNatsOptions, type NatsCliOptions } from './nats.js';
import { statsNatsRunners } from './stats.nats.js';
import {
  addBackendOption,
  addThreadsOption,
  addOutputOptions,
  addPointInputOptions,
  choice,
  integer,
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
  periodicBox,
  addBoxOptions,
} from './options.js';

export interface StatsCliOptions extends InputOptions, OutputOptions, NatsCliOptions {
  coords: 'xyz' | 'radec';
  periodic?: number[];
  minEdgeLength?: number;
  counts?: boolean;
  json?: boolean;
  raw?: boolean;
  plot?: string;
  /** Bins of l, b and √(1 − s) (MiSTree's 100, 100, 50 otherwise). */
  bins?: number;
  /** l and b in log10-spaced bins, drawn on log axes. */
  log?: boolean;
  /** The figure gains a first panel: the tree over the first two columns. */
  plotTreePanel?: boolean;
  compare?: string[];
  /** --jitter: σ of the Gaussian displacement (one value, or one per column). */
  jitter?: number[];
  /** --subsample: the fraction of the points each realisation keeps, in (0, 1]. */
  subsample?: number;
  /** --realisations: k, with --jitter or --subsample. */
  realisations?: number;
  /** --seed: realisation r uses seed + r (default 0). */
  seed?: number;
  backend: Backend;
  /** CPU backend threads (undefined: the default). */
  threads?: number;
}

/** One realisation of --compare: its file and histograms (on the catalogue's bins). */
export interface Realisation {
  file: string;
  n: number;
  numEdges: number;
  numBranches: number;
  histograms: MstHistograms;
}

export interface StatsRun {
  file: string;
  table: PointTable;
  stats: MstStats;
  realisations: Realisation[];
  /** The catalogue against the realisations (χ² for the statistics that have enough realisations). */
  comparison: StatsComparison | null;
  /** The statistics that got a χ² (N > bins + 2 for each, and for all of them jointly). */
  chi2: StatName[];
  /** With --jitter or --subsample: the realisations' per-bin mean and std on the catalogue's bins. */
  resampled: RealisationStats | null;
  timings: Record<string, number>;
}

/** The library options for a table read with `o`; one --periodic value is the side of a cube. */
function statsOptions(table: PointTable, o: StatsCliOptions): MstStatsOptions {
  const box = periodicBox(table.dim, o.periodic);
  return {
    dim: table.dim,
    coords: o.coords === 'radec' ? 'radec' : 'cartesian',
    ...(box ? { box } : {}),
    ...(o.minEdgeLength ? { minEdgeLength: o.minEdgeLength } : {}),
    ...(o.bins !== undefined || o.log ? { bins: cliBins(o) } : {}),
    normalise: !o.counts,
    backend: o.backend,
    threads: o.threads,
  };
}

/** --bins and --log as library bins: counts for l, b and √(1 − s); log10 spacing for l and b. */
function cliBins(o: StatsCliOptions): MstBins {
  const count = o.bins !== undefined ? { count: o.bins } : {};
  const log = o.log ? { log: true } : {};
  return {
    edgeLength: { ...count, ...log },
    branchLength: { ...count, ...log },
    ...(o.bins !== undefined ? { branchShape: { count: o.bins } } : {}),
  };
}

/** The statistics whose χ² the realisations support, jointly too: added in order while N > Σ bins + 2. */
export function chi2Statistics(h: MstHistograms, realisations: number): StatName[] {
  const chosen: StatName[] = [];
  let bins = 0;
  for (const name of STAT_NAMES) {
    const p = bins + h[name].x.length;
    if (realisations > p + 2) {
      chosen.push(name);
      bins = p;
    }
  }
  return chosen;
}

/** --jitter σ or σx,σy[,σz]: each finite and ≥ 0. */
export const sigmaList = (value: string): number[] =>
  value.split(',').map((s) => {
    const v = Number(s.trim());
    if (s.trim() === '' || !Number.isFinite(v) || v < 0) {
      throw new InputError(`--jitter: expected σ or σx,σy[,σz], each a finite number ≥ 0, got '${value}'.`);
    }
    return v;
  });

/**
 * --jitter / --subsample / --realisations / --seed together, before any file is read: one method, with k; not with
 * --compare (both make the realisations the catalogue is set against: run them as two commands).
 */
function checkResampling(o: StatsCliOptions): void {
  const method = o.jitter ? '--jitter' : o.subsample !== undefined ? '--subsample' : null;
  if (o.jitter && o.subsample !== undefined)
    throw new InputError('--jitter and --subsample are two kinds of realisation: give one of them.');
  if (!method) {
    if (o.realisations !== undefined)
      throw new InputError(`--realisations ${o.realisations} counts --jitter or --subsample realisations: give one.`);
    if (o.seed !== undefined)
      throw new InputError(`--seed ${o.seed} seeds --jitter or --subsample realisations: give one.`);
    return;
  }
  if (o.realisations === undefined) throw new InputError(`${method} needs --realisations <k>.`);
  if (o.compare?.length) {
    throw new InputError(
      `${method} and --compare both give the realisations the catalogue is set against: ` +
        'run them as two commands (or jitter each mock into its own file and --compare with those).',
    );
  }
  if (o.jitter && o.coords === 'radec') {
    throw new InputError(
      "--jitter moves positions in the file's units; with --coords radec (degrees on the sphere) it is not " +
        'supported: jitter Cartesian positions, or use --subsample.',
    );
  }
}

/**
 * Where the realisations are measured: here by default; a transport (issue 20: `--nats` workers) passes its own, and
 * how many it keeps in flight. Results are placed by index, so the output does not depend on the finishing order.
 */
export interface StatsRunners {
  /** One --compare file on the catalogue's bins (default: measureCompareFile here, one GPU context for all). */
  compare?: (file: string, index: number, bins: MstBins) => Promise<Realisation>;
  /** One --jitter / --subsample realisation (realisationStats' runOne; default: mstStats here). */
  realisation?: RunRealisation;
  /** Realisations measured at once (default 1). */
  concurrency?: number;
}

/**
 * One --compare file measured on the catalogue's `bins`: read with the same options, checked to have the
 * catalogue's `dim`, compared by its histograms only (on the GPU its tree stays there: arrays false).
 */
export async function measureCompareFile(
  other: string,
  o: StatsCliOptions,
  catalogue: { file: string; dim: number },
  bins: MstBins,
  env: { onProgress?: ProgressCallback; signal?: AbortSignal; gpu?: GpuContext } = {},
): Promise<Realisation> {
  env.onProgress?.(0, 'read');
  const tab = await readInputPoints(other, o);
  if (o.coords === 'radec' && (tab.dim === 2 || tab.dim === 3)) checkCelestial(tab.points, tab.dim, other, tab.columns);
  if (tab.dim !== catalogue.dim)
    throw new InputError(`${other}: ${plural(tab.dim, 'column')}, but ${catalogue.file} has ${catalogue.dim}.`);
  const r = await mstStats(tab.points, {
    ...statsOptions(tab, o),
    ...(env.gpu ? { gpu: env.gpu } : {}),
    bins,
    arrays: false,
    onProgress: env.onProgress,
    signal: env.signal,
  });
  return { file: other, n: r.n, numEdges: r.numEdges, numBranches: r.numBranches, histograms: r.histograms };
}

export async function computeStats(
  file: string,
  o: StatsCliOptions,
  progress?: ProgressCallback,
  signal?: AbortSignal,
  runners: StatsRunners = {},
): Promise<StatsRun> {
  checkResampling(o);
  // The catalogue and each realisation get an equal share of the fraction; a realisation's phases are prefixed.
  const compare = o.compare ?? [];
  const k = o.jitter || o.subsample !== undefined ? o.realisations! : compare.length;
  const share = 1 / (1 + k);
  const part = (k: number, prefix: string): ProgressCallback | undefined =>
    progress && ((f, phase) => progress(share * (k + f), phase === undefined ? undefined : prefix + phase));
  let t = performance.now();
  progress?.(0, 'read');
  const table = await readInputPoints(file, o);
  if (o.coords === 'radec' && (table.dim === 2 || table.dim === 3))
    checkCelestial(table.points, table.dim, file, table.columns);
  const timings: Record<string, number> = { 'io::read': performance.now() - t };
  const stats = await mstStats(table.points, { ...statsOptions(table, o), onProgress: part(0, ''), signal });
  Object.assign(timings, stats.timings);
  const realisations = new Array<Realisation>(compare.length);
  t = performance.now();
  if (compare.length > 0) {
    const bins = binsOf(stats.histograms);
    // Measured here: one GPU context for every file (the backend's fallback decided once).
    const shared = runners.compare ? null : await batchBackend('mstStats', o.backend);
    const local = shared ? { ...o, backend: shared.backend } : o;
    try {
      await runIndexed(compare.length, runners.concurrency ?? 1, signal, async (i) => {
        const other = compare[i];
        const onProgress = part(i + 1, `realisation ${i + 1}/${compare.length}: `);
        realisations[i] = runners.compare
          ? (onProgress?.(0, 'measure'), await runners.compare(other, i, bins))
          : await measureCompareFile(other, local, { file, dim: table.dim }, bins, {
              onProgress,
              signal,
              ...(shared?.gpu ? { gpu: shared.gpu } : {}),
            });
      });
    } finally {
      if (shared?.gpu) await shared.gpu.destroy();
    }
  }
  let resampled: RealisationStats | null = null;
  if (o.jitter || o.subsample !== undefined) {
    const sigma = o.jitter?.length === 1 ? o.jitter[0] : o.jitter;
    resampled = await realisationStats(
      table.points,
      {
        ...statsOptions(table, o),
        ...(sigma !== undefined ? { jitter: sigma } : { subsample: o.subsample }),
        realisations: o.realisations!,
        seed: o.seed ?? 0,
        catalogue: stats.histograms,
        ...(runners.concurrency ? { concurrency: runners.concurrency } : {}),
        onProgress: progressSpan(progress, share, 1),
        signal,
      },
      runners.realisation,
    );
    timings['stats::realisations'] = resampled.timings['stats::realisations'];
  }
  let comparison: StatsComparison | null = null;
  let chi2: StatName[] = [];
  if (realisations.length > 0) {
    timings['stats::realisations'] = performance.now() - t;
    t = performance.now();
    chi2 = chi2Statistics(stats.histograms, realisations.length);
    comparison = compareStats(
      stats.histograms,
      realisations.map((r) => r.histograms),
      { chi2 },
    );
    timings['stats::compare'] = performance.now() - t;
  }
  return { file, table, stats, realisations, comparison, chi2, resampled, timings };
}

/** Summaries of the five per-item arrays; the degree's also counts nodes per degree. */
function summaries(s: MstStats): Record<string, unknown> {
  return {
    degree: { ...summarise(s.degree), counts: degreeCounts(s.degree) },
    edgeLength: summarise(s.edgeLengths),
    branchLength: summarise(s.branchLengths),
    branchShape: summarise(s.branchShapes),
    branchEdgeCount: summarise(s.branchEdgeCounts),
  };
}

/**
 * The histograms as a long table: one row per bin of each statistic; with realisations (--jitter, --subsample) two
 * more columns, their mean and std of y per bin.
 */
function histogramColumns(h: MstHistograms, resampled: RealisationStats | null): Record<string, Column> {
  const rows = STAT_NAMES.reduce((k, name) => k + h[name].x.length, 0);
  const statistic = new Array<string>(rows);
  const cols = {
    lo: new Float64Array(rows),
    hi: new Float64Array(rows),
    x: new Float64Array(rows),
    count: new Float64Array(rows),
    y: new Float64Array(rows),
  };
  const moments = resampled ? { mean: new Float64Array(rows), std: new Float64Array(rows) } : null;
  let r = 0;
  for (const name of STAT_NAMES) {
    const hist = h[name];
    for (let i = 0; i < hist.x.length; i++, r++) {
      statistic[r] = name;
      cols.lo[r] = hist.edges[i];
      cols.hi[r] = hist.edges[i + 1];
      cols.x[r] = hist.x[i];
      cols.count[r] = hist.counts[i];
      cols.y[r] = hist.y[i];
      if (moments) {
        moments.mean[r] = resampled!.moments[name].mean[i];
        moments.std[r] = resampled!.moments[name].std[i];
      }
    }
  }
  // The CSV writer prints each cell with String(); a column of names goes through it like numbers do.
  return { statistic: statistic as unknown as Column, ...cols, ...moments };
}

function histogramNpy(h: MstHistograms, dir: string): NpyGroup {
  const arrays: Record<string, Column> = {};
  for (const name of STAT_NAMES) {
    arrays[`${name}_edges`] = h[name].edges;
    arrays[`${name}_x`] = h[name].x;
    arrays[`${name}_counts`] = h[name].counts;
    arrays[`${name}_y`] = h[name].y;
  }
  return { dir, arrays };
}

/** --jitter / --subsample: what was done, and the realisations' mean and std of y per bin of each statistic. */
function resampledJson(r: RealisationStats): Record<string, unknown> {
  const moments: Record<string, unknown> = {};
  for (const name of STAT_NAMES) {
    const { edges, x, mean, std } = r.moments[name];
    moments[name] = { edges, x, mean, std };
  }
  return {
    method: r.method,
    ...(r.method === 'jitter' ? { sigma: r.sigma } : { fraction: r.fraction }),
    realisations: r.realisations,
    seed: r.seed,
    seeds: 'realisation r (0-based) uses seed + r',
    values: r.catalogue.degree.normalised ? 'y (normalised to unit area)' : 'counts',
    histograms: moments,
  };
}

function resampledNpy(r: RealisationStats): NpyGroup {
  const arrays: Record<string, Column> = {};
  for (const name of STAT_NAMES) {
    arrays[`${name}_mean`] = r.moments[name].mean;
    arrays[`${name}_std`] = r.moments[name].std;
  }
  return { dir: 'realisations', arrays };
}

function comparisonNpy(c: StatsComparison): NpyGroup {
  const arrays: Record<string, Column> = {};
  for (const name of STAT_NAMES) {
    arrays[`${name}_mean`] = c[name].mean;
    arrays[`${name}_std`] = c[name].std;
    arrays[`${name}_ratio`] = c[name].ratio;
    arrays[`${name}_ratio_sigma`] = c[name].ratioSigma;
  }
  return { dir: 'compare', arrays };
}

export function statsPrintable(r: StatsRun, o: StatsCliOptions): Printable {
  const s = r.stats;
  const options = statsOptions(r.table, o);
  return {
    csv: () => histogramColumns(s.histograms, r.resampled),
    json: () => ({
      file: r.file,
      n: s.n,
      dim: r.table.dim,
      coords: options.coords,
      box: options.box ?? null,
      minEdgeLength: options.minEdgeLength ?? 0,
      backend: s.backend,
      numEdges: s.numEdges,
      numBranches: s.numBranches,
      summary: summaries(s),
      histograms: s.histograms,
      ...(r.comparison
        ? {
            realisations: r.realisations.map(({ histograms: _, ...rest }) => rest),
            chi2Statistics: r.chi2,
            comparison: r.comparison,
          }
        : {}),
      ...(r.resampled ? { resampling: resampledJson(r.resampled) } : {}),
      ...(o.raw
        ? {
            raw: {
              degree: s.degree,
              edgeSources: s.edgeSources,
              edgeTargets: s.edgeTargets,
              edgeLengths: s.edgeLengths,
              branchLengths: s.branchLengths,
              branchShapes: s.branchShapes,
              branchEdgeCounts: s.branchEdgeCounts,
              branchEnds: s.branchEnds,
              branchEndToEnd: s.branchEndToEnd,
            },
          }
        : {}),
      ...(o.timings ? { timings: r.timings } : {}),
    }),
    npy: () => [
      {
        dir: '',
        arrays: {
          degree: s.degree,
          edge_sources: s.edgeSources,
          edge_targets: s.edgeTargets,
          edge_lengths: s.edgeLengths,
          branch_lengths: s.branchLengths,
          branch_shapes: s.branchShapes,
          branch_edge_counts: s.branchEdgeCounts,
          branch_ends: s.branchEnds,
          branch_end_to_end: s.branchEndToEnd,
        },
        shapes: { branch_ends: [s.branchLengths.length, 2] },
      },
      histogramNpy(s.histograms, 'hist'),
      ...(r.comparison ? [comparisonNpy(r.comparison)] : []),
      ...(r.resampled ? [resampledNpy(r.resampled)] : []),
    ],
  };
}

const fmt = (v: number): string => (Number.isFinite(v) ? v.toPrecision(4) : String(v));

function logSummary(io: CliIo, r: StatsRun, where: string): void {
  const s = r.stats;
  const mean = (a: ArrayLike<number>) => fmt(summarise(a).mean);
  io.log(
    `stats: ${plural(s.n, 'point')} × ${r.table.dim} → ${plural(s.edgeLengths.length, 'edge')}, ` +
      `${plural(s.branchLengths.length, 'branch', 'branches')}; mean d ${mean(s.degree)}, ` +
      `l ${mean(s.edgeLengths)}, b ${mean(s.branchLengths)}, s ${mean(s.branchShapes)} (${s.backend} backend, ` +
      `${s.timings['stats::total'].toFixed(1)} ms) → ${where}`,
  );
  if (r.resampled) logResampled(io, r.resampled);
  const c = r.comparison;
  if (!c) return;
  const parts = STAT_NAMES.map((name) => {
    const chi = c[name].chi2;
    return chi
      ? `${name} χ² ${fmt(chi.chi2)} / ${chi.dof}`
      : `${name} (no χ²: needs N > ${s.histograms[name].x.length + 2})`;
  });
  const joint = c.joint ? `; joint χ² ${fmt(c.joint.chi2)} / ${c.joint.dof}` : '';
  io.log(`stats: against ${plural(c.realisations, 'realisation')}: ${parts.join(', ')}${joint}`);
}

/** What the realisations were, and per statistic how far the catalogue lies from their mean in their std. */
function logResampled(io: CliIo, x: RealisationStats): void {
  const what =
    x.method === 'jitter'
      ? `jitter σ ${Array.isArray(x.sigma) ? x.sigma.join(',') : x.sigma}`
      : `subsample ${x.fraction}`;
  const k = x.realisations;
  const seeds = k === 1 ? `seed ${x.seed}` : `seeds ${x.seed}…${x.seed + k - 1}`;
  const parts = STAT_NAMES.map((name) => {
    const m = x.moments[name];
    let most = 0;
    for (let i = 0; i < m.mean.length; i++) {
      const z = Math.abs(m.catalogue[i] - m.mean[i]) / m.std[i];
      if (Number.isFinite(z)) most = Math.max(most, z);
    }
    return `${name} ${fmt(most)}`;
  });
  io.log(
    `stats: ${plural(k, 'realisation')} (${what}, ${seeds}) on the catalogue's bins: per-bin mean and std in the output` +
      (k > 1 ? `; largest |catalogue − mean| / std over the bins: ${parts.join(', ')}` : ' (std needs k ≥ 2)'),
  );
}

/** The tree over the first two columns of the points read (edges coloured by length). */
function treePanel(r: StatsRun): MstTreePanel {
  const { table, stats: s } = r;
  const y = Math.min(1, table.dim - 1);
  return {
    points: table.points,
    dim: table.dim,
    edges: { sources: s.edgeSources, targets: s.edgeTargets, weights: s.edgeLengths },
    axisLabels: [table.columns[0], table.columns[y]],
  };
}

export function statsCommand(io: CliIo): Command {
  const cmd = new Command('stats')
    .description(
      "MiSTree's MST statistics (degree, edge length, branch length and shape) on the exact EMST: summaries and histograms",
    )
    .argument('<points>', POINTS_ARGUMENT)
    .option(
      '--coords <c>',
      'xyz: positions; radec: RA,Dec in degrees on the unit sphere (a third column: distance)',
      choice('--coords', ['xyz', 'radec'] as const),
      'xyz',
    )
    .option('--counts', "histograms of raw counts instead of MiSTree's unit-area normalisation")
    .option('--json', 'JSON output (as --format json): summaries, histograms and any comparison')
    .option('--raw', 'add the per-node, per-edge and per-branch arrays to the JSON output')
    .option(
      '--plot <file>',
      'write the 4-panel figure (d, l, b, √(1 − s); with --compare, --jitter or --subsample, ratio panels and 1σ/2σ bands) as .svg or .png, by the extension',
    )
    .option('--bins <n>', 'bins of l, b and √(1 − s) (default 100, 100, 50 as MiSTree)', integer('--bins', 1))
    .option(
      '--log',
      'l and b in log10-spaced bins from the smallest positive value, drawn on log axes per dex (clustered data)',
    )
    .option('--plot-tree-panel', 'the --plot figure gains a first panel: the tree over the first two columns')
    .option(
      '--compare <files...>',
      'realisations measured on the same bins: ratios, bands, χ² (Hartlap) where N > bins + 2',
    )
    .option(
      '--jitter <sigma>',
      'realisations of the catalogue with each coordinate moved by a seeded Gaussian of this σ (or σx,σy[,σz]); wrapped into a --periodic box',
      sigmaList,
    )
    .option(
      '--subsample <fraction>',
      'realisations of the catalogue keeping a seeded random fraction of its points, in (0, 1]',
      number('--subsample', (v) => v > 0 && v <= 1, 'a fraction in (0, 1]'),
    )
    .option(
      '--realisations <k>',
      "with --jitter or --subsample: k realisations, their per-bin mean and std on the catalogue's bins",
      integer('--realisations', 1),
    )
    .option(
      '--seed <s>',
      'with --jitter or --subsample: realisation r uses seed s + r (default 0)',
      integer('--seed', 0),
    );
  addBoxOptions(cmd);
  addPointInputOptions(cmd);
  addBackendOption(cmd);
  addThreadsOption(cmd);
  addOutputOptions(cmd);
  addNatsOptions(cmd, ': measure the --compare files or the realisations on `treeline worker` processes');
  return cmd
    .addHelpText(
      'after',
      [
        '',
        'Output: json (default; also with --json): summaries, histograms (edges, x, counts, y) and any comparison;',
        'csv: the histograms, one row per bin (statistic,lo,hi,x,count,y); npy: every array in -o, histograms in hist/.',
        '',
        'Examples:',
        '  $ treeline stats galaxies.csv --columns x,y,z --json > stats.json',
        '  $ treeline stats sky.csv --coords radec --columns ra,dec --plot mst.svg',
        '  $ treeline stats halos.npy --periodic 1000 --plot mst.svg --compare mock1.npy mock2.npy mock3.npy',
        '  $ treeline stats points.csv --min-edge-length 0.5 --format csv -o hist.csv',
        '  $ treeline stats clustered.npy --log --bins 40 --plot mst.png --plot-tree-panel',
        '  $ treeline stats halos.npy --periodic 1000 --jitter 0.5 --realisations 20 --seed 1 --plot jitter.svg',
        '  $ treeline stats galaxies.npy --subsample 0.5 --realisations 10 --format csv -o hist.csv',
        '  $ treeline stats halos.npy --compare mocks/*.npy --nats nats://127.0.0.1:4222 -o compare.json',
        '',
        '--jitter / --subsample: realisation r uses seed s + r (the same realisation whatever k is); json gains',
        'resampling {method, sigma | fraction, realisations, seed, histograms: {<statistic>: {edges, x, mean, std}}},',
        'csv the columns mean,std, npy realisations/<statistic>_{mean,std}.npy; --plot draws their mean with 1σ/2σ',
        'bands. Not with --compare (two kinds of realisations: run two commands).',
      ].join('\n'),
    )
    .action(async (file: string, o: StatsCliOptions) => {
      if (o.json && o.format && o.format !== 'json')
        throw new InputError(`--json conflicts with --format ${o.format}.`);
      const format = o.json ? 'json' : (o.format ?? (o.output?.toLowerCase().endsWith('.csv') ? 'csv' : 'json'));
      const opts = { ...o, format } as StatsCliOptions;
      const plot = o.plot === undefined ? null : plotFormat(o.plot);
      if (o.plotTreePanel && !o.plot)
        throw new InputError('--plot-tree-panel adds a panel to --plot: give --plot <file> too.');
      const outputs = [
        { path: o.output, option: '-o', kind: outputKind(opts) },
        { path: o.plot, option: '--plot' },
      ];
      const { r, where } = await runCommand(io, 'stats', { verbose: o.verbose, outputs }, async (run) => {
        if (o.nats && !o.compare?.length && !o.jitter && o.subsample === undefined)
          throw new InputError('--nats measures realisations: give --compare files, or --jitter/--subsample.');
        const nats = o.nats ? await statsNatsRunners(opts, file, io.log, run.signal) : null;
        let r: StatsRun;
        try {
          r = await computeStats(file, opts, run.progress.onProgress, run.signal, nats?.runners);
        } finally {
          await nats?.close();
        }
        run.progress.phase('write', 1);
        const where = await writeOutput(io, opts, statsPrintable(r, opts), run);
        if (o.plot && plot) {
          run.progress.phase(`plot (${plot})`, 1);
          const x = r.resampled;
          const labels = {
            catalogue: basename(file),
            ...(r.realisations.length ? { realisations: `realisations (mean of ${r.realisations.length})` } : {}),
            ...(x
              ? { realisations: `${x.method === 'jitter' ? 'jittered' : 'subsampled'} (mean of ${x.realisations})` }
              : {}),
          };
          const svg = mstPlotSvg({
            catalogue: r.stats.histograms,
            realisations: x ? x.histograms : r.realisations.map((x) => x.histograms),
            labels,
            ...(o.log ? { log: true } : {}),
            ...(o.plotTreePanel ? { tree: treePanel(r) } : {}),
          });
          await run.outputs.write(o.plot, [await plotBytes(svg, plot)], run.signal);
        }
        return { r, where };
      });
      if (o.plot) io.log(`stats: figure written to ${o.plot}`);
      logSummary(io, r, where);
      if (o.timings) logTimings(io, r.timings);
    });
}
