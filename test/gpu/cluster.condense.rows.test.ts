/**
 * Issue 17 §2: the condensed tree's rows computed on the GPU (shaders/cluster/condense.wgsl: pointer jumping, two
 * radix sorts, a scan) equal their CPU twin's (condense.rows.cpu.ts) word for word — which test/cpu/
 * cluster.condense.rows.test.ts holds equal to condense.ts and the top-down oracle — on seeded trees of every shape
 * and weight kind, sizes around the workgroup size, deep dendrograms (paths) and 2·10^5 points; one condenser
 * reused across sizes and minClusterSizes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { condensedFromRows } from '../../src/cluster/condense.finish.js';
import { condense } from '../../src/cluster/condense.js';
import { condenseRowsGpu, GpuCondenser, packMerges } from '../../src/cluster/condense.rows.js';
import { condenseRowsCpu } from '../../src/cluster/condense.rows.cpu.js';
import { linkageOf, randomTree, type TreeShape, type TreeWeights } from '../helpers/condenseCases.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

const shapes: TreeShape[] = ['random', 'path', 'caterpillar', 'star', 'blobs'];
const kinds: TreeWeights[] = ['continuous', 'ties', 'duplicates'];

for (const { name, ctx } of variants) {
  describe(`condensed rows on the GPU (${name})`, () => {
    it('issue 17: equal to the CPU twin on every shape and weight kind, n from 2 to 1025', async () => {
      const condenser = await GpuCondenser.create(ctx, 1025);
      try {
        let seed = 1;
        for (const shape of shapes) {
          for (const kind of kinds) {
            for (const n of [2, 3, 257, 1025]) {
              for (const mcs of [2, 15]) {
                const linkage = linkageOf(randomTree(n, seed++, shape, kind), n);
                const gpu = await condenseRowsGpu(ctx, linkage, n, mcs, condenser);
                const cpu = condenseRowsCpu(packMerges(linkage), n, mcs);
                expect(gpu, `${shape} ${kind} n=${n} mcs=${mcs}`).toEqual(cpu);
              }
            }
          }
        }
      } finally {
        condenser.destroy();
      }
    });

    it("issue 17: 2·10^5 points (blobs with ties; a path: 2·10^5 levels) give condense.ts's tree", async () => {
      for (const [shape, kind, mcs] of [
        ['blobs', 'ties', 15],
        ['path', 'continuous', 5],
        ['random', 'duplicates', 100],
      ] as const) {
        const n = 200_000;
        const linkage = linkageOf(randomTree(n, 99, shape, kind), n);
        const got = condensedFromRows(await condenseRowsGpu(ctx, linkage, n, mcs), n);
        const want = condense(linkage, n, mcs);
        expect(got.tree.parent).toEqual(want.tree.parent);
        expect(got.tree.child).toEqual(want.tree.child);
        expect(got.tree.lambda).toEqual(want.tree.lambda);
        expect(got.stability).toEqual(want.stability);
      }
    });
  });
}
