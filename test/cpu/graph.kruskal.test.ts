import { describe, expect, it } from 'vitest';
import { graphMst, graphMstCpu } from '../../src/graph/mst.js';
import { eclMstCpu } from '../../src/graph/eclmst.cpu.js';
import { validateGraph } from '../../src/graph/validate.js';
import { kruskalOracle } from '../helpers/kruskal.js';
import { randomGraph, toCsr } from '../helpers/graph.random.js';

const cases = [
  { seed: 1, numVertices: 50, numEdges: 200, weightType: 'f32' as const },
  { seed: 2, numVertices: 300, numEdges: 900, weightType: 'i32' as const, distinctWeights: 3 },
  { seed: 3, numVertices: 1000, numEdges: 1500, weightType: 'u32' as const, components: 7 },
  { seed: 4, numVertices: 64, numEdges: 2000, weightType: 'f32' as const, distinctWeights: 2, duplicates: 0.4 },
  { seed: 5, numVertices: 500, numEdges: 4000, weightType: 'i32' as const, components: 1, distinctWeights: 1000 },
];

describe('graphMstCpu (Kruskal) against the plain oracle', () => {
  for (const c of cases) {
    it(`edge list, seed ${c.seed}: ${c.numVertices} vertices, ${c.numEdges} edges, ${c.weightType}`, () => {
      const g = randomGraph(c.seed, c);
      const got = graphMstCpu(g, { labels: true });
      const want = kruskalOracle(g);
      expect(Array.from(got.edgeIds)).toEqual(want.ids);
      expect(got.totalWeight).toBe(want.totalWeight);
      expect(got.components).toBe(want.components);
      expect(Array.from(got.componentLabels!)).toEqual(want.labels);
      for (let i = 0; i < got.edgeIds.length; i++) {
        const id = got.edgeIds[i];
        expect(got.sources[i]).toBe(Math.min(g.sources[id], g.targets[id]));
        expect(got.targets[i]).toBe(Math.max(g.sources[id], g.targets[id]));
        expect(got.weights[i]).toBe(g.weights[id]);
      }
      expect(got.weights.constructor).toBe(g.weights.constructor);
    });

    it(`CSR, seed ${c.seed}: edge ids are the entries of the smaller endpoint's row`, () => {
      const csr = toCsr(randomGraph(c.seed, c));
      const got = graphMstCpu(csr, { labels: true });
      const want = kruskalOracle(csr);
      expect(Array.from(got.edgeIds)).toEqual(want.ids);
      expect(Array.from(got.componentLabels!)).toEqual(want.labels);
      for (let i = 0; i < got.edgeIds.length; i++) {
        expect(csr.neighbours[got.edgeIds[i]]).toBe(got.targets[i]);
        expect(csr.offsets[got.sources[i]] <= got.edgeIds[i] && got.edgeIds[i] < csr.offsets[got.sources[i] + 1]).toBe(
          true,
        );
      }
    });

    it(`eclMstCpu (the GPU's twin) gives Kruskal's forest, seed ${c.seed}, filtering off and on`, () => {
      const g = validateGraph(randomGraph(c.seed, c));
      const want = kruskalOracle(randomGraph(c.seed, c)).ids;
      for (const filter of ['off', 'on'] as const) {
        const r = eclMstCpu(g, { filter });
        expect(Array.from(r.ids)).toEqual(want);
        expect(r.trace.rounds.length).toBe(filter === 'on' ? 2 : 1);
        // Every phase ends with an empty worklist, within ⌊log2 n⌋ + 1 rounds.
        for (const sizes of r.trace.rounds) {
          expect(sizes[sizes.length - 1]).toBe(0);
          expect(sizes.length).toBeLessThanOrEqual(Math.floor(Math.log2(c.numVertices)) + 1);
        }
      }
    });
  }

  it('ties break by edge id: of equal parallel edges the first wins, whatever the orientation', () => {
    const g = {
      numVertices: 3,
      sources: Uint32Array.from([1, 0, 2, 1, 0]),
      targets: Uint32Array.from([0, 1, 1, 2, 2]),
      weights: Float32Array.from([5, 5, 5, 5, 5]),
    };
    expect(Array.from(graphMstCpu(g).edgeIds)).toEqual([0, 2]);
  });

  it('negative weights order below zero and −0 ties with +0 by id', () => {
    const g = {
      numVertices: 4,
      sources: Uint32Array.from([0, 1, 2, 0, 0]),
      targets: Uint32Array.from([1, 2, 3, 2, 3]),
      weights: Float32Array.from([0, -0, 3, -2, -3e38]),
    };
    const r = graphMstCpu(g);
    expect(Array.from(r.edgeIds)).toEqual([4, 3, 0]);
    expect(r.totalWeight).toBe(Math.fround(-3e38) - 2 + 0);
    const i = { ...g, weights: Int32Array.from([0, -2147483648, 2147483647, -1, 1]) };
    expect(Array.from(graphMstCpu(i).edgeIds)).toEqual([1, 3, 4]);
  });

  it('degenerate graphs: no vertices, no edges, only self loops', async () => {
    const empty = {
      numVertices: 0,
      sources: new Uint32Array(0),
      targets: new Uint32Array(0),
      weights: new Float32Array(0),
    };
    expect(graphMstCpu(empty)).toMatchObject({ components: 0, totalWeight: 0 });
    const loops = {
      numVertices: 3,
      sources: Uint32Array.from([1, 2]),
      targets: Uint32Array.from([1, 2]),
      weights: Int32Array.from([1, 2]),
    };
    const r = await graphMst(loops, { backend: 'cpu', labels: true });
    expect(r.edgeIds.length).toBe(0);
    expect(r.components).toBe(3);
    expect(Array.from(r.componentLabels!)).toEqual([0, 1, 2]);
  });
});
