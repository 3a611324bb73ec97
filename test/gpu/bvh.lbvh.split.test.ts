/**
 * Issue 19: the whole BVH build (src/bvh/lbvh.ts with `split`: codes, radix sort, gather, Karras, refit, each on
 * arrays in parts or windows, gpu/bigarray.ts) of 200,000 2D points with duplicates at a 1 MiB binding limit — every
 * BVH array above one binding — gives the CPU twin's BVH (buildBvhCpu) bit for bit. Without `split` the same BVH is
 * refused, as the traversals cannot read it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { allocateBvh, createBvhBuilder } from '../../src/bvh/lbvh.js';
import { buildBvhCpu } from '../../src/bvh/lbvh.cpu.js';
import { InputError } from '../../src/errors.js';
import { asBoxFormat, readBvh } from '../helpers/bvh.readback.js';
import { tryGpuContext } from '../helpers/gpu.js';
import { mulberry32 } from '../helpers/random.js';

const ctx = await tryGpuContext({ maxBindingBytes: 1048576 });
afterAll(() => ctx?.destroy());

describe.skipIf(!ctx)('the BVH build on arrays above one binding', () => {
  it('issue 19: 200,000 2D points at a 1 MiB binding limit build the CPU twin’s BVH', async () => {
    const c = ctx!;
    const n = 200000;
    const dim = 2;
    const r = mulberry32(19);
    const pts = new Float32Array(n * dim);
    for (let i = 0; i < n * dim; i++) pts[i] = i % 14 >= 12 ? pts[i - 2] : (r() - 0.5) * 1000;
    expect(() => allocateBvh(c, n, dim)).toThrow(InputError);
    const builder = await createBvhBuilder(c, { maxCount: n, dim, split: true });
    const bvh = allocateBvh(c, n, dim, { split: true });
    const input = c.upload('test::points', pts);
    try {
      await c.submit('test::build', (rec) => builder.encode(rec, input, n, bvh));
      const got = await readBvh(c, bvh);
      const want = buildBvhCpu(pts, dim);
      for (const key of ['codes', 'order', 'links', 'ranges', 'parents'] as const) {
        expect(got[key], key).toEqual(want[key]);
      }
      const bits = (a: Float32Array) => new Uint32Array(a.buffer, a.byteOffset, a.length);
      expect(bits(got.sortedPoints)).toEqual(bits(want.sortedPoints));
      // u16 boxes (the default in 2D; bvh/layout.ts): the twin's quantised (box.cpu.ts).
      expect(bits(got.boxes)).toEqual(bits(asBoxFormat(want, got.boxFormat).boxes));
      expect(got.frame).toEqual(want.frame);
    } finally {
      input.destroy();
      bvh.destroy();
      builder.destroy();
    }
    expect(c.memory.liveBuffers).toBe(0);
  });
});
