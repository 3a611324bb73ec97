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
  const weights: WeightArray =
    type === 'f32' ? new Float32Array(m) : type === 'i32' ? new Int32Array(m) : new Uint32Array(m);
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

/** The same CSR with each row's entries sorted by neighbour (stably), as ECL's .egr files store them. */
export function sortRows(g: CsrGraph): CsrGraph {
  const neighbours = Uint32Array.from(g.neighbours);
  const weights = g.weights.slice();
  for (let v = 0; v + 1 < g.offsets.length; v++) {
    const lo = g.offsets[v];
    const hi = g.offsets[v + 1];
    const order = Array.from({ length: hi - lo }, (_, i) => lo + i).sort(
      (a, b) => g.neighbours[a] - g.neighbours[b] || a - b,
    );
    order.forEach((j, i) => {
      neighbours[lo + i] = g.neighbours[j];
      weights[lo + i] = g.weights[j];
    });
  }
  return { offsets: g.offsets, neighbours, weights };
}

/**
 * Small TypeScript versions of the kinds of gen_graph.py (the project's graph generator, kept outside the repository) (its generator needs numpy): a 4-neighbour
 * grid of side 2^(scale/2), 'r4' (each vertex linked to 4 random others) and an R-MAT graph (0.57/0.19/0.19,
 * 8n edges), with integer weights in [1, 2^20]. Duplicates and self loops are kept (the readers and the MSF
 * must cope with them anyway).
 */
export function benchLikeGraph(kind: 'grid2d' | 'r4' | 'rmat', scale: number, seed: number): EdgeListGraph {
  const r = mulberry32(seed);
  const s: number[] = [];
  const t: number[] = [];
  let n: number;
  if (kind === 'grid2d') {
    const side = 1 << (scale >> 1);
    n = side * side;
    for (let y = 0; y < side; y++) {
      for (let x = 0; x < side; x++) {
        if (x + 1 < side) (s.push(y * side + x), t.push(y * side + x + 1));
        if (y + 1 < side) (s.push(y * side + x), t.push((y + 1) * side + x));
      }
    }
  } else if (kind === 'r4') {
    n = 1 << scale;
    for (let v = 0; v < n; v++) for (let k = 0; k < 4; k++) (s.push(v), t.push(Math.floor(r() * n)));
  } else {
    n = 1 << scale;
    for (let e = 0; e < 8 * n; e++) {
      let u = 0,
        v = 0;
      for (let bit = 0; bit < scale; bit++) {
        const x = r();
        if (x >= 0.76) u |= 1 << bit;
        if ((x >= 0.57 && x < 0.76) || x >= 0.95) v |= 1 << bit;
      }
      (s.push(u), t.push(v));
    }
  }
  const weights = Int32Array.from(s, () => 1 + Math.floor(r() * (1 << 20)));
  return { numVertices: n, sources: Uint32Array.from(s), targets: Uint32Array.from(t), weights };
}
