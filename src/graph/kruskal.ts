/**
 * The graph module's CPU backend: Kruskal (1956) in the canonical (weight, edge id) order — the order ECL-MST's
 * packed (weight, id) minima realise on the GPU (Fallin et al., SC'23, ../shared/seeds/000, §3.2), so both
 * backends return the same forest, edge for edge. Sorting is a stable radix sort on the weight keys
 * (`order.ts`); cycles are detected with the project's union-find (`unionfind.cpu.ts`), whose labels (smallest
 * vertex of each set) are the component labels.
 */
import { UnionFind } from '../unionfind/unionfind.cpu.js';
import { weightKeys } from './keys.js';
import { sortIdsByKey } from './order.js';
import { buildResult, csrRows } from './result.js';
import type { GraphMstResult } from './types.js';
import type { NormalGraph } from './validate.js';

/** The candidate edges of a graph (self loops and CSR mirror copies left out), in increasing id order. */
export function candidateIds(g: NormalGraph): Uint32Array {
  const ids = new Uint32Array(g.candidates);
  let k = 0;
  if (g.kind === 'edges') {
    for (let i = 0; i < g.idCount; i++) if (g.sources[i] !== g.targets[i]) ids[k++] = i;
  } else {
    const { offsets, neighbours } = g;
    for (let v = 0; v < g.numVertices; v++) {
      for (let j = offsets[v]; j < offsets[v + 1]; j++) if (neighbours[j] > v) ids[k++] = j;
    }
  }
  return ids;
}

/** The forest's edge ids in canonical order, and the union-find that built it. */
export function kruskalIds(g: NormalGraph): { ids: Uint32Array; uf: UnionFind } {
  const ids = candidateIds(g);
  const allKeys = weightKeys(g.weights, g.weightKind);
  const keys = new Uint32Array(ids.length);
  for (let i = 0; i < ids.length; i++) keys[i] = allKeys[ids[i]];
  sortIdsByKey(ids, keys);
  const uf = new UnionFind(g.numVertices);
  const rows = g.kind === 'csr' ? csrRows(g.offsets, g.idCount) : null;
  const first = g.kind === 'edges' ? g.sources : rows!;
  const second = g.kind === 'edges' ? g.targets : g.neighbours;
  const forest = new Uint32Array(Math.max(0, Math.min(ids.length, g.numVertices - 1)));
  let m = 0;
  for (let i = 0; i < ids.length && m < forest.length; i++) {
    const id = ids[i];
    if (uf.union(first[id], second[id])) forest[m++] = id;
  }
  return { ids: forest.slice(0, m), uf };
}

/** Kruskal's minimum spanning forest of a validated graph. */
export function kruskal(g: NormalGraph, options: { labels?: boolean } = {}): GraphMstResult {
  const { ids, uf } = kruskalIds(g);
  return buildResult(g, ids, options.labels ? uf.labels() : undefined, 'cpu');
}
