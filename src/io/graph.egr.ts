/**
 * ECL's binary CSR graphs (`.egr`, the input format of ECL-MST and of ../shared/bench/gen_graph.py), little endian:
 *
 *   | int32 nodes | int32 edges | int32 nindex[nodes + 1] | int32 nlist[edges] | int32 eweight[edges] (optional) |
 *
 * `edges` counts directed entries: ECL stores every undirected edge twice, once in each endpoint's row, with equal
 * weights. Read as a `CsrGraph`, so `graphMst` uses ECL-MST's edge ids: an undirected edge {u, v} with u < v is
 * the position j in nlist of its copy in row u (the copy in row v is ignored). A file without weights gets weight
 * 1 everywhere (ECL-MST itself invents pseudo-random weights instead). Writers store Int32 weights, so they take
 * Int32Array weights, or integers that fit int32.
 */
import type { CsrGraph, EdgeListGraph } from './graph.types.js';
import { GraphFormatError } from './graph.text.js';

export interface EgrGraph extends CsrGraph {
  offsets: Int32Array;
  neighbours: Int32Array;
  weights: Int32Array;
  /** Whether the file held weights. */
  weighted: boolean;
}

/** Parses an .egr file held in memory; errors name `file`, the byte offset and the value. */
export function parseEgr(bytes: Uint8Array, file = '<egr>'): EgrGraph {
  const fail = (offset: number, value: string, detail: string): never => {
    throw new GraphFormatError(file, null, value, `byte ${offset}: ${detail}`);
  };
  if (bytes.length < 8)
    fail(
      0,
      String(bytes.length),
      `expected at least the 8-byte header (nodes, edges), the file has ${bytes.length} bytes.`,
    );
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const nodes = dv.getInt32(0, true);
  const edges = dv.getInt32(4, true);
  if (nodes < 0) fail(0, String(nodes), `expected a node count ≥ 0, got ${nodes}.`);
  if (edges < 0) fail(4, String(edges), `expected an edge count ≥ 0, got ${edges}.`);
  const bare = 8 + 4 * (nodes + 1) + 4 * edges;
  const full = bare + 4 * edges;
  if (bytes.length !== bare && bytes.length !== full) {
    fail(
      bytes.length,
      String(bytes.length),
      `the file has ${bytes.length} bytes; nodes = ${nodes} and edges = ${edges} need ${full} (with weights) or ${bare} (without).`,
    );
  }
  const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  const read = (offset: number, count: number): Int32Array => {
    if (littleEndian && (bytes.byteOffset + offset) % 4 === 0)
      return new Int32Array(bytes.buffer, bytes.byteOffset + offset, count).slice();
    const out = new Int32Array(count);
    for (let i = 0; i < count; i++) out[i] = dv.getInt32(offset + 4 * i, true);
    return out;
  };
  const offsets = read(8, nodes + 1);
  const neighbours = read(8 + 4 * (nodes + 1), edges);
  const weighted = bytes.length === full;
  const weights = weighted ? read(bare, edges) : new Int32Array(edges).fill(1);
  const at = (array: number, i: number) => [8, 8 + 4 * (nodes + 1)][array] + 4 * i;
  if (offsets[0] !== 0) fail(at(0, 0), String(offsets[0]), `expected nindex[0] = 0, got ${offsets[0]}.`);
  for (let v = 0; v < nodes; v++) {
    if (offsets[v + 1] < offsets[v]) {
      fail(
        at(0, v + 1),
        String(offsets[v + 1]),
        `expected non-decreasing nindex, got nindex[${v + 1}] = ${offsets[v + 1]} < nindex[${v}] = ${offsets[v]}.`,
      );
    }
  }
  if (offsets[nodes] !== edges)
    fail(at(0, nodes), String(offsets[nodes]), `expected nindex[${nodes}] = edges = ${edges}, got ${offsets[nodes]}.`);
  for (let j = 0; j < edges; j++) {
    const u = neighbours[j];
    if (u < 0 || u >= nodes) fail(at(1, j), String(u), `expected nlist[${j}] in [0, ${nodes}), got ${u}.`);
  }
  return { offsets, neighbours, weights, weighted };
}

