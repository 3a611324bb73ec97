/**
 * Column selection shared by the table readers (FITS, Parquet, Arrow): `--columns` entries are 0-based indices
 * (all digits) or names, matched exactly first and then case-insensitively (FITS names are case-insensitive;
 * `ra,dec,z` finds `RA,DEC,Z`). With no selection, every numeric column is read.
 */
import { InputError } from '../errors.js';

export interface FieldInfo {
  name: string;
  /** Whether the column can become a coordinate. */
  numeric: boolean;
  /** The column's type as its format names it (`float64`, `1E`, `utf8`…), for messages. */
  type: string;
}

const list = (fields: FieldInfo[]): string =>
  fields.length === 0 ? 'none' : fields.map((f) => `${f.name} (${f.type})`).join(', ');

/** Indices into `fields` of the selected columns; `where` prefixes every message (file, HDU…). */
export function pickColumns(fields: FieldInfo[], wanted: (string | number)[] | undefined, where: string): number[] {
  if (!wanted || wanted.length === 0) {
    const all = fields.flatMap((f, i) => (f.numeric ? [i] : []));
    if (all.length === 0) throw new InputError(`${where}: no numeric columns (columns: ${list(fields)}).`);
    return all;
  }
  return wanted.map((c) => {
    const key = String(c);
    let i: number;
    if (/^\d+$/.test(key)) {
      i = Number(key);
      if (i >= fields.length) {
        throw new InputError(`${where}: no column ${key} (it has ${fields.length} columns, 0-based: ${list(fields)}).`);
      }
    } else {
      i = fields.findIndex((f) => f.name === key);
      if (i < 0) {
        const folded = fields.flatMap((f, j) => (f.name.toLowerCase() === key.toLowerCase() ? [j] : []));
        if (folded.length > 1)
          throw new InputError(
            `${where}: column name '${key}' is ambiguous (${folded.map((j) => fields[j].name).join(', ')}).`,
          );
        i = folded[0] ?? -1;
      }
      if (i < 0) throw new InputError(`${where}: no column '${key}' (columns: ${list(fields)}).`);
    }
    const f = fields[i];
    if (!f.numeric) throw new InputError(`${where}: column '${f.name}' is ${f.type}, expected a numeric column.`);
    return i;
  });
}
