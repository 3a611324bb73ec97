/**
 * The graphs `graphMst` accepts, as the graph readers produce them (src/graph/types.ts re-exports them with the
 * forest it returns; the conventions are described there): an edge list or a CSR, both undirected.
 */

/** Edge weights: any of the three 32-bit types. Negative weights are allowed; float weights must be finite. */
export type WeightArray = Float32Array | Int32Array | Uint32Array;

/** An undirected graph as a list of edges. */
export interface EdgeListGraph {
  /**
   * Number of vertices; every endpoint is below it. Memory follows the edges, not this number: vertices that no
   * edge touches are compacted away internally (src/graph/compact.ts) and are components of their own.
   */
  numVertices: number;
  /** First endpoint of each edge. */
  sources: Uint32Array;
  /** Second endpoint of each edge (sources[i] === targets[i] is a self loop, ignored). */
  targets: Uint32Array;
  /** Weight of each edge. */
  weights: WeightArray;
}

/** An undirected graph in compressed sparse rows, each edge stored in both endpoints' rows. */
export interface CsrGraph {
  /** numVertices + 1 row starts: row v is [offsets[v], offsets[v + 1]); offsets[0] = 0. */
  offsets: Uint32Array | Int32Array;
  /** The neighbour of each entry. */
  neighbours: Uint32Array | Int32Array;
  /** The weight of each entry; an entry and its mirror carry the same weight. */
  weights: WeightArray;
}

export type Graph = EdgeListGraph | CsrGraph;

export function isCsr(g: Graph): g is CsrGraph {
  return (g as CsrGraph).offsets !== undefined;
}
