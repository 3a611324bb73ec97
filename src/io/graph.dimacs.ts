/**
 * DIMACS shortest-path graphs (`.gr`, the 9th DIMACS Implementation Challenge format of the road networks
 * USA-road-d.*): `c` comment lines, one problem line `p sp <vertices> <arcs>`, then `a <u> <v> <weight>` per arc,
 * 1-based, integer weights.
 *
 * Every arc is one undirected edge; its id in `graphMst`'s result is its index among the `a` lines. The road
 * networks list each road in both directions: both copies are kept as parallel edges (equal weights), and the
 * canonical (weight, id) order picks the earlier line. Weights: Int32Array (Uint32Array when some weight exceeds
 * 2^31 − 1 and none is negative); negative weights are accepted although the challenge's files have none.
 */
import type { EdgeListGraph } from './graph.types.js';
import { GraphFormatError, Growable, LineScanner, WeightCollector } from './graph.text.js';

/** Parses a DIMACS .gr file held in memory; `file` names it in errors. */
export function parseDimacs(data: Uint8Array | string, file = '<gr>'): EdgeListGraph {
  const sc = new LineScanner(data, file);
  let n = -1;
  let m = -1;
  let problemLine = 0;
  const sources = new Growable(new Uint32Array(1 << 16));
  const targets = new Growable(new Uint32Array(1 << 16));
  const weights = new WeightCollector('integer');
  while (sc.next()) {
    const k = sc.tokenize();
    if (k === 0) continue;
    const tag = sc.token(0);
    if (tag === 'c') continue;
    if (tag === 'p') {
      if (n >= 0) sc.failLine(`expected one problem line (the first is line ${problemLine})`);
      if (k !== 4 || sc.token(1) !== 'sp') sc.failLine('expected the problem line "p sp <vertices> <arcs>"');
      n = sc.int(2, 'the vertex count', 0, 0xffffffff);
      m = sc.int(3, 'the arc count', 0, 0xfffffffe);
      problemLine = sc.line;
    } else if (tag === 'a') {
      if (n < 0) sc.failLine('expected the problem line "p sp <vertices> <arcs>" before the first arc');
      if (k !== 4) sc.failLine('expected an arc line "a <u> <v> <weight>"');
      if (sources.length === m) sc.failLine(`expected ${m} arcs as line ${problemLine} says, found more`);
      sources.push(sc.int(1, 'the tail vertex', 1, n) - 1);
      targets.push(sc.int(2, 'the head vertex', 1, n) - 1);
      weights.push(sc, 3);
    } else {
      sc.fail(0, "expected a line starting with 'c', 'p' or 'a'");
    }
  }
  if (n < 0) throw new GraphFormatError(file, sc.line, '', 'missing the problem line "p sp <vertices> <arcs>".');
  if (sources.length !== m) {
    throw new GraphFormatError(
      file,
      problemLine,
      String(m),
      `expected ${m} arcs as the problem line says, found ${sources.length}.`,
    );
  }
  return { numVertices: n, sources: sources.done(), targets: targets.done(), weights: weights.done() };
}

/** Writes an edge list as a DIMACS .gr file, one arc per edge in edge order. Weights must be integers. */
export function writeDimacs(g: EdgeListGraph, comment = 'written by treeline'): string {
  const out: string[] = [];
  for (const line of comment.split('\n').filter(Boolean)) out.push(`c ${line}`);
  out.push(`p sp ${g.numVertices} ${g.sources.length}`);
  for (let i = 0; i < g.sources.length; i++) {
    const w = g.weights[i];
    if (!Number.isInteger(w)) {
      throw new GraphFormatError(
        '<gr writer>',
        null,
        String(w),
        `DIMACS .gr weights are integers, got weights[${i}] = ${w}.`,
      );
    }
    out.push(`a ${g.sources[i] + 1} ${g.targets[i] + 1} ${w}`);
  }
  return out.join('\n') + '\n';
}
