/**
 * The treeline command line: commands and their options, declared once. Library errors are mapped to exit codes by
 * `exitCodeFor`; only main.ts sets the process's exit code (CONVENTIONS.md 11). Data goes to stdout or -o; logs and
 * progress to stderr, through the `io` given (tests capture it).
 */
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { AbortError, GpuDeviceLostError, GpuError, GpuUnavailableError, InputError } from '../errors.js';
import { formatInfo, gatherInfo } from './info.js';
import { benchSuitesHelp, runBench } from './bench.js';
import { CLUSTERS_HELP, generatorsHelp, NOISE_HELP, runGenerate } from './generate.js';
import { GENERATORS } from '../datasets/generate.js';
import { emstCommand } from './emst.js';
import { hdbscanCommand } from './hdbscan.js';
import { mstCommand } from './mst.js';
import { predictCommand } from './predict.js';
import { InterruptError } from './run.js';
import { statsCommand } from './stats.js';
import { workerCommand } from './worker.js';
import { plural, suggestDashedOptions } from './options.js';

/** Exit codes by error class. */
export const EXIT = { ok: 0, internal: 1, input: 2, noGpu: 3, gpu: 4, aborted: 130, terminated: 143 } as const;

export function exitCodeFor(e: unknown): number {
  // commander's own errors (missing argument, unknown option, bad choice) are usage errors: invalid input. --help
  // and --version arrive here too, with exitCode 0.
  if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.ok : EXIT.input;
  if (e instanceof InputError) return EXIT.input;
  if (e instanceof GpuUnavailableError) return EXIT.noGpu;
  if (e instanceof GpuError || e instanceof GpuDeviceLostError) return EXIT.gpu;
  // As a shell reports a process ended by the signal: 128 + 2 (SIGINT), 128 + 15 (SIGTERM).
  if (e instanceof InterruptError && e.signal === 'SIGTERM') return EXIT.terminated;
  if (e instanceof AbortError) return EXIT.aborted;
  return EXIT.internal;
}

function sizeList(value: string): number[] {
  return value.split(',').map((s) => {
    const v = Number(s.trim());
    if (!Number.isInteger(v) || v < 0) throw new InvalidArgumentError(`'${s}' is not a non-negative integer`);
    return v;
  });
}

function nonNegativeInt(value: string): number {
  const v = Number(value);
  if (!Number.isInteger(v) || v < 0) throw new InvalidArgumentError(`'${value}' is not a non-negative integer`);
  return v;
}

function positiveInt(value: string): number {
  const v = Number(value);
  if (!Number.isInteger(v) || v < 1) throw new InvalidArgumentError(`'${value}' is not a positive integer`);
  return v;
}

export interface CliIo {
  /** Data (stdout). */
  out: (s: string) => void;
  /** Logs and progress (stderr). */
  log: (s: string) => void;
  /** Raw progress-line writes (`\r…`, no newline); present only where stderr is a TTY. */
  progress?: (s: string) => void;
}

export const processIo: CliIo = {
  out: (s) => void process.stdout.write(s),
  log: (s) => void process.stderr.write(s.endsWith('\n') ? s : s + '\n'),
  progress: process.stderr.isTTY ? (s) => void process.stderr.write(s) : undefined,
};

export function buildProgram(io: CliIo = processIo): Command {
  const { out, log } = io;
  const program = new Command();
  program
    .name('treeline')
    .description('Exact EMSTs, mutual-reachability MSTs, HDBSCAN*, graph MSFs and MST statistics on the GPU (WebGPU)')
    .version('0.1.0');

  program
    .command('info')
    .description('show the backend, the WebGPU adapter, its optional features and limits')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExamples:\n  $ treeline info\n  $ treeline info --json')
    .action(async (opts: { json?: boolean }) => {
      const r = await gatherInfo();
      out(opts.json ? JSON.stringify(r, null, 2) + '\n' : formatInfo(r));
    });

  program
    .command('bench')
    .description('run GPU benchmarks (GPU-resident timings from timestamp queries; each run checks its answer)')
    .argument('[suites...]', 'benchmarks to run (default: all)')
    .option('-n, --n <sizes>', "comma-separated sizes (default: each suite's)", sizeList)
    .option('--input <files...>', 'input files for suites that read them (graph: .egr)')
    .option('--reps <k>', 'timed repetitions', positiveInt, 10)
    .option('--warmup <k>', 'untimed warm-up runs', positiveInt, 3)
    .option('--json', 'print the figures as JSON on stdout')
    .option('--disable-robustness', "Dawn's disable_robustness toggle (no bounds clamping)")
    .option(
      '--threads <n>',
      "host threads of the hdbscan-* suites (hdbscan()'s `threads`; default: its own)",
      positiveInt,
    )
    .addHelpText('after', benchSuitesHelp())
    .addHelpText(
      'after',
      '\nExamples:\n  $ treeline bench copy scan --n 268435456\n  $ treeline bench radix64 --reps 20 --json > r.json',
    )
    .action(
      async (
        names: string[],
        opts: {
          n?: number[];
          input?: string[];
          reps: number;
          warmup: number;
          json?: boolean;
          disableRobustness?: boolean;
          threads?: number;
        },
      ) => {
        const json = await runBench(
          names,
          {
            sizes: opts.n,
            inputs: opts.input,
            reps: opts.reps,
            warmup: opts.warmup,
            json: !!opts.json,
            disableRobustness: !!opts.disableRobustness,
            threads: opts.threads,
          },
          log,
        );
        if (json) out(json);
      },
    );

  program
    .command('generate')
    .description(`write a seeded point cloud: ${GENERATORS.join(', ')}`)
    .argument('<kind>', 'generator')
    .requiredOption('-n, --n <count>', 'number of points', nonNegativeInt)
    .option('-d, --dim <d>', 'dimension', positiveInt, 2)
    .option('--seed <s>', 'random seed', nonNegativeInt, 1)
    .option('--clusters <k>', CLUSTERS_HELP, positiveInt)
    .option('--noise <fraction>', NOISE_HELP, Number)
    .option('-o, --output <file>', 'output file (default: CSV on stdout)')
    .option('--format <fmt>', 'csv | npy | bin (default: from the -o extension, else csv)')
    .addHelpText('after', generatorsHelp())
    .addHelpText(
      'after',
      '\nExamples:\n  $ treeline generate blobs -n 2000 --clusters 4 -o blobs.csv\n  $ treeline generate normal -n 10000000 -d 3 -o normal3d.npy',
    )
    .action(async (kind: string, opts) => {
      const where = await runGenerate(kind, opts, out);
      if (where !== 'stdout') log(`generate: ${plural(opts.n, 'point')} × ${opts.dim} (${kind}) → ${where}`);
    });

  program.addCommand(emstCommand(io));
  program.addCommand(hdbscanCommand(io));
  program.addCommand(predictCommand(io));
  program.addCommand(mstCommand(io));
  program.addCommand(statsCommand(io));
  program.addCommand(workerCommand(io));

  // commander exits the process itself (always with code 1) unless told to throw: main.ts then maps the error.
  for (const c of [program, ...program.commands]) {
    c.exitOverride();
    suggestDashedOptions(c);
  }
  return program;
}
