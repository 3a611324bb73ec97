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
      candidates: (first, count) => {
        let c = 0;
        for (let i = first; i < first + count; i++) if (g.sources[i] !== g.targets[i]) c++;
        return c;
      },
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
    candidates: (first, count) => csrCandidates(g.offsets, g.neighbours, first, count),
    destroy: () => [weights, offsets, neighbours].forEach((b) => b.destroy()),
  };
}

/** The entries j in [first, first + count) of a CSR whose neighbour is above their row (the edges' own copies). */
function csrCandidates(offsets: Uint32Array, neighbours: Uint32Array, first: number, count: number): number {
  const end = first + count;
  // The row holding entry `first`: the last v with offsets[v] <= first.
  let lo = 0,
    hi = offsets.length - 2;
  while (lo < hi) {
    const mid = hi - ((hi - lo) >> 1);
    if (offsets[mid] <= first) lo = mid;
    else hi = mid - 1;
  }
  let c = 0;
  for (let v = lo, j = first; j < end; v++) {
    const stop = Math.min(offsets[v + 1], end);
    for (; j < stop; j++) if (neighbours[j] > v) c++;
  }
  return c;
}
