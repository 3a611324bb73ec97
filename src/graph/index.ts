/** The graph module: minimum spanning forests of explicit graphs (ECL-MST on the GPU, Kruskal on the CPU). Browser-safe:
 * the Node-only file helpers are in ./file.js (and the readers in ../io/graph*.ts). */
export { graphMst, graphMstCpu, AUTO_GPU_MIN_EDGES, type GraphMstOptions } from './mst.js';
export type { Graph, EdgeListGraph, CsrGraph, GraphMstResult, WeightArray, WeightKind } from './types.js';
export { createGraphMsf, roundsFor, FOREST_COUNT_OFFSET, type GraphMsf, type GraphMsfOptions, type GpuGraph } from './eclmst.js';
export { eclMstCpu, type EclTrace, type EclCpuResult } from './eclmst.cpu.js';
export { uploadGraph, type UploadedGraph } from './gpugraph.js';
export { validateGraph, type NormalGraph } from './validate.js';
