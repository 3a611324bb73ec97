/**
 * .npy, ArborX .bin and headerless float32 point files read straight into their one Float32Array (issue 19: 4–6·10^8
 * 3D points are 4.8–7.2 GB; V8 refuses a Uint8Array of more than 2^32 bytes, so a whole-file byte buffer cannot even
 * be made, and where it can it is a second copy beside converted points). The header is parsed from the file's first
 * bytes, the points are allocated once (limits.ts: a clear error when they cannot be), and the body is read:
 * - little-endian float32 in C order with every column (the usual case): by file.read into views of the points' own
 *   bytes, `directBytes` at a time, `inFlight` reads at once — nothing else is allocated;
 * - anything else (float64, integers, big endian, Fortran order, a column selection): in pieces of at most
 *   `pieceBytes` (whole values; the next piece is read while one is converted), each converted into the points as
 *   npyToPoints converts (float64 rounded to float32, Fortran order written transposed, --columns picked as
 *   points.ts's selection did).
 * The messages are those of the whole-buffer readers (npy.ts parseNpy/npyLayout, points.bin.ts parseBinPoints, the
 * CLI's headerless reader): the checks are shared or repeated word for word. Peak host memory: the points plus two
 * pieces.
 *
 * Large bodies (from LARGE_READ_BYTES of points: 6·10^8 3D points are 7.2 GB): a fresh array's pages
 * cost a fault each at their first write (~1 GB/s a thread), and readPoints' finite check was one more pass on one
 * thread. So there the check (`requireFinite`) runs on each piece as it lands, and the direct reads go
 * - into shared points (`shared`): on the host's worker threads, each reading and checking its pieces
 *   (points.stream.threads.ts), so that the faults and the check spread over the threads;
 * - into ordinary points (which worker threads cannot write): `step` bytes a read, as many in flight as libuv has
 *   threads (UV_THREADPOOL_SIZE, 4 by default; Node reads it at start-up only) or `threads` where fewer (a worker's
 *   share of its host), each piece checked on the calling thread while the next ones are read.
 * Only whether every value passed is kept: where one did not, requireFinite names the first, as on the small path.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { extname } from 'node:path';
import { InputError } from '../errors.js';
import type { PointTable } from './points.csv.js';
import { MAX_DEFAULT_HOST_THREADS } from '../host/thresholds.js';
import { inLanes } from '../host/lanes.js';
import { resolveThreads } from '../host/threads.js';
import { allocFloat32, checkTableSize } from './limits.js';
import { NPY_READERS, npyDataStart, npyLayout, parseNpy, type NpyLayout } from './npy.js';
import { finiteIn, requireFinite } from './points.finite.js';
import { readPiecesOnWorkers } from './points.stream.threads.js';

export interface StreamReadOptions {
  /** Bytes per read straight into the points (one read call takes at most 2 GiB). */
  directBytes?: number;
  /** Reads straight into the points at once. */
  inFlight?: number;
  /** Bytes per piece read and converted (rounded down to whole values, at least one); two pieces are held. */
  pieceBytes?: number;
  /** The points in a SharedArrayBuffer (PointReadOptions.shared). */
  shared?: boolean;
  /** The table passes `requireFinite` before it is returned (readPoints): on large bodies, piece by piece. */
  requireFinite?: boolean;
  /** Bytes of points from which the large-body path runs (LARGE_READ_BYTES; tests lower it). */
  largeBytes?: number;
  /**
   * Threads of a large direct read: its worker threads into shared points (default: available parallelism, at most
   * 16); into ordinary points, at most this many reads in flight on libuv's threads (default: as many as libuv has).
   */
  threads?: number;
}

const DIRECT_BYTES = 1 << 28;
const IN_FLIGHT = 4;
const PIECE_BYTES = 1 << 25;

/** Bytes of points from which a body takes the large path (header comment): below, one more pass costs little. */
export const LARGE_READ_BYTES = 64 << 20;
/** A large direct read's pieces on the calling thread: small enough that the last one's check waits little. */
const LARGE_DIRECT_BYTES = 1 << 25;
/** A large direct read's pieces on worker threads: each checked right after its read, while in cache. */
const WORKER_PIECE_BYTES = 1 << 22;

/** A column selection: 0-based indices (as strings or numbers), repeats allowed; none or empty: every column. */
type Columns = readonly (string | number)[] | undefined;

