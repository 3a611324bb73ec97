/**
 * The graph-MSF benchmark, timed like ECL-MST (seed 000, §4): the graph resident on the GPU (an .egr CSR uploaded
 * once, at setup), `encode` recording one full minimum-spanning-forest computation into one submission, the
 * result left on the GPU. `check` reads the forest back and compares it with the CPU backend (Kruskal): the same
 * edge ids, hence the same edge count and total weight. Graphs come from ../shared/bench/gen_graph.py.
 */
import type { GpuContext } from '../gpu/context.js';
import type { BenchCase } from './harness.js';
import { parseEgr } from '../io/graph.egr.js';
import { createGraphMsf, type GraphMsfOptions } from '../graph/eclmst.js';
import { uploadGraph } from '../graph/gpugraph.js';
import { kruskalIds } from '../graph/kruskal.js';
import { validateGraph, type NormalGraph } from '../graph/validate.js';

/**
 * The parsed graph and its Kruskal forest per file's bytes: the same file benched under several option sets
 * (TREELINE_GRAPH_OPTIONS as an array, suites.ts) is parsed, validated and checked against Kruskal once.
 */
const prepared = new WeakMap<Uint8Array, { g: NormalGraph; want?: Uint32Array }>();

export interface GraphBenchCase extends BenchCase {
  encode: NonNullable<BenchCase['encode']>;
  /** Vertices and undirected edges of the graph. */
  numVertices: number;
  undirectedEdges: number;
  /** Bytes of the uploaded CSR (offsets, neighbours, weights). */
  csrBytes: number;
  /** Bytes of GPU scratch the MSF allocates beyond the CSR, and that per undirected edge (the issue's limit: 40). */
  scratchBytes: number;
  scratchBytesPerEdge: number;
}

/** Sets up the benchmark of one .egr graph. `options` tune the GPU algorithm (the forest does not depend on them). */
export async function benchGraphMst(ctx: GpuContext, egrBytes: Uint8Array, options: GraphMsfOptions = {}): Promise<GraphBenchCase> {
  let p = prepared.get(egrBytes);
  if (!p) prepared.set(egrBytes, (p = { g: validateGraph(parseEgr(egrBytes, 'bench.egr')) }));
  const memo = p;
  const g = p.g;
  const before = ctx.memory.liveBytes;
  const gpuGraph = uploadGraph(ctx, g);
  const csrBytes = ctx.memory.liveBytes - before;
  const msf = await createGraphMsf(ctx, gpuGraph, options);
  const scratchBytes = ctx.memory.liveBytes - before - csrBytes;
  let trace = '';
  return {
    encode: (rec) => msf.encode(rec),
    check: async () => {
      const t = await msf.readTrace();
      trace = `threshold key ${t.threshold ?? 'none'}; worklist sizes per round: ${t.rounds.map((r, p) => `phase ${p + 1}: ${r.join(' ')}`).join('; ')}`;
      const got = (await msf.readForest()).sort();
      const want = (memo.want ??= kruskalIds(g).ids.sort());
      let weightGot = 0;
      let weightWant = 0;
      for (const id of got) weightGot += g.weights[id];
      for (const id of want) weightWant += g.weights[id];
      if (got.length !== want.length || weightGot !== weightWant) {
        throw new Error(`graph::bench: GPU forest has ${got.length} edges of total weight ${weightGot}; the CPU's has ${want.length} of ${weightWant}.`);
      }
      for (let i = 0; i < got.length; i++) {
        if (got[i] !== want[i]) throw new Error(`graph::bench: GPU and CPU forests differ (first at sorted position ${i}: ${got[i]} vs ${want[i]}).`);
      }
    },
    destroy: () => {
      msf.destroy();
      gpuGraph.destroy();
    },
    notes: () => trace,
    numVertices: g.numVertices,
    undirectedEdges: g.candidates,
    csrBytes,
    scratchBytes,
    scratchBytesPerEdge: scratchBytes / Math.max(1, g.candidates),
  };
}
