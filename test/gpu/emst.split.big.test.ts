/**
 * (Euclidean; mutual reachability in emst.split.mr.test.ts, to keep each file under a minute on lavapipe.) Issue 19's
 * acceptance on lavapipe: with the binding limit lowered to 1 MiB (TREELINE_MAX_BINDING_BYTES, here the
 * context option), emst() of 200,000 3D points (that limit takes up to 218,454: the BVH refit's parts fill the stage's
 * 16 storage buffers, capacity.ts; 196,608 before the ranges kept one end) and of 200,000 2D points — Euclidean and mutual reachability (minSamples 5) — gives
 * exactly the edges of the unsplit path (the device's own limit, where every array fits one binding). At 1 MiB every
 * BVH array and Borůvka's 8- and 12-byte arrays exceed one binding: the build binds them in parts, Borůvka's
 * traversal in subtree windows (nearestsplit.ts) and its rounds in windows and parts (roundsplit.ts).
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
  it.each([
    [3, 200000, 1],
    [2, 200000, 1],
  ])('%iD, %i points, minSamples %i: the unsplit edges', async (dim, n, minSamples) => {
    expect(capacity(lowered!.limits, { kind: 'emst' }, dim).maxPoints).toBeGreaterThanOrEqual(n);
    // Every BVH array and Borůvka's candidates, best edges and edges exceed one binding.
    expect(8 * n).toBeGreaterThan(LIMIT);
    const pts = cloud('normal', n, dim, 7 + dim + minSamples);
    const got = await emst(pts, { dim, minSamples, backend: 'gpu', gpu: lowered! });
    expect(got.sources.length).toBe(n - 1);
    expectSameEdges(got, await emst(pts, { dim, minSamples, backend: 'gpu', gpu: whole! }));
  });
});
