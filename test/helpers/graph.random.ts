/**
 * Seeded random graphs for the graph-MSF tests: duplicate edges (both orientations), self loops, several
 * components, isolated vertices, many equal weights, negative weights, in all three weight types; and their
 * symmetric CSR form (each edge in both rows, as ECL's .egr stores it).
 */
import { mulberry32 } from './random.js';
import type { CsrGraph, EdgeListGraph, WeightArray } from '../../src/graph/types.js';

export interface RandomGraphOptions {
  numVertices: number;
  numEdges: number;
  weightType?: 'f32' | 'i32' | 'u32';
  /** Weights are drawn from this many distinct values (few values: many ties). Default 8. */
  distinctWeights?: number;
  /** Include negative weights (f32, i32). Default true. */
  negative?: boolean;
  /** Vertices are split into this many groups with no edge between groups. Default 3. */
  components?: number;
  /** Fraction of edges that repeat an earlier edge's endpoints (either orientation). Default 0.1. */
  duplicates?: number;
  /** Fraction of self loops. Default 0.05. */
  loops?: number;
}

export function randomGraph(seed: number, o: RandomGraphOptions): EdgeListGraph {
  const r = mulberry32(seed);
  const n = o.numVertices;
  const m = o.numEdges;
  const type = o.weightType ?? 'f32';
  const distinct = o.distinctWeights ?? 8;
  const negative = o.negative ?? true;
  const comps = Math.max(1, Math.min(o.components ?? 3, n));
  const sources = new Uint32Array(m);
  const targets = new Uint32Array(m);
  const weights: WeightArray = type === 'f32' ? new Float32Array(m) : type === 'i32' ? new Int32Array(m) : new Uint32Array(m);
  // Component c holds the vertices v with v % comps === c; the last vertex of each stays isolated when possible.
  const pick = (c: number) => {
    const size = Math.floor((n - 1 - c) / comps) + 1;
    return c + comps * Math.floor(r() * Math.max(1, size - (size > 2 ? 1 : 0)));
  };
  for (let i = 0; i < m; i++) {
    const x = r();
    if (i > 0 && x < (o.duplicates ?? 0.1)) {
      const j = Math.floor(r() * i);
      const flip = r() < 0.5;
      sources[i] = flip ? targets[j] : sources[j];
      targets[i] = flip ? sources[j] : targets[j];
    } else {
      const c = Math.floor(r() * comps);
      sources[i] = pick(c);
      targets[i] = x < (o.duplicates ?? 0.1) + (o.loops ?? 0.05) ? sources[i] : pick(c);
    }
    const d = Math.floor(r() * distinct);
    if (type === 'u32') weights[i] = d === distinct - 1 ? 0xffffffff : d * 977;
    else if (type === 'i32') weights[i] = (negative ? d - (distinct >> 1) : d) * 1000003;
    else weights[i] = (negative ? d - (distinct >> 1) : d) * 0.37 + (d === 1 ? 1e-7 : 0);
  }
  return { numVertices: n, sources, targets, weights };
}

/** The symmetric CSR of an edge list: both directions of every edge (a self loop once), each row in edge order. */
export function toCsr(g: EdgeListGraph): CsrGraph {
  const n = g.numVertices;
  const deg = new Uint32Array(n + 1);
  for (let i = 0; i < g.sources.length; i++) {
    deg[g.sources[i] + 1]++;
    if (g.sources[i] !== g.targets[i]) deg[g.targets[i] + 1]++;
  }
  for (let v = 0; v < n; v++) deg[v + 1] += deg[v];
  const offsets = deg.slice();
  const fill = deg.slice(0, n);
  const e = offsets[n];
  const neighbours = new Uint32Array(e);
  const weights = new (g.weights.constructor as { new (n: number): WeightArray })(e);
  const put = (a: number, b: number, w: number) => {
    const at = fill[a]++;
    neighbours[at] = b;
    weights[at] = w;
  };
  for (let i = 0; i < g.sources.length; i++) {
    put(g.sources[i], g.targets[i], g.weights[i]);
    if (g.sources[i] !== g.targets[i]) put(g.targets[i], g.sources[i], g.weights[i]);
  }
  return { offsets, neighbours, weights };
}
