/**
 * `treeline hdbscan a.npy b.npy … -o outdir/` (issue 20 §3): several point files clustered with the same options in
 * one call, one GPU context for all of them (batchBackend, src/gpu/fallback.ts), each output written into outdir/
 * under its input's name — `<outdir>/<name>.csv` or `.json` (the format as for one file: --format, else csv), or the
 * folder `<outdir>/<name>/` of .npy arrays with --format npy (what `-o <name>/` holds for one file). Each file's
 * output is renamed into place when that file is done (AtomicOutputs, src/io/write.ts): an interrupted or failed
 * batch keeps the files finished before it and never leaves a partial one. One input keeps the single-file command.
 *
 * `hdbscanFile` is one file's step — read, cluster, write — which a worker can run on its own (issue 20 §1).
 */
import { basename, extname, join } from 'node:path';
import { statSync } from 'node:fs';
import { InputError } from '../errors.js';
import { batchBackend } from '../gpu/fallback.js';
import type { GpuContext } from '../gpu/context.js';
import { AtomicOutputs } from '../io/write.js';
import { progressSpan, type ProgressCallback } from '../progress.js';
import { runIndexed } from '../stats/realisations.js';
import { computeHdbscan, hdbscanPrintable, logHdbscanRun, type HdbscanCliOptions, type HdbscanRun } from './hdbscan.js';
import { plural, resolveFormat, writeOutput } from './options.js';
import type { CliIo } from './program.js';
import { runCommand } from './run.js';

/** One input and where its output goes: a file (csv, json) or a folder (npy). */
export interface BatchItem {
  input: string;
  output: string;
}

/** Options that name one file: with several inputs they would be overwritten by each, so they are refused. */
const SINGLE_FILE_OPTIONS: [keyof HdbscanCliOptions, string][] = [
  ['saveModel', '--save-model'],
  ['centersOutput', '--centers-output'],
  ['plot', '--plot'],
  ['plotTree', '--plot-tree'],
  ['plotDendrogram', '--plot-dendrogram'],
];

/**
 * Each input's output inside `outdir`, named after the input without its extension; checked before anything is
 * read: -o given and not a file, no option that names one file, every input a file, no two inputs of one name.
 */
export function batchOutputs(files: string[], o: HdbscanCliOptions): BatchItem[] {
  const outdir = o.output;
  if (!outdir) {
    throw new InputError(
      `hdbscan with ${plural(files.length, 'input file')} writes one output per file: give a folder with -o <dir>/.`,
    );
  }
  if (statSync(outdir, { throwIfNoEntry: false })?.isFile()) {
    throw new InputError(
      `-o ${outdir}: with ${plural(files.length, 'input file')} -o names a folder (one output per file), but it is a file.`,
    );
  }
  for (const [key, flag] of SINGLE_FILE_OPTIONS) {
    if (o[key] !== undefined && o[key] !== false) {
      throw new InputError(
        `${flag} names one file, but ${plural(files.length, 'input file')} were given: run hdbscan once per file for ${flag}.`,
      );
    }
  }
  // A missing input is found now, not after the files before it have been clustered.
  for (const input of files) {
    const s = statSync(input, { throwIfNoEntry: false });
    if (!s) throw new InputError(`${input}: no such file.`);
    if (!s.isFile()) throw new InputError(`${input}: not a file.`);
  }
  const format = resolveFormat(o);
  const byName = new Map<string, string>();
  return files.map((input) => {
    const name = basename(input, extname(input));
    const other = byName.get(name);
    if (other !== undefined) {
      throw new InputError(
        `${other} and ${input} would both write ${name}${format === 'npy' ? '/' : `.${format}`} in ${outdir}: ` +
          'give inputs with distinct names.',
      );
    }
    byName.set(name, input);
    return { input, output: join(outdir, format === 'npy' ? name : `${name}.${format}`) };
  });
}

