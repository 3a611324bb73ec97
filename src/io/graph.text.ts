/**
 * The line scanner under the text graph readers (MatrixMarket, DIMACS, edge lists): walks the bytes of a file line
 * by line, splits each line into tokens without building strings, and parses numbers in place. Every error is a
 * `GraphFormatError` naming the file, the 1-based line and the offending text.
 */
import { InputError } from '../errors.js';
import { SNIFF_BYTES, utf16Problem, utf8BomLength } from './encoding.js';

/** A malformed graph file: `file`, `line` (1-based; for binary files the byte offset is in the message) and `value`. */
export class GraphFormatError extends InputError {
  override name = 'GraphFormatError';
  constructor(
    readonly file: string,
    readonly line: number | null,
    readonly value: string,
    detail: string,
  ) {
    super(`${file}${line === null ? '' : `:${line}`}: ${detail}`);
  }
}

const SPACE = 32,
  TAB = 9,
  CR = 13,
  LF = 10,
  COMMA = 44,
  MINUS = 45,
  PLUS = 43,
  ZERO = 48,
  NINE = 57;
const MAX_TOKENS = 64;

export class LineScanner {
  /** The 1-based number of the current line (0 before the first). */
  line = 0;
  /** Number of tokens on the current line (after `tokenize`). */
  count = 0;
  private readonly bytes: Uint8Array;
  private pos = 0;
  private lineStart = 0;
  private lineEnd = 0;
  private readonly starts = new Int32Array(MAX_TOKENS + 1);
  private readonly ends = new Int32Array(MAX_TOKENS + 1);

  constructor(
    data: Uint8Array | string,
    readonly file: string,
  ) {
    this.bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    const problem = utf16Problem(this.bytes.subarray(0, SNIFF_BYTES));
    if (problem) throw new GraphFormatError(file, null, '', `${problem}.`);
    this.pos = utf8BomLength(this.bytes); // a UTF-8 byte-order mark would glue itself to the first field
  }

  /** Moves to the next line; false at the end of the file. */
  next(): boolean {
    const b = this.bytes;
    if (this.pos >= b.length) return false;
    this.lineStart = this.pos;
    let i = this.pos;
    while (i < b.length && b[i] !== LF) i++;
    this.pos = i + 1;
    this.lineEnd = i > this.lineStart && b[i - 1] === CR ? i - 1 : i;
    this.line++;
    return true;
  }

  /** The current line's text (for messages). */
  text(max = 80): string {
    const s = latin1(this.bytes, this.lineStart, Math.min(this.lineEnd, this.lineStart + max));
    return this.lineEnd - this.lineStart > max ? `${s}…` : s;
  }

  /** The first non-blank byte of the line, or -1 for a blank line. */
  firstChar(): number {
    for (let i = this.lineStart; i < this.lineEnd; i++) {
      const c = this.bytes[i];
      if (c !== SPACE && c !== TAB) return c;
    }
    return -1;
  }

  /** Splits the current line at blanks (and commas when `commas`); returns the token count. */
  tokenize(commas = false): number {
    const b = this.bytes;
    let n = 0;
    let i = this.lineStart;
    const end = this.lineEnd;
    while (i < end) {
      let c = b[i];
      while (i < end && (c === SPACE || c === TAB || (commas && c === COMMA))) c = b[++i];
      if (i >= end) break;
      const s = i;
      while (i < end && c !== SPACE && c !== TAB && !(commas && c === COMMA)) c = b[++i];
      if (n < MAX_TOKENS) {
        this.starts[n] = s;
        this.ends[n] = i;
      }
      n++;
    }
    this.count = Math.min(n, MAX_TOKENS);
    return n;
  }

  /** Token k's text. */
  token(k: number): string {
    return latin1(this.bytes, this.starts[k], this.ends[k]);
  }

  /** Token k as an integer (sign allowed), or NaN when it is not one. Exact up to 2^53. */
  intOrNaN(k: number): number {
    const b = this.bytes;
    let i = this.starts[k];
    const end = this.ends[k];
    let neg = false;
    if (b[i] === MINUS || b[i] === PLUS) neg = b[i++] === MINUS;
    if (i >= end) return NaN;
    let v = 0;
    for (; i < end; i++) {
      const c = b[i];
      if (c < ZERO || c > NINE) return NaN;
      v = v * 10 + (c - ZERO);
    }
    return neg ? -v : v;
  }

  /** Token k as an integer in [lo, hi], else a GraphFormatError naming `what`. */
  int(k: number, what: string, lo: number, hi: number): number {
    const v = this.intOrNaN(k);
    if (Number.isNaN(v)) this.fail(k, `expected ${what} to be an integer`);
    if (v < lo || v > hi) this.fail(k, `expected ${what} in [${lo}, ${hi}]`);
    return v;
  }

