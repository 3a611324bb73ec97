/** Reads a point file by extension: .csv/.tsv/.txt (CSV reader), .npy, .bin (ArborX's binary format). */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { InputError } from '../errors.js';
import { readCsvPoints, type CsvOptions, type PointTable } from './points.csv.js';
import { npyToPoints, parseNpy } from './npy.js';
import { parseBinPoints } from './points.bin.js';

export type { PointTable, CsvOptions };

export async function readPoints(path: string, options: CsvOptions = {}): Promise<PointTable> {
  const ext = extname(path).toLowerCase();
  let table: PointTable;
  if (ext === '.npy') table = npyToPoints(parseNpy(await readFile(path), path), path);
  else if (ext === '.bin') table = parseBinPoints(await readFile(path), path);
  else if (['.csv', '.tsv', '.txt', '.dat', ''].includes(ext)) return readCsvPoints(path, options);
  else throw new InputError(`${path}: unknown point format '${ext}' (expected .csv, .tsv, .txt, .npy or .bin).`);
  if (options.columns?.length) table = selectColumns(table, options.columns, path);
  return table;
}

function selectColumns(t: PointTable, cols: (string | number)[], path: string): PointTable {
  const idx = cols.map((c) => {
    const i = Number(c);
    if (!Number.isInteger(i) || i < 0 || i >= t.dim) throw new InputError(`${path}: no column '${c}' (it has ${t.dim} columns, 0-based).`);
    return i;
  });
  const out = new Float32Array(t.n * idx.length);
  for (let r = 0; r < t.n; r++) for (let j = 0; j < idx.length; j++) out[r * idx.length + j] = t.points[r * t.dim + idx[j]];
  return { points: out, n: t.n, dim: idx.length, columns: idx.map(String) };
}
