/**
 * Parquet through hyparquet (pure JavaScript, no native code). The footer gives the schema and row count; the
 * selected columns are then read about a million rows at a time (whole row groups), each column chunk written
 * straight into one Float32Array, so memory holds the output plus one batch of column data. Numeric columns:
 * INT32, INT64, FLOAT, DOUBLE (and FLOAT16 / DECIMAL, which hyparquet decodes to numbers), by name or 0-based
 * index; default all of them. A null is an InputError naming the column and row. hyparquet decodes uncompressed and
 * Snappy files; other codecs (gzip, zstd…) give an InputError naming the codec. Float64 is rounded to float32.
 */
import type { FileMetaData, SchemaTree } from 'hyparquet';
import { InputError, TreelineError } from '../errors.js';
import type { PointTable } from './points.csv.js';
import { pickColumns, type FieldInfo } from './points.columns.js';
import { allocFloat32, checkTableSize } from './limits.js';

export interface TableOptions {
  /** Columns by name (exact, else case-insensitive) or 0-based index (default: every numeric column). */
  columns?: (string | number)[];
}

const BATCH_ROWS = 1 << 20;
const NUMBER_TYPES = ['INT32', 'INT64', 'FLOAT', 'DOUBLE'];
const NOT_NUMBERS = ['DATE', 'TIME', 'TIMESTAMP', 'INTERVAL', 'STRING', 'JSON', 'BSON', 'ENUM', 'UUID'];

function field(node: SchemaTree): FieldInfo {
  const e = node.element;
  const logical = e.logical_type?.type;
  const annotation = logical ?? e.converted_type;
  const text = annotation === 'UTF8' || annotation === 'STRING';
  const type = text ? 'string' : [e.type ?? 'group', annotation].filter(Boolean).join(' ').toLowerCase();
  const plain =
    e.type !== undefined &&
    NUMBER_TYPES.includes(e.type) &&
    !NOT_NUMBERS.some((t) => String(annotation ?? '').startsWith(t));
  const numeric =
    node.children.length === 0 &&
    e.repetition_type !== 'REPEATED' &&
    (plain || logical === 'FLOAT16' || annotation === 'DECIMAL');
  return { name: e.name, numeric, type };
}

/** Wraps a library failure as an InputError naming the file (our own errors pass through). */
function wrap(path: string, e: unknown, what: string): never {
  if (e instanceof TreelineError) throw e;
  throw new InputError(`${path}: ${what}: ${(e as Error)?.message ?? String(e)}`);
}

export async function readParquetPoints(path: string, options: TableOptions = {}): Promise<PointTable> {
  const hp = await import('hyparquet');
  let file: Awaited<ReturnType<typeof hp.asyncBufferFromFile>>;
  let metadata: FileMetaData;
  try {
    file = await hp.asyncBufferFromFile(path);
    metadata = await hp.parquetMetadataAsync(file);
  } catch (e) {
    wrap(path, e, 'not a readable Parquet file');
  }
  const fields = hp.parquetSchema(metadata).children.map(field);
  const picks = pickColumns(fields, options.columns, path);
  const names = [...new Set(picks.map((i) => fields[i].name))];
  const slots = names.map((name) => picks.flatMap((p, j) => (fields[p].name === name ? [j] : [])));
  const n = Number(metadata.num_rows);
  const dim = picks.length;
  // Important! num_rows comes from the footer: it must agree with the row groups and fit a table before
  // anything is allocated from it (limits.ts). Parquet's run-length encoding makes the file size no bound.
  const groups = metadata.row_groups.map((g) => Number(g.num_rows));
  const grouped = groups.reduce((a, b) => a + b, 0);
  checkTableSize(n, dim, path, 'num_rows');
  if (grouped !== n) {
    throw new InputError(
      `${path}: the footer's num_rows = ${n}, but its ${groups.length} row groups hold ${grouped} rows.`,
    );
  }
  const points = allocFloat32(n * dim, path);
  let filled = 0;
  let problem: InputError | undefined; // onChunk runs inside hyparquet's promise callbacks: never throw there

  const onChunk = ({
    columnName,
    columnData,
    rowStart,
  }: {
    columnName: string;
    columnData: ArrayLike<unknown>;
    rowStart: number;
  }): void => {
    if (problem) return;
    const js = slots[names.indexOf(columnName)];
    for (let i = 0; i < columnData.length; i++) {
      const v = columnData[i];
      if (typeof v !== 'number' && typeof v !== 'bigint') {
        const what = v === null || v === undefined ? 'null' : `${typeof v} ${String(v).slice(0, 40)}`;
        problem = new InputError(
          `${path}: column '${columnName}', row ${rowStart + i} (0-based) is ${what}; expected a number.`,
        );
        return;
      }
      for (const j of js) points[(rowStart + i) * dim + j] = Number(v);
    }
    filled += columnData.length * js.length;
  };

  // Whole row groups, about BATCH_ROWS rows per read, so hyparquet never holds every column chunk at once.
  let rowStart = 0;
  for (let g = 0; g < groups.length && !problem;) {
    let rowEnd = rowStart;
    do rowEnd += groups[g++];
    while (g < groups.length && rowEnd - rowStart + groups[g] <= BATCH_ROWS);
    try {
      await hp.parquetRead({ file, metadata, columns: names, rowStart, rowEnd, onChunk });
    } catch (e) {
      wrap(path, e, `cannot read rows ${rowStart}–${rowEnd - 1}`);
    }
    rowStart = rowEnd;
  }
  if (problem) throw problem;
  if (filled !== n * dim) throw new InputError(`${path}: read ${filled} values, expected ${n} rows × ${dim} columns.`);
  return { points, n, dim, columns: picks.map((i) => fields[i].name) };
}
