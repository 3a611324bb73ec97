/**
 * Writers for results: CSV (one header line, one row per item), JSON, and NPY (one .npy file per array into a
 * directory). Arrays are written as given: no rounding beyond float32's shortest round-trip representation.
 *
 * Every file goes through `AtomicOutputs` (issue 15, "an existing file is never truncated by a failed run"): it is
 * written to a temporary file beside its target and renamed over the target only when the whole run has succeeded;
 * a failure, an interrupt or a write error (ENOSPC) removes the temporaries and leaves every target as it was.
 */
import { closeSync, mkdirSync, openSync, rmdirSync, statSync, unlinkSync } from 'node:fs';
import { open, rename, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { AbortError, InputError } from '../errors.js';
import { npyChunks } from './npy.js';

export type Column = Float32Array | Float64Array | Int32Array | Uint32Array;
export type OutputFormat = 'csv' | 'json' | 'npy';

/** Formats parallel columns as CSV text with a header. */
function toCsv(columns: Record<string, Column>): string {
  const names = Object.keys(columns);
  const n = names.length ? columns[names[0]].length : 0;
  for (const k of names) {
    if (columns[k].length !== n)
      throw new InputError(`toCsv: column '${k}' has ${columns[k].length} rows, expected ${n}.`);
  }
  const parts: string[] = [names.join(',')];
  for (let i = 0; i < n; i++) parts.push(names.map((k) => String(columns[k][i])).join(','));
  return parts.join('\n') + '\n';
}

/** Formats row-major points (n × dim) as CSV with columns x0, x1, …. */
export function pointsToCsv(points: Float32Array, dim: number): string {
  return [...pointsCsvChunks(points, dim)].join('');
}

/**
 * `pointsToCsv` in chunks of `rows` points (the header first): what a large file is written from, since one string
 * of 10^8 points would pass V8's longest string.
 */
export function* pointsCsvChunks(points: Float32Array, dim: number, rows = 1 << 15): Generator<string> {
  const n = points.length / dim;
  yield Array.from({ length: dim }, (_, d) => `x${d}`).join(',') + '\n';
  for (let start = 0; start < n; start += rows) {
    const end = Math.min(n, start + rows);
    let s = '';
    for (let i = start; i < end; i++) {
      for (let d = 0; d < dim; d++) s += (d ? ',' : '') + points[i * dim + d];
      s += '\n';
    }
    yield s;
  }
}

/**
 * Writes each array as `<dir>/<name>.npy` (2D where `shapes` gives a shape), through `outputs` (committed by the
 * caller) or, without it, atomically on its own.
 */
export async function writeNpyDir(
  dir: string,
  arrays: Record<string, Column>,
  shapes: Record<string, number[]> = {},
  outputs?: AtomicOutputs,
): Promise<string[]> {
  const own = outputs ?? new AtomicOutputs();
  const written: string[] = [];
  try {
    own.mkdir(dir);
    // The files at once: each is flushed to disk before it counts (AtomicOutputs.write), and the flushes overlap (an
    // EMST of 2·10^8 points writes three files of 800 MB).
    const files = Object.entries(arrays).map(([name, arr]) => {
      const file = join(dir, `${name}.npy`);
      return own.write(file, npyChunks(arr, shapes[name] ?? [arr.length])).then(() => file);
    });
    const settled = await Promise.allSettled(files);
    for (const s of settled) if (s.status === 'rejected') throw s.reason;
    for (const s of settled) if (s.status === 'fulfilled') written.push(s.value);
    if (!outputs) await own.commit();
  } catch (e) {
    if (!outputs) own.discard();
    throw e;
  }
  return written;
}

// ---- atomic outputs ----

/** What an output path is: one file (-o out.csv, --plot) or a folder of files (-o out/ with --format npy). */
export type OutputKind = 'file' | 'folder';

const errorCode = (e: unknown): string => (e as NodeJS.ErrnoException).code ?? (e as Error).message;

/** `stat` of a path, or undefined where there is none (also when a parent on the way is a file: ENOTDIR). */
function statOf(path: string): ReturnType<typeof statSync> {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw e;
  }
}

/** The temporary name of `target`: hidden, beside it (same filesystem, so the rename is atomic), unique. */
function temporaryFor(target: string): string {
  const rand = Math.floor(Math.random() * 0x100000000)
    .toString(16)
    .padStart(8, '0');
  return join(dirname(target), `.${basename(target)}.${process.pid}.${rand}.tmp`);
}

/**
 * Checks before any computation that `path` can be written (issue 15: "a missing directory or read-only path is an
 * input error at once, not an internal error after minutes"), naming the option and the path: its folder must exist
 * (for a folder output, its nearest existing ancestor: the folder is created), the path must not be a folder where a
 * file goes (or a file where a folder goes), and a file must be creatable there — tested by creating and removing a
 * temporary file beside the target, which also catches read-only filesystems and permissions (a permission check
 * alone would pass for root).
 */
