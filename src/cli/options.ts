/**
 * What the computing commands (emst, hdbscan, predict, mst) share, declared once (CONVENTIONS.md 12): the input
 * options (--columns, --dim, --backend), the output options (-o, --format, --timings), option parsers that throw
 * InputError naming the option and the value (so main.ts exits with the input code), the point reader, the
 * CSV / JSON / NPY writers (through atomic outputs, src/io/write.ts). Progress is progress.ts's; Ctrl-C, SIGTERM and
 * the output-path checks are run.ts's.
 */
import { readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../errors.js';
import { GRAPH_EXTENSIONS } from '../io/graph.js';
import { POINT_EXTENSIONS, readPoints, requireFinite, type PointReadOptions, type PointTable } from '../io/points.js';
import { readHeaderlessFile } from '../io/points.stream.js';
import { AtomicOutputs, writeNpyDir, type Column, type OutputKind } from '../io/write.js';
import type { CliIo } from './program.js';

export type OutputFormat = 'csv' | 'json' | 'npy';
export type Backend = 'auto' | 'gpu' | 'cpu';

export interface InputOptions {
  /** Columns to read, by header name or 0-based index. */
  columns?: string[];
  /** Coordinates per point of a headerless float32 file (.f32, .raw, .bin); checked against other formats. */
  dim?: number;
  /** HDF5: the dataset (or the group of 1-D column datasets); FITS: the HDU's EXTNAME or 0-based number. */
  dataset?: string;
}

export interface OutputOptions {
  output?: string;
  format?: OutputFormat;
  timings?: boolean;
  /** One line per phase on stderr (progress.ts). */
  verbose?: boolean;
}

// ---- option parsers: each throws InputError naming the option and the value it got ----

export function integer(option: string, min: number): (value: string) => number {
  return (value) => {
    const v = Number(value);
    if (value.trim() === '' || !Number.isInteger(v) || v < min) {
      throw new InputError(`${option}: expected an integer ≥ ${min}, got '${value}'.`);
    }
    return v;
  };
}

export function integerList(option: string, min: number): (value: string) => number[] {
  const one = integer(option, min);
  return (value) => {
    const list = value.split(',').map((s) => one(s.trim()));
    if (new Set(list).size !== list.length)
      throw new InputError(`${option}: expected distinct values, got '${value}'.`);
    return list;
  };
}

export function number(option: string, check: (v: number) => boolean, expected: string): (value: string) => number {
  return (value) => {
    const v = Number(value);
    if (value.trim() === '' || Number.isNaN(v) || !check(v))
      throw new InputError(`${option}: expected ${expected}, got '${value}'.`);
    return v;
  };
}

export function choice<T extends string>(option: string, choices: readonly T[]): (value: string) => T {
  return (value) => {
    if (!choices.includes(value as T))
      throw new InputError(`${option}: expected one of ${choices.join(', ')}, got '${value}'.`);
    return value as T;
  };
}

const columnList = (value: string): string[] => {
  const list = value.split(',').map((s) => s.trim());
  if (list.some((s) => s === ''))
    throw new InputError(`--columns: expected names or 0-based indices separated by commas, got '${value}'.`);
  return list;
};

// ---- messages and help ----

/** A count and its noun, pluralised: `plural(1, 'point')` → '1 point', `plural(3, 'branch', 'branches')`. */
export function plural(k: number, noun: string, nouns = `${noun}s`): string {
  return `${k} ${k === 1 ? noun : nouns}`;
}

const POINT_FORMAT_NAMES: Record<keyof typeof POINT_EXTENSIONS, string> = {
  csv: 'CSV/TSV/text (header and delimiter detected)',
  npy: 'NumPy (n, d) or (n,)',
  bin: 'ArborX binary: int32 n, int32 d, float32 rows',
  hdf5: 'HDF5 (--dataset)',
  fits: 'FITS binary table (--dataset: the HDU)',
  parquet: 'Parquet',
  arrow: 'Arrow IPC / Feather',
};

/** The `<points>` argument's description; the formats follow in the help (`pointFormatsHelp`). */
export const POINTS_ARGUMENT = 'point file, in any format listed below (chosen by extension)';

/** Every point format the readers take, by extension, from src/io/points.ts (so this list cannot drift). */
export function pointFormatsHelp(): string {
  const rows = Object.entries(POINT_EXTENSIONS).map(([f, exts]) => [
    exts.join(' '),
    POINT_FORMAT_NAMES[f as keyof typeof POINT_EXTENSIONS],
  ]);
  rows.push([`${HEADERLESS.join(' ')} with --dim`, 'headerless little-endian float32 rows of --dim values']);
  const width = Math.max(...rows.map((r) => r[0].length));
  return ['', 'Point files, by extension:', ...rows.map(([e, what]) => `  ${e.padEnd(width)}  ${what}`)].join('\n');
}

const GRAPH_FORMAT_NAMES: Record<string, string> = {
  mtx: 'MatrixMarket coordinate',
  gr: 'DIMACS shortest-path (.gr)',
  egr: 'ECL binary CSR',
  edgelist: 'edge list: u v [weight] per line',
  csv: 'edge list with commas: u,v[,weight]',
};

/** Every graph format the readers take, by extension, from src/io/graph.ts (so this list cannot drift). */
export function graphFormatsHelp(): string {
  const byFormat = new Map<string, string[]>();
  for (const [ext, f] of Object.entries(GRAPH_EXTENSIONS)) byFormat.set(f, [...(byFormat.get(f) ?? []), ext]);
  const rows = [...byFormat].map(([f, exts]) => [
    exts.join(' '),
    `${GRAPH_FORMAT_NAMES[f] ?? f} (--input-format ${f})`,
  ]);
  const width = Math.max(...rows.map((r) => r[0].length));
  return ['', 'Graph files, by extension:', ...rows.map(([e, what]) => `  ${e.padEnd(width)}  ${what}`)].join('\n');
}

/**
 * An unknown option spelled the Python way (`--min_cluster_size`, `--min_cluster_size=5`) is told the option it
 * means. commander's own suggestion goes by edit distance, which misses the `=value` form and long names with several
 * underscores; so an unknown `--a_b[=v]` whose name with `_` → `-` is one of the command's options gets that one.
 * This wraps commander's `unknownOption`, the one place it reports unknown options (not in its typings;
 * test/cpu/cli.options.process.test.ts keeps it honest).
 */
export function suggestDashedOptions(cmd: Command): void {
  const c = cmd as unknown as { unknownOption: (flag: string) => void };
  const commanders = c.unknownOption.bind(cmd);
  c.unknownOption = (flag) => {
    const dashed = flag.split('=')[0].replace(/_/g, '-');
    const known = cmd.options.some((o) => o.long === dashed);
    if (dashed !== flag && flag.startsWith('--') && known) {
      cmd.error(`error: unknown option '${flag}'\n(Did you mean ${dashed}?)`, { code: 'commander.unknownOption' });
    }
    commanders(flag);
  };
}

// ---- shared declarations ----

/** --columns, --dim and --dataset: how to read a point file (and the formats' list in --help). */
export function addPointInputOptions(cmd: Command): Command {
  cmd.addHelpText('after', pointFormatsHelp());
  return cmd
    .option(
      '--columns <list>',
      'columns to use, by header name or 0-based index (e.g. x,y or 0,2; FITS names are case-insensitive)',
      columnList,
    )
    .option(
      '--dim <d>',
      'coordinates per point of a headerless float32 file (.f32, .raw, .bin without the n, d header)',
      integer('--dim', 1),
    )
    .option(
      '--dataset <name>',
      'HDF5: the n × d dataset (e.g. PartType1/Coordinates), or the group whose 1-D datasets --columns names; FITS: the HDU (EXTNAME or 0-based number)',
    );
}

/** --backend auto|gpu|cpu. */
export function addBackendOption(cmd: Command): Command {
  return cmd.option(
    '--backend <b>',
    "auto | gpu | cpu ('auto': the GPU when WebGPU finds an adapter)",
    choice('--backend', ['auto', 'gpu', 'cpu'] as const),
    'auto',
  );
}

/** --threads: the CPU backend's worker threads for the EMST's k-NN phase (commands that compute an EMST; `worker` says its own). */
export function addThreadsOption(
  cmd: Command,
  description = "CPU threads: the CPU backend's k-NN phase and Borůvka rounds, and hdbscan's passes after the MST from 2^19 points (default: the available cores from 50,000 points on, at most 8 for the CPU MST, at most 16 for hdbscan after a GPU MST)",
): Command {
  return cmd.option('--threads <n>', description, integer('--threads', 1));
}

/** -o/--output, --format csv|json|npy, --timings. */
export function addOutputOptions(cmd: Command): Command {
  return cmd
    .option('-o, --output <path>', 'output file (csv, json) or directory (npy); default: stdout')
    .option(
      '--format <fmt>',
      'csv | json | npy (default: json for a .json output, else csv)',
      choice('--format', ['csv', 'json', 'npy'] as const),
    )
    .option('--timings', 'print per-phase wall times (ms) on stderr, and add them to JSON output')
    .option(
      '--verbose',
      'print each phase (read, k-NN, every Borůvka round, …) on stderr as it starts; a terminal shows a progress bar anyway',
    );
}

// ---- input ----

async function checkFile(path: string): Promise<void> {
  const s = await stat(path).catch(() => null);
  if (!s) throw new InputError(`${path}: no such file.`);
  if (!s.isFile()) throw new InputError(`${path}: not a file.`);
}

/** Reads `path` as text after checking it exists (InputError otherwise). */
export async function readTextFile(path: string): Promise<string> {
  await checkFile(path);
  return readFile(path, 'utf8');
}

/** Checks that a graph or point file exists: a missing file is an input error, not an internal one. */
export const requireFile = checkFile;

const HEADERLESS = ['.f32', '.raw', '.bin'];

/**
 * Reads a point file (CSV/TSV/TXT, NPY, ArborX .bin, HDF5, FITS, Parquet, Arrow IPC; with --dim, .f32/.raw/.bin
 * as headerless little-endian float32 rows) with the column selection (and --dataset) applied.
 */
export async function readInputPoints(
  path: string,
  o: InputOptions,
  read: Pick<PointReadOptions, 'shared' | 'threads'> = {},
): Promise<PointTable> {
  await checkFile(path);
  const ext = extname(path).toLowerCase();
  if (o.dim !== undefined && HEADERLESS.includes(ext)) {
    if (o.dataset !== undefined)
      throw new InputError(`${path}: --dataset applies to HDF5 and FITS files, not headerless float32.`);
    const table = await readHeaderlessFile(path, o.dim, { threads: read.threads });
    return requireFinite(selectIndices(table, o.columns, path), path);
  }
  if (['.f32', '.raw'].includes(ext)) throw new InputError(`${path}: a headerless float32 file needs --dim.`);
  const table = await readPoints(path, { columns: o.columns, dataset: o.dataset, ...read });
  if (o.dim !== undefined && table.dim !== o.dim) {
    throw new InputError(`${path}: --dim ${o.dim} given, but the file has ${plural(table.dim, 'column')}.`);
  }
  return table;
}

function selectIndices(t: PointTable, columns: string[] | undefined, path: string): PointTable {
  if (!columns?.length) return t;
  const idx = columns.map((c) => {
    const i = Number(c);
    if (!/^\d+$/.test(c) || i >= t.dim)
      throw new InputError(`${path}: no column '${c}' (it has ${plural(t.dim, 'column')}, 0-based).`);
    return i;
  });
  const out = new Float32Array(t.n * idx.length);
  for (let r = 0; r < t.n; r++)
    for (let j = 0; j < idx.length; j++) out[r * idx.length + j] = t.points[r * t.dim + idx[j]];
  return { points: out, n: t.n, dim: idx.length, columns: idx.map(String) };
}

// ---- output ----

/** One `.npy` folder: arrays and their shapes (1D unless given), under `dir` inside -o ('' = -o itself). */
export interface NpyGroup {
  dir: string;
  arrays: Record<string, Column>;
  shapes?: Record<string, number[]>;
}

/** A command's result in each output format, built only when asked for. */
export interface Printable {
  /** Columns of equal length, one CSV row per item. */
  csv: () => Record<string, Column>;
  /** A plain object; typed arrays become arrays and ±∞/NaN the strings "Infinity"/"-Infinity"/"NaN". */
  json: () => Record<string, unknown>;
  npy: () => NpyGroup[];
}

export function resolveFormat(o: OutputOptions): OutputFormat {
  if (o.format) return o.format;
  return o.output && extname(o.output).toLowerCase() === '.json' ? 'json' : 'csv';
}

/** What -o names for these options: a folder for --format npy, else a file (checked before computing, run.ts). */
export function outputKind(o: OutputOptions): OutputKind {
  return resolveFormat(o) === 'npy' ? 'folder' : 'file';
}

/**
 * Writes `result` to -o or stdout in the chosen format; returns where it went. Files go through `run.outputs`
 * (committed by runCommand, run.ts) or, without a run, are committed here: either way beside their targets first.
 */
export async function writeOutput(
  io: CliIo,
  o: OutputOptions,
  result: Printable,
  run?: { outputs: AtomicOutputs; signal?: AbortSignal },
): Promise<string> {
  const format = resolveFormat(o);
  if (format === 'npy' && !o.output)
    throw new InputError('--format npy writes one .npy file per array: give a directory with -o.');
  if (!o.output) {
    for (const c of format === 'csv' ? csvChunks(result.csv()) : jsonChunks(result.json())) io.out(c);
    return 'stdout';
  }
  const outputs = run?.outputs ?? new AtomicOutputs();
  try {
    if (format === 'npy') {
      for (const g of result.npy())
        await writeNpyDir(g.dir ? join(o.output, g.dir) : o.output, g.arrays, g.shapes, outputs);
    } else {
      await outputs.write(
        o.output,
        format === 'csv' ? csvChunks(result.csv()) : jsonChunks(result.json()),
        run?.signal,
      );
    }
    if (!run) await outputs.commit();
  } catch (e) {
    if (!run) outputs.discard();
    throw e;
  }
  return o.output;
}

/** A float32 value in the fewest digits that read back to the same float32. */
function f32(x: number): string {
  if (!Number.isFinite(x) || Number.isInteger(x)) return String(x);
  for (let p = 6; p <= 9; p++) {
    const s = x.toPrecision(p);
    if (Math.fround(Number(s)) === x) return String(Number(s));
  }
  return String(x);
}

/** CSV text in chunks of `rows` rows (header first), so large results never sit in one string. */
export function* csvChunks(columns: Record<string, Column>, rows = 1 << 15): Generator<string> {
  const names = Object.keys(columns);
  const cols = names.map((k) => columns[k]);
  const n = cols.length ? cols[0].length : 0;
  cols.forEach((c, j) => {
    if (c.length !== n) throw new InputError(`csv: column '${names[j]}' has ${c.length} rows, expected ${n}.`);
  });
  const fmt = cols.map((c) => (c instanceof Float32Array ? f32 : String));
  yield names.join(',') + '\n';
  for (let start = 0; start < n; start += rows) {
    const end = Math.min(n, start + rows);
    let s = '';
    for (let i = start; i < end; i++) {
      for (let j = 0; j < cols.length; j++) s += (j ? ',' : '') + fmt[j](cols[j][i]);
      s += '\n';
    }
    yield s;
  }
}

/**
 * `toJson(value) + '\n'` in pieces: the typed arrays at the top level of an object `value` (the edges, labels, …)
 * in chunks of `items` numbers, everything else through toJson. One string of 10^8 edges' JSON would pass V8's
 * longest string (2^29 − 24 characters in Node 20), so `--format json` failed from ~2·10^7 edges (issue 19: results
 * are written streaming).
 */
export function* jsonChunks(value: unknown, items = 1 << 16): Generator<string> {
  const plain =
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    !ArrayBuffer.isView(value) &&
    typeof (value as { toJSON?: unknown }).toJSON !== 'function';
  if (!plain) {
    yield toJson(value) + '\n';
    return;
  }
  let first = true;
  yield '{';
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue; // as JSON.stringify
    yield `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    if (!ArrayBuffer.isView(v) || v instanceof DataView) {
      yield toJson(v);
      continue;
    }
    const a = v as unknown as ArrayLike<number | bigint>;
    yield '[';
    for (let start = 0; start < a.length; start += items) {
      const end = Math.min(a.length, start + items);
      let s = '';
      for (let i = start; i < end; i++) {
        const x = a[i];
        // toJson's number rules: finite as JSON writes them, non-finite as strings.
        s += (i ? ',' : '') + (typeof x === 'number' && !Number.isFinite(x) ? `"${x}"` : JSON.stringify(x));
      }
      yield s;
    }
    yield ']';
  }
  yield '}\n';
}

/** JSON with typed arrays as arrays and non-finite numbers as strings (as in the golden files, test/golden). */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) => {
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v as unknown as ArrayLike<number>);
    if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
    return v;
  });
}

/** Prints `timings` (ms by label) on stderr, one per line. */
export function logTimings(io: CliIo, timings: Record<string, number>): void {
  const width = Math.max(...Object.keys(timings).map((k) => k.length));
  for (const [k, v] of Object.entries(timings)) io.log(`  ${k.padEnd(width)}  ${v.toFixed(2).padStart(10)} ms`);
}

/** Parses --periodic: one side length L (a cube) or one per dimension, each finite and > 0. */
export const periodicList = (value: string): number[] =>
  value.split(',').map((s) => {
    const v = Number(s.trim());
    if (s.trim() === '' || !Number.isFinite(v) || v <= 0) {
      throw new InputError(`--periodic: expected L or Lx,Ly[,Lz] with finite side lengths > 0, got '${value}'.`);
    }
    return v;
  });

/** The periodic box of `dim`-dimensional points from --periodic (one value: a cube), or undefined. */
export function periodicBox(dim: number, periodic: number[] | undefined): number[] | undefined {
  if (!periodic) return undefined;
  const box = periodic.length === 1 ? new Array<number>(dim).fill(periodic[0]) : periodic;
  if (box.length !== dim) {
    throw new InputError(
      `--periodic: ${box.length} side lengths given for ${dim}-dimensional points (give one, or one per column).`,
    );
  }
  return box;
}

/** --periodic and --min-edge-length (emst, stats). */
export function addBoxOptions(cmd: Command): Command {
  return cmd
    .option(
      '--periodic <L>',
      'periodic box: one side length L (a cube) or Lx,Ly[,Lz]; minimum-image distances',
      periodicList,
    )
    .option(
      '--min-edge-length <l>',
      "MiSTree's scale cut: pairs closer than l are not joined (the tree may become a forest)",
      number('--min-edge-length', (v) => v >= 0 && Number.isFinite(v), 'a finite number ≥ 0'),
    );
}
