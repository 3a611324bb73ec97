/**
 * An independent, deliberately plain Kruskal for tests: edges sorted with Array.prototype.sort by (weight as a
 * number, edge id), a textbook union-find (path compression, union by size), nothing shared with src/graph.
 * Accepts both input shapes of `graphMst` (edge list; symmetric CSR whose edge ids are the positions of the
 * entries with v < neighbour).
 */
import { PlainUnionFind } from './unionfind.js';

export interface OracleGraph {
  numVertices?: number;
  sources?: ArrayLike<number>;
  targets?: ArrayLike<number>;
  offsets?: ArrayLike<number>;
  neighbours?: ArrayLike<number>;
  weights: ArrayLike<number>;
}

export interface OracleForest {
  /** Forest edge ids in (weight, id) order. */
  ids: number[];
  totalWeight: number;
  components: number;
  /** Smallest vertex of each vertex's component. */
  labels: number[];
}

export function kruskalOracle(g: OracleGraph): OracleForest {
  const edges: { id: number; u: number; v: number; w: number }[] = [];
  let n: number;
  if (g.offsets) {
    n = g.offsets.length - 1;
    for (let v = 0; v < n; v++) {
      for (let j = g.offsets[v]; j < g.offsets[v + 1]; j++) {
        if (g.neighbours![j] > v) edges.push({ id: j, u: v, v: g.neighbours![j], w: g.weights[j] });
      }
    }
  } else {
    n = g.numVertices!;
    for (let i = 0; i < g.sources!.length; i++) {
      if (g.sources![i] !== g.targets![i]) edges.push({ id: i, u: g.sources![i], v: g.targets![i], w: g.weights[i] });
    }
  }
  edges.sort((a, b) => (a.w < b.w ? -1 : a.w > b.w ? 1 : a.id - b.id));
  const uf = new PlainUnionFind(n);
  const find = (x: number) => uf.find(x);
  const ids: number[] = [];
  let total = 0;
  for (const e of edges) {
    const a = find(e.u);
    const b = find(e.v);
    if (a === b) continue;
    uf.unionRoots(a, b);
    ids.push(e.id);
    total += e.w;
  }
  const smallest = new Map<number, number>();
  for (let v = 0; v < n; v++) if (!smallest.has(find(v))) smallest.set(find(v), v);
  return {
    ids,
    totalWeight: total,
    components: n - ids.length,
    labels: Array.from({ length: n }, (_, v) => smallest.get(find(v))!),
  };
}
