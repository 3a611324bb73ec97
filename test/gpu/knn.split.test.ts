/**
 * Issue 19: the k-NN search on arrays above one binding (src/knn/knn.ts: the BVH's arrays in parts, the output rows
 * in windows, permute.wgsl back to original rows; gpu/bigarray.ts). At a 1 MiB binding limit 200,000 2D points put
 * every BVH array and the n × k outputs above one binding; knn() and coreDistances() must give exactly the unsplit
 * search's results (indices and distance bits) on the same device. Small parts and windows (partElements,
 * maxWindow) exercise passes (k > 64), Morton rows and degenerate sizes with few points.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { allocateBvh, createBvhBuilder } from '../../src/bvh/lbvh.js';
import { coreDistances } from '../../src/knn/core.js';
import { createKnnSearcher, knn, type KnnSearcherOptions } from '../../src/knn/knn.js';
import { knnCpu, kthSquaredDistancesCpu } from '../../src/knn/knn.cpu.js';
import { buildBvhCpu } from '../../src/bvh/lbvh.cpu.js';
import type { GpuContext } from '../../src/gpu/context.js';
import { tryGpuContext } from '../helpers/gpu.js';
import { mulberry32 } from '../helpers/random.js';

const LIMIT = 1048576;
const lowered = await tryGpuContext({ maxBindingBytes: LIMIT });
const whole = lowered ? await tryGpuContext() : null;
afterAll(() => Promise.all([lowered?.destroy(), whole?.destroy()]));

const bits = (a: Float32Array) => new Uint32Array(a.buffer, a.byteOffset, a.length);

/** n 2D points in a 1000-wide square, every seventh a duplicate of the one before (ties at distance 0). */
function points(n: number, dim: number, seed: number): Float32Array {
  const r = mulberry32(seed);
  const p = new Float32Array(n * dim);
  for (let i = 0; i < n * dim; i++) p[i] = i % (7 * dim) >= 6 * dim ? p[i - dim] : Math.round((r() - 0.5) * 1e6) / 1e3;
  return p;
}

/** Searchers and builders of the small cases are made for this many points (one compilation for all of them). */
const SMALL = 1000;

/**
 * One search of up to SMALL points with an explicit searcher (options: parts, windows, rows), its rows read back;
 * the BVH built split.
 */
async function search(
  c: GpuContext,
  pts: Float32Array,
  dim: number,
  options: Omit<KnnSearcherOptions, 'dim'>,
  k = options.k,
): Promise<{ indices: Uint32Array; d2: Float32Array; order: Uint32Array }> {
  const n = pts.length / dim;
  const output = options.output ?? 'all';
  const width = output === 'all' ? k : 1;
  const builder = await createBvhBuilder(c, { maxCount: SMALL, dim, split: true });
  const bvh = allocateBvh(c, SMALL, dim, { split: true });
  const searcher = await createKnnSearcher(c, { dim, maxCount: SMALL, ...options });
  const input = c.upload('test::points', pts.length ? pts : new Float32Array(dim));
  const outI = c.createBuffer('test::indices', 4 * Math.max(n * width, 1));
  const outD = c.createBuffer('test::d2', 4 * Math.max(n * width, 1));
  try {
    await c.submit('test::knn', (rec) => {
      builder.encode(rec, input, n, bvh);
      searcher.encode(rec, bvh, { indices: outI, squaredDistances: outD }, { k });
    });
    const [ib, db, ob] = await Promise.all([c.read(outI), c.read(outD), c.read(bvh.order)]);
    return {
      indices: new Uint32Array(ib, 0, n * width),
      d2: new Float32Array(db, 0, n * width),
      order: new Uint32Array(ob, 0, n),
    };
  } finally {
    for (const b of [input, outI, outD]) b.destroy();
    bvh.destroy();
    builder.destroy();
    searcher.destroy();
  }
}

describe.skipIf(!lowered)(`issue 19: the k-NN search at a ${LIMIT}-byte binding limit`, () => {
  it('knn() of 200,000 2D points, k = 4: exactly the unsplit search', async () => {
    const n = 200000;
    const k = 4;
    const pts = points(n, 2, 19);
    const split = await knn(pts, { dim: 2, k, backend: 'gpu', gpu: lowered! });
    const want = await knn(pts, { dim: 2, k, backend: 'gpu', gpu: whole! });
    expect(split.indices).toEqual(want.indices);
    expect(bits(split.squaredDistances)).toEqual(bits(want.squaredDistances));
    expect(lowered!.memory.liveBuffers).toBe(0);
  });

  it('coreDistances() of 200,000 2D points, minSamples = 5: exactly the unsplit search', async () => {
    const pts = points(200000, 2, 23);
    const split = await coreDistances(pts, { dim: 2, minSamples: 5, backend: 'gpu', gpu: lowered! });
    const want = await coreDistances(pts, { dim: 2, minSamples: 5, backend: 'gpu', gpu: whole! });
    expect(bits(split)).toEqual(bits(want));
  });

  it.each([0, 1, 2, 97, 1000])('n = %i, small parts and windows: the CPU twin exactly (k = 5, all)', async (n) => {
    const pts = points(n, 3, 29 + n);
    const got = await search(lowered!, pts, 3, { k: 5, partElements: 1024, maxWindow: 64 });
    const want = knnCpu(buildBvhCpu(pts, 3), 5);
    expect(got.indices).toEqual(want.indices);
    expect(bits(got.d2)).toEqual(bits(want.squaredDistances));
  });

  it('k = 70 in passes (kth), small parts and windows: the CPU twin exactly', async () => {
    const pts = points(700, 2, 31);
    const got = await search(lowered!, pts, 2, { k: 70, output: 'kth', partElements: 1024, maxWindow: 64 });
    expect(bits(got.d2)).toEqual(bits(kthSquaredDistancesCpu(buildBvhCpu(pts, 2), 70)));
    // A lower k per call, as emst() asks when minSamples is clamped.
    const lower = await search(lowered!, pts, 2, { k: 70, output: 'kth', partElements: 1024, maxWindow: 64 }, 66);
    expect(bits(lower.d2)).toEqual(bits(kthSquaredDistancesCpu(buildBvhCpu(pts, 2), 66)));
  });

  it("rows: 'morton' in windows: row j is leaf j's", async () => {
    const n = 500;
    const k = 4;
    const pts = points(n, 2, 37);
    const got = await search(lowered!, pts, 2, { k, rows: 'morton', partElements: 1024, maxWindow: 64 });
    const want = knnCpu(buildBvhCpu(pts, 2), k);
    for (let j = 0; j < n; j++) {
      const o = got.order[j];
      expect(Array.from(got.indices.subarray(j * k, j * k + k))).toEqual(
        Array.from(want.indices.subarray(o * k, o * k + k)),
      );
    }
  });
});
