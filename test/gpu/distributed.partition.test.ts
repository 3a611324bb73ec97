/**
 * Issue 20 §2: the partitioned EMST with the partitions' local trees computed on the GPU (TaskEnv backend 'gpu')
 * equals the single-process CPU emst() edge for edge — the local trees are emst() on the partitions' points, whose
 * keys both backends compute alike. Mutual reachability's local trees take the true cores on the CPU backend
 * (partition.tasks.ts), so there the GPU context is only passed along. The opt-in 'pairs' methods run every pair's
 * MST and each partition's forest through emst() on the GPU as well.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { emst } from '../../src/emst/emst.js';
import { InProcessExecutor, partitionPoints } from '../../src/distributed/partition.js';
import { partitionedEmst } from '../../src/distributed/partition.emst.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { cloud } from '../helpers/clouds.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

describe.skipIf(variants.length === 0).each(variants)('partitionedEmst() with GPU local trees ($name)', ({ ctx }) => {
  // 'pairs' / 'pairs-kruskal' (opt-in): every pair's MST and each partition's forest are emst() on the GPU too.
  it.each([
    ['clustered', 3000, 3, 4, 1, 'rounds'],
    ['grid', 2000, 3, 5, 1, 'rounds'],
    ['grid', 1500, 2, 3, 5, 'rounds'],
    ['clustered', 3000, 3, 4, 1, 'pairs'],
    ['grid', 2000, 3, 4, 1, 'pairs'],
    ['grid', 1500, 2, 3, 5, 'pairs-kruskal'],
  ] as const)(
    '%s n=%i d=%i k=%i minSamples=%i method %s equals the CPU emst()',
    async (kind, n, dim, k, minSamples, method) => {
      const points = cloud(kind, n, dim, 61);
      const single = await emst(points, { dim, minSamples, backend: 'cpu', threads: 1 });
      const executor = new InProcessExecutor(partitionPoints(points, dim, k), { backend: 'gpu', gpu: ctx });
      const parted = await partitionedEmst(executor, { dim, minSamples, method });
      expect([...parted.sources]).toEqual([...single.sources]);
      expect([...parted.targets]).toEqual([...single.targets]);
      expect([...parted.weights]).toEqual([...single.weights]);
    },
  );
});
