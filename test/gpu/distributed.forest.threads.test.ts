/**
 * Issue 20 (session 11): method 'pairs' with the GPU's trees, whose edges the 'forest' task reads into shared memory,
 * runs the forest's keys and reply on worker threads (forest.threads.ts; forced here from 0 edges on) and still
 * equals the single-process CPU emst() edge for edge — clustered points, an integer grid (exact ties) and duplicates.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emst } from '../../src/emst/emst.js';
import { InProcessExecutor, partitionPoints } from '../../src/distributed/partition.js';
import { partitionedEmst } from '../../src/distributed/partition.emst.js';
import { forestThreading } from '../../src/distributed/forest.threads.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { cloud } from '../helpers/clouds.js';
import { useBundledWorkerScript } from '../helpers/workers.js';

useBundledWorkerScript('treeline-forest-threads-gpu-');
const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));
const minEdges = forestThreading.minEdges;
beforeAll(() => {
  forestThreading.minEdges = 0;
});
afterAll(() => {
  forestThreading.minEdges = minEdges;
});

describe.skipIf(variants.length === 0).each(variants)("'pairs' forests on threads ($name)", ({ ctx }) => {
  it.each([
    ['clustered', 3000, 3, 4],
    ['grid', 2000, 3, 3],
    ['duplicates', 2500, 3, 4],
  ] as const)('%s n=%i d=%i k=%i equals the CPU emst()', async (kind, n, dim, k) => {
    const points = cloud(kind, n, dim, 67);
    const single = await emst(points, { dim, backend: 'cpu', threads: 1 });
    const runs = forestThreading.runs;
    const executor = new InProcessExecutor(partitionPoints(points, dim, k), { backend: 'gpu', gpu: ctx, threads: 3 });
    const parted = await partitionedEmst(executor, { dim, method: 'pairs' });
    // Every forest's keys on threads, and its reply where it has at least 2 proven edges a thread (duplicates: few).
    expect(forestThreading.runs - runs).toBeGreaterThanOrEqual(kind === 'duplicates' ? k : 2 * k);
    expect([...parted.sources]).toEqual([...single.sources]);
    expect([...parted.targets]).toEqual([...single.targets]);
    expect([...parted.weights]).toEqual([...single.weights]);
  });
});
