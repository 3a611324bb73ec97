/**
 * Issue 19's acceptance on lavapipe, mutual reachability (the Euclidean cases are emst.split.big.test.ts; apart to
 * keep each file under a minute): with the binding limit lowered to 1 MiB, emst() with minSamples 5 of 200,000 3D
 * points (that limit takes up to 218,454: the BVH refit's parts fill the stage's 16 storage buffers, capacity.ts) gives
 * exactly the unsplit path's edges (the device's own limit). Beyond emst.split.big.test.ts's arrays, the k-NN's core
 * distances (parts) and the mutual-reachability prelude's climb (parents and minCore2 in parts, roundsplit.ts) split.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { capacity } from '../../src/bvh/capacity.js';
import { emst } from '../../src/emst/emst.js';
import { cloud } from '../helpers/clouds.js';
import { tryGpuContext } from '../helpers/gpu.js';
import { expectSameEdges } from '../helpers/sameEdges.js';

const LIMIT = 1048576;
const lowered = await tryGpuContext({ maxBindingBytes: LIMIT });
const whole = lowered ? await tryGpuContext() : null;
afterAll(() => Promise.all([lowered?.destroy(), whole?.destroy()]));

describe.skipIf(!lowered)('issue 19: emst() at a 1 MiB binding limit', () => {
  it.each([[3, 200000, 5]])('%iD, %i points, minSamples %i: the unsplit edges', async (dim, n, minSamples) => {
    expect(capacity(lowered!.limits, { kind: 'emst' }, dim).maxPoints).toBeGreaterThanOrEqual(n);
    // Every BVH array and Borůvka's candidates, best edges and edges exceed one binding.
    expect(8 * n).toBeGreaterThan(LIMIT);
    const pts = cloud('normal', n, dim, 7 + dim + minSamples);
    const got = await emst(pts, { dim, minSamples, backend: 'gpu', gpu: lowered! });
    expect(got.sources.length).toBe(n - 1);
    expectSameEdges(got, await emst(pts, { dim, minSamples, backend: 'gpu', gpu: whole! }));
  });
});
