/**
 * `treeline emst <points>`: the exact Euclidean MST (or with --min-samples the mutual-reachability MST) of a point
 * file, as edges (source, target, weight) in the canonical (weight, source, target) order. Compute (`computeEmst`)
 * and printing (`emstPrintable`) stay apart.
 */
import { Command } from 'commander';
import { emstFor, type EmstResult } from '../emst/emst.js';
import { warmEmstPipelines } from '../emst/pipeline.js';
import { prepareEdgeArrays } from '../emst/readback.threads.js';
import { resolveThreads } from '../host/threads.js';
import { startGpuAhead } from './gpuahead.js';
import type { PointTable } from '../io/points.js';
import type { CliIo } from './program.js';
import type { ProgressCallback } from '../progress.js';
import { metricOf } from '../emst/metric.js';
import { runCommand } from './run.js';
import { InputError } from '../errors.js';
import type { EdgeSink } from '../distributed/types.js';
import { NpyEdgeSink } from '../io/write.sink.js';
import { DEFAULT_PARTITIONS, emstOnNats } from '../distributed/coordinator.js';
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
  addBackendOption,
  addThreadsOption,
  addOutputOptions,
  addPointInputOptions,
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
  type OutputOptions,
  type Printable,
  addBoxOptions,
  periodicBox,
} from './options.js';

export interface EmstCliOptions extends InputOptions, OutputOptions, NatsCliOptions {
  minSamples: number;
  alpha: number;
  backend: Backend;
  /** CPU backend threads (undefined: the default). */
  threads?: number;
  periodic?: number[];
  minEdgeLength?: number;
  /** --nats: spatial partitions and the run's id. */
  partitions?: number;
  runId?: string;
}

export interface EmstRun {
  table: PointTable;
  tree: EmstResult;
  timings: Record<string, number>;
}

/** Σ weights in float64, in edge (canonical) order: the total weight every output reports. */
function totalWeightOf(weights: Float32Array): number {
  let total = 0;
  for (let i = 0; i < weights.length; i++) total += weights[i];
  return total;
}

/** `sink`: with --nats, where the tree may be written as it is merged (the .npy files: NpyEdgeSink). */
export async function computeEmst(
  file: string,
  o: EmstCliOptions,
  progress?: ProgressCallback,
  signal?: AbortSignal,
  log?: (line: string) => void,
  sink?: EdgeSink,
): Promise<EmstRun> {
  if (o.nats) return computeEmstOnNats(file, o, progress, signal, log, sink);
  const t0 = performance.now();
  progress?.(0, 'read');
  // The device is created, and the pipelines compiled, while the file is read (gpuahead.ts).
  const metric = metricOf(o.minSamples, o.alpha);
  const ahead = startGpuAhead('emst', o.backend, file, o, (ctx, { n, dim }) =>
    Promise.all([warmEmstPipelines(ctx, n, dim, metric, o.periodic !== undefined), ctx.warmTransfers()]).then(
      () => undefined,
    ),
  );
  let tree: EmstResult;
  let table: PointTable;
  let tRead: number;
  try {
    table = await readInputPoints(file, o);
    tRead = performance.now() - t0;
    const box = periodicBox(table.dim, o.periodic);
    const { backend, gpu } = await ahead.settle();
    const m = Math.max(0, table.n - 1);
    // A spanning tree's arrays, touched by worker threads once the points are on the GPU (readback.threads.ts).
    const prepared =
      gpu && !o.minEdgeLength ? await prepareEdgeArrays(m, await resolveThreads(o.threads, table.n, 16)) : null;
    tree = await emstFor(
      'emst',
      table.points,
      {
        dim: table.dim,
        minSamples: o.minSamples,
        alpha: o.alpha,
        ...(box ? { box } : {}),
        ...(o.minEdgeLength ? { minEdgeLength: o.minEdgeLength } : {}),
        backend,
        ...(gpu ? { gpu } : {}),
        threads: o.threads,
        onProgress: progress,
        signal,
      },
      prepared ? { readInto: prepared.into, afterUpload: prepared.start } : {},
    );
  } finally {
    await ahead.dispose();
  }
  return { table, tree, timings: { 'io::read': tRead, ...tree.timings } };
}

