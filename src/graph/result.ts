/**
 * Assembles a `GraphMstResult` from forest edge ids in canonical order; shared by both backends so that they
 * return identical objects for identical id lists.
 */
import { newWeights, type GraphMstResult } from './types.js';
import type { NormalGraph } from './validate.js';

/** The endpoints (smaller first) of edge `id`; for a CSR, `row` is the row holding entry `id`. */
export function endpoints(g: NormalGraph, id: number, row = 0): [number, number] {
  const a = g.kind === 'edges' ? g.sources[id] : row;
  const b = g.kind === 'edges' ? g.targets[id] : g.neighbours[id];
  return a < b ? [a, b] : [b, a];
}

/** The row of each CSR entry (entry → source vertex). */
export function csrRows(offsets: Uint32Array, entries: number): Uint32Array {
  const rows = new Uint32Array(entries);
  for (let v = 0; v + 1 < offsets.length; v++) rows.fill(v, offsets[v], offsets[v + 1]);
  return rows;
}

/** Builds the result from forest ids sorted by (weight key, id). */
export function buildResult(
  g: NormalGraph,
  ids: Uint32Array,
  labels: Uint32Array | undefined,
  backend: 'gpu' | 'cpu',
): GraphMstResult {
  const m = ids.length;
  const sources = new Uint32Array(m);
  const targets = new Uint32Array(m);
  const weights = newWeights(g.weights, m);
  const rows = g.kind === 'csr' && m > 0 ? csrRowsOf(g.offsets, ids) : null;
  let total = 0;
  for (let i = 0; i < m; i++) {
    const id = ids[i];
    const [a, b] = endpoints(g, id, rows ? rows[i] : 0);
    sources[i] = a;
    targets[i] = b;
    weights[i] = g.weights[id];
    total += weights[i];
  }
  const result: GraphMstResult = {
    edgeIds: ids,
    sources,
    targets,
    weights,
    totalWeight: total,
    components: g.numVertices - m,
    backend,
  };
  if (labels) result.componentLabels = labels;
  return result;
}

/** The row of each of the given CSR entries, by binary search in offsets. */
function csrRowsOf(offsets: Uint32Array, entries: Uint32Array): Uint32Array {
  const out = new Uint32Array(entries.length);
  const n = offsets.length - 1;
  for (let i = 0; i < entries.length; i++) {
    const j = entries[i];
    let lo = 0,
      hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (offsets[mid] <= j) lo = mid;
      else hi = mid - 1;
    }
    out[i] = lo;
  }
  return out;
}
