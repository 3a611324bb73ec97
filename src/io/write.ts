/**
 * Writers for results: CSV (one header line, one row per item), JSON, and NPY (one .npy file per array into a
 * directory). Arrays are written as given: no rounding beyond float32's shortest round-trip representation.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError } from '../errors.js';
import { writeNpy } from './npy.js';

export type Column = Float32Array | Float64Array | Int32Array | Uint32Array;
export type OutputFormat = 'csv' | 'json' | 'npy';

/** Formats parallel columns as CSV text with a header. */
export function toCsv(columns: Record<string, Column>): string {
  const names = Object.keys(columns);
  const n = names.length ? columns[names[0]].length : 0;
  for (const k of names) {
    if (columns[k].length !== n) throw new InputError(`toCsv: column '${k}' has ${columns[k].length} rows, expected ${n}.`);
  }
  const parts: string[] = [names.join(',')];
  for (let i = 0; i < n; i++) parts.push(names.map((k) => String(columns[k][i])).join(','));
  return parts.join('\n') + '\n';
}

/** Formats row-major points (n × dim) as CSV with columns x0, x1, …. */
export function pointsToCsv(points: Float32Array, dim: number): string {
  const n = points.length / dim;
  const lines: string[] = [Array.from({ length: dim }, (_, d) => `x${d}`).join(',')];
  for (let i = 0; i < n; i++) {
    let s = '';
    for (let d = 0; d < dim; d++) s += (d ? ',' : '') + points[i * dim + d];
    lines.push(s);
  }
  return lines.join('\n') + '\n';
}

/** Writes each array as `<dir>/<name>.npy` (2D where `shapes` gives a shape). */
export async function writeNpyDir(dir: string, arrays: Record<string, Column>, shapes: Record<string, number[]> = {}): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const [name, arr] of Object.entries(arrays)) {
    const file = join(dir, `${name}.npy`);
    await writeFile(file, writeNpy(arr, shapes[name] ?? [arr.length]));
    written.push(file);
  }
  return written;
}
