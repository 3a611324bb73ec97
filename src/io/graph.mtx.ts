/**
 * MatrixMarket coordinate files as undirected graphs (the format of the SuiteSparse collection, where most of
 * ECL-MST's inputs come from). Banner `%%MatrixMarket matrix coordinate <field> <symmetry>`, `%` comments, a size
 * line `rows cols entries`, then one entry `i j [value]` per line, 1-based.
 *
 *  - field `real` → Float32Array weights (parsed as float64, rounded to float32); `integer` → Int32Array (Uint32Array
 *    when some value exceeds 2^31 − 1 and none is negative); `pattern` (no values) → every weight 1, as a
 *    Uint32Array: the forest of a pattern graph is then the one that prefers earlier entries among equal weights.
 *    `complex` is rejected.
 *  - symmetry `general` or `symmetric`: either way every entry is ONE undirected edge {i, j}; the symmetric form
 *    stores each once (lower triangle), while a symmetric matrix written as `general` lists each edge twice — both
 *    copies are kept as parallel edges, which changes no forest weight. `skew-symmetric` and `hermitian` are rejected.
 *  - The matrix must be square (rows = vertices). Edge i is the i-th entry line: its id in `graphMst`'s result.
 *    Diagonal entries are self loops (kept here, ignored by `graphMst`).
 */
import type { EdgeListGraph, WeightArray } from './graph.types.js';
import { formatF32, GraphFormatError, Growable, LineScanner, WeightCollector } from './graph.text.js';

export type MtxField = 'real' | 'integer' | 'pattern';
export type MtxSymmetry = 'general' | 'symmetric';

export interface MtxGraph extends EdgeListGraph {
  field: MtxField;
  symmetry: MtxSymmetry;
}

/** Parses a MatrixMarket coordinate file held in memory; `file` names it in errors. */
export function parseMatrixMarket(data: Uint8Array | string, file = '<mtx>'): MtxGraph {
  const sc = new LineScanner(data, file);
  if (!sc.next()) throw new GraphFormatError(file, 1, '', 'empty file: expected the %%MatrixMarket banner.');
  const n0 = sc.tokenize();
  if (n0 === 0 || sc.token(0).toLowerCase() !== '%%matrixmarket')
    sc.failLine('expected the banner %%MatrixMarket matrix coordinate <field> <symmetry>');
  if (n0 !== 5) sc.failLine('expected 5 words in the banner');
  const [object, format, field, symmetry] = [1, 2, 3, 4].map((k) => sc.token(k).toLowerCase());
  if (object !== 'matrix') sc.fail(1, "expected the object 'matrix'");
  if (format !== 'coordinate') sc.fail(2, "expected the format 'coordinate' (dense 'array' files are not graphs)");
  if (field !== 'real' && field !== 'integer' && field !== 'pattern')
    sc.fail(3, "expected the field 'real', 'integer' or 'pattern'");
  if (symmetry !== 'general' && symmetry !== 'symmetric') sc.fail(4, "expected the symmetry 'general' or 'symmetric'");
  // Size line: the first line that is neither a comment nor blank.
  let size = false;
  while (!size && sc.next()) {
    const c = sc.firstChar();
    if (c === -1 || c === 37 /* % */) continue;
    if (sc.tokenize() !== 3) sc.failLine('expected the size line "rows columns entries"');
    size = true;
  }
  if (!size) throw new GraphFormatError(file, sc.line, '', 'missing the size line "rows columns entries".');
  const rows = sc.int(0, 'rows', 0, 0xffffffff);
  const cols = sc.int(1, 'columns', 0, 0xffffffff);
  const entries = sc.int(2, 'entries', 0, 0xfffffffe);
  if (rows !== cols) sc.fail(1, `expected a square matrix (columns = rows = ${rows})`);
  const want = field === 'pattern' ? 2 : 3;
  const sources = new Growable(new Uint32Array(Math.min(entries, 1 << 20)));
  const targets = new Growable(new Uint32Array(Math.min(entries, 1 << 20)));
  const weights = new WeightCollector(field === 'integer' ? 'integer' : 'float');
  while (sc.next()) {
    const c = sc.firstChar();
    if (c === -1 || c === 37) continue;
    const k = sc.tokenize();
    if (sources.length === entries) sc.failLine(`expected ${entries} entries as the size line says, found more`);
    if (k !== want) sc.failLine(`expected ${want} values per entry ("row column${want === 3 ? ' value' : ''}")`);
    sources.push(sc.int(0, 'the row', 1, rows) - 1);
    targets.push(sc.int(1, 'the column', 1, rows) - 1);
    if (want === 3) weights.push(sc, 2);
  }
  if (sources.length !== entries) {
    throw new GraphFormatError(
      file,
      sc.line,
      String(sources.length),
      `expected ${entries} entries as the size line says, found ${sources.length}.`,
    );
  }
  const w: WeightArray = field === 'pattern' ? new Uint32Array(entries).fill(1) : weights.done();
  return {
    numVertices: rows,
    sources: sources.done(),
    targets: targets.done(),
    weights: w,
    field: field as MtxField,
    symmetry: symmetry as MtxSymmetry,
  };
}

export interface MtxWriteOptions {
  /** Default: 'real' for Float32Array weights, 'integer' otherwise. 'pattern' drops the weights. */
  field?: MtxField;
  /** 'general' (default) writes each edge as given; 'symmetric' writes (larger, smaller) endpoints. */
  symmetry?: MtxSymmetry;
  /** Comment lines written after the banner. */
  comment?: string;
}

/** Writes an edge list as a MatrixMarket coordinate file, one entry per edge in edge order (ids survive). */
export function writeMatrixMarket(g: EdgeListGraph, options: MtxWriteOptions = {}): string {
  const field = options.field ?? (g.weights instanceof Float32Array ? 'real' : 'integer');
  const symmetry = options.symmetry ?? 'general';
  const out: string[] = [`%%MatrixMarket matrix coordinate ${field} ${symmetry}`];
  for (const line of (options.comment ?? '').split('\n').filter(Boolean)) out.push(`% ${line}`);
  out.push(`${g.numVertices} ${g.numVertices} ${g.sources.length}`);
  const f32 = g.weights instanceof Float32Array;
  for (let i = 0; i < g.sources.length; i++) {
    let a = g.sources[i] + 1;
    let b = g.targets[i] + 1;
    if (symmetry === 'symmetric' && a < b) [a, b] = [b, a];
    if (field === 'pattern') out.push(`${a} ${b}`);
    else {
      const w = g.weights[i];
      if (field === 'integer' && !Number.isInteger(w)) {
        throw new GraphFormatError(
          '<mtx writer>',
          null,
          String(w),
          `field 'integer' needs integer weights, got weights[${i}] = ${w}.`,
        );
      }
      out.push(`${a} ${b} ${f32 ? formatF32(w) : w}`);
    }
  }
  return out.join('\n') + '\n';
}