/** An .npy file (versions 1–3; the dtypes and orders npyToPoints reads) as row-major float32 points. */
export async function readNpyFile(
  path: string,
  columns?: Columns,
  options: StreamReadOptions = {},
): Promise<PointTable> {
  return withFile(path, async (file, size) => {
    // The magic, version and header length (10 or 12 bytes), then the whole header: parseNpy's checks on them.
    const { dataStart } = npyDataStart(await readHead(file, Math.min(size, 12)), path);
    const arr = parseNpy(await readHead(file, Math.min(size, dataStart)), path);
    const layout = npyLayout(arr, Math.max(0, size - dataStart), path);
    return readBody(file, path, size, dataStart, layout, columns, options);
  });
}

/** ArborX's binary points format (int32 n, int32 d, then n·d float32, row-major, little endian). */
export async function readBinFile(
  path: string,
  columns?: Columns,
  options: StreamReadOptions = {},
): Promise<PointTable> {
  return withFile(path, async (file, size) => {
    if (size < 8) throw new InputError(`${path}: too short for the int32 n, int32 d header (${size} bytes).`);
    const dv = new DataView((await readHead(file, 8)).buffer);
    const n = dv.getInt32(0, true);
    const dim = dv.getInt32(4, true);
    if (n < 0 || dim < 1) throw new InputError(`${path}: invalid header n=${n}, d=${dim}.`);
    const need = 8 + n * dim * 4;
    if (size < need) throw new InputError(`${path}: truncated: n=${n}, d=${dim} needs ${need} bytes, got ${size}.`);
    checkTableSize(n, dim, path, 'n');
    return readBody(file, path, size, 8, F32_LAYOUT(n, dim), columns, options);
  });
}

/**
 * Headerless little-endian float32 rows of `dim` values (the CLI's --dim for .f32/.raw/.bin). An ArborX .bin whose
 * header matches its size is refused: read as rows, its header would become a point.
 */
export async function readHeaderlessFile(
  path: string,
  dim: number,
  options: StreamReadOptions = {},
): Promise<PointTable> {
  return withFile(path, async (file, size) => {
    if (extname(path).toLowerCase() === '.bin' && size >= 8) {
      // Important! An ArborX .bin (int32 n, int32 d, then n·d float32) read as headerless rows would turn its header
      // into a point: refuse when the header matches the file's size.
      const head = new DataView((await readHead(file, 8)).buffer);
      const n = head.getInt32(0, true);
      const d = head.getInt32(4, true);
      if (n >= 0 && d >= 1 && 8 + 4 * n * d === size) {
        throw new InputError(
          `${path}: this looks like ArborX's binary format (n=${n}, d=${d} header); drop --dim to read it as such.`,
        );
      }
    }
    if (size % (4 * dim) !== 0) {
      throw new InputError(
        `${path}: ${size} bytes is not a whole number of rows of ${dim} float32 values (--dim ${dim}).`,
      );
    }
    const n = size / (4 * dim);
    checkTableSize(n, dim, path, 'rows');
    return readBody(file, path, size, 0, F32_LAYOUT(n, dim), undefined, options);
  });
}

const F32_LAYOUT = (n: number, dim: number): NpyLayout => ({
  n,
  dim,
  kind: 'f4',
  size: 4,
  get: NPY_READERS.f4[1],
  le: true,
  fortranOrder: false,
});

async function withFile<T>(path: string, body: (file: FileHandle, size: number) => Promise<T>): Promise<T> {
  const file = await open(path, 'r');
  try {
    return await body(file, (await file.stat()).size);
  } finally {
    await file.close();
  }
}

/** The first `length` bytes of the file (the caller has checked that it holds them, or passes less). */
async function readHead(file: FileHandle, length: number): Promise<Uint8Array> {
  const out = new Uint8Array(length);
  const { bytesRead } = await file.read(out, 0, length, 0);
  return out.subarray(0, bytesRead);
}

/**
 * Fills `view` from file byte `position` on: read returns less than asked at 2 GiB a call (Linux) or when the file
 * shrank since it was measured — the latter is an InputError, as readWholeFile's.
 */
async function readFully(file: FileHandle, view: Uint8Array, position: number, path: string, size: number) {
  for (let done = 0; done < view.length;) {
    const { bytesRead } = await file.read(view, done, view.length - done, position + done);
    if (bytesRead === 0) throw fileEnded(path, position + done, size);
    done += bytesRead;
  }
}

