/**
 * Issue 19's acceptance for the graph MSF on lavapipe: with the binding limit lowered to 1 MiB
 * (TREELINE_MAX_BINDING_BYTES, here the context option), graphMst() of graphs with ≥ 200,000 vertices — whose edge
 * arrays, worklists and 8-byte vertex records exceed one binding, so createGraphMsf takes the split path
 * (src/graph/eclsplit.ts: edge arrays and worklists in windows, vertex arrays whole or, above 262,144, in parts) —
 * gives exactly the unsplit path's result (the device's own limit: every array whole):
 * the forest's edge ids, endpoints, weights and total and the component labels; the independent Kruskal oracle's
 * forest and labels; and the CPU twin's worklist size in every round. Shapes: a grid (edge list), a random multigraph with few distinct
 * weights (ties), self loops and duplicates as a CSR, and many components with isolated vertices.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { graphMst } from '../../src/graph/mst.js';
import { createGraphMsf } from '../../src/graph/eclmst.js';
import { eclMstCpu } from '../../src/graph/eclmst.cpu.js';
import { graphCapacity } from '../../src/graph/capacity.js';
import { uploadGraph } from '../../src/graph/gpugraph.js';
import { validateGraph } from '../../src/graph/validate.js';
import type { GpuContext } from '../../src/gpu/context.js';
import type { Graph } from '../../src/graph/types.js';
import { kruskalOracle } from '../helpers/kruskal.js';
import { randomGraph, toCsr } from '../helpers/graph.random.js';
import { InputError } from '../../src/errors.js';
import { tryGpuContext } from '../helpers/gpu.js';
import { mulberry32 } from '../helpers/random.js';

const LIMIT = 1048576;
const lowered = await tryGpuContext({ maxBindingBytes: LIMIT });
const whole = lowered ? await tryGpuContext() : null;
afterAll(() => Promise.all([lowered?.destroy(), whole?.destroy()]));

/** A side × side 4-neighbour grid, integer weights in [1, 1000] (many ties). */
function grid(side: number, seed: number): Graph {
  const r = mulberry32(seed);
  const s: number[] = [];
  const t: number[] = [];
  for (let v = 0; v < side * side; v++) {
    if ((v % side) + 1 < side) (s.push(v), t.push(v + 1));
    if (v + side < side * side) (s.push(v), t.push(v + side));
  }
  const weights = Uint32Array.from(s, () => 1 + Math.floor(r() * 1000));
  return { numVertices: side * side, sources: Uint32Array.from(s), targets: Uint32Array.from(t), weights };
}

/** The trace of every round of `graph`'s MSF through createGraphMsf on `ctx`, and the rounds per phase. */
async function traced(ctx: GpuContext, graph: Graph) {
  const up = uploadGraph(ctx, validateGraph(graph));
  const msf = await createGraphMsf(ctx, up);
  try {
    await ctx.submit('test::graph.split.big', (rec) => msf.encode(rec));
    return { trace: await msf.readTrace(), rounds: msf.rounds };
  } finally {
    msf.destroy();
    up.destroy();
  }
}

describe.skipIf(!lowered)('issue 19: graphMst() at a 1 MiB binding limit', () => {
  const cases: [string, () => Graph][] = [
    ['a 560 × 560 grid with weights in [1, 1000] (edge list; vertex arrays in 2 parts)', () => grid(560, 3)],
    [
      'a random multigraph with ties, loops and duplicates (CSR)',
      () => toCsr(randomGraph(31, { numVertices: 250000, numEdges: 600000, weightType: 'i32', distinctWeights: 6 })),
    ],
    [
      'the most vertices the limit takes (786,431: 3 parts) in 60 components with isolated vertices (edge list, u32)',
      () => randomGraph(32, { numVertices: 786431, numEdges: 400000, weightType: 'u32', components: 60 }),
    ],
  ];
  it.each(cases)('%s: the unsplit forest, labels and rounds', async (_, make) => {
    const graph = make();
    const g = validateGraph(graph);
    expect(g.numVertices).toBeGreaterThanOrEqual(200000);
    expect(g.numVertices).toBeLessThanOrEqual(graphCapacity(lowered!.limits).maxVertices);
    // The weights, the worklists (12 bytes an edge) and the 8-byte records exceed one binding: no fast path here.
    expect(4 * g.idCount).toBeGreaterThan(LIMIT);
    expect(8 * g.numVertices).toBeGreaterThan(LIMIT);
    const got = await graphMst(graph, { backend: 'gpu', ctx: lowered!, labels: true });
    const want = await graphMst(graph, { backend: 'gpu', ctx: whole!, labels: true });
    expect(got.edgeIds).toEqual(want.edgeIds);
    expect(got.sources).toEqual(want.sources);
    expect(got.targets).toEqual(want.targets);
    expect(got.weights).toEqual(want.weights);
    expect(got.totalWeight).toBe(want.totalWeight);
    expect(got.components).toBe(want.components);
    expect(got.componentLabels).toEqual(want.componentLabels);
    const oracle = kruskalOracle(graph);
    expect(Array.from(got.edgeIds)).toEqual(oracle.ids);
    expect(Array.from(got.componentLabels!)).toEqual(oracle.labels);
    // Every round's worklist size and the threshold: the CPU twin's (which the unsplit path matches: graph.eclmst).
    const twin = eclMstCpu(g).trace;
    const { trace, rounds } = await traced(lowered!, graph);
    expect(trace.threshold).toBe(twin.threshold);
    expect(trace.rounds).toEqual(twin.rounds.map((r) => [...r, ...Array(rounds - r.length).fill(0)]));
  });

  it('one vertex more than the limit takes is a one-line InputError before anything is uploaded', async () => {
    const max = graphCapacity(lowered!.limits).maxVertices;
    expect(max).toBe(786431);
    const graph = randomGraph(33, { numVertices: max + 1, numEdges: 400000, weightType: 'u32', components: 60 });
    const before = lowered!.memory.liveBytes;
    const run = graphMst(graph, { backend: 'gpu', ctx: lowered! });
    await expect(run).rejects.toThrow(InputError);
    await expect(run).rejects.toThrow(
      /^graphMst on the GPU takes at most 786431 vertices on this device, got 786432: [^\n]*'cpu'\.$/,
    );
    expect(lowered!.memory.liveBytes).toBe(before);
  });
});
