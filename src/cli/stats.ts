/**
 * `treeline stats <points>`: MiSTree's MST statistics (degree, edge length, branch length, branch shape) on the exact
 * EMST of a point file — summaries and histograms, optionally the raw arrays, the 4-panel SVG figure, and a
 * comparison against realisations (other files measured on the same bins). Compute (`computeStats`) and printing
 * (`statsPrintable`) stay apart.
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
import { summarise } from '../stats/summary.js';
import { STAT_NAMES, type MstHistograms, type StatName } from '../stats/types.js';
import type { CliIo } from './program.js';
import type { ProgressCallback } from '../progress.js';
import { plotBytes, plotFormat } from './plot.js';
import { runCommand } from './run.js';
import {
  addBackendOption,
  addThreadsOption,
  addOutputOptions,
  addPointInputOptions,
  choice,
  integer,
  logTimings,
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

export interface StatsCliOptions extends InputOptions, OutputOptions {
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

export async function computeStats(
  file: string,
  o: StatsCliOptions,
  progress?: ProgressCallback,
  signal?: AbortSignal,
): Promise<StatsRun> {
  // The catalogue and each realisation get an equal share of the fraction; a realisation's phases are prefixed.
  const compare = o.compare ?? [];
  const share = 1 / (1 + compare.length);
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
  const realisations: Realisation[] = [];
  t = performance.now();
  for (const [i, other] of compare.entries()) {
    const onProgress = part(i + 1, `realisation ${i + 1}/${compare.length}: `);
    onProgress?.(0, 'read');
    const tab = await readInputPoints(other, o);
    if (o.coords === 'radec' && (tab.dim === 2 || tab.dim === 3))
      checkCelestial(tab.points, tab.dim, other, tab.columns);
    if (tab.dim !== table.dim)
      throw new InputError(`${other}: ${plural(tab.dim, 'column')}, but ${file} has ${table.dim}.`);
    // A realisation is compared by its histograms only: on the GPU its tree stays there (arrays: false).
    const r = await mstStats(tab.points, {
      ...statsOptions(tab, o),
      bins: binsOf(stats.histograms),
      arrays: false,
      onProgress,
      signal,
    });
    realisations.push({
      file: other,
      n: r.n,
      numEdges: r.numEdges,
      numBranches: r.numBranches,
      histograms: r.histograms,
    });
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
  return { file, table, stats, realisations, comparison, chi2, timings };
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

/** The histograms as a long table: one row per bin of each statistic. */
function histogramColumns(h: MstHistograms): Record<string, Column> {
  const rows = STAT_NAMES.reduce((k, name) => k + h[name].x.length, 0);
  const statistic = new Array<string>(rows);
  const cols = {
    lo: new Float64Array(rows),
    hi: new Float64Array(rows),
    x: new Float64Array(rows),
    count: new Float64Array(rows),
    y: new Float64Array(rows),
  };
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
    }
  }
  // The CSV writer prints each cell with String(); a column of names goes through it like numbers do.
  return { statistic: statistic as unknown as Column, ...cols };
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
    csv: () => histogramColumns(s.histograms),
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
      'write the 4-panel figure (d, l, b, √(1 − s); with --compare, ratio panels and 1σ/2σ bands) as .svg or .png, by the extension',
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
    );
  addBoxOptions(cmd);
  addPointInputOptions(cmd);
  addBackendOption(cmd);
  addThreadsOption(cmd);
  addOutputOptions(cmd);
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
        const r = await computeStats(file, opts, run.progress.onProgress, run.signal);
        run.progress.phase('write', 1);
        const where = await writeOutput(io, opts, statsPrintable(r, opts), run);
        if (o.plot && plot) {
          run.progress.phase(`plot (${plot})`, 1);
          const labels = {
            catalogue: basename(file),
            ...(r.realisations.length ? { realisations: `realisations (mean of ${r.realisations.length})` } : {}),
          };
          const svg = mstPlotSvg({
            catalogue: r.stats.histograms,
            realisations: r.realisations.map((x) => x.histograms),
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
