/**
 * Issue 19: the EMST past the 4-byte wall. At 2 GiB a binding the H100 binds at most 536,870,848 u32 in one
 * storage binding, so beyond that every 4-byte array (labels, upper bounds, union-find, order, changes) is in parts
 * and 6·10^8 3D points take the part counts of this test: at a 512 KiB limit 147,000 3D points put the 4-byte arrays
 * in 2 parts each, the refit in two passes, Karras's boxes cleared, the changes' scan and the union-find's init in
 * windows and plan.wgsl's flag words in a range (capacity.ts: 152,918 3D points at most, set by the refit's boxes
 * pass). The edges must be the unsplit device's, in 3D and in 2D (196,000 points: 2D's cap there is 196,609).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { capacity } from '../../src/bvh/capacity.js';
import { createKarras } from '../../src/bvh/karras.js';
import { createRefit } from '../../src/bvh/refit.js';
import { emst } from '../../src/emst/emst.js';
import { cloud } from '../helpers/clouds.js';
import { tryGpuContext } from '../helpers/gpu.js';
import { expectSameEdges } from '../helpers/sameEdges.js';

const LIMIT = 524288;
const lowered = await tryGpuContext({ maxBindingBytes: LIMIT });
const whole = lowered ? await tryGpuContext() : null;
afterAll(() => Promise.all([lowered?.destroy(), whole?.destroy()]));

describe.skipIf(!lowered)('issue 19: emst() with its 4-byte arrays above one binding (512 KiB)', () => {
  it.each([
    [3, 147000],
    [2, 196000],
  ])('%iD, %i points: the unsplit edges', async (dim, n) => {
    const c = lowered!;
    expect(capacity(c.limits, { kind: 'emst' }, dim).maxPoints).toBeGreaterThanOrEqual(n);
    // The labels (n + 2 words) and every n-word array exceed one binding.
    expect(4 * n).toBeGreaterThan(LIMIT);
    if (dim === 3) {
      // As at 6·10^8 on the H100: Karras clears its boxes and the refit takes two passes.
      const k = await createKarras(c, n, dim);
      const r = await createRefit(c, n, dim, 32);
      expect([k.clearsBoxes, r.passes]).toEqual([true, 2]);
      k.destroy();
      r.destroy();
    }
    const pts = cloud('normal', n, dim, 19 + dim);
    const got = await emst(pts, { dim, backend: 'gpu', gpu: c });
    expect(got.sources.length).toBe(n - 1);
    expectSameEdges(got, await emst(pts, { dim, backend: 'gpu', gpu: whole! }));
  });
});