/** `--nats`: the partitioned exact EMST on `treeline worker` processes (src/distributed/coordinator.ts). */
async function computeEmstOnNats(
  file: string,
  o: EmstCliOptions,
  progress?: ProgressCallback,
  signal?: AbortSignal,
  log?: (line: string) => void,
  sink?: EdgeSink,
): Promise<EmstRun> {
  if (o.periodic || o.minEdgeLength) throw new InputError('--nats supports neither --periodic nor --min-edge-length.');
  const t0 = performance.now();
  progress?.(0, 'read');
  // In shared memory where the file streams in (.npy, .bin): the coordinator's threads split them without a copy.
  const table = await readInputPoints(file, o, { shared: true });
  const tRead = performance.now() - t0;
  const r = await emstOnNats(table.points, {
    dim: table.dim,
    minSamples: o.minSamples,
    alpha: o.alpha,
    onProgress: progress,
    signal,
    ...(sink ? { sink } : {}),
    cluster: {
      ...natsOptionsOf(o, 'treeline emst'),
      partitions: o.partitions,
      runId: o.runId,
      localDir: localDirOf(o),
      ...(o.natsMethod ? { method: o.natsMethod } : {}),
      log,
    },
  });
  log?.(
    `emst: run ${r.runId}${r.resumed ? ' (resumed)' : ''}: ${r.stats.partitions} partitions, ` +
      `${r.stats.pairs !== undefined ? `${r.stats.pairs} pairs (${r.stats.candidates} edges kept)` : `${r.stats.rounds} rounds`}, ` +
      `${r.traffic.tasks} tasks (${r.traffic.reused} answered from stored results), ` +
      `${(r.traffic.bytesSent / 1e6).toFixed(1)} MB sent, ${(r.traffic.bytesReceived / 1e6).toFixed(1)} MB received`,
  );
  const tree: EmstResult = { sources: r.sources, targets: r.targets, weights: r.weights, backend: 'cpu' };
  return {
    table,
    tree,
    timings: { 'io::read': tRead, ...r.timings, 'emst::total': r.timings['distributed::total'] },
  };
}

/** `totalWeight`: asked for by the json output only (the others write the arrays alone). */
export function emstPrintable(r: EmstRun, o: EmstCliOptions, totalWeight: () => number): Printable {
  const { sources, targets, weights } = r.tree;
  return {
    csv: () => ({ source: sources, target: targets, weight: weights }),
    json: () => ({
      n: r.table.n,
      dim: r.table.dim,
      minSamples: o.minSamples,
      alpha: o.alpha,
      backend: r.tree.backend,
      numEdges: weights.length,
      totalWeight: totalWeight(),
      sources,
      targets,
      weights,
      ...(o.timings ? { timings: r.timings } : {}),
    }),
    npy: () => [{ dir: '', arrays: { sources, targets, weights } }],
  };
}