  /** Token k as a number (integers, decimals, exponents, inf/infinity); NaN is an error. */
  num(k: number, what: string): number {
    const v = this.intOrNaN(k);
    if (!Number.isNaN(v)) return v;
    const t = this.token(k);
    const x = parseNumber(t);
    if (Number.isNaN(x)) this.fail(k, `expected ${what} to be a number`);
    return x;
  }

  /** Throws a GraphFormatError about token k. */
  fail(k: number, detail: string): never {
    const t = k < this.count ? this.token(k) : this.text();
    throw new GraphFormatError(this.file, this.line, t, `${detail}, got '${t}'.`);
  }

  /** Throws a GraphFormatError about the whole line. */
  failLine(detail: string): never {
    const t = this.text();
    throw new GraphFormatError(this.file, this.line, t, `${detail}, got '${t}'.`);
  }
}

/** A decimal number as C's strtod reads it, with inf/infinity/nan words; NaN when it is none. */
function parseNumber(t: string): number {
  const lower = t.toLowerCase();
  const body = lower.startsWith('-') || lower.startsWith('+') ? lower.slice(1) : lower;
  if (body === 'inf' || body === 'infinity') return lower.startsWith('-') ? -Infinity : Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(lower)) return NaN;
  return Number(t);
}

/** The shortest decimal text that reads back as the same float32 (`inf`/`-inf` for infinities). */
export function formatF32(x: number): string {
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (Number.isInteger(x) && Math.abs(x) < 1e21) return String(x);
  for (let p = 1; p < 10; p++) {
    const s = x.toPrecision(p);
    if (Math.fround(Number(s)) === x) return String(Number(s));
  }
  return String(x);
}

function latin1(b: Uint8Array, s: number, e: number): string {
  let out = '';
  for (let i = s; i < e; i += 4096) out += String.fromCharCode(...b.subarray(i, Math.min(e, i + 4096)));
  return out;
}

/** The largest finite float32, as the weight messages print it. */
const F32_MAX = '3.4028235e38';

/**
 * Collects weights as they are parsed, checking each at its line: integers become an Int32Array when they all
 * fit, else a Uint32Array (all non-negative, below 2^32); floats become a Float32Array (inf, -inf and values beyond
 * its range are an error: every weight must be a finite float32). `kind` 'auto' picks integer while every value is one, float otherwise.
 */
export class WeightCollector {
  private readonly values = new Growable(new Float64Array(1024));
  private negative = false;
  private big = false;
  private fractional = false;

  constructor(private readonly kind: 'integer' | 'float' | 'auto') {}

  /** Parses token k of the scanner's line as a weight. */
  push(sc: LineScanner, k: number): void {
    const v = this.kind === 'integer' ? sc.intOrNaN(k) : sc.num(k, 'the weight');
    if (Number.isNaN(v)) sc.fail(k, 'expected an integer weight');
    if (Number.isInteger(v) && !this.fractional && this.kind !== 'float') {
      if (v < -0x80000000 || v > 0xffffffff) {
        if (this.kind === 'integer') sc.fail(k, 'expected an integer weight in [-2^31, 2^32 − 1]');
        this.fractional = true;
      } else {
        if (v < 0) this.negative = true;
        if (v > 0x7fffffff) this.big = true;
        if (this.negative && this.big) {
          if (this.kind === 'integer') {
            sc.fail(
              k,
              'expected integer weights that all fit int32, or all uint32 (this file mixes negative values and values above 2^31 − 1)',
            );
          }
          this.fractional = true;
        }
      }
    } else {
      this.fractional = true;
    }
    // One rule for every graph reader and the API (validate.ts): a weight is a finite float32; inf and 1e39 alike fail.
    if (this.kind !== 'integer' && !Number.isFinite(Math.fround(v)))
      sc.fail(k, `expected a finite weight within the float32 range (|w| ≤ ${F32_MAX})`);
    this.values.push(v);
  }

  get length(): number {
    return this.values.length;
  }

  done(): Float32Array | Int32Array | Uint32Array {
    const v = this.values.done();
    if (this.kind === 'float' || this.fractional) return Float32Array.from(v);
    return this.big ? Uint32Array.from(v) : Int32Array.from(v);
  }
}

/** A Float64Array / Uint32Array that grows by doubling. */
export class Growable<T extends Float64Array | Uint32Array | Int32Array> {
  length = 0;
  constructor(private data: T) {}
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new (this.data.constructor as new (n: number) => T)(Math.max(16, this.data.length * 2));
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  /** The values, trimmed (a copy unless already exact). */
  done(): T {
    return (this.length === this.data.length ? this.data : this.data.slice(0, this.length)) as T;
  }
}
