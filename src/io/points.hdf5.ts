/**
 * HDF5 point datasets through h5wasm (the HDF5 C library compiled to WebAssembly). Its Node build (`h5wasm/node`)
 * reads the file from disk through Emscripten's NODERAWFS, so the file is never copied whole into memory; rows are
 * read in hyperslabs of ≤ 32 MiB and converted straight into one Float32Array.
 *
 * - `dataset` names a 2-D dataset of n points × d coordinates (float32/float64, (u)int8–64), e.g. Gadget/AREPO
 *   `PartType1/Coordinates`; `columns` then picks coordinates by 0-based index.
 * - `dataset` names a group (or is omitted) and `columns` are names: 1-D datasets of equal length in that group
 *   become the coordinates (`--dataset halos --columns x,y,z`).
 * - No `dataset`: the file's only 2-D numeric dataset; several or none is an InputError listing them.
 * Float64 coordinates are rounded to float32, as every reader here does (treeline computes in float32).
 */
import { open, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Dataset, File, Group, Metadata } from 'h5wasm/node';
import { InputError } from '../errors.js';
import type { PointTable } from './points.csv.js';
import { allocFloat32, checkTableSize } from './limits.js';

export interface Hdf5Options {
  /** A 2-D dataset, or a group holding the 1-D datasets named by `columns` (default: the only 2-D dataset). */
  dataset?: string;
  /** 0-based column indices of the 2-D dataset, or names of 1-D datasets in the `dataset` group. */
  columns?: (string | number)[];
}

type H5 = typeof import('h5wasm/node');
let loaded: Promise<H5> | undefined;

/** h5wasm's module (a few MB of WebAssembly), loaded on the first HDF5 file only. */
function h5wasm(): Promise<H5> {
  loaded ??= import('h5wasm/node').then(async (m) => {
    await m.ready;
    return m;
  });
  return loaded;
}

const SIGNATURE = [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]; // \x89HDF\r\n\x1a\n
const SLICE_BYTES = 1 << 25;
const H5T_INTEGER = 0;
const H5T_FLOAT = 1;
const CLASS_NAMES: Record<number, string> = {
  2: 'time',
  3: 'string',
  4: 'bitfield',
  5: 'opaque',
  6: 'compound',
  7: 'reference',
  8: 'enum',
  9: 'variable-length',
  10: 'array',
};

/** The superblock sits at byte 0, 512, 1024, 2048, … (after a user block); h5wasm prints a C error stack otherwise. */
async function hasSignature(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    const buf = new Uint8Array(8);
    for (let at = 0; at + 8 <= size; at = at === 0 ? 512 : at * 2) {
      await fh.read(buf, 0, 8, at);
      if (SIGNATURE.every((b, i) => buf[i] === b)) return true;
    }
    return false;
  } finally {
    await fh.close();
  }
}

export async function readHdf5Points(path: string, options: Hdf5Options = {}): Promise<PointTable> {
  if (!(await hasSignature(path)))
    throw new InputError(`${path}: not an HDF5 file (no HDF5 signature at byte 0, 512, 1024, …).`);
  const h5 = await h5wasm();
  // HDF5's default error handler prints its whole C error stack on stderr (20-odd lines for a truncated file);
  // h5wasm's throwing handler turns the stack into a JS Error instead, which becomes one InputError line here.
  h5.Module.activate_throwing_error_handler();
  try {
    let file: File;
    try {
      file = new h5.File(resolve(path), 'r');
    } catch (e) {
      throw hdf5Error(e, `${path}: HDF5 could not open the file`);
    }
    if (file.file_id < 0n) throw new InputError(`${path}: HDF5 could not open the file.`);
    try {
      return new Hdf5Reader(h5, file, path, (await stat(path)).size).read(options);
    } catch (e) {
      throw hdf5Error(e, `${path}: HDF5 could not read the file`);
    } finally {
      file.close();
    }
  } finally {
    h5.Module.deactivate_throwing_error_handler();
  }
}

/**
 * An error stack from h5wasm's throwing handler (`HDF5-DIAG: … #006: … in H5F__super_read(): truncated file: …`) as
 * one InputError line carrying the innermost reason; any other error passes through unchanged.
 */
function hdf5Error(e: unknown, prefix: string): unknown {
  const message = e instanceof Error ? e.message : String(e);
  if (e instanceof InputError || !message.startsWith('HDF5-DIAG')) return e;
  const reasons = [...message.matchAll(/ in \w+\(\): (.+)$/gm)].map((m) => m[1].trim());
  return new InputError(`${prefix}: ${reasons.at(-1) ?? 'HDF5 error'}.`);
}

const isIndex = (c: string | number): boolean => /^\d+$/.test(String(c));

function dtypeName(m: Metadata): string {
  if (m.type === H5T_FLOAT) return `float${m.size * 8}`;
  if (m.type === H5T_INTEGER) return `${m.signed ? 'int' : 'uint'}${m.size * 8}`;
  return CLASS_NAMES[m.type] ?? `HDF5 class ${m.type}`;
}

