/**
 * `treeline mst <graph>`: the minimum spanning forest of a graph file (MatrixMarket, DIMACS .gr, ECL .egr, edge
 * lists), its edges in the canonical (weight, edge id) order, the total weight and the number of components.
 * Compute (`graphMstFromFile`, src/graph/file.ts) and printing (`mstPrintable`) stay apart.
 */
import { Command } from 'commander';
import { graphMstFromFile, forestArrays, forestColumns, forestJson, type GraphFileMst } from '../graph/file.js';
import type { GraphFormat } from '../io/graph.js';
import type { Column } from '../io/write.js';
import { InputError } from '../errors.js';
import type { CliIo } from './program.js';
import type { ProgressCallback } from '../progress.js';
import { runCommand } from './run.js';
import {
  addBackendOption,
  addOutputOptions,
  choice,
  graphFormatsHelp,
  logTimings,
  outputKind,
  plural,
  requireFile,
  resolveFormat,
  writeOutput,
  type Backend,
  type OutputOptions,
  type Printable,
} from './options.js';

const GRAPH_FORMATS = ['mtx', 'gr', 'egr', 'edgelist', 'csv'] as const;

export interface MstCliOptions extends OutputOptions {
  inputFormat?: GraphFormat;
  oneBased?: boolean;
  labels?: boolean;
  backend: Backend;
}

export interface MstRun {
  file: string;
  forest: GraphFileMst;
  timings: Record<string, number>;
}

export async function computeMst(file: string, o: MstCliOptions, progress?: ProgressCallback): Promise<MstRun> {
  await requireFile(file);
  const t0 = performance.now();
  const forest = await graphMstFromFile(file, {
    format: o.inputFormat,
    oneBased: !!o.oneBased,
    labels: !!o.labels,
    backend: o.backend,
    onProgress: progress,
  });
  return { file, forest, timings: { 'graph::total': performance.now() - t0 } };
}

export function mstPrintable(r: MstRun, o: MstCliOptions): Printable {
  const f = r.forest;
  return {
    csv: () => forestColumns(f.result) as Record<string, Column>,
    json: () => ({
      numVertices: f.numVertices,
      numInputEdges: f.inputEdges,
      ...forestJson(f.result),
      ...(o.timings ? { timings: r.timings } : {}),
    }),
    npy: () => [{ dir: '', arrays: forestArrays(f.result) as Record<string, Column> }],
  };
}

export function mstCommand(io: CliIo): Command {
  const cmd = new Command('mst')
    .description('minimum spanning forest of a graph file: forest edges, total weight, component count')
    .argument('<graph>', 'graph file, in any format listed below (chosen by extension, or --input-format)')
    .option(
      '--input-format <fmt>',
      `read as ${GRAPH_FORMATS.join(' | ')} whatever the extension`,
      choice('--input-format', GRAPH_FORMATS),
    )
    .option('--one-based', 'edge-list vertex ids start at 1')
    .option('--labels', "also output each vertex's component (its smallest vertex); json and npy only")
    .addHelpText('after', graphFormatsHelp());
  addBackendOption(cmd);
  addOutputOptions(cmd);
  return cmd
    .addHelpText(
      'after',
      [
        '',
        'Output: csv: edge_id,source,target,weight per forest edge (edge_id: the id of the input edge), sorted by',
        '(weight, edge id); the total weight and component count go to stderr (and into json: numEdges, numComponents,',
        'totalWeight, edgeIds, sources, targets, weights); npy: edge_ids, sources, targets, weights (.npy) in -o.',
        '',
        'Examples:',
        '  $ treeline mst road.gr -o forest.csv',
        '  $ treeline mst graph.mtx --format json --labels > forest.json',
        '  $ treeline mst edges.txt --one-based --backend cpu --format npy -o forest/',
      ].join('\n'),
    )
    .action(async (file: string, o: MstCliOptions) => {
      if (o.labels && resolveFormat(o) === 'csv')
        throw new InputError('--labels: component labels need --format json or npy.');
      const outputs = [{ path: o.output, option: '-o', kind: outputKind(o) }];
      const { r, where } = await runCommand(io, 'mst', { verbose: o.verbose, outputs }, async (run) => {
        const r = await computeMst(file, o, run.progress.onProgress);
        run.progress.phase('write', 1);
        return { r, where: await writeOutput(io, o, mstPrintable(r, o), run) };
      });
      const f = r.forest;
      io.log(
        `mst: ${plural(f.numVertices, 'vertex', 'vertices')}, ${plural(f.inputEdges, 'edge')} → forest of ` +
          `${plural(f.result.edgeIds.length, 'edge')}, total weight ${f.result.totalWeight}, ` +
          `${plural(f.result.components, 'component')} (${f.result.backend} backend, ${r.timings['graph::total'].toFixed(1)} ms) → ${where}`,
      );
      if (o.timings) logTimings(io, r.timings);
    });
}
