/**
 * `graphMst`: the minimum spanning forest of an undirected graph, on the GPU (ECL-MST, `eclmst.ts`) or the CPU
 * (Kruskal, `kruskal.ts`); both return the same forest, edge for edge, in the canonical (weight, edge id) order.
 * Input shapes and edge ids are described in `types.ts`. Memory follows the edges: an edge list naming far more
 * vertices than its edges touch runs on the touched ones only (`compact.ts`), its result mapped back.
 */
import { createGpuContext, type GpuContext } from '../gpu/context.js';
import { InputError } from '../errors.js';
import { gpuElseCpu } from '../gpu/fallback.js';
import { checkGraphCapacity } from './capacity.js';
import { compactVertices, expandResult } from './compact.js';
import { createGraphMsf, type GraphMsfOptions } from './eclmst.js';
import { uploadGraph } from './gpugraph.js';
import { keyOfBits, weightBits } from './keys.js';
import { kruskal } from './kruskal.js';
import { sortIdsByKey } from './order.js';
import { buildResult } from './result.js';
import type { Graph, GraphMstResult } from './types.js';
import { validateGraph, type NormalGraph } from './validate.js';

export interface GraphMstOptions {
  /**
   * 'gpu', 'cpu', or 'auto' (default): the GPU when a context is given or one can be created on a hardware adapter
   * (never a software one: src/gpu/adapter.ts) and the graph has at least `AUTO_GPU_MIN_EDGES` edges, else the CPU.
   */
  backend?: 'auto' | 'gpu' | 'cpu';
  /** The GPU context to use (not destroyed). Without it, the GPU backend creates one and destroys it after. */
  ctx?: GpuContext;
  /** Also return each vertex's component label (its smallest vertex). */
  labels?: boolean;
  /** Tuning of the GPU algorithm (the forest does not depend on it). */
  gpu?: GraphMsfOptions;
}

/** Below this many edge slots 'auto' uses the CPU: a GPU round-trip costs more than Kruskal. */
export const AUTO_GPU_MIN_EDGES = 1 << 15;

/** The minimum spanning forest of `graph`. */
export async function graphMst(graph: Graph, options: GraphMstOptions = {}): Promise<GraphMstResult> {
  const backend = options.backend ?? 'auto';
  if (!['auto', 'gpu', 'cpu'].includes(backend))
    throw new InputError(`Expected backend 'auto', 'gpu' or 'cpu', got '${backend}'.`);
  const valid = validateGraph(graph);
  // Memory follows the edges, not numVertices: ids that no edge touches are compacted away (compact.ts).
  const c = compactVertices(valid, options.labels);
  const r = await solve(c ? c.graph : valid, backend, options);
  return c ? expandResult(c, r, valid.numVertices) : r;
}

async function solve(
  g: NormalGraph,
  backend: 'auto' | 'gpu' | 'cpu',
  options: GraphMstOptions,
): Promise<GraphMstResult> {
  if (backend === 'cpu' || (backend === 'auto' && !options.ctx && g.idCount < AUTO_GPU_MIN_EDGES)) {
    return kruskal(g, { labels: options.labels });
  }
  const onGpu = async (): Promise<GraphMstResult> => {
    const ctx = options.ctx ?? (await createGpuContext({ hardwareOnly: backend === 'auto' }));
    try {
      return await gpuMsf(ctx, g, options);
    } finally {
      if (!options.ctx) await ctx.destroy();
    }
  };
  return gpuElseCpu('graphMst', backend, onGpu, () => kruskal(g, { labels: options.labels }));
}

/** The CPU backend, synchronously. */
export function graphMstCpu(graph: Graph, options: { labels?: boolean } = {}): GraphMstResult {
  const valid = validateGraph(graph);
  const c = compactVertices(valid, options.labels);
  return c ? expandResult(c, kruskal(c.graph, options), valid.numVertices) : kruskal(valid, options);
}

async function gpuMsf(ctx: GpuContext, g: NormalGraph, options: GraphMstOptions): Promise<GraphMstResult> {
  // Issue 19: a graph above what the device takes is a one-line input error before anything is uploaded.
  checkGraphCapacity(ctx.limits, g.numVertices, g.idCount, g.candidates);
  const gg = uploadGraph(ctx, g);
  try {
    const msf = await createGraphMsf(ctx, gg, options.gpu);
    try {
      await ctx.submit('graph::mst', (rec) => {
        msf.encode(rec);
        if (options.labels) msf.encodeLabels(rec);
      });
      const ids = (await msf.readForest()).sort();
      const labels = options.labels ? await msf.readLabels() : undefined;
      return buildResult(g, canonical(g, ids), labels, 'gpu');
    } finally {
      msf.destroy();
    }
  } finally {
    gg.destroy();
  }
}

/** Forest ids (increasing) in canonical (weight key, id) order. */
export function canonical(g: NormalGraph, ids: Uint32Array): Uint32Array {
  const bits = weightBits(g.weights);
  const keys = new Uint32Array(ids.length);
  for (let i = 0; i < ids.length; i++) keys[i] = keyOfBits(g.weightKind, bits[ids[i]]);
  return sortIdsByKey(ids, keys);
}
