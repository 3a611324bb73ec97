import { afterAll, describe, expect, it } from 'vitest';
import { graphMst, graphMstCpu } from '../../src/graph/mst.js';
import { createGraphMsf, roundsFor } from '../../src/graph/eclmst.js';
import { eclMstCpu } from '../../src/graph/eclmst.cpu.js';
import { uploadGraph } from '../../src/graph/gpugraph.js';
import { validateGraph } from '../../src/graph/validate.js';
import type { Graph } from '../../src/graph/types.js';
import { kruskalOracle } from '../helpers/kruskal.js';
import { benchLikeGraph, randomGraph, sortRows, toCsr } from '../helpers/graph.random.js';
import { edgeListToCsr } from '../../src/io/graph.egr.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

const graphs = [
  { seed: 11, numVertices: 40, numEdges: 160, weightType: 'f32' as const },
  { seed: 12, numVertices: 700, numEdges: 3000, weightType: 'i32' as const, distinctWeights: 3 },
  { seed: 13, numVertices: 2000, numEdges: 2500, weightType: 'u32' as const, components: 9 },
  { seed: 14, numVertices: 100, numEdges: 4000, weightType: 'f32' as const, distinctWeights: 2, duplicates: 0.4 },
  { seed: 15, numVertices: 5000, numEdges: 30000, weightType: 'i32' as const, components: 2, distinctWeights: 100000 },
];

