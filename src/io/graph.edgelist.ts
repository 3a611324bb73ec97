/**
 * Plain edge lists: one edge `u v [weight]` per line, fields separated by blanks, tabs or commas (so CSV too),
 * `#` and `%` comment lines, blank lines skipped, and an optional header (a first line whose first field is not a
 * number, e.g. `source,target,weight`). Vertices are 0-based unless `oneBased`. Edge i is the i-th edge line:
 * its id in `graphMst`'s result.
 *
 * Every line has the same number of fields, 2 or 3. Weights: with 2 fields every weight is 1 (Uint32Array); with 3,
 * by default Int32Array when all are integers that fit (Uint32Array when some exceed 2^31 − 1 and none is
 * negative), else Float32Array (parsed as float64, rounded to float32; a weight must be a finite float32: `inf`, `-inf`
 * and values beyond ±3.4028235e38 are errors).
 */
import { InputError } from '../errors.js';
import type { EdgeListGraph } from './graph.types.js';
import { formatF32, Growable, LineScanner, WeightCollector } from './graph.text.js';

export interface EdgeListReadOptions {
  /** Vertex ids start at 1 (default false: 0-based). */
  oneBased?: boolean;
  /** Number of vertices (default: the largest id + 1); ids at or above it are an error. */
  numVertices?: number;
  /** 'auto' (default) infers integer or float weights; 'float' always gives Float32Array. */
  weights?: 'auto' | 'float';
}

/** Parses an edge list held in memory; `file` names it in errors. */
export function parseEdgeList(
  data: Uint8Array | string,
  file = '<edges>',
  options: EdgeListReadOptions = {},
): EdgeListGraph {
  const sc = new LineScanner(data, file);
  const base = options.oneBased ? 1 : 0;
  const limit = options.numVertices ?? 0xffffffff;
  if (!Number.isInteger(limit) || limit < 0 || limit > 0xffffffff) {
    throw new InputError(`Expected numVertices to be an integer in [0, 2^32 − 1], got ${options.numVertices}.`);
  }
  const sources = new Growable(new Uint32Array(1 << 16));
  const targets = new Growable(new Uint32Array(1 << 16));
  const weights = new WeightCollector(options.weights === 'float' ? 'float' : 'auto');
  let width = 0;
  let maxId = -1;
  let first = true;
  while (sc.next()) {
    const c = sc.firstChar();
    if (c === -1 || c === 35 /* # */ || c === 37 /* % */) continue;
    const k = sc.tokenize(true);
    if (k === 0) continue;
    if (first) {
      first = false;
      if (Number.isNaN(sc.intOrNaN(0))) continue; // a header line
    }
    if (width === 0) {
      if (k !== 2 && k !== 3) sc.failLine('expected 2 or 3 fields per line ("u v" or "u v weight")');
      width = k;
    } else if (k !== width) {
      sc.failLine(`expected ${width} fields as on the first edge line, found ${k}`);
    }
    const u = sc.int(0, 'the first vertex', base, base + limit - 1) - base;
    const v = sc.int(1, 'the second vertex', base, base + limit - 1) - base;
    if (u > maxId) maxId = u;
    if (v > maxId) maxId = v;
    sources.push(u);
    targets.push(v);
    if (width === 3) weights.push(sc, 2);
  }
  const m = sources.length;
  return {
    numVertices: options.numVertices ?? maxId + 1,
    sources: sources.done(),
    targets: targets.done(),
    weights: width === 3 ? weights.done() : new Uint32Array(m).fill(1),
  };
}

export interface EdgeListWriteOptions {
  /** Field separator (default ' '; ',' for CSV). */
  delimiter?: string;
  /** Write a header line `source<d>target<d>weight` (default false). */
  header?: boolean;
  /** Write 1-based vertex ids (default false). */
  oneBased?: boolean;
}

/** Writes an edge list, one `u v weight` line per edge in edge order (ids survive a round trip). */
export function writeEdgeList(g: EdgeListGraph, options: EdgeListWriteOptions = {}): string {
  const d = options.delimiter ?? ' ';
  const base = options.oneBased ? 1 : 0;
  const out: string[] = options.header ? [['source', 'target', 'weight'].join(d)] : [];
  const f32 = g.weights instanceof Float32Array;
  for (let i = 0; i < g.sources.length; i++) {
    const w = g.weights[i];
    out.push(`${g.sources[i] + base}${d}${g.targets[i] + base}${d}${f32 ? formatF32(w) : w}`);
  }
  return out.join('\n') + (out.length ? '\n' : '');
}
