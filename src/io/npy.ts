/**
 * NumPy .npy reader and writer (format versions 1–3). Reads float32/float64 and (u)int8–64 arrays of shape (n,) or
 * (n, d), in C or Fortran order, little or big endian, converting to row-major float32. Writes float32, float64,
 * int32 and uint32 arrays of shape (n,) or (n, d) in C order.
 */
import { InputError } from '../errors.js';
import type { PointTable } from './points.csv.js';
import { allocFloat32, checkTableSize } from './limits.js';

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY

export interface NpyArray {
  dtype: string;
  shape: number[];
  fortranOrder: boolean;
  /** The raw data bytes. */
  data: Uint8Array;
}

/**
 * Where the data start (the magic, the version, the header's length field and the header) from the file's first 12
 * bytes or more: the magic and the length field checked, as parseNpy checks them (the streaming reader reads the
 * header only once it knows this).
 */
export function npyDataStart(bytes: Uint8Array, source = '<npy>'): { start: number; dataStart: number } {
  if (bytes.length < 10 || MAGIC.some((m, i) => bytes[i] !== m)) {
    throw new InputError(`${source}: not a .npy file (missing the \\x93NUMPY magic).`);
  }
  const major = bytes[6];
  const start = major === 1 ? 10 : 12;
  if (bytes.length < start)
    throw new InputError(`${source}: not a .npy file (it ends inside the version-${major} header's length field).`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { start, dataStart: start + (major === 1 ? dv.getUint16(8, true) : dv.getUint32(8, true)) };
}

export function parseNpy(bytes: Uint8Array, source = '<npy>'): NpyArray {
  const { start, dataStart } = npyDataStart(bytes, source);
  const major = bytes[6];
  const headerLen = dataStart - start;
  const header = new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(bytes.subarray(start, start + headerLen));
  const descr = /'descr'\s*:\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(header)?.[1];
  const shapeText = /'shape'\s*:\s*\(([^)]*)\)/.exec(header)?.[1];
  if (!descr || !fortran || shapeText === undefined)
    throw new InputError(`${source}: malformed .npy header: ${header.trim()}`);
  const dims = shapeText
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const shape = dims.map((d) => Number(d.replace(/L$/, ''))); // Python 2 wrote long ints as 3L
  const shown = `(${dims.join(', ')}${dims.length === 1 ? ',' : ''})`;
  // Header-derived sizes are checked before anything is allocated from them (limits.ts).
  if (shape.some((d) => d < 0)) throw new InputError(`${source}: shape ${shown} has a negative dimension.`);
  if (shape.some((d) => !Number.isSafeInteger(d)))
    throw new InputError(`${source}: shape ${shown} has a dimension that is not a whole number.`);
  return { dtype: descr, shape, fortranOrder: fortran === 'True', data: bytes.subarray(start + headerLen) };
}

/** Per npy kind: bytes per value and the value at a byte offset of a DataView. */
export const NPY_READERS: Record<string, [number, (dv: DataView, off: number, le: boolean) => number]> = {
  f4: [4, (d, o, le) => d.getFloat32(o, le)],
  f8: [8, (d, o, le) => d.getFloat64(o, le)],
  i1: [1, (d, o) => d.getInt8(o)],
  u1: [1, (d, o) => d.getUint8(o)],
  i2: [2, (d, o, le) => d.getInt16(o, le)],
  u2: [2, (d, o, le) => d.getUint16(o, le)],
  i4: [4, (d, o, le) => d.getInt32(o, le)],
  u4: [4, (d, o, le) => d.getUint32(o, le)],
  i8: [8, (d, o, le) => Number(d.getBigInt64(o, le))],
  u8: [8, (d, o, le) => Number(d.getBigUint64(o, le))],
};

/** What a parsed header says about the points: n rows of dim values, each `size` bytes read by `get`. */
export interface NpyLayout {
  n: number;
  dim: number;
  /** The dtype's kind without its byte-order character ('f4', 'i8', …). */
  kind: string;
  size: number;
  get: (dv: DataView, off: number, le: boolean) => number;
  le: boolean;
  fortranOrder: boolean;
}

/**
 * The header's shape and dtype checked against `dataBytes` (the bytes after the header) and the table limit — the
 * checks and messages of npyToPoints, shared with the streaming reader (points.stream.ts), which has no data yet.
 */
export function npyLayout(arr: Omit<NpyArray, 'data'>, dataBytes: number, source = '<npy>'): NpyLayout {
  if (arr.shape.length < 1 || arr.shape.length > 2) {
    throw new InputError(`${source}: expected a 1- or 2-dimensional array, got shape (${arr.shape.join(', ')}).`);
  }
  const [n, dim = 1] = arr.shape;
  const endian = arr.dtype[0];
  const kind = arr.dtype.slice(1);
  const reader = NPY_READERS[kind];
  if (!reader) throw new InputError(`${source}: unsupported dtype '${arr.dtype}' (expected float, int or uint).`);
  const [size, get] = reader;
  if (dataBytes < n * dim * size) {
    throw new InputError(
      `${source}: shape (${arr.shape.join(', ')}) of '${arr.dtype}' needs ${n * dim * size} data bytes, the file holds only ${dataBytes}.`,
    );
  }
  checkTableSize(n, dim, source, 'shape[0]');
  return { n, dim, kind, size, get, le: endian !== '>', fortranOrder: arr.fortranOrder };
}