describe.skipIf(variants.length === 0).each(variants)('graph MSF on the GPU ($name)', ({ ctx }) => {
  for (const c of graphs) {
    for (const shape of ['edges', 'csr'] as const) {
      it(`graphMst(${shape}) = CPU = plain Kruskal, seed ${c.seed}, filter off/on, indirect and fixed dispatch`, async () => {
        const el = randomGraph(c.seed, c);
        const graph: Graph = shape === 'edges' ? el : toCsr(el);
        const want = kruskalOracle(graph);
        const cpu = graphMstCpu(graph, { labels: true });
        expect(Array.from(cpu.edgeIds)).toEqual(want.ids);
        const tuned = { filter: 'off' as const, dispatch: 'fixed' as const, workgroupSize: 64, csrItems: 3 };
        for (const gpu of [
          { filter: 'off' as const },
          { filter: 'on' as const },
          { filter: 'on' as const, dispatch: 'indirect' as const },
          { filter: 'on' as const, dispatch: 'fixed' as const, fixedGroups: 3 },
          ...(c.seed === 12 ? [tuned] : []),
        ]) {
          const got = await graphMst(graph, { backend: 'gpu', ctx, labels: true, gpu });
          expect(Array.from(got.edgeIds), JSON.stringify(gpu)).toEqual(want.ids);
          expect(got.totalWeight).toBe(cpu.totalWeight);
          expect(got.components).toBe(want.components);
          expect(Array.from(got.componentLabels!)).toEqual(want.labels);
          expect(got.weights).toEqual(cpu.weights);
          expect(got.sources).toEqual(cpu.sources);
          expect(got.targets).toEqual(cpu.targets);
        }
      });
    }

    it(`every round's worklist size and the threshold match the CPU twin, seed ${c.seed}`, async () => {
      for (const shape of ['edges', 'csr'] as const) {
        const el = randomGraph(c.seed, c);
        const g = validateGraph(shape === 'edges' ? el : toCsr(el));
        for (const filter of ['off', 'on'] as const) {
          const twin = eclMstCpu(g, { filter });
          const up = uploadGraph(ctx, g);
          const msf = await createGraphMsf(ctx, up, { filter });
          await ctx.submit('test::graph', (rec) => msf.encode(rec));
          const trace = await msf.readTrace();
          expect(trace.threshold).toBe(twin.trace.threshold);
          const pad = (s: number[]) => [...s, ...Array(roundsFor(g.numVertices) - s.length).fill(0)];
          expect(trace.rounds).toEqual(twin.trace.rounds.map(pad));
          const ids = (await msf.readForest()).sort();
          expect(Array.from(ids)).toEqual(Array.from(twin.ids).sort((a, b) => a - b));
          msf.destroy();
          up.destroy();
        }
      }
    });
  }

  for (const [kind, scale] of [
    ['rmat', 14],
    ['grid2d', 16],
    ['r4', 15],
  ] as const) {
    it(`larger graphs: ${kind} scale ${scale} as a CSR, automatic filtering, GPU forest = CPU forest`, async () => {
      const { csr } = edgeListToCsr(benchLikeGraph(kind, scale, 3));
      const want = graphMstCpu(csr);
      const got = await graphMst(csr, { backend: 'gpu', ctx });
      expect(got.edgeIds).toEqual(want.edgeIds);
      expect(got.totalWeight).toBe(want.totalWeight);
    });
  }

  it('CSR tiles spanning more empty rows than the tile holds (uncached row search) give the right forest', async () => {
    // A dense graph on every 50th vertex of 20 000: most rows are empty.
    const small = randomGraph(23, {
      numVertices: 400,
      numEdges: 3000,
      weightType: 'u32',
      components: 2,
      distinctWeights: 50,
    });
    const el = {
      ...small,
      numVertices: 20000,
      sources: small.sources.map((v) => 50 * v),
      targets: small.targets.map((v) => 50 * v),
    };
    const csr = toCsr(el);
    for (const gpu of [{}, { workgroupSize: 32, csrItems: 2 }]) {
      expect(Array.from((await graphMst(csr, { backend: 'gpu', ctx, gpu })).edgeIds)).toEqual(kruskalOracle(csr).ids);
    }
    // Row minima: uncached tiles record each entry at its own row's vertex instead.
    const sorted = sortRows(csr);
    for (const gpu of [{ rowMinima: true }, { rowMinima: true, workgroupSize: 32, csrItems: 2 }]) {
      const got = await graphMst(sorted, { backend: 'gpu', ctx, gpu, labels: true });
      const want = kruskalOracle(sorted);
      expect(Array.from(got.edgeIds)).toEqual(want.ids);
      expect(Array.from(got.componentLabels!)).toEqual(want.labels);
    }
  });

  it('each fallback also runs on a device that has the feature: 32-bit minima, workgroup-aggregated appends', async () => {
    const g = randomGraph(21, { numVertices: 300, numEdges: 2000, weightType: 'f32', distinctWeights: 4 });
    for (const gpu of [{ atomic64: false }, { subgroups: false }, { atomic64: false, subgroups: false }]) {
      const got = await graphMst(g, { backend: 'gpu', ctx, gpu: { ...gpu, filter: 'on' } });
      expect(Array.from(got.edgeIds)).toEqual(kruskalOracle(g).ids);
      const csr = toCsr(g);
      expect(Array.from((await graphMst(csr, { backend: 'gpu', ctx, gpu })).edgeIds)).toEqual(kruskalOracle(csr).ids);
    }
  });

  it('create once, run many: repeated encodes give the same forest and nothing leaks', async () => {
    const before = ctx.memory.liveBytes;
    const g = validateGraph(toCsr(randomGraph(22, { numVertices: 1000, numEdges: 8000, weightType: 'u32' })));
    const up = uploadGraph(ctx, g);
    const msf = await createGraphMsf(ctx, up);
    const want = Array.from(
      graphMstCpu(toCsr(randomGraph(22, { numVertices: 1000, numEdges: 8000, weightType: 'u32' }))).edgeIds,
    ).sort((a, b) => a - b);
    for (let rep = 0; rep < 3; rep++) {
      await ctx.submit('test::graph', (rec) => msf.encode(rec));
      expect(Array.from((await msf.readForest()).sort())).toEqual(want);
    }
    msf.destroy();
    up.destroy();
    expect(ctx.memory.liveBytes).toBe(before);
  });

  it('issue 15: graphMst on the GPU compacts vertex ids no edge touches (numVertices 2^32 − 1), same forest as the CPU', async () => {
    const base = randomGraph(16, { numVertices: 300, numEdges: 900, weightType: 'f32', distinctWeights: 50 });
    const spread = (a: Uint32Array) => a.map((v) => v * 14_000_000 + 5);
    const sparse = {
      numVertices: 2 ** 32 - 1,
      sources: spread(base.sources),
      targets: spread(base.targets),
      weights: base.weights,
    };
    const cpu = graphMstCpu(sparse);
    const gpu = await graphMst(sparse, { backend: 'gpu', ctx });
    expect(Array.from(gpu.edgeIds)).toEqual(Array.from(cpu.edgeIds));
    expect(gpu.sources).toEqual(cpu.sources);
    expect(gpu.targets).toEqual(cpu.targets);
    expect(gpu.components).toBe(2 ** 32 - 1 - cpu.edgeIds.length);
    // Labels (allowed up to 2^24 vertices): 1.5·10^6 vertices, 300 of them touched.
    const few = {
      ...sparse,
      numVertices: 1_500_000,
      sources: base.sources.map((v) => v * 5000 + 5),
      targets: base.targets.map((v) => v * 5000 + 5),
    };
    const want = graphMstCpu(few, { labels: true }).componentLabels!;
    const got = (await graphMst(few, { backend: 'gpu', ctx, labels: true })).componentLabels!;
    expect(got.length).toBe(1_500_000);
    expect(got.every((x, i) => x === want[i])).toBe(true);
  });

  it("issue 18: tagged guards, plain finds, row minima, fill resets, split worklists, tile appends, tail grids, hot sets, select tiles (and the kernels before them) give the CPU twin's forest, labels, round sizes", async () => {
    // Weights 0..60 as u32: every key shares its tagged guard word's truncated bits (key >> 6) with the others.
    const low = randomGraph(31, { numVertices: 600, numEdges: 2500, weightType: 'u32', distinctWeights: 500 });
    low.weights = (low.weights as Uint32Array).map((w) => w % 61);
    const tiny = [
      {
        numVertices: 2,
        sources: Uint32Array.from([0, 1, 1]),
        targets: Uint32Array.from([1, 0, 1]),
        weights: Uint32Array.from([5, 5, 1]),
      },
      {
        numVertices: 1,
        sources: Uint32Array.from([0]),
        targets: Uint32Array.from([0]),
        weights: Uint32Array.from([3]),
      },
    ];
    // Seed 14: parallel edges of equal weight (row minima look their down entries' ids up in the mirror rows).
    // Seed 32: keys spread far above bit 6 (guard words from earlier rounds must never reject this round's keys).
    const spread = randomGraph(32, { numVertices: 800, numEdges: 4000, weightType: 'u32', distinctWeights: 100000 });
    for (const el of [low, spread, randomGraph(graphs[3].seed, graphs[3]), ...tiny]) {
      for (const shape of ['edges', 'csr', 'sorted rows'] as const) {
        const g = validateGraph(shape === 'edges' ? el : shape === 'csr' ? toCsr(el) : sortRows(toCsr(el)));
        for (const filter of ['off', 'on'] as const) {
          const up = uploadGraph(ctx, g);
          const sets = [
            {
              guard: 'tagged' as const,
              finds: 'plain' as const,
              rowMinima: true,
              fillResets: true,
              worklist: 'split' as const,
              tileAppends: true,
              tail: { from: 3, groups: 2 },
              hotSets: true,
              selectTiles: true,
            },
            // The kernels from before issue 18's defaults (guards emptied by select, atomic finds with path halving,
            // scattered resets, one append atomic per subgroup and item), with 32-bit minima…
            {
              guard: 'reset' as const,
              finds: 'atomic' as const,
              fillResets: false,
              tileAppends: false,
              atomic64: false,
              rowMinima: true,
              filterC: 1.5,
              worklist: 'split' as const,
            },
            {
              guard: 'tagged' as const,
              workgroupSize: 32,
              fixedGroups: 2,
              csrItems: 2,
              rowMinima: true,
              fillResets: true,
              tileAppends: true,
              hotSets: true,
              selectTiles: true,
            },
            // …and with 64-bit minima.
            { guard: 'reset' as const, finds: 'atomic' as const, fillResets: false, tileAppends: false },
          ];
          // Row minima apply to sorted rows only: the other shapes run fewer sets (this file is slow on lavapipe).
          const which = shape === 'sorted rows' ? [0, 1, 2] : shape === 'edges' ? [0, 1] : [0, 3];
          for (const opts of which.map((i) => sets[i])) {
            const twin = eclMstCpu(g, { filter, filterC: 'filterC' in opts ? opts.filterC : undefined });
            const msf = await createGraphMsf(ctx, up, { filter, ...opts });
            // Row minima (where asked for) need 64-bit minima and rows sorted by neighbour; elsewhere they are ignored.
            const sortedRows = g.kind === 'csr' && g.sortedRows;
            expect(sortedRows || shape !== 'sorted rows').toBe(true);
            // …and room for three words per tile entry in workgroup memory (default tile 8 · 256 entries).
            const tuned: { csrItems?: number; workgroupSize?: number } = opts;
            const tile = (tuned.csrItems ?? 8) * (tuned.workgroupSize ?? 256);
            const room = 12 * tile + 64 <= ctx.limits.maxComputeWorkgroupStorageSize;
            const rows =
              opts.rowMinima === true &&
              sortedRows &&
              opts.atomic64 !== false &&
              ctx.features.atomicVec2uMinMax &&
              room;
            expect(msf.rowMinima).toBe(rows);
            await ctx.submit('test::graph', (rec) => {
              msf.encode(rec);
              msf.encodeLabels(rec);
            });
            const what = `${shape} ${filter} ${JSON.stringify(opts)} n=${g.numVertices}`;
            const trace = await msf.readTrace();
            const pad = (s: number[]) => [...s, ...Array(roundsFor(g.numVertices) - s.length).fill(0)];
            // Below 2 vertices the GPU encodes no phase (the twin reports one empty round).
            expect(trace.rounds, what).toEqual(g.numVertices < 2 ? [] : twin.trace.rounds.map(pad));
            const ids = (await msf.readForest()).sort();
            expect(Array.from(ids), what).toEqual(Array.from(twin.ids).sort((a, b) => a - b));
            expect(Array.from(await msf.readLabels()), what).toEqual(Array.from(twin.labels));
            msf.destroy();
          }
          up.destroy();
        }
      }
    }
  });

  it('degenerate graphs on the GPU: no edges, only self loops, one vertex', async () => {
    for (const g of [
      { numVertices: 5, sources: new Uint32Array(0), targets: new Uint32Array(0), weights: new Float32Array(0) },
      {
        numVertices: 3,
        sources: Uint32Array.from([0, 2]),
        targets: Uint32Array.from([0, 2]),
        weights: Int32Array.from([-1, 4]),
      },
      {
        numVertices: 1,
        sources: Uint32Array.from([0]),
        targets: Uint32Array.from([0]),
        weights: Uint32Array.from([7]),
      },
    ]) {
      const r = await graphMst(g, { backend: 'gpu', ctx, labels: true });
      expect(r.edgeIds.length).toBe(0);
      expect(r.components).toBe(g.numVertices);
      expect(Array.from(r.componentLabels!)).toEqual(Array.from({ length: g.numVertices }, (_, i) => i));
    }
  });
});
