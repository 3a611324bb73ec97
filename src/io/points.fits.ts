/**
 * FITS binary tables, hand-written (no dependency). The format is Pence et al. 2010, "Definition of the Flexible
 * Image Transport System (FITS), version 3.0", A&A 524, A42: §3 (2880-byte blocks, HDUs), §4 (80-character
 * header cards), §7.3 (BINTABLE: TFIELDS, TTYPEn, TFORMn, TSCALn/TZEROn, TNULLn; big-endian rows).
 *
 * The reader walks HDU by HDU (header blocks until END, then the data padded to 2880 bytes, skipped by position),
 * stops at the first BINTABLE — or the HDU named by `dataset`: its EXTNAME (case-insensitive) or its 0-based HDU
 * number — and decodes the selected columns row by row in 4 MiB chunks straight into one Float32Array. Columns:
 * B, I, J, K, E, D with repeat count 1, by TTYPE name (case-insensitive) or 0-based field index; default every
 * such column. TSCAL/TZERO are applied (so unsigned I/J/K and signed B read as their true values); an integer
 * equal to TNULL, or a NaN float (FITS's null), is an InputError naming the column and row. Float64 columns are
 * rounded to float32 like every reader here (treeline computes in float32). `.fits.gz` is gunzipped as a stream.
 */
import { createReadStream } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { InputError } from '../errors.js';
import type { PointTable } from './points.csv.js';
import { pickColumns, type FieldInfo } from './points.columns.js';
import { allocFloat32, checkTableSize } from './limits.js';

export interface FitsOptions {
  /** Columns by TTYPE name (case-insensitive) or 0-based field index (default: every numeric scalar column). */
  columns?: (string | number)[];
  /** The HDU to read: its EXTNAME or its 0-based number (default: the first BINTABLE). */
  dataset?: string;
}

const BLOCK = 2880;
const CARD = 80;
const CHUNK_BYTES = 1 << 22;

type Value = string | number | boolean;
type Header = Map<string, Value>;

/** Sequential bytes: a file read by position, or a gunzip stream. */
interface ByteSource {
  /** Up to n bytes; fewer only at the end. */
  read(n: number): Promise<Uint8Array>;
  /** Skips up to n bytes; returns how many were skipped. */
  skip(n: number): Promise<number>;
  /** The most bytes left to read: exact for a plain file, an upper bound for a gzip stream. */
  remaining(): number;
  /** How `remaining` is known, for messages. */
  readonly bound: string;
  close(): Promise<void>;
}

class FileSource implements ByteSource {
  private pos = 0;
  readonly bound = 'the file holds only';
  constructor(
    private readonly fh: FileHandle,
    private readonly size: number,
  ) {}

  async read(n: number): Promise<Uint8Array> {
    const buf = new Uint8Array(Math.max(0, Math.min(n, this.size - this.pos)));
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await this.fh.read(buf, got, buf.length - got, this.pos + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    this.pos += got;
    return got === buf.length ? buf : buf.subarray(0, got);
  }

  async skip(n: number): Promise<number> {
    const k = Math.max(0, Math.min(n, this.size - this.pos));
    this.pos += k;
    return k;
  }

  remaining(): number {
    return this.size - this.pos;
  }

  close(): Promise<void> {
    return this.fh.close();
  }
}

class StreamSource implements ByteSource {
  private readonly it: AsyncIterator<Uint8Array>;
  private pending: Uint8Array = new Uint8Array(0);
  private ended = false;
  private consumed = 0;
  readonly bound = 'the compressed file can hold at most';
  constructor(
    stream: AsyncIterable<Uint8Array>,
    private readonly onClose: () => void,
    private readonly source: string,
    /** An upper bound on the decompressed size. */
    private readonly limit: number,
  ) {
    this.it = stream[Symbol.asyncIterator]();
  }

