/**
 * Arrow IPC, file format (`.arrow`, Feather v2) and stream format (`.arrows`, `.ipc`), through apache-arrow. The
 * file is read record batch by record batch from a file handle (never whole), each batch's selected columns
 * converted into a float32 block; the blocks are joined at the end. Numeric columns: Int8–64, Uint8–64, Float16/32/64,
 * by name (exact, else case-insensitive) or 0-based index; default all of them. A null is an InputError naming the
 * column and row. Compressed IPC (LZ4/ZSTD bodies) needs a codec apache-arrow does not bundle: an InputError says so.
 * Float64 is rounded to float32.
 */
import { open } from 'node:fs/promises';
import { InputError, TreelineError } from '../errors.js';
import type { PointTable } from './points.csv.js';
import { pickColumns, type FieldInfo } from './points.columns.js';
import { allocFloat32, checkTableSize } from './limits.js';
import type { TableOptions } from './points.parquet.js';

function wrap(path: string, e: unknown): never {
  if (e instanceof TreelineError) throw e;
  const message = ((e as Error)?.message ?? String(e)).replace(/\.+$/, '');
  // apache-arrow meets a cut-off file as a null where a message header should be: say what that means.
  const hint = /compress/i.test(message)
    ? ' (compressed Arrow IPC is not supported: write it uncompressed, e.g. pyarrow.feather.write_feather(…, compression="uncompressed"))'
    : e instanceof TypeError
      ? ' (the file looks truncated or corrupt)'
      : '';
  throw new InputError(`${path}: not a readable Arrow IPC file or stream: ${message}${hint}.`);
}

export async function readArrowPoints(path: string, options: TableOptions = {}): Promise<PointTable> {
  const arrow = await import('apache-arrow');
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    const head = new Uint8Array(6);
    await fh.read(head, 0, 6, 0);
    if (String.fromCharCode(...head.subarray(0, 4)) === 'FEA1') {
      throw new InputError(
        `${path}: a Feather v1 file; only Feather v2 (Arrow IPC) is read — re-save it with a current pyarrow or pandas.`,
      );
    }
    let reader: Awaited<ReturnType<typeof arrow.RecordBatchReader.from>>;
    try {
      reader = await arrow.RecordBatchReader.from(fh);
      await reader.open();
    } catch (e) {
      wrap(path, e);
    }
    const fields: FieldInfo[] = reader.schema.fields.map((f) => ({
      name: f.name,
      numeric: arrow.DataType.isInt(f.type) || arrow.DataType.isFloat(f.type),
      type: String(f.type),
    }));
    const picks = pickColumns(fields, options.columns, path);
    const dim = picks.length;
    const blocks: Float32Array[] = [];
    let n = 0;
    try {
      for await (const batch of reader) {
        const rows = batch.numRows;
        // Important! A batch's length comes from its header: each selected numeric column stores at least one
        // byte per row in the file (IPC has no run-length encoding of numbers), so the file's size bounds it.
        if (rows * dim > size) {
          throw new InputError(
            `${path}: a record batch claims length = ${rows} rows of ${dim} numeric columns; the file holds only ${size} bytes.`,
          );
        }
        checkTableSize(n + rows, dim, path, "the record batches' total length");
        const block = allocFloat32(rows * dim, path);
        picks.forEach((p, j) => {
          const column = batch.getChildAt(p)!;
          if (column.nullCount > 0) {
            let i = 0;
            while (column.isValid(i)) i++;
            throw new InputError(
              `${path}: column '${fields[p].name}', row ${n + i} (0-based) is null; expected a number.`,
            );
          }
          // Float16 arrays hold raw half bits: get() decodes them; every other numeric type is a plain typed array.
          const half = arrow.DataType.isFloat(column.type) && column.type.precision === arrow.Precision.HALF;
          const values = half ? null : (column.toArray() as ArrayLike<number | bigint>);
          for (let i = 0; i < rows; i++) block[i * dim + j] = Number(values ? values[i] : column.get(i));
        });
        blocks.push(block);
        n += rows;
      }
    } catch (e) {
      wrap(path, e);
    }
    const points = blocks.length === 1 ? blocks[0] : allocFloat32(n * dim, path);
    if (blocks.length !== 1) {
      let at = 0;
      for (const b of blocks) {
        points.set(b, at);
        at += b.length;
      }
    }
    return { points, n, dim, columns: picks.map((i) => fields[i].name) };
  } finally {
    await fh.close();
  }
}
