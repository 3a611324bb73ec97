/**
 * The graphs `graphMst` accepts and the forest it returns.
 *
 * Two input shapes, both undirected:
 *  - an edge list: edge i joins sources[i] and targets[i] (either order), weight weights[i]; its edge id is i;
 *  - a CSR (the layout of ECL's .egr files): row v holds neighbours[offsets[v] .. offsets[v + 1]) with the same
 *    weights. Important! Every undirected edge is stored twice, once in each endpoint's row, with equal weights
 *    (validated). The copy in the row of the SMALLER endpoint (v < neighbour) is the edge; its position j in
 *    `neighbours` is its edge id, and the mirror copy is ignored — exactly ECL-MST's convention.
 *
 * Self loops are dropped, multi-edges are kept (the canonical order picks one), a disconnected graph gives a
 * forest. Ties between equal weights break by edge id: the canonical order is (weight, edge id) ascending.
 */
import type { CsrGraph, EdgeListGraph, Graph, WeightArray } from '../io/graph.types.js';

// The input shapes are data at the boundary, read and written by src/io/ (the bottom layer): defined there.
export { isCsr } from '../io/graph.types.js';
export type { CsrGraph, EdgeListGraph, Graph, WeightArray };

/** The weight type, as kernels see it. */
export type WeightKind = 'u32' | 'i32' | 'f32';

/** A minimum spanning forest, its edges in the canonical (weight, edge id) order. */
export interface GraphMstResult {
  /** The forest's edge ids: indices into the input edge list, or CSR entry positions (see above). */
  edgeIds: Uint32Array;
  /** The smaller endpoint of each forest edge. */
  sources: Uint32Array;
  /** The larger endpoint of each forest edge. */
  targets: Uint32Array;
  /** The weight of each forest edge, in the input's weight type. */
  weights: WeightArray;
  /** The sum of `weights` in float64, added in the order above. */
  totalWeight: number;
  /** Number of connected components (isolated vertices count): numVertices − edgeIds.length. */
  components: number;
  /** When asked for: each vertex's component, named by its smallest vertex. */
  componentLabels?: Uint32Array;
  /** The backend that computed the forest ('auto' resolves to one of these). */
  backend: 'gpu' | 'cpu';
}

export function weightKind(w: WeightArray): WeightKind {
  if (w instanceof Float32Array) return 'f32';
  if (w instanceof Int32Array) return 'i32';
  return 'u32';
}

/** A new weight array of the same type as `like`. */
export function newWeights(like: WeightArray, n: number): WeightArray {
  if (like instanceof Float32Array) return new Float32Array(n);
  if (like instanceof Int32Array) return new Int32Array(n);
  return new Uint32Array(n);
}
