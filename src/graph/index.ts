/** The graph module: minimum spanning forests of explicit graphs (ECL-MST on the GPU, Kruskal on the CPU). Browser-safe:
 * the Node-only file helpers are in ./file.js (and the readers in ../io/graph*.ts). */
export { graphMst, graphMstCpu, type GraphMstOptions } from './mst.js';
export type { Graph, EdgeListGraph, CsrGraph, GraphMstResult } from './types.js';
