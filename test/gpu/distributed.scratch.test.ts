/**
 * issue 20: the GPU worker's scratch slots (pairsScratchSlots with gpu: the MST's edge arrays, and the forest's
 * threaded passes' arrays) taken by prepareScratch are the ones a GPU 'pair' of the two largest partitions and the
 * largest one's 'forest' then ask for — at their lengths and sharing, so they find the prepared buffers instead of
 * taking fresh pages. (test/cpu/distributed.scratch.test.ts checks the CPU tasks' slots; the threaded passes are forced
 * here from 0 edges on, as in distributed.tasks.threads.test.ts.)
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dropScratch, prepareScratch, withScratch } from '../../src/distributed/scratch.js';
import { pairsScratchSlots, runPartitionTask } from '../../src/distributed/partition.tasks.js';
import { partitionPoints } from '../../src/distributed/partition.js';
import { taskThreading } from '../../src/distributed/tasks.threads.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { cloud } from '../helpers/clouds.js';
import { useBundledWorkerScript } from '../helpers/workers.js';

useBundledWorkerScript('treeline-scratch-gpu-');
const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));
afterEach(() => dropScratch());
const minEdges = taskThreading.minEdges;
beforeAll(() => {
  taskThreading.minEdges = 0;
});
afterAll(() => {
  taskThreading.minEdges = minEdges;
});

describe.skipIf(variants.length === 0).each(variants)('GPU scratch slots ($name)', ({ ctx }) => {
  it("a GPU 'pair' of the two largest partitions and the largest one's 'forest' (3 threads) find every prepared slot as it is", async () => {
    const n = 3001;
    const k = 3;
    const threads = 3;
    const points = cloud('clustered', n, 3, 76);
    const parts = partitionPoints(points, 3, k);
    const bySize = [0, 1, 2].sort((a, b) => parts[b].ids.length - parts[a].ids.length);
    const slots = pairsScratchSlots(n, 3, k, true, threads);
    // The GPU-only slots are there: the MST's edges and the forest's threaded passes' arrays.
    const names = slots.map((s) => s.name);
    for (const name of ['mst.sources', 'mst.targets', 'mst.weights', 'forest.keys', 'forest.split']) {
      expect(names, name).toContain(name);
    }
    await prepareScratch(slots, threads);
    const buffers = () => withScratch(async (s) => slots.map((slot) => s.u32(slot.name, 1, slot.shared).buffer));
    const before = await buffers();
    const env = { backend: 'gpu' as const, gpu: ctx, threads };
    const partner = async (q: number) => parts[q];
    const base = { exponent: 0, minSamples: 1, alpha: 1 };
    const meta = { ...base, partner: bySize[1], within: [false, false] };
    const pair = await runPartitionTask('pair', parts[bySize[0]], { meta, arrays: {} }, env, partner);
    expect((pair.arrays.keys as Float32Array).length).toBeGreaterThan(0);
    const forest = { meta: base, arrays: { terminals: new Uint32Array(0), floor: new Float32Array(0) } };
    const reply = await runPartitionTask('forest', parts[bySize[0]], forest, env, partner);
    // No terminals: every edge of the partition's tree is proven.
    expect((reply.arrays.keys as Float32Array).length).toBe(parts[bySize[0]].ids.length - 1);
    // The tasks asked for these slots at their own lengths and sharing: a larger or other one would replace the buffer.
    const after = await buffers();
    slots.forEach((slot, i) => expect(after[i], slot.name).toBe(before[i]));
  });
});
