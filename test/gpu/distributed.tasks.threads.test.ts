/**
 * Issue 20 (session 11): method 'pairs' with the GPU's trees, whose edges the tasks read into shared memory, finds
 * each pair's crossing edges and each forest's keys, contraction and reply on worker threads (tasks.threads.ts,
 * contract.threads.ts; forced here from 0 edges on) and still equals the single-process CPU emst() edge for edge — clustered points, an integer grid (exact
 * ties) and duplicates.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emst } from '../../src/emst/emst.js';
import { InProcessExecutor, partitionPoints } from '../../src/distributed/partition.js';
import { partitionedEmst } from '../../src/distributed/partition.emst.js';
import { taskThreading } from '../../src/distributed/tasks.threads.js';
import { contractThreading } from '../../src/distributed/contract.threads.js';
import { orderThreading } from '../../src/distributed/order.threads.js';
import { prepareRun } from '../../src/distributed/partition.tasks.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { cloud } from '../helpers/clouds.js';
import { useBundledWorkerScript } from '../helpers/workers.js';

useBundledWorkerScript('treeline-task-threads-gpu-');
const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));
const minEdges = taskThreading.minEdges;
const minRows = orderThreading.minRows;
beforeAll(() => {
  taskThreading.minEdges = 0;
  orderThreading.minRows = 0;
});
afterAll(() => {
  taskThreading.minEdges = minEdges;
  orderThreading.minRows = minRows;
});

describe.skipIf(variants.length === 0).each(variants)("'pairs' tasks' passes on threads ($name)", ({ ctx }) => {
  it.each([
    ['clustered', 3000, 3, 4],
    ['grid', 2000, 3, 3],
    ['duplicates', 2500, 3, 4],
  ] as const)('%s n=%i d=%i k=%i equals the CPU emst()', async (kind, n, dim, k) => {
    const points = cloud(kind, n, dim, 67);
    const single = await emst(points, { dim, backend: 'cpu', threads: 1 });
    const runs = taskThreading.runs;
    const ordered = orderThreading.runs;
    const executor = new InProcessExecutor(partitionPoints(points, dim, k), { backend: 'gpu', gpu: ctx, threads: 3 });
    const parted = await partitionedEmst(executor, { dim, method: 'pairs' });
    // Every pair's crossing edges and every forest's keys and contraction (its terminals' Steiner tree, session 18)
    // on threads, and a forest's reply where it has at least 2 proven edges a thread (duplicates: few).
    const pairs = (k * (k - 1)) / 2;
    expect(taskThreading.runs - runs).toBeGreaterThanOrEqual(pairs + (kind === 'duplicates' ? 2 * k : 3 * k));
    // Every forest's rows renumbered in Morton order before its contraction (session 19).
    expect(orderThreading.runs - ordered).toBe(k);
    expect([...parted.sources]).toEqual([...single.sources]);
    expect([...parted.targets]).toEqual([...single.targets]);
    expect([...parted.weights]).toEqual([...single.weights]);
  });

  it("a worker prepared for the run's size (scratch touched, GPU warmed by prepareRun) gives the same tree", async () => {
    const points = cloud('clustered', 3000, 3, 70);
    const single = await emst(points, { dim: 3, backend: 'cpu', threads: 1 });
    const gpu = { backend: 'gpu' as const, gpu: ctx };
    const opts = { slotThreads: 3, touchThreads: 2, euclidean: true, warm: true };
    // The stand-ins' EMST fills the scratch's pair.points and mst.* slots the tasks then take from the idle Scratch,
    // while the other slots are touched.
    const prepared = await prepareRun(3000, 3, 4, gpu, opts);
    expect(prepared.warmed).toMatchObject({ points: 1500 });
    expect(typeof prepared.touched).toBe('number');
    expect(prepared.bytes).toBeGreaterThan(4 * 1500 * 3);
    const executor = new InProcessExecutor(partitionPoints(points, 3, 4), { backend: 'gpu', gpu: ctx, threads: 3 });
    const parted = await partitionedEmst(executor, { dim: 3, method: 'pairs' });
    expect([...parted.sources]).toEqual([...single.sources]);
    expect([...parted.targets]).toEqual([...single.targets]);
    expect([...parted.weights]).toEqual([...single.weights]);
    // No warm-up: a task in hand, a mutual-reachability run (nor the GPU path's slots: its MSTs are the CPU's), the
    // CPU backend, or a pair of one point.
    expect((await prepareRun(3000, 3, 4, gpu, { ...opts, warm: false })).warmed).toBeNull();
    const mr = await prepareRun(3000, 3, 4, gpu, { ...opts, euclidean: false });
    expect(mr.warmed).toBeNull();
    expect(mr.bytes).toBeLessThan(prepared.bytes);
    expect((await prepareRun(3000, 3, 4, { backend: 'cpu' }, opts)).warmed).toBeNull();
    expect((await prepareRun(1, 3, 1, gpu, opts)).warmed).toBeNull();
  });

  it("the forests' rows in their own order (TREELINE_FOREST_ORDER=0) give the same tree", async () => {
    const points = cloud('clustered', 3000, 3, 69);
    const single = await emst(points, { dim: 3, backend: 'cpu', threads: 1 });
    orderThreading.minRows = Infinity;
    try {
      const ordered = orderThreading.runs;
      const executor = new InProcessExecutor(partitionPoints(points, 3, 4), { backend: 'gpu', gpu: ctx, threads: 3 });
      const parted = await partitionedEmst(executor, { dim: 3, method: 'pairs' });
      expect(orderThreading.runs).toBe(ordered);
      expect([...parted.sources]).toEqual([...single.sources]);
      expect([...parted.targets]).toEqual([...single.targets]);
      expect([...parted.weights]).toEqual([...single.weights]);
    } finally {
      orderThreading.minRows = 0;
    }
  });

  it('the contraction with plain loops (TREELINE_CONTRACT_TOUCH=0) gives the same tree', async () => {
    const points = cloud('clustered', 3000, 3, 68);
    const single = await emst(points, { dim: 3, backend: 'cpu', threads: 1 });
    const touch = contractThreading.touch;
    contractThreading.touch = false;
    try {
      const executor = new InProcessExecutor(partitionPoints(points, 3, 4), { backend: 'gpu', gpu: ctx, threads: 3 });
      const parted = await partitionedEmst(executor, { dim: 3, method: 'pairs' });
      expect([...parted.sources]).toEqual([...single.sources]);
      expect([...parted.targets]).toEqual([...single.targets]);
      expect([...parted.weights]).toEqual([...single.weights]);
    } finally {
      contractThreading.touch = touch;
    }
  });
});
