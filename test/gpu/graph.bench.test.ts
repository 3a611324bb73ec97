import { afterAll, describe, expect, it } from 'vitest';
import { benchGraphMst } from '../../src/bench/graph.js';
import { edgeListToCsr, writeEgr } from '../../src/io/graph.egr.js';
import { graphMstCpu } from '../../src/graph/mst.js';
import { benchLikeGraph } from '../helpers/graph.random.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

describe.skipIf(variants.length === 0).each(variants)('benchGraphMst ($name)', ({ ctx }) => {
  for (const [kind, scale] of [
    ['grid2d', 12],
    ['r4', 11],
    ['rmat', 10],
  ] as const) {
    it(`${kind} scale ${scale}: one submission computes the forest; check() agrees with the CPU; ≤ 40 bytes per edge`, async () => {
      const { csr } = edgeListToCsr(benchLikeGraph(kind, scale, 1));
      const before = ctx.memory.liveBytes;
      const c = await benchGraphMst(ctx, writeEgr(csr));
      expect(c.scratchBytesPerEdge).toBeLessThanOrEqual(40);
      expect(c.undirectedEdges).toBe(csr.neighbours.length / 2);
      for (let rep = 0; rep < 2; rep++) {
        await ctx.submit('test::graphBench', (rec) => c.encode(rec));
        await c.check();
      }
      c.destroy();
      expect(ctx.memory.liveBytes).toBe(before);
    });
  }

  it('check() fails when the GPU forest is wrong', async () => {
    const { csr } = edgeListToCsr(benchLikeGraph('r4', 8, 2));
    const c = await benchGraphMst(ctx, writeEgr(csr));
    // Never encoded: the forest is empty (buffers start zeroed), so the check must throw.
    await expect(c.check()).rejects.toThrow(/GPU forest has 0 edges/);
    c.destroy();
    expect(graphMstCpu(csr).edgeIds.length).toBeGreaterThan(0);
  });
});