const shapeText = (m: Metadata): string => (m.shape ? m.shape.join('×') : 'no shape');

class Hdf5Reader {
  constructor(
    private readonly h5: H5,
    private readonly file: File,
    private readonly path: string,
    /** The file's size in bytes. */
    private readonly size: number,
  ) {}

  /**
   * A dataset's shape (from its header) checked before n · dim values are allocated (limits.ts): a contiguous
   * dataset's values lie in the file, so its n · width elements must fit in the file's bytes; a chunked one may
   * be compressed, and only the table limit applies.
   */
  private checkSize(m: Metadata, n: number, width: number, dim: number, where: string): void {
    checkTableSize(n, dim, where, `shape (${shapeText(m)}): rows`);
    const bytes = n * width * m.size;
    if (m.chunks === null && !m.virtual_sources?.length && bytes > this.size) {
      throw new InputError(
        `${where}: shape (${shapeText(m)}) of ${dtypeName(m)} needs ${bytes} bytes; the file holds only ${this.size}.`,
      );
    }
  }

  read(o: Hdf5Options): PointTable {
    const columns = (o.columns ?? []).map(String);
    const byName = columns.length > 0 && !columns.some(isIndex);
    const name = o.dataset?.replace(/^\/+|\/+$/g, '');
    if (name === undefined || name === '') {
      if (byName) return this.readColumns('', columns);
      if (o.dataset !== undefined)
        throw new InputError(
          `${this.path}: --dataset '/' is the root group; name a 2-D dataset, or 1-D datasets with --columns.`,
        );
      return this.readMatrix(this.defaultDataset(), columns);
    }
    const entity = this.entity(name);
    if (entity instanceof this.h5.Group) {
      if (byName) return this.readColumns(name, columns);
      throw new InputError(
        `${this.path}: '${name}' is a group; name a 2-D dataset in it, or its 1-D datasets with --columns (datasets: ${this.list(name)}).`,
      );
    }
    return this.readMatrix({ name, dataset: entity }, columns);
  }

  /** The dataset or group at `name`; anything else is an InputError listing the datasets that exist. */
  private entity(name: string): Dataset | Group {
    const e = this.lookup(name);
    if (e) return e;
    throw new InputError(`${this.path}: no dataset '${name}' (datasets: ${this.list('')}).`);
  }

  /**
   * The dataset or group at `name`, or null. Walks the path one link at a time: h5wasm's get() of a path running
   * through a dataset prints HDF5's error stack and answers 'Group'.
   */
  private lookup(name: string): Dataset | Group | null {
    const parts = name.split('/').filter(Boolean);
    let e: unknown = null;
    for (let i = 1; i <= parts.length; i++) {
      if (i > 1 && !(e instanceof this.h5.Group)) return null;
      e = this.file.get(parts.slice(0, i).join('/'));
    }
    return e instanceof this.h5.Dataset || e instanceof this.h5.Group ? e : null;
  }

  /** `path (shape dtype)` of up to 30 datasets under `group`. */
  private list(group: string): string {
    const base = group === '' ? this.file : (this.file.get(group) as Group);
    const found: string[] = [];
    let more = 0;
    for (const p of base.paths()) {
      const full = group === '' ? p : `${group}/${p}`;
      const e = this.file.get(full);
      if (!(e instanceof this.h5.Dataset)) continue;
      if (found.length < 30) found.push(`${full} (${shapeText(e.metadata)} ${dtypeName(e.metadata)})`);
      else more++;
    }
    return found.length === 0 ? 'none' : found.join(', ') + (more ? `, and ${more} more` : '');
  }

  private defaultDataset(): { name: string; dataset: Dataset } {
    const candidates: { name: string; dataset: Dataset }[] = [];
    for (const p of this.file.paths()) {
      const e = this.file.get(p);
      if (e instanceof this.h5.Dataset && e.metadata.shape?.length === 2 && numeric(e.metadata))
        candidates.push({ name: p, dataset: e });
    }
    if (candidates.length === 1) return candidates[0];
    if (candidates.length === 0) {
      throw new InputError(
        `${this.path}: no 2-D numeric dataset to read (datasets: ${this.list('')}); name 1-D ones with --dataset <group> --columns x,y,z.`,
      );
    }
    const names = candidates.map(
      (c) => `${c.name} (${shapeText(c.dataset.metadata)} ${dtypeName(c.dataset.metadata)})`,
    );
    throw new InputError(
      `${this.path}: ${candidates.length} 2-D datasets; choose one with --dataset: ${names.join(', ')}.`,
    );
  }

