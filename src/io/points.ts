/**
 * Reads a point file by extension: .csv/.tsv/.txt/.dat (CSV reader), .npy, .bin (ArborX's binary format),
 * .h5/.hdf5/.hdf (HDF5 through h5wasm), .fits/.fit/.fts (+ .gz) (FITS binary tables), .parquet (hyparquet),
 * .arrow/.feather/.arrows/.ipc (Arrow IPC through apache-arrow). Every reader returns row-major float32; float64
 * inputs are rounded to float32 (treeline computes in float32 on both backends).
 */
import { open } from 'node:fs/promises';
import { extname } from 'node:path';
import { InputError } from '../errors.js';
import { requireFinite } from './points.finite.js';
import { readCsvPoints, type CsvOptions, type PointTable } from './points.csv.js';
import { readBinFile, readNpyFile } from './points.stream.js';
import { readHdf5Points } from './points.hdf5.js';
import { readFitsPoints } from './points.fits.js';
import { readParquetPoints } from './points.parquet.js';
import { readArrowPoints } from './points.arrow.js';

export type { PointTable, CsvOptions };
export { requireFinite };

export interface PointReadOptions extends CsvOptions {
  /** HDF5: the dataset (or group of 1-D column datasets); FITS: the HDU's EXTNAME or 0-based number. */
  dataset?: string;
  /**
   * .npy and .bin files read straight into a SharedArrayBuffer's points (host threads can then read them without a
   * copy: the partitioned EMST's coordinator); other formats as usual. Never hand such points to the GPU.
   */
  shared?: boolean;
  /**
   * The threads a large .npy or .bin body is read on (points.stream.ts StreamReadOptions.threads: worker threads where
   * `shared`, else reads in flight on libuv's threads); default: the host's.
   */
  threads?: number;
}

const CSV = ['.csv', '.tsv', '.txt', '.dat', ''];
const HDF5 = ['.h5', '.hdf5', '.hdf', '.he5'];
const FITS = ['.fits', '.fit', '.fts'];
const ARROW = ['.arrow', '.feather', '.arrows', '.ipc'];

/**
 * The extensions each reader takes, as `pointFormat` reads them: the CLI's `--help` lists these, so the help cannot
 * drift from the readers (a test checks every entry against `pointFormat`).
 */
export const POINT_EXTENSIONS: Record<NonNullable<ReturnType<typeof pointFormat>>, readonly string[]> = {
  csv: CSV.filter((e) => e !== ''),
  npy: ['.npy'],
  bin: ['.bin'],
  hdf5: HDF5,
  fits: [...FITS, ...FITS.map((e) => `${e}.gz`)],
  parquet: ['.parquet'],
  arrow: ARROW,
};

/** The reader a path goes to, by extension (`.fits.gz` counts as FITS). */
export function pointFormat(path: string): 'csv' | 'npy' | 'bin' | 'hdf5' | 'fits' | 'parquet' | 'arrow' | null {
  const lower = path.toLowerCase();
  const ext = extname(lower);
  if (ext === '.gz' && FITS.includes(extname(lower.slice(0, -3)))) return 'fits';
  if (ext === '.npy') return 'npy';
  if (ext === '.bin') return 'bin';
  if (HDF5.includes(ext)) return 'hdf5';
  if (FITS.includes(ext)) return 'fits';
  if (ext === '.parquet') return 'parquet';
  if (ARROW.includes(ext)) return 'arrow';
  if (CSV.includes(ext)) return 'csv';
  return null;
}

/**
 * Reads a point file by extension; every coordinate is checked finite (`requireFinite`: .npy and .bin files are
 * checked by their readers, piece by piece as they land where they are large).
 */
export async function readPoints(path: string, options: PointReadOptions = {}): Promise<PointTable> {
  const table = await readAnyPoints(path, options);
  const format = pointFormat(path);
  return format === 'npy' || format === 'bin' ? table : requireFinite(table, path);
}

async function readAnyPoints(path: string, options: PointReadOptions): Promise<PointTable> {
  const format = pointFormat(path);
  if (options.dataset !== undefined && format !== 'hdf5' && format !== 'fits') {
    throw new InputError(`${path}: --dataset applies to HDF5 (.h5, .hdf5) and FITS (.fits) files only.`);
  }
  const { columns, dataset } = options;
  switch (format) {
    case 'csv':
      return readCsvPoints(path, options);
    case 'hdf5':
      return readHdf5Points(path, { columns, dataset });
    case 'fits':
      return readFitsPoints(path, { columns, dataset });
    case 'parquet':
      return readParquetPoints(path, { columns });
    case 'arrow':
      return readArrowPoints(path, { columns });
    case 'npy':
      return readNpyFile(path, columns, { shared: options.shared, threads: options.threads, requireFinite: true });
    case 'bin':
      return readBinFile(path, columns, { shared: options.shared, threads: options.threads, requireFinite: true });
    default:
      throw new InputError(
        `${path}: unknown point format '${extname(path)}' (expected .csv, .tsv, .txt, .npy, .bin, .h5/.hdf5, .fits, .parquet or .arrow/.feather).`,
      );
  }
}

/** Node's readFile refuses files over 2 GiB (ERR_FS_FILE_TOO_LARGE); a Buffer holds up to 4 GiB here (Node 20). */
const READ_FILE_LIMIT = 2 ** 31 - 1;

/**
 * The whole file as bytes: readFile below 2 GiB, else read in `chunk`-byte pieces into one buffer (2·10^8 3D points
 * as .npy are 2.4 GB: the partitioned EMST's inputs, issue 20). `limit` and `chunk` are parameters for tests. No
 * point reader uses it since issue 19: points.stream.ts reads into the points, without this copy of the file (V8
 * refuses one Uint8Array of more than 2^32 bytes: 3.6·10^8 3D float32 points).
 */
export async function readWholeFile(path: string, limit = READ_FILE_LIMIT, chunk = 2 ** 30): Promise<Uint8Array> {
  const file = await open(path, 'r');
  try {
    const size = (await file.stat()).size;
    if (size <= limit) return await file.readFile();
    let out: Uint8Array;
    try {
      out = new Uint8Array(size);
    } catch (e) {
      throw new InputError(`${path}: ${size} bytes do not fit one buffer here (${(e as Error).message}).`);
    }
    for (let at = 0; at < size;) {
      const { bytesRead } = await file.read(out, at, Math.min(chunk, size - at), at);
      if (bytesRead === 0) throw new InputError(`${path}: the file ended at byte ${at} of ${size} while being read.`);
      at += bytesRead;
    }
    return out;
  } finally {
    await file.close();
  }
}
