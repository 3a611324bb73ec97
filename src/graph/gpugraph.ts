/**
 * Puts a validated graph on the GPU in the layout the graph-MSF kernels read (u32 words; weights as raw bits).
 * The caller owns the buffers: `destroy()` frees them.
 */
import type { GpuContext } from '../gpu/context.js';
import type { GpuGraph } from './eclmst.js';
import type { NormalGraph } from './validate.js';

export interface UploadedGraph extends GpuGraph {
  destroy(): void;
}

export function uploadGraph(ctx: GpuContext, g: NormalGraph): UploadedGraph {
  const w = g.weights;
  const weights = ctx.upload('graph::weights', new Uint32Array(w.buffer, w.byteOffset, w.length));
  const base = {
    numVertices: g.numVertices,
    slots: g.idCount,
    capacity: g.candidates,
    weightKind: g.weightKind,
    weights,
  };
  if (g.kind === 'edges') {
    const sources = ctx.upload('graph::sources', g.sources);
    const targets = ctx.upload('graph::targets', g.targets);
    return {
      ...base,
      kind: 'edges',
      sources,
      targets,
      destroy: () => [weights, sources, targets].forEach((b) => b.destroy()),
    };
  }
  const offsets = ctx.upload('graph::offsets', g.offsets);
  const neighbours = ctx.upload('graph::neighbours', g.neighbours);
  return {
    ...base,
    kind: 'csr',
    offsets,
    neighbours,
    sortedRows: g.sortedRows,
    destroy: () => [weights, offsets, neighbours].forEach((b) => b.destroy()),
  };
}