export function emstCommand(io: CliIo): Command {
  const cmd = new Command('emst')
    .description(
      'exact Euclidean minimum spanning tree of a point file (or the mutual-reachability MST with --min-samples)',
    )
    .argument('<points>', POINTS_ARGUMENT)
    .option(
      '--min-samples <m>',
      'mutual reachability with core distance to the m-th neighbour, the point excluded (1: Euclidean)',
      integer('--min-samples', 1),
      1,
    )
    .option(
      '--alpha <a>',
      'mutual reachability divides distances by alpha',
      number('--alpha', (v) => v > 0 && Number.isFinite(v), 'a finite number > 0'),
      1,
    );
  addBoxOptions(cmd);
  addPointInputOptions(cmd);
  addBackendOption(cmd);
  addThreadsOption(cmd);
  addOutputOptions(cmd);
  addNatsOptions(cmd, ': the partitioned exact EMST on `treeline worker` processes (the same edges)');
  cmd
    .option(
      '--partitions <k>',
      `spatial partitions with --nats (default ${DEFAULT_PARTITIONS})`,
      integer('--partitions', 1),
    )
    .option('--run-id <id>', 'with --nats: name the run; the same id resumes it after an interruption');
  addLocalDirOption(cmd);
  addNatsMethodOption(cmd);
  return cmd
    .addHelpText(
      'after',
      [
        '',
        'Output: csv: one row per edge (source,target,weight), sources < targets, sorted by (weight, source, target);',
        'json: n, dim, backend, numEdges, totalWeight and the arrays sources, targets, weights; npy: sources.npy,',
        'targets.npy, weights.npy in -o.',
        '',
        'Examples:',
        '  $ treeline emst datasets/blobs2d-2000.csv -o edges.csv',
        '  $ treeline emst datasets/normal3d-5000.npy --format json --timings > tree.json',
        '  $ treeline emst points.csv --columns x,y --min-samples 5 --format npy -o tree/',
        '  $ treeline emst points.f32 --dim 3 --backend cpu',
        '  $ treeline emst halos.npy --periodic 1000 -o edges.csv     # the EMST of a periodic box',
        '  $ treeline emst big.npy --nats nats://127.0.0.1:4222 --partitions 16 --run-id big1 --format npy -o tree/',
      ].join('\n'),
    )
    .action(async (file: string, o: EmstCliOptions) => {
      checkNatsOnly(o);
      const outputs = [{ path: o.output, option: '-o', kind: outputKind(o) }];
      const { r, where, totalWeight } = await runCommand(io, 'emst', { verbose: o.verbose, outputs }, async (run) => {
        // --nats with --format npy -o: the 'pairs' merge writes the three files as it merges (io/write.sink.ts);
        // where it did not (another method, a merge on one thread) they are written below as for any run.
        const sink =
          o.nats && o.output && outputKind(o) === 'folder' ? new NpyEdgeSink(run.outputs, o.output) : undefined;
        try {
          const r = await computeEmst(file, o, run.progress.onProgress, run.signal, io.log, sink);
          run.progress.phase('write', 1);
          const tWrite = performance.now();
          // The total weight is summed while the files are written where it can be (.npy: the writes and their
          // fsyncs run on libuv's threads; one float64 pass in order over 2·10^8 weights is 0.35–0.7 s on the H100
          // hosts, which a distributed run's coordinator spent before the write until session 16).
          let total: number | undefined;
          const sum = (): number => (total ??= totalWeightOf(r.tree.weights));
          if (sink && !sink.written) await sink.abandon();
          const writing = sink?.written
            ? sink.finish().then(() => o.output!)
            : writeOutput(io, o, emstPrintable(r, o, sum), run);
          sum();
          const where = await writing;
          // (Not in --format json's own timings: those are written before this ends. With the sink: its fsyncs.)
          r.timings['io::write'] = performance.now() - tWrite;
          return { r, where, totalWeight: sum() };
        } finally {
          await sink?.close();
        }
      });
      const forest = r.tree.weights.length < Math.max(r.table.n - 1, 0);
      const kind =
        metricOf(o.minSamples, o.alpha).kind === 'mutual-reachability'
          ? 'mutual-reachability MST'
          : forest
            ? 'minimum spanning forest'
            : 'EMST';
      io.log(
        `emst: ${plural(r.table.n, 'point')} × ${r.table.dim} → ${kind} of ${plural(r.tree.weights.length, 'edge')}, total weight ` +
          `${totalWeight.toPrecision(8)} (${r.tree.backend} backend, ${r.timings['emst::total']?.toFixed(1)} ms) → ${where}`,
      );
      if (o.timings) logTimings(io, r.timings);
    });
}
