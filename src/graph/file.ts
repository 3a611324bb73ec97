/**
 * What `treeline mst <graph file>` needs (the CLI itself lives in src/cli/): read a graph file in any supported
 * format (src/io/graph.ts picks the reader by extension), compute its minimum spanning forest, and lay the forest
 * out as columns for the CLI's CSV / JSON / NPY writers. Compute and printing stay apart (CONVENTIONS.md 12).
 */
import { readGraph, type GraphFormat } from '../io/graph.js';
import type { EdgeListReadOptions } from '../io/graph.edgelist.js';
import { graphMst, type GraphMstOptions } from './mst.js';
import { isCsr, type Graph, type GraphMstResult } from './types.js';
import type { ProgressCallback } from '../progress.js';

export interface GraphFileMst {
  graph: Graph;
  result: GraphMstResult;
  /** Vertices and edge-id slots of the input. */
  numVertices: number;
  inputEdges: number;
}

/** Reads `path` and computes its minimum spanning forest; `onProgress` hears of the two phases, 'read' and 'MST'. */
export async function graphMstFromFile(
  path: string,
  options: GraphMstOptions & EdgeListReadOptions & { format?: GraphFormat; onProgress?: ProgressCallback } = {},
): Promise<GraphFileMst> {
  options.onProgress?.(0, 'read');
  const graph = await readGraph(path, options);
  options.onProgress?.(0.5, 'MST');
  const result = await graphMst(graph, options);
  options.onProgress?.(1, 'MST');
  const numVertices = isCsr(graph) ? graph.offsets.length - 1 : graph.numVertices;
  const inputEdges = isCsr(graph) ? graph.neighbours.length : graph.sources.length;
  return { graph, result, numVertices, inputEdges };
}

/**
 * The forest as CSV columns (one row per edge: edge_id, source, target, weight), canonical order. The CLI's naming
 * (README, "Result arrays"): CSV columns are the singular of the arrays' names, JSON keys the API's names, counts
 * `num…`, `.npy` files the snake_case of the JSON keys.
 */
export function forestColumns(r: GraphMstResult): Record<string, Uint32Array | Int32Array | Float32Array> {
  return { edge_id: r.edgeIds, source: r.sources, target: r.targets, weight: r.weights };
}

/** The forest as `.npy` arrays: edge_ids, sources, targets, weights (and component_labels when computed). */
export function forestArrays(r: GraphMstResult): Record<string, Uint32Array | Int32Array | Float32Array> {
  return {
    edge_ids: r.edgeIds,
    sources: r.sources,
    targets: r.targets,
    weights: r.weights,
    ...(r.componentLabels ? { component_labels: r.componentLabels } : {}),
  };
}

/** A JSON-ready summary plus the forest (arrays as plain number arrays). */
export function forestJson(r: GraphMstResult): Record<string, unknown> {
  return {
    backend: r.backend,
    numEdges: r.edgeIds.length,
    numComponents: r.components,
    totalWeight: r.totalWeight,
    edgeIds: Array.from(r.edgeIds),
    sources: Array.from(r.sources),
    targets: Array.from(r.targets),
    weights: Array.from(r.weights),
    ...(r.componentLabels ? { componentLabels: Array.from(r.componentLabels) } : {}),
  };
}
