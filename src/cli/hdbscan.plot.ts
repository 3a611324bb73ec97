/**
 * `treeline hdbscan … --plot clusters.svg --plot-tree tree.png --plot-dendrogram linkage.svg` (issue 21): the
 * pictures of a fit, each in the format its extension names (plot.ts). The scatter colours the first clustering
 * (the first --min-cluster-size) over two columns of the input (`--plot-columns`, names or 0-based indices; default
 * the first two), optionally with the mutual-reachability MST under the points (`--plot-mst`). Paths are checked
 * with the other outputs before anything is computed and written through the run's atomic outputs.
 */
import type { Command } from 'commander';
import { condensedTreeSvg, dendrogramSvg } from '../cluster/plot.js';
import { InputError } from '../errors.js';
import { scatterSvg } from '../plot/points.js';
import type { HdbscanRun } from './hdbscan.js';
import { integer } from './options.js';
import { plotBytes, plotFormat } from './plot.js';
import type { CommandRun, OutputPath } from './run.js';

export interface HdbscanPlotOptions {
  plot?: string;
  plotMst?: boolean;
  plotColumns?: string[];
  plotTree?: string;
  plotDendrogram?: string;
  plotLeaves?: number;
}

const columnPair = (value: string): string[] => {
  const list = value.split(',').map((s) => s.trim());
  if (list.length !== 2 || list.some((s) => s === ''))
    throw new InputError(`--plot-columns: expected two column names or 0-based indices, got '${value}'.`);
  return list;
};

export function addHdbscanPlotOptions(cmd: Command): Command {
  return cmd
    .option(
      '--plot <file>',
      'write a scatter of the clusters (of the first --min-cluster-size; noise grey, a legend) as .svg or .png, by the extension',
    )
    .option('--plot-mst', 'draw the mutual-reachability MST under the points of --plot, edges coloured by weight')
    .option(
      '--plot-columns <x,y>',
      'the two columns --plot draws: names or 0-based indices of the points read (default: the first two)',
      columnPair,
    )
    .option(
      '--plot-tree <file>',
      "write the condensed tree (hdbscan's condensed_tree_.plot(select_clusters=True)) as .svg or .png",
    )
    .option('--plot-dendrogram <file>', "write the single-linkage dendrogram (hdbscan's single_linkage_tree_.plot())")
    .option(
      '--plot-leaves <p>',
      'leaves of --plot-dendrogram: the last p − 1 merges (default 30)',
      integer('--plot-leaves', 2),
    );
}

/** The plot paths as outputs to check first; their extensions are checked here (InputError before any work). */
export function hdbscanPlotOutputs(o: HdbscanPlotOptions): OutputPath[] {
  const list: OutputPath[] = [
    { path: o.plot, option: '--plot' },
    { path: o.plotTree, option: '--plot-tree' },
    { path: o.plotDendrogram, option: '--plot-dendrogram' },
  ];
  for (const p of list) if (p.path !== undefined) plotFormat(p.path, p.option);
  if (o.plotMst && !o.plot) throw new InputError('--plot-mst draws on the --plot figure: give --plot <file> too.');
  if (o.plotColumns && !o.plot)
    throw new InputError('--plot-columns chooses the columns of --plot: give --plot <file> too.');
  return list;
}

/** The index of column `name` (a header name, else a 0-based index) in the table read. */
function columnIndex(name: string, columns: string[]): number {
  const byName = columns.indexOf(name);
  if (byName >= 0) return byName;
  const i = Number(name);
  if (Number.isInteger(i) && i >= 0 && i < columns.length) return i;
  throw new InputError(
    `--plot-columns: no column '${name}' among ${columns.length} (${columns.join(', ')}); give a name or an index 0 … ${columns.length - 1}.`,
  );
}

/** Writes the figures asked for; returns the paths written. */
export async function writeHdbscanPlots(r: HdbscanRun, o: HdbscanPlotOptions, run: CommandRun): Promise<string[]> {
  const written: string[] = [];
  const first = r.clusterings[0].result;
  const put = async (path: string | undefined, option: string, draw: () => string): Promise<void> => {
    if (path === undefined) return;
    const format = plotFormat(path, option);
    run.progress.phase(`plot ${option} (${format})`, 1);
    await run.outputs.write(path, [await plotBytes(draw(), format)], run.signal);
    written.push(path);
  };
  const mcs = `minClusterSize ${r.clusterings[0].minClusterSize}`;
  await put(o.plot, '--plot', () => {
    const { table } = r;
    const cols = o.plotColumns?.map((c) => columnIndex(c, table.columns)) ?? [0, Math.min(1, table.dim - 1)];
    return scatterSvg(table.points, {
      dim: table.dim,
      columns: [cols[0], cols[1]],
      labels: first.labels,
      axisLabels: [table.columns[cols[0]], table.columns[cols[1]]],
      ...(o.plotMst ? { edges: r.fit.mst, edgeLabel: 'mutual reachability distance' } : {}),
      title: `HDBSCAN* (${mcs}): ${first.selectedClusters.length} clusters`,
    });
  });
  await put(o.plotTree, '--plot-tree', () =>
    condensedTreeSvg(first.condensedTree, {
      selectedClusters: first.selectedClusters,
      title: `condensed tree (${mcs})`,
    }),
  );
  await put(o.plotDendrogram, '--plot-dendrogram', () =>
    dendrogramSvg(r.fit.singleLinkage!, {
      p: o.plotLeaves,
      distanceLabel: 'mutual reachability distance',
      title: 'single-linkage tree',
    }),
  );
  return written;
}
