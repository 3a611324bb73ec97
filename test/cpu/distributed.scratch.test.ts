/**
 * issue 20: a worker's scratch (src/distributed/scratch.ts) taken before its first tasks (prepareScratch, told of a
 * 'pairs' run's size by its coordinator): the slots are there at the tasks' lengths and sharing, and the tasks' own
 * requests then find them instead of taking fresh pages.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { dropScratch, prepareScratch, Scratch, withScratch } from '../../src/distributed/scratch.js';
import { pairsScratchSlots, runPartitionTask } from '../../src/distributed/partition.tasks.js';
import { partitionPoints } from '../../src/distributed/partition.js';
import { cloud } from '../helpers/clouds.js';

afterEach(() => dropScratch());

describe('Scratch.prepare and prepareScratch', () => {
  it('takes each slot at its length and sharing; later requests of the same name and sharing get the same buffer', async () => {
    const scratch = new Scratch();
    await scratch.prepare(
      [
        { name: 'a', length: 3 << 20, shared: true },
        { name: 'b', length: 5 << 20, shared: false },
      ],
      2,
    );
    const a = scratch.u32('a', 1 << 20, true);
    const b = scratch.f32('b', 5 << 20);
    expect(a.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(a.buffer.byteLength).toBe(4 * (3 << 20));
    expect(b.buffer).toBeInstanceOf(ArrayBuffer);
    expect(b.buffer.byteLength).toBe(4 * (5 << 20));
    // Touched pages read as zeros (every 1024th word was written).
    expect(new Int32Array(b.buffer)[1024]).toBe(0);
    // The same name taken again at once keeps its buffer; another sharing or a larger length replaces it.
    expect(scratch.u32('a', 3 << 20, true).buffer).toBe(a.buffer);
    expect(scratch.u32('a', 1 << 20, false).buffer).not.toBe(a.buffer);
    expect(scratch.f32('b', (5 << 20) + 1).buffer).not.toBe(b.buffer);
  });

  it('prepareScratch fills the idle Scratch the next task takes', async () => {
    await prepareScratch([{ name: 'pair.points', length: 1 << 20, shared: false }], 2);
    const first = await withScratch(async (s) => s.f32('pair.points', 1000).buffer);
    expect(first.byteLength).toBe(4 << 20);
    const again = await withScratch(async (s) => s.f32('pair.points', 1 << 20).buffer);
    expect(again).toBe(first);
  });

  it('pairsScratchSlots: a pair of the two largest partitions and a forest of the largest fit (k = 1, 3, 4; CPU and GPU)', () => {
    for (const [n, k] of [
      [1000, 1],
      [1001, 3],
      [2 * 10 ** 8, 4],
    ]) {
      const part = Math.ceil(n / k);
      const pair = Math.min(n, 2 * part);
      for (const gpu of [false, true]) {
        const slots = new Map(pairsScratchSlots(n, 3, k, gpu, 16).map((s) => [s.name, s]));
        expect(slots.get('pair.points')).toEqual({ name: 'pair.points', length: 3 * pair, shared: true });
        expect(slots.get('pair.ids')).toEqual({ name: 'pair.ids', length: pair, shared: true });
        expect(slots.get('forest.records')).toEqual({ name: 'forest.records', length: 4 * part, shared: true });
        expect(slots.has('mst.sources')).toBe(gpu);
        if (gpu) expect(slots.get('mst.weights')!.length).toBe(pair - 1);
        // The forest's threaded slots only where its edges reach the threaded passes' size.
        expect(slots.has('forest.keys')).toBe(gpu && part - 1 >= 1 << 18);
      }
    }
  });

  it("a 'pair' of the two largest partitions and the largest one's 'forest' (CPU) find every prepared slot as it is", async () => {
    const n = 3001;
    const k = 3;
    const points = cloud('clustered', n, 3, 75);
    const parts = partitionPoints(points, 3, k);
    const bySize = [0, 1, 2].sort((a, b) => parts[b].ids.length - parts[a].ids.length);
    const slots = pairsScratchSlots(n, 3, k, false, 1);
    await prepareScratch(slots, 1);
    const buffers = () => withScratch(async (s) => slots.map((slot) => s.u32(slot.name, 1, slot.shared).buffer));
    const before = await buffers();
    const env = { backend: 'cpu' as const, threads: 1 };
    const partner = async (q: number) => parts[q];
    const base = { exponent: 0, minSamples: 1, alpha: 1 };
    const meta = { ...base, partner: bySize[1], within: [false, false] };
    await runPartitionTask('pair', parts[bySize[0]], { meta, arrays: {} }, env, partner);
    const forest = { meta: base, arrays: { terminals: new Uint32Array(0), floor: new Float32Array(0) } };
    await runPartitionTask('forest', parts[bySize[0]], forest, env, partner);
    // The tasks asked for these slots at their own lengths and sharing: a larger or other one would replace the buffer.
    const after = await buffers();
    slots.forEach((slot, i) => expect(after[i], slot.name).toBe(before[i]));
  });
});