/** What one file's step runs with: the GPU context shared by the batch, the signal, where progress goes. */
export interface HdbscanFileEnv {
  /** The batch's GPU context (not destroyed here); with backend 'cpu' none. */
  gpu?: GpuContext;
  signal?: AbortSignal;
  progress?: ProgressCallback;
  warn?: (message: string) => void;
  /** Where `threads` is absent: the threads for the file's n points (a worker's share of its host); else the default. */
  threadsFor?: (n: number) => Promise<number | undefined>;
  /** The threads the file's read takes (a worker's share of its host, or its --threads); else the default. */
  readThreads?: number;
}

/**
 * One file of a batch: clusters `item.input` with the options `o` (its -o replaced by `item.output`) and writes the
 * result there, committed when written (an existing output is replaced only by a complete one).
 */
export async function hdbscanFile(
  io: CliIo,
  item: BatchItem,
  o: HdbscanCliOptions,
  env: HdbscanFileEnv = {},
): Promise<{ run: HdbscanRun; where: string }> {
  const own = { ...o, output: item.output };
  const outputs = new AtomicOutputs();
  try {
    const { progress, signal, warn, gpu, threadsFor, readThreads } = env;
    const run = await computeHdbscan(item.input, own, progress, signal, warn, gpu, threadsFor, readThreads);
    outputs.mkdir(join(item.output, '..'));
    const where = await writeOutput(io, own, hdbscanPrintable(run, own), { outputs, signal: env.signal });
    await outputs.commit();
    return { run, where };
  } catch (e) {
    outputs.discard();
    throw e;
  }
}

/**
 * Where the files are clustered: here by default; a transport (issue 20: `--nats` workers) passes its own and how
 * many files it keeps in flight. A runner writes `item.output` itself and returns the summary lines for stderr.
 */
export interface HdbscanBatchRunners {
  file?: (item: BatchItem, o: HdbscanCliOptions, env: { signal?: AbortSignal }) => Promise<string[]>;
  /** Files in flight at once (default 1). */
  concurrency?: number;
}

/** The batch: every file through hdbscanFile (one GPU context) or the runner, a summary per file on stderr. */
export async function hdbscanBatch(
  io: CliIo,
  files: string[],
  o: HdbscanCliOptions,
  runners: HdbscanBatchRunners = {},
): Promise<void> {
  const items = batchOutputs(files, o);
  const outputs = [{ path: o.output, option: '-o', kind: 'folder' as const }];
  await runCommand(io, 'hdbscan', { verbose: o.verbose, outputs }, async (run) => {
    const log = (m: string): void => run.progress.log(m);
    const shared = runners.file ? null : await batchBackend('hdbscan', o.backend);
    try {
      const each = shared ? { ...o, backend: shared.backend } : o;
      let done = 0;
      await runIndexed(items.length, runners.concurrency ?? 1, run.signal, async (i) => {
        const item = items[i];
        const prefix = `file ${i + 1}/${items.length} (${basename(item.input)}): `;
        let summary: string[];
        if (runners.file) {
          summary = await runners.file(item, each, { signal: run.signal });
        } else {
          const span = progressSpan(run.progress.onProgress, i / items.length, (i + 1) / items.length);
          const { run: r, where } = await hdbscanFile(io, item, each, {
            ...(shared?.gpu ? { gpu: shared.gpu } : {}),
            signal: run.signal,
            progress: span && ((f, phase) => span(f, phase === undefined ? undefined : prefix + phase)),
            warn: log,
          });
          summary = [];
          logHdbscanRun({ ...io, log: (m) => void summary.push(m) }, r, where, each);
        }
        done++;
        if (runners.file) run.progress.onProgress(done / items.length, `${prefix}done`);
        log(`hdbscan: ${item.input} (file ${i + 1} of ${items.length}):`);
        for (const line of summary) log(line);
      });
    } finally {
      if (shared?.gpu) await shared.gpu.destroy();
    }
  });
  io.log(`hdbscan: ${plural(items.length, 'file')} clustered → ${o.output}`);
}