  /** Consumes up to n bytes, handing each piece to `take` (null: skip). */
  private async consume(n: number, take: ((piece: Uint8Array, at: number) => void) | null): Promise<number> {
    let got = 0;
    while (got < n) {
      if (this.pending.length === 0) {
        if (this.ended) break;
        let r: IteratorResult<Uint8Array>;
        try {
          r = await this.it.next();
        } catch (e) {
          throw new InputError(`${this.source}: cannot decompress: ${(e as Error).message}.`);
        }
        if (r.done) {
          this.ended = true;
          break;
        }
        this.pending = r.value;
        continue;
      }
      const k = Math.min(n - got, this.pending.length);
      take?.(this.pending.subarray(0, k), got);
      this.pending = this.pending.subarray(k);
      got += k;
    }
    this.consumed += got;
    return got;
  }

  async read(n: number): Promise<Uint8Array> {
    const out = new Uint8Array(n);
    const got = await this.consume(n, (piece, at) => out.set(piece, at));
    return got === n ? out : out.subarray(0, got);
  }

  skip(n: number): Promise<number> {
    return this.consume(n, null);
  }

  remaining(): number {
    return this.limit - this.consumed;
  }

  async close(): Promise<void> {
    this.onClose();
  }
}

/** Deflate's largest compression ratio (RFC 1951: a 258-byte match in at least 2 bits, ~1032:1): gzip's bound. */
const DEFLATE_MAX_RATIO = 1032;

async function openSource(path: string): Promise<ByteSource> {
  if (/\.gz$/i.test(path)) {
    const compressed = (await stat(path)).size;
    const raw = createReadStream(path);
    const gunzip = createGunzip();
    raw.on('error', (e) => gunzip.destroy(e));
    raw.pipe(gunzip);
    return new StreamSource(gunzip, () => (raw.destroy(), gunzip.destroy()), path, compressed * DEFLATE_MAX_RATIO);
  }
  const size = (await stat(path)).size;
  return new FileSource(await open(path, 'r'), size);
}

// ---- headers (§4) ----

/** One card's keyword and value (undefined for commentary cards: no `= ` in columns 9–10). */
function parseCard(card: string): [string, Value | undefined] {
  const key = card.slice(0, 8).trim();
  if (card.slice(8, 10) !== '= ') return [key, undefined];
  const text = card.slice(10).trimStart();
  if (text.startsWith("'")) {
    let s = '';
    for (let i = 1; i < text.length; i++) {
      if (text[i] === "'") {
        if (text[i + 1] !== "'") break;
        i++; // '' is an escaped quote
      }
      s += text[i];
    }
    return [key, s.trimEnd()]; // trailing spaces in a string value are not significant
  }
  const raw = text.split('/')[0].trim();
  if (raw === 'T' || raw === 'F') return [key, raw === 'T'];
  const num = Number(raw.replace(/[dD]/, 'E')); // Fortran's 1.0D+02
  return [key, raw === '' || Number.isNaN(num) ? raw : num];
}

/**
 * The next HDU's header, or null at the end of the file (or at bytes after the last HDU that are not an
 * XTENSION header, which FITS allows). HDU 0 must start with SIMPLE.
 */
async function readHeader(src: ByteSource, hdu: number, path: string): Promise<Header | null> {
  const header: Header = new Map();
  for (let block = 0; ; block++) {
    const bytes = await src.read(BLOCK);
    if (bytes.length === 0 && block === 0 && hdu > 0) return null;
    if (bytes.length < BLOCK) {
      if (hdu === 0 && block === 0)
        throw new InputError(`${path}: not a FITS file (${bytes.length} bytes, less than one 2880-byte block).`);
      throw new InputError(
        `${path}: truncated in the header of HDU ${hdu} (block ${block} has ${bytes.length} of 2880 bytes, no END card yet).`,
      );
    }
    const text = new TextDecoder('latin1').decode(bytes);
    for (let c = 0; c < BLOCK; c += CARD) {
      const [key, value] = parseCard(text.slice(c, c + CARD));
      if (block === 0 && c === 0) {
        if (hdu === 0 && !(key === 'SIMPLE' && value === true)) {
          throw new InputError(
            `${path}: not a FITS file (the first card is not SIMPLE = T: '${text.slice(0, 30).replace(/[^\x20-\x7e]/g, '?')}').`,
          );
        }
        if (hdu > 0 && key !== 'XTENSION') return null;
      }
      if (key === 'END') return header;
      if (value !== undefined && !header.has(key)) header.set(key, value);
    }
  }
}

function integerKey(h: Header, key: string, where: string, fallback?: number): number {
  const v = h.get(key);
  if (v === undefined && fallback !== undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || (v < 0 && key !== 'BITPIX')) {
    throw new InputError(
      `${where}: keyword ${key} is ${v === undefined ? 'missing' : `'${v}'`}, expected a non-negative integer.`,
    );
  }
  return v;
}

/** Bytes of data after the header, before padding (§4.4.1: |BITPIX|/8 · GCOUNT · (PCOUNT + Π NAXISi)). */
function dataBytes(h: Header, where: string): number {
  const naxis = integerKey(h, 'NAXIS', where);
  if (naxis === 0) return 0;
  const bitpix = integerKey(h, 'BITPIX', where);
  const randomGroups = h.get('GROUPS') === true && integerKey(h, 'NAXIS1', where) === 0;
  let count = 1;
  for (let i = randomGroups ? 2 : 1; i <= naxis; i++) count *= integerKey(h, `NAXIS${i}`, where);
  return (Math.abs(bitpix) / 8) * integerKey(h, 'GCOUNT', where, 1) * (integerKey(h, 'PCOUNT', where, 0) + count);
}

const kindOf = (h: Header): string => (h.has('XTENSION') ? String(h.get('XTENSION')).trim().toUpperCase() : 'primary');

function describeHdu(h: Header, hdu: number): string {
  const name = h.get('EXTNAME');
  return `${hdu} ${kindOf(h)}${name !== undefined ? ` '${String(name).trim()}'` : ''}`;
}

// ---- binary table columns (§7.3) ----

/** Bytes per element of each TFORM code; X (bits) is handled apart. */
const SIZE: Record<string, number> = { L: 1, B: 1, I: 2, J: 4, K: 8, A: 1, E: 4, D: 8, C: 8, M: 16, P: 8, Q: 16 };
const NUMERIC: Record<string, string> = { B: 'uint8', I: 'int16', J: 'int32', K: 'int64', E: 'float32', D: 'float64' };
const DESCRIBE: Record<string, string> = {
  L: 'logical',
  X: 'bits',
  A: 'characters',
  C: 'complex',
  M: 'double complex',
  P: 'variable-length array',
  Q: 'variable-length array',
};

interface TableColumn extends FieldInfo {
  code: string;
  offset: number;
  scale: number;
  zero: number;
  tnull?: number;
}

function tableColumns(h: Header, where: string): { columns: TableColumn[]; rowBytes: number; rows: number } {
  const rowBytes = integerKey(h, 'NAXIS1', where);
  const rows = integerKey(h, 'NAXIS2', where);
  const fields = integerKey(h, 'TFIELDS', where);
  const columns: TableColumn[] = [];
  let offset = 0;
  for (let k = 1; k <= fields; k++) {
    const tform = h.get(`TFORM${k}`);
    const m = /^\s*(\d*)\s*([A-Z])(.*)$/i.exec(String(tform ?? ''));
    const name = h.has(`TTYPE${k}`) ? String(h.get(`TTYPE${k}`)).trim() : String(k - 1);
    if (!m || !(m[2].toUpperCase() in SIZE || m[2].toUpperCase() === 'X')) {
      throw new InputError(
        `${where}: column ${k} ('${name}') has TFORM${k} = ${tform === undefined ? 'missing' : `'${tform}'`}, expected a repeat count and one of L, X, B, I, J, K, A, E, D, C, M, P, Q.`,
      );
    }
    const repeat = m[1] === '' ? 1 : Number(m[1]);
    const code = m[2].toUpperCase();
    const width =
      code === 'X'
        ? Math.ceil(repeat / 8)
        : code === 'P' || code === 'Q'
          ? SIZE[code] * Math.min(repeat, 1)
          : SIZE[code] * repeat;
    const form = `${m[1]}${code}`;
    const numeric = code in NUMERIC && repeat === 1;
    const type = numeric
      ? `${NUMERIC[code]}, TFORM ${form}`
      : code in NUMERIC
        ? `TFORM ${form} (${repeat === 0 ? 'empty' : `a vector of ${repeat}`}; only repeat count 1 is read)`
        : `TFORM ${form} (${DESCRIBE[code]})`;
    const scale = h.get(`TSCAL${k}`) ?? 1;
    const zero = h.get(`TZERO${k}`) ?? 0;
    if (numeric && (typeof scale !== 'number' || typeof zero !== 'number')) {
      throw new InputError(
        `${where}: column '${name}' has TSCAL${k} = '${scale}', TZERO${k} = '${zero}', expected numbers.`,
      );
    }
    const tnull = h.get(`TNULL${k}`);
    columns.push({
      name,
      numeric,
      type,
      code,
      offset,
      scale: Number(scale),
      zero: Number(zero),
      tnull: typeof tnull === 'number' && 'BIJK'.includes(code) ? tnull : undefined,
    });
    offset += width;
  }
  if (offset !== rowBytes) {
    throw new InputError(
      `${where}: the TFORMs of its ${fields} columns add up to ${offset} bytes per row, but NAXIS1 = ${rowBytes}.`,
    );
  }
  return { columns, rowBytes, rows };
}

/**
 * Column `c` of `count` big-endian rows into `out`; returns the first row equal to TNULL, or −1. K values are
 * compared with TNULL as bigints (exact), then rounded to numbers.
 */
function decodeColumn(dv: DataView, count: number, rowBytes: number, c: TableColumn, out: Float64Array): number {
  let at = c.offset;
  switch (c.code) {
    case 'B':
      for (let r = 0; r < count; r++, at += rowBytes) out[r] = dv.getUint8(at);
      break;
    case 'I':
      for (let r = 0; r < count; r++, at += rowBytes) out[r] = dv.getInt16(at, false);
      break;
    case 'J':
      for (let r = 0; r < count; r++, at += rowBytes) out[r] = dv.getInt32(at, false);
      break;
    case 'E':
      for (let r = 0; r < count; r++, at += rowBytes) out[r] = dv.getFloat32(at, false);
      break;
    case 'D':
      for (let r = 0; r < count; r++, at += rowBytes) out[r] = dv.getFloat64(at, false);
      break;
    default: {
      const tnull = c.tnull === undefined ? undefined : BigInt(c.tnull);
      for (let r = 0; r < count; r++, at += rowBytes) {
        const v = dv.getBigInt64(at, false);
        if (v === tnull) return r;
        out[r] = Number(v);
      }
      return -1;
    }
  }
  if (c.tnull !== undefined) for (let r = 0; r < count; r++) if (out[r] === c.tnull) return r;
  return -1;
}

// ---- the reader ----

/** Reads the selected columns of a FITS binary table as row-major float32 points. */
export async function readFitsPoints(path: string, options: FitsOptions = {}): Promise<PointTable> {
  const src = await openSource(path);
  try {
    const seen: string[] = [];
    for (let hdu = 0; ; hdu++) {
      const h = await readHeader(src, hdu, path);
      if (!h) break;
      const where = `${path}, HDU ${hdu}`;
      seen.push(describeHdu(h, hdu));
      if (selects(h, hdu, options.dataset)) {
        if (kindOf(h) !== 'BINTABLE') {
          const is =
            kindOf(h) === 'primary'
              ? 'the primary HDU'
              : `a${/^[AEIOU]/.test(kindOf(h)) ? 'n' : ''} ${kindOf(h)} extension`;
          throw new InputError(`${where}: this HDU is ${is}, expected a BINTABLE extension.`);
        }
        return await readTable(
          src,
          h,
          `${where}${h.has('EXTNAME') ? ` ('${String(h.get('EXTNAME')).trim()}')` : ''}`,
          options.columns,
        );
      }
      const bytes = Math.ceil(dataBytes(h, where) / BLOCK) * BLOCK;
      const skipped = await src.skip(bytes);
      if (skipped < bytes)
        throw new InputError(`${where}: truncated: its data needs ${bytes} bytes, the file has ${skipped} left.`);
    }
    const hdus = `HDUs: ${seen.join(', ')}`;
    if (options.dataset === undefined) throw new InputError(`${path}: no BINTABLE extension (${hdus}).`);
    throw new InputError(`${path}: no HDU named or numbered '${options.dataset}' (${hdus}).`);
  } finally {
    await src.close();
  }
}

function selects(h: Header, hdu: number, dataset: string | undefined): boolean {
  if (dataset === undefined) return kindOf(h) === 'BINTABLE';
  if (/^\d+$/.test(dataset.trim())) return hdu === Number(dataset);
  return h.has('EXTNAME') && String(h.get('EXTNAME')).trim().toLowerCase() === dataset.trim().toLowerCase();
}

async function readTable(
  src: ByteSource,
  h: Header,
  where: string,
  wanted: (string | number)[] | undefined,
): Promise<PointTable> {
  const { columns, rowBytes, rows } = tableColumns(h, where);
  const picked = pickColumns(columns, wanted, where).map((i) => columns[i]);
  const dim = picked.length;
  // Important! NAXIS2 comes from the header: check it against the bytes the file holds before allocating from it.
  if (rows * rowBytes > src.remaining()) {
    throw new InputError(
      `${where}: ${src instanceof FileSource ? 'truncated: ' : ''}NAXIS2 = ${rows} rows of NAXIS1 = ${rowBytes} bytes need ${rows * rowBytes} bytes; ${src.bound} ${Math.max(0, src.remaining())} after the header.`,
    );
  }
  checkTableSize(rows, dim, where, 'NAXIS2');
  const points = allocFloat32(rows * dim, where);
  const chunkRows = Math.max(1, Math.floor(CHUNK_BYTES / Math.max(1, rowBytes)));
  const values = new Float64Array(Math.min(chunkRows, rows));
  for (let r0 = 0; r0 < rows; r0 += chunkRows) {
    const count = Math.min(chunkRows, rows - r0);
    const bytes = await src.read(count * rowBytes);
    if (bytes.length < count * rowBytes) {
      throw new InputError(
        `${where}: truncated: NAXIS2 = ${rows} rows of ${rowBytes} bytes, the file ends after ${r0 + Math.floor(bytes.length / rowBytes)} rows.`,
      );
    }
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let j = 0; j < dim; j++) {
      const c = picked[j];
      const nullRow = decodeColumn(dv, count, rowBytes, c, values);
      if (nullRow >= 0)
        throw new InputError(
          `${where}: column '${c.name}', row ${r0 + nullRow} (0-based) is null (TNULL = ${c.tnull}); expected a number.`,
        );
      const { scale, zero } = c;
      for (let r = 0, at = r0 * dim + j; r < count; r++, at += dim) {
        const v = values[r];
        if (v !== v)
          throw new InputError(
            `${where}: column '${c.name}', row ${r0 + r} (0-based) is NaN (a FITS null); expected a number.`,
          );
        points[at] = zero + scale * v; // exact when scale = 1, zero = 0
      }
    }
  }
  return { points, n: rows, dim, columns: picked.map((c) => c.name) };
}