/** The 0-based column indices picked, as points.ts's selection checked them; null: every column in order. */
function columnPicks(columns: Columns, dim: number, path: string): number[] | null {
  if (!columns?.length) return null;
  return columns.map((c) => {
    const i = Number(c);
    if (!Number.isInteger(i) || i < 0 || i >= dim)
      throw new InputError(`${path}: no column '${c}' (it has ${dim} columns, 0-based).`);
    return i;
  });
}

/** Typed views for the little-endian kinds a piece can be read through directly (8-byte integers go by DataView). */
const TYPED: Record<string, new (b: ArrayBuffer, o: number, n: number) => ArrayLike<number> & ArrayBufferView> = {
  f4: Float32Array,
  f8: Float64Array,
  i1: Int8Array,
  u1: Uint8Array,
  i2: Int16Array,
  u2: Uint16Array,
  i4: Int32Array,
  u4: Uint32Array,
};

/** The n·dim values from byte `at` on, into one Float32Array (the layout's sizes are checked against the file). */
async function readBody(
  file: FileHandle,
  path: string,
  size: number,
  at: number,
  layout: NpyLayout,
  columns: Columns,
  options: StreamReadOptions,
): Promise<PointTable> {
  const { n, dim, kind, le, fortranOrder } = layout;
  const picks = columnPicks(columns, dim, path);
  const width = picks ? picks.length : dim;
  const points = allocFloat32(n * width, path, options.shared === true);
  const table = { points, n, dim: width, columns: (picks ?? Array.from({ length: dim }, (_, i) => i)).map(String) };
  const large = points.byteLength > 0 && points.byteLength >= (options.largeBytes ?? LARGE_READ_BYTES);
  // Whether the read checked every value as requireFinite does (large bodies, where asked) and found none bad.
  const check = large && options.requireFinite === true;
  let finite: boolean;
  if (kind === 'f4' && le && !fortranOrder && !picks) {
    const { directBytes = DIRECT_BYTES, inFlight = IN_FLIGHT } = options;
    finite = large
      ? await readLarge(file, path, size, at, points, options, check)
      : await readDirect(file, path, size, at, points, directBytes, inFlight);
  } else {
    finite = await convertPieces(file, path, size, at, layout, picks, points, options.pieceBytes ?? PIECE_BYTES, check);
  }
  // Important! Where the read found a bad value, requireFinite finds the first and names it with its usual message.
  return options.requireFinite && !finite ? requireFinite(table, path) : table;
}

/**
 * A large direct read (header comment): on worker threads into shared points, else on the calling thread with
 * libuv's threads reading. With `check`, whether every value passed (each piece checked as it lands); else false.
 */
async function readLarge(
  file: FileHandle,
  path: string,
  size: number,
  at: number,
  points: Float32Array,
  options: StreamReadOptions,
  check: boolean,
): Promise<boolean> {
  // Whole float32 values a piece, so that each can be checked alone.
  const step = (bytes: number) => Math.max(4, bytes - (bytes % 4));
  if (points.buffer instanceof SharedArrayBuffer) {
    const threads = options.threads ?? (await resolveThreads(undefined, points.length, MAX_DEFAULT_HOST_THREADS));
    const pieceBytes = step(options.directBytes ?? WORKER_PIECE_BYTES);
    const read = await readPiecesOnWorkers(file.fd, points, at, pieceBytes, threads, check);
    if (read?.ended !== undefined) throw fileEnded(path, read.ended, size);
    if (read !== null) return check && read.finite;
  }
  const inFlight = options.inFlight ?? Math.min(libuvThreads(), options.threads ?? Infinity);
  return readDirect(file, path, size, at, points, step(options.directBytes ?? LARGE_DIRECT_BYTES), inFlight, check);
}

/** libuv's threadpool size, which Node took from UV_THREADPOOL_SIZE at start-up (4 unless set; at most 1024). */
function libuvThreads(): number {
  const size = Number(process.env.UV_THREADPOOL_SIZE);
  return Number.isInteger(size) && size >= 1 ? Math.min(size, 1024) : 4;
}

const fileEnded = (path: string, at: number, size: number) =>
  new InputError(`${path}: the file ended at byte ${at} of ${size} while being read.`);