/**
 * Converts a parsed .npy array of shape (n,) or (n, d) to row-major float32 points: a view of `arr.data` where it
 * already is little-endian float32 in C order and 4-byte aligned (the caller then must not reuse those bytes), else
 * a converted copy.
 */
export function npyToPoints(arr: NpyArray, source = '<npy>'): PointTable {
  const { n, dim, kind, size, get, le } = npyLayout(arr, arr.data.byteLength, source);
  // Little-endian float32 in C order, aligned (the usual case: a version-1 header pads the data to 64 bytes): the
  // points are a view of the file's bytes — no second copy of a catalogue on the host (issue 19), and no 0.9–1.9
  // GB/s first touch of a fresh array (issue 17: ~100 ms at 10^7 × 3 on the H100's host).
  if (kind === 'f4' && le && !arr.fortranOrder && arr.data.byteOffset % 4 === 0) {
    const points = new Float32Array(arr.data.buffer, arr.data.byteOffset, n * dim);
    return { points, n, dim, columns: Array.from({ length: dim }, (_, i) => String(i)) };
  }
  const dv = new DataView(arr.data.buffer, arr.data.byteOffset, arr.data.byteLength);
  const out = allocFloat32(n * dim, source);
  for (let i = 0; i < n; i++) {
    for (let d = 0; d < dim; d++) {
      const src = arr.fortranOrder ? d * n + i : i * dim + d;
      out[i * dim + d] = get(dv, src * size, le);
    }
  }
  return { points: out, n, dim, columns: Array.from({ length: dim }, (_, i) => String(i)) };
}

/** Serialises a typed array of shape (n,) or (n, d) as a version-1 .npy file in C order. */
export function writeNpy(data: Float32Array | Float64Array | Int32Array | Uint32Array, shape: number[]): Uint8Array {
  return joinChunks(npyChunks(data, shape));
}

/** Chunks joined into one new array (the one-piece writers: writeNpy, writeBinPoints). */
export function joinChunks(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((total, c) => total + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/**
 * The .npy file of `data` (shape (n,) or (n, d), C order) as chunks to write one after another: the header, then
 * views of the array's own bytes of at most `chunkBytes` each — no copy of the data (an edge list of 6·10^8 edges is
 * 2.4 GB an array; one write call takes at most 2 GiB).
 */
export function npyChunks(
  data: Float32Array | Float64Array | Int32Array | Uint32Array,
  shape: number[],
  chunkBytes = 1 << 30,
): Uint8Array[] {
  const count = shape.reduce((a, b) => a * b, 1);
  if (count !== data.length)
    throw new InputError(`writeNpy: shape (${shape.join(', ')}) holds ${count} values, got ${data.length}.`);
  return [npyHeader(data, shape), ...byteChunks(data, chunkBytes)];
}

/**
 * The .npy header (version 1.0, padded to 64 bytes) of an array of `data`'s type and the given shape, C order: what a
 * file's data follow (npyChunks; io/write.ts NpyEdgeSink writes the data in place after it). The shape is not checked
 * against `data`'s length.
 */
export function npyHeader(data: Float32Array | Float64Array | Int32Array | Uint32Array, shape: number[]): Uint8Array {
  const descr =
    data instanceof Float32Array
      ? '<f4'
      : data instanceof Float64Array
        ? '<f8'
        : data instanceof Int32Array
          ? '<i4'
          : '<u4';
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shapeText}, }`;
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const head = new Uint8Array(10 + header.length);
  head.set(MAGIC, 0);
  head[6] = 1;
  head[7] = 0;
  new DataView(head.buffer).setUint16(8, header.length, true);
  for (let i = 0; i < header.length; i++) head[10 + i] = header.charCodeAt(i);
  return head;
}

/**
 * Views of an array's bytes, at most `chunkBytes` each (none for an empty array). Each chunk is its own view: one
 * Uint8Array over the whole array ends at 2^32 − 1 bytes in Node 20 (a RangeError for 4·10^8 3D float32 points,
 * 4.8 GB: `treeline generate` of issue 19's inputs).
 */
export function byteChunks(data: ArrayBufferView, chunkBytes = 1 << 30): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < data.byteLength; at += chunkBytes)
    out.push(new Uint8Array(data.buffer, data.byteOffset + at, Math.min(chunkBytes, data.byteLength - at)));
  return out;
}