  /** A 2-D dataset (n × d), with columns picked by 0-based index. */
  private readMatrix({ name, dataset }: { name: string; dataset: Dataset }, columns: string[]): PointTable {
    const m = dataset.metadata;
    const where = `${this.path}: dataset '${name}'`;
    checkNumeric(m, where);
    const shape = m.shape ?? [];
    if (shape.length === 1) {
      throw new InputError(
        `${where} is 1-D (${shape[0]} ${dtypeName(m)} values); expected a 2-D dataset of n points × d coordinates. ` +
          `To use 1-D datasets as coordinates, give their group and names: --dataset <group> --columns x,y,z.`,
      );
    }
    if (shape.length !== 2)
      throw new InputError(
        `${where} has shape (${shape.join(', ')}); expected a 2-D dataset of n points × d coordinates.`,
      );
    const [n, width] = shape;
    const picks =
      columns.length === 0
        ? Array.from({ length: width }, (_, j) => j)
        : columns.map((c) => {
            if (!isIndex(c) || Number(c) >= width) {
              throw new InputError(
                `${where} has ${width} columns: select them by 0-based index (0–${width - 1}), got '${c}'.`,
              );
            }
            return Number(c);
          });
    const dim = picks.length;
    this.checkSize(m, n, width, dim, where);
    const points = allocFloat32(n * dim, where);
    const step = Math.max(1, Math.floor(SLICE_BYTES / (width * m.size)));
    const whole = dim === width && picks.every((p, j) => p === j);
    for (let r0 = 0; r0 < n; r0 += step) {
      const r1 = Math.min(n, r0 + step);
      const raw = dataset.slice([[r0, r1], []]) as ArrayBufferView;
      if (whole && raw instanceof Float32Array && m.littleEndian) {
        points.set(raw, r0 * dim);
        continue;
      }
      const get = accessor(raw, m);
      for (let r = 0; r < r1 - r0; r++)
        for (let j = 0; j < dim; j++) points[(r0 + r) * dim + j] = get(r * width + picks[j]);
    }
    return { points, n, dim, columns: picks.map(String) };
  }

  /** 1-D datasets of equal length in `group`, one per coordinate. */
  private readColumns(group: string, columns: string[]): PointTable {
    const datasets = columns.map((c) => {
      const full = group === '' ? c : `${group}/${c}`;
      const e = this.lookup(full);
      if (!(e instanceof this.h5.Dataset)) {
        throw new InputError(`${this.path}: no dataset '${full}' (datasets: ${this.list(group)}).`);
      }
      const m = e.metadata;
      const where = `${this.path}: dataset '${full}'`;
      checkNumeric(m, where);
      const shape = m.shape ?? [];
      if (!(shape.length === 1 || (shape.length === 2 && shape[1] === 1))) {
        throw new InputError(
          `${where} has shape (${shape.join(', ')}); a column given by --columns must be a 1-D dataset.`,
        );
      }
      return { full, dataset: e, m, n: shape[0] };
    });
    const n = datasets[0].n;
    for (const d of datasets) {
      if (d.n !== n)
        throw new InputError(
          `${this.path}: dataset '${d.full}' has ${d.n} values, but '${datasets[0].full}' has ${n}; columns must have equal lengths.`,
        );
    }
    const dim = datasets.length;
    for (const d of datasets) this.checkSize(d.m, n, 1, dim, `${this.path}: dataset '${d.full}'`);
    const points = allocFloat32(n * dim, this.path);
    datasets.forEach(({ dataset, m }, j) => {
      const step = Math.max(1, Math.floor(SLICE_BYTES / m.size));
      for (let r0 = 0; r0 < n; r0 += step) {
        const r1 = Math.min(n, r0 + step);
        const get = accessor(dataset.slice([[r0, r1]]) as ArrayBufferView, m);
        for (let r = 0; r < r1 - r0; r++) points[(r0 + r) * dim + j] = get(r);
      }
    });
    return { points, n, dim, columns };
  }
}

const numeric = (m: Metadata): boolean =>
  (m.type === H5T_FLOAT && (m.size === 4 || m.size === 8)) || (m.type === H5T_INTEGER && [1, 2, 4, 8].includes(m.size));

function checkNumeric(m: Metadata, where: string): void {
  if (!numeric(m)) {
    throw new InputError(`${where} has dtype ${dtypeName(m)}; expected float32, float64 or a (u)int8–64 type.`);
  }
}

/**
 * Element i of a slice as a number. h5wasm reads with the file's own datatype, so big-endian data arrive as
 * big-endian bytes: those go through a DataView.
 */
function accessor(raw: ArrayBufferView, m: Metadata): (i: number) => number {
  if (m.littleEndian) {
    if (raw instanceof BigInt64Array || raw instanceof BigUint64Array) return (i) => Number(raw[i]);
    const a = raw as unknown as ArrayLike<number>;
    return (i) => a[i];
  }
  const dv = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const s = m.size;
  if (m.type === H5T_FLOAT) return s === 4 ? (i) => dv.getFloat32(4 * i, false) : (i) => dv.getFloat64(8 * i, false);
  if (s === 1) return m.signed ? (i) => dv.getInt8(i) : (i) => dv.getUint8(i);
  if (s === 2) return m.signed ? (i) => dv.getInt16(2 * i, false) : (i) => dv.getUint16(2 * i, false);
  if (s === 4) return m.signed ? (i) => dv.getInt32(4 * i, false) : (i) => dv.getUint32(4 * i, false);
  return m.signed ? (i) => Number(dv.getBigInt64(8 * i, false)) : (i) => Number(dv.getBigUint64(8 * i, false));
}