/**
 * The points' bytes from file byte `at` on, `step` bytes a read, `inFlight` reads at once (libuv's 4 threads: the
 * kernel's copies and the fresh pages' faults go on in parallel). After a failed read no further one starts; the
 * first error is thrown once every read in flight has ended (the file is closed only then). With `check` (`step` a
 * multiple of 4), each piece is checked as it lands, while the others are read: whether every value passed.
 */
async function readDirect(
  file: FileHandle,
  path: string,
  size: number,
  at: number,
  points: Float32Array,
  step: number,
  inFlight: number,
  check = false,
): Promise<boolean> {
  const total = points.byteLength;
  let finite = check;
  await inLanes(Math.ceil(total / step), inFlight, async (j) => {
    const from = step * j;
    const view = new Uint8Array(points.buffer, from, Math.min(step, total - from));
    await readFully(file, view, at + from, path, size);
    if (finite) finite = finiteIn(points, from / 4, (from + view.length) / 4);
  });
  return finite;
}

/**
 * The values in file order, a piece at a time, each written where npyToPoints (and then the column selection) would
 * put it: value s is row i = ⌊s / dim⌋, column d = s mod dim in C order; column ⌊s / n⌋, row s mod n in Fortran order.
 * With `check`, the rows a piece completed (C order; in Fortran order the last piece completes them all) are checked
 * while in cache: whether every value passed.
 */
async function convertPieces(
  file: FileHandle,
  path: string,
  size: number,
  at: number,
  layout: NpyLayout,
  picks: number[] | null,
  out: Float32Array,
  pieceBytes: number,
  check: boolean,
): Promise<boolean> {
  const { n, dim, kind, size: bytes, get, le, fortranOrder } = layout;
  const total = n * dim;
  if (total === 0) return false;
  const perPiece = Math.min(total, Math.max(1, Math.floor(pieceBytes / bytes)));
  const pieces = Math.ceil(total / perPiece);
  // Two pieces: the next one is read (libuv's threads) while this one is converted (this thread).
  const buffers = [new Uint8Array(perPiece * bytes), new Uint8Array(pieces > 1 ? perPiece * bytes : 0)];
  const readPiece = async (k: number): Promise<number> => {
    const count = Math.min(perPiece, total - k * perPiece);
    await readFully(file, buffers[k & 1].subarray(0, count * bytes), at + k * perPiece * bytes, path, size);
    return count;
  };
  const Typed = le ? TYPED[kind] : undefined;
  // Output slots of each source column (a selection may repeat one, or leave it out).
  const width = picks ? picks.length : dim;
  const slots: number[][] = Array.from({ length: dim }, () => []);
  (picks ?? Array.from({ length: dim }, (_, j) => j)).forEach((c, j) => slots[c].push(j));
  // Little-endian C order with every column: whole pieces through TypedArray.prototype.set.
  const straight = Typed !== undefined && !fortranOrder && !picks;
  let row = 0;
  let col = 0;
  let finite = check;
  let checked = 0; // output values checked so far
  let pending = readPiece(0);
  for (let k = 0; k < pieces; k++) {
    const count = await pending;
    if (k + 1 < pieces) pending = readPiece(k + 1);
    const v0 = k * perPiece;
    const piece = buffers[k & 1];
    const dv = new DataView(piece.buffer);
    const typed = Typed ? new Typed(piece.buffer, 0, count) : null;
    if (straight && typed) {
      out.set(typed, v0); // each value rounded to float32 as an element assignment rounds it
      if (finite) finite = finiteIn(out, v0, v0 + count);
      checked = v0 + count;
      continue;
    }
    // (row, col) carry over from piece to piece: a piece may end mid-row (C order) or mid-column (Fortran order).
    for (let t = 0; t < count; t++) {
      const x = typed ? typed[t] : get(dv, t * bytes, le);
      const to = slots[col];
      for (let s = 0; s < to.length; s++) out[row * width + to[s]] = x;
      if (fortranOrder) {
        if (++row === n) {
          row = 0;
          col++;
        }
      } else if (++col === dim) {
        col = 0;
        row++;
      }
    }
    if (finite && !fortranOrder) finite = finiteIn(out, checked, row * width);
    if (!fortranOrder) checked = row * width;
  }
  return finite && finiteIn(out, checked, out.length);
}