/** Writes a CSR graph as an .egr file (weights as int32). */
export function writeEgr(g: CsrGraph): Uint8Array {
  const nodes = g.offsets.length - 1;
  const edges = g.neighbours.length;
  const out = new Uint8Array(8 + 4 * (nodes + 1) + 8 * edges);
  const dv = new DataView(out.buffer);
  dv.setInt32(0, nodes, true);
  dv.setInt32(4, edges, true);
  let o = 8;
  for (let v = 0; v <= nodes; v++, o += 4) dv.setInt32(o, g.offsets[v], true);
  for (let j = 0; j < edges; j++, o += 4) dv.setInt32(o, g.neighbours[j], true);
  for (let j = 0; j < edges; j++, o += 4) {
    const w = g.weights[j];
    if (!Number.isInteger(w) || w < -0x80000000 || w > 0x7fffffff) {
      throw new GraphFormatError('<egr writer>', null, String(w), `.egr weights are int32, got weights[${j}] = ${w}.`);
    }
    dv.setInt32(o, w, true);
  }
  return out;
}

/**
 * The symmetric CSR of an edge list, as ECL stores graphs: each non-loop edge in both endpoints' rows (self loops
 * are dropped), rows in edge order. `entryOf[i]` is the CSR edge id of edge i (its copy in the smaller endpoint's
 * row), or 0xffffffff for a self loop.
 */
export function edgeListToCsr(g: EdgeListGraph): { csr: CsrGraph; entryOf: Uint32Array } {
  const n = g.numVertices;
  const m = g.sources.length;
  const offsets = new Uint32Array(n + 1);
  for (let i = 0; i < m; i++) {
    if (g.sources[i] === g.targets[i]) continue;
    offsets[g.sources[i] + 1]++;
    offsets[g.targets[i] + 1]++;
  }
  for (let v = 0; v < n; v++) offsets[v + 1] += offsets[v];
  const fill = offsets.slice(0, n);
  const neighbours = new Uint32Array(offsets[n]);
  const weights = new (g.weights.constructor as new (k: number) => typeof g.weights)(offsets[n]);
  const entryOf = new Uint32Array(m).fill(0xffffffff);
  for (let i = 0; i < m; i++) {
    const a = g.sources[i];
    const b = g.targets[i];
    if (a === b) continue;
    const ja = fill[a]++;
    const jb = fill[b]++;
    neighbours[ja] = b;
    neighbours[jb] = a;
    weights[ja] = weights[jb] = g.weights[i];
    entryOf[i] = a < b ? ja : jb;
  }
  return { csr: { offsets, neighbours, weights }, entryOf };
}

/**
 * The edges of a symmetric CSR as an edge list: entry j of row v with v < neighbour becomes one edge, in entry
 * order (so the k-th edge is the k-th such entry; the CSR's edge ids are not preserved). Self-loop entries are kept.
 */
export function csrToEdgeList(g: CsrGraph): EdgeListGraph {
  const n = g.offsets.length - 1;
  let m = 0;
  for (let v = 0; v < n; v++) for (let j = g.offsets[v]; j < g.offsets[v + 1]; j++) if (g.neighbours[j] >= v) m++;
  const sources = new Uint32Array(m);
  const targets = new Uint32Array(m);
  const weights = new (g.weights.constructor as new (k: number) => typeof g.weights)(m);
  let k = 0;
  for (let v = 0; v < n; v++) {
    for (let j = g.offsets[v]; j < g.offsets[v + 1]; j++) {
      if (g.neighbours[j] < v) continue;
      sources[k] = v;
      targets[k] = g.neighbours[j];
      weights[k++] = g.weights[j];
    }
  }
  return { numVertices: n, sources, targets, weights };
}
