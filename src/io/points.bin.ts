/** ArborX's binary points format: int32 n, int32 d, then n·d float32, row-major, little endian. */
import { InputError } from '../errors.js';
import { byteChunks, joinChunks } from './npy.js';
import type { PointTable } from './points.csv.js';

export function parseBinPoints(bytes: Uint8Array, source = '<bin>'): PointTable {
  if (bytes.byteLength < 8)
    throw new InputError(`${source}: too short for the int32 n, int32 d header (${bytes.byteLength} bytes).`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = dv.getInt32(0, true);
  const dim = dv.getInt32(4, true);
  if (n < 0 || dim < 1) throw new InputError(`${source}: invalid header n=${n}, d=${dim}.`);
  const need = 8 + n * dim * 4;
  if (bytes.byteLength < need)
    throw new InputError(`${source}: truncated: n=${n}, d=${dim} needs ${need} bytes, got ${bytes.byteLength}.`);
  // The file's bytes themselves where aligned (a read file's buffer is): no second copy on the host (issue 19).
  const aligned = (bytes.byteOffset + 8) % 4 === 0;
  const points = aligned ? new Float32Array(bytes.buffer, bytes.byteOffset + 8, n * dim) : new Float32Array(n * dim);
  if (!aligned) for (let i = 0; i < n * dim; i++) points[i] = dv.getFloat32(8 + 4 * i, true);
  return { points, n, dim, columns: Array.from({ length: dim }, (_, i) => String(i)) };
}

export function writeBinPoints(points: Float32Array, dim: number): Uint8Array {
  return joinChunks(binPointsChunks(points, dim));
}

/**
 * The binary file of `points` as chunks to write one after another: the 8-byte header, then views of the points'
 * own bytes (this format and every host treeline runs on are little endian): no copy of the points.
 */
export function binPointsChunks(points: Float32Array, dim: number, chunkBytes = 1 << 30): Uint8Array[] {
  const n = points.length / dim;
  if (n > 0x7fffffff)
    throw new InputError(
      `bin: ${n} points do not fit the format's int32 point count (at most 2147483647); write .npy.`,
    );
  const head = new Uint8Array(8);
  const dv = new DataView(head.buffer);
  dv.setInt32(0, n, true);
  dv.setInt32(4, dim, true);
  return [head, ...byteChunks(points, chunkBytes)];
}
