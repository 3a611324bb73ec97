/**
 * CSV/TSV point reader: delimiter detection (comma, tab, semicolon, whitespace), header detection (a first line with
 * a non-numeric field), `#` comments, column selection by name or index. Streams the file line by line into one
 * growing Float32Array. Every bad row is an InputError naming file, line and value: a field that is not a decimal
 * number (NaN, Infinity, hex), one beyond the float32 range, a wrong field count; an empty file, a header without
 * data rows and a UTF-16 file (NUL bytes) are ones too. A UTF-8 byte-order mark is skipped.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { InputError } from '../errors.js';
import { SNIFF_BYTES, utf16Problem } from './encoding.js';
import { GrowableF32 } from './growable.js';

export interface CsvOptions {
  /** Columns to read, by header name or 0-based index (default: all). */
  columns?: (string | number)[];
  /** Force the delimiter (default: detected from the first data line). */
  delimiter?: string;
  /** true/false forces; default: detected (a first line with any non-numeric field is a header). */
  header?: boolean;
}

export interface PointTable {
  /** Row-major n × dim coordinates. */
  points: Float32Array;
  n: number;
  dim: number;
  /** Column names (from the header, or `"0"`, `"1"`, …). */
  columns: string[];
}

/** A decimal number (sign, digits, point, exponent): not hex, binary, 'Infinity' or 'NaN', which Number() also takes. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const isNumeric = (s: string) => DECIMAL.test(s.trim());

function detectDelimiter(line: string): string | RegExp {
  if (line.includes('\t')) return '\t';
  if (line.includes(',')) return ',';
  if (line.includes(';')) return ';';
  return /\s+/;
}

/** Parses CSV text held in memory (small inputs, tests, browsers). */
export function parseCsvPoints(text: string, options: CsvOptions = {}, source = '<string>'): PointTable {
  const parser = new CsvPointParser(options, source);
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) parser.line(lines[i], i + 1);
  return parser.finish();
}

/** Reads a CSV/TSV file, streaming. */
export async function readCsvPoints(path: string, options: CsvOptions = {}): Promise<PointTable> {
  const fh = await open(path, 'r');
  try {
    const head = new Uint8Array(SNIFF_BYTES);
    const { bytesRead } = await fh.read(head, 0, SNIFF_BYTES, 0);
    const problem = utf16Problem(head.subarray(0, bytesRead));
    if (problem) throw new InputError(`${path} ${problem}.`);
  } finally {
    await fh.close();
  }
  const parser = new CsvPointParser(options, path);
  const rl = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  let lineNo = 0;
  for await (const line of rl) parser.line(line, ++lineNo);
  return parser.finish();
}

class CsvPointParser {
  private delimiter: string | RegExp | null;
  private names: string[] | null = null;
  private picks: number[] | null = null;
  private width = -1;
  private readonly values = new GrowableF32();
  private rows = 0;
  private sawFirst = false;

  constructor(
    private readonly options: CsvOptions,
    private readonly source: string,
  ) {
    this.delimiter = options.delimiter ?? null;
  }

  line(raw: string, lineNo: number): void {
    // A UTF-8 byte-order mark would glue itself to the first field (and turn a first data row into a header).
    const line = (lineNo === 1 && raw.startsWith('\uFEFF') ? raw.slice(1) : raw).trim();
    if (line.includes('\0')) {
      throw new InputError(
        `${this.source}:${lineNo}: a NUL character: the file looks like UTF-16 or binary; save it as UTF-8 text.`,
      );
    }
    if (line === '' || line.startsWith('#')) return;
    this.delimiter ??= detectDelimiter(line);
    const fields = line.split(this.delimiter).map((f) => f.trim().replace(/^"(.*)"$/, '$1'));
    if (!this.sawFirst) {
      this.sawFirst = true;
      const header = this.options.header ?? !fields.every(isNumeric);
      this.width = fields.length;
      this.names = header ? fields : fields.map((_, i) => String(i));
      this.picks = this.resolveColumns(lineNo);
      if (header) return;
    }
    if (fields.length !== this.width) {
      throw new InputError(
        `${this.source}:${lineNo}: expected ${this.width} fields, got ${fields.length} ('${line.slice(0, 80)}').`,
      );
    }
    for (const c of this.picks!) {
      const f = fields[c];
      if (!DECIMAL.test(f)) {
        throw new InputError(`${this.source}:${lineNo}: column '${this.names![c]}' is not a number: '${f}'.`);
      }
      const v = Number(f);
      // Important! coordinates are float32: a finite double beyond its range would become ±Infinity unnoticed.
      if (!Number.isFinite(Math.fround(v))) {
        throw new InputError(
          `${this.source}:${lineNo}: column '${this.names![c]}' is beyond the float32 range: '${f}'.`,
        );
      }
      this.values.push(v);
    }
    this.rows++;
  }

  private resolveColumns(lineNo: number): number[] {
    const cols = this.options.columns;
    if (!cols || cols.length === 0) return this.names!.map((_, i) => i);
    return cols.map((c) => {
      const idx = typeof c === 'number' || /^\d+$/.test(c) ? Number(c) : this.names!.indexOf(c);
      if (idx < 0 || idx >= this.width) {
        throw new InputError(`${this.source}:${lineNo}: no column '${c}' (columns: ${this.names!.join(', ')}).`);
      }
      return idx;
    });
  }

  finish(): PointTable {
    if (!this.sawFirst)
      throw new InputError(`${this.source}: no header and no data rows (the file is empty or all comments).`);
    if (this.rows === 0) throw new InputError(`${this.source} has a header but no data rows.`);
    const dim = this.picks?.length ?? 0;
    return {
      points: this.values.toArray(),
      n: this.rows,
      dim,
      columns: this.picks ? this.picks.map((i) => this.names![i]) : [],
    };
  }
}