export function checkOutputPath(path: string, option: string, kind: OutputKind = 'file'): void {
  const fail = (why: string): never => {
    throw new InputError(`${option} ${path}: ${why}.`);
  };
  if (path === '') fail('an empty path');
  const target = statOf(path);
  let folder: string;
  if (kind === 'folder') {
    if (target && !target.isDirectory())
      fail('exists and is not a folder (--format npy writes one .npy file per array into a folder)');
    // The nearest existing ancestor: the folders below it are created when the results are written.
    folder = resolve(path);
    while (!statOf(folder)) folder = dirname(folder);
    if (!statSync(folder).isDirectory()) fail(`${folder} is not a folder`);
  } else {
    if (target?.isDirectory()) fail('is a folder, not a file');
    folder = dirname(resolve(path));
    const parent = statOf(folder);
    if (!parent) fail(`no such folder ${dirname(path)}`);
    if (!parent!.isDirectory()) fail(`${dirname(path)} is not a folder`);
  }
  const probe = temporaryFor(join(folder, basename(path) || 'output'));
  try {
    closeSync(openSync(probe, 'wx'));
  } catch (e) {
    fail(`cannot create a file in ${folder} (${errorCode(e)})`);
  }
  unlinkSync(probe);
}

/**
 * The files of one run, written beside their targets and renamed into place together by `commit()`; `discard()`
 * removes every temporary and every folder this run created (synchronous, so a signal handler can call it).
 */
export class AtomicOutputs {
  /** target → temporary, in the order written. */
  private readonly files = new Map<string, string>();
  /** Folders created by `mkdir`, outermost first. */
  private readonly created: string[] = [];
  private done = false;

  /** Creates `dir` and its missing ancestors, remembering which it created; a file in the way is an input error. */
  mkdir(dir: string): void {
    const missing: string[] = [];
    let d = resolve(dir);
    while (!statOf(d)) {
      missing.unshift(d);
      d = dirname(d);
    }
    for (const m of missing) {
      try {
        mkdirSync(m);
      } catch (e) {
        throw new InputError(`${dir}: cannot create folder ${m} (${errorCode(e)}).`);
      }
      this.created.push(m);
    }
    if (!statSync(dir).isDirectory()) throw new InputError(`${dir}: exists and is not a folder.`);
  }

  /**
   * Writes `chunks` to a temporary file beside `target` (flushed to disk before it counts as written). A write error
   * (ENOSPC, EIO, …) is an InputError naming the target; an aborted `signal` stops between chunks with AbortError.
   */
  async write(target: string, chunks: Iterable<string | Uint8Array>, signal?: AbortSignal): Promise<void> {
    const handle = await this.create(target);
    try {
      for (const chunk of chunks) {
        if (signal?.aborted) throw new AbortError(`interrupted while writing ${target}.`);
        if (typeof chunk === 'string') await handle.write(chunk);
        else await handle.write(chunk);
      }
      await handle.sync();
    } catch (e) {
      if (e instanceof AbortError || e instanceof InputError) throw e;
      throw new InputError(`${target}: cannot write (${errorCode(e)}).`);
    } finally {
      await handle.close().catch(() => {});
    }
  }

  /**
   * The temporary file of `target`, created and open for the caller to write (io/write.sink.ts: in place, from worker
   * threads) and to flush to disk (FileHandle.sync) before commit; it is renamed or removed with the others. The
   * caller closes it.
   */
  async create(target: string): Promise<FileHandle> {
    if (this.done) throw new Error(`AtomicOutputs: ${target} written after commit or discard.`);
    if (this.files.has(target)) throw new Error(`AtomicOutputs: ${target} written twice.`);
    if (statOf(target)?.isDirectory()) throw new InputError(`${target}: is a folder, not a file.`);
    const temp = temporaryFor(target);
    let handle;
    try {
      handle = await open(temp, 'wx');
    } catch (e) {
      throw new InputError(`${target}: cannot write (${errorCode(e)}).`);
    }
    this.files.set(target, temp);
    return handle;
  }

  /** Removes the temporary of `target` and forgets it (it may be written again); nothing where there is none. */
  forget(target: string): void {
    const temp = this.files.get(target);
    if (temp === undefined) return;
    try {
      unlinkSync(temp);
    } catch {
      // already gone
    }
    this.files.delete(target);
  }

  /** Renames every temporary over its target, in the order written. */
  async commit(): Promise<void> {
    this.done = true;
    for (const [target, temp] of this.files) {
      try {
        await rename(temp, target);
      } catch (e) {
        throw new InputError(`${target}: cannot replace (${errorCode(e)}).`);
      }
      this.files.delete(target);
    }
  }

  /** Removes every temporary not yet renamed, then the folders this run created (innermost first, when empty). */
  discard(): void {
    this.done = true;
    for (const temp of this.files.values()) {
      try {
        unlinkSync(temp);
      } catch {
        // already gone
      }
    }
    this.files.clear();
    for (const dir of this.created.reverse()) {
      try {
        rmdirSync(dir);
      } catch {
        // not empty (something else was put there) or already gone: leave it
      }
    }
    this.created.length = 0;
  }
}
