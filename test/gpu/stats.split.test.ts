/**
 * Issue 19: the MST statistics' GPU steps (src/stats/branches.ts, binning.ts) on arrays above one binding. At a
 * 1 MiB binding limit a 200,000-point 2D tree's edge records (2.4 MB), walk records (3.2 MB), lengths and points
 * exceed one binding: degree, lengths and the gather run in windows, the walk on every array in parts, the
 * histograms' kernels in windows — and give exactly what the same device gives unsplit: degrees, float32 edge and
 * branch lengths, ends, end-to-end distances and the four histograms, bit for bit. Both edge layouts (the EMST's
 * | source | target | key | records, and two arrays) run; periodic and forest inputs are test/gpu/stats.branches'.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { emst } from '../../src/emst/emst.js';
import type { GpuContext } from '../../src/gpu/context.js';
import { GpuBinning } from '../../src/stats/binning.js';
import { GpuBranches, type GpuEdges } from '../../src/stats/branches.js';
import { tryGpuContext } from '../helpers/gpu.js';
import { mulberry32 } from '../helpers/random.js';

const LIMIT = 1048576;
const lowered = await tryGpuContext({ maxBindingBytes: LIMIT });
const whole = lowered ? await tryGpuContext() : null;
afterAll(() => Promise.all([lowered?.destroy(), whole?.destroy()]));

const n = 200000;
const dim = 2;
const rand = mulberry32(19);
const pts = new Float32Array(n * dim);
for (let i = 0; i < n * dim; i++) pts[i] = i % 14 >= 12 ? pts[i - 2] : Math.round(rand() * 1e6) / 1e3;
const tree = lowered ? await emst(pts, { dim, backend: 'cpu' }) : null;

async function statistics(c: GpuContext, layout: 'records' | 'arrays') {
  const m = tree!.sources.length;
  const branches = await GpuBranches.create(c, n, dim);
  const binning = await GpuBinning.create(c);
  const points = c.upload('test::points', pts);
  const made = [points];
  let edges: GpuEdges;
  if (layout === 'records') {
    const records = new Uint32Array(3 * m);
    for (let e = 0; e < m; e++) {
      records[3 * e] = tree!.sources[e];
      records[3 * e + 1] = tree!.targets[e];
    }
    edges = { records: c.upload('test::records', records) };
    made.push(edges.records);
  } else {
    edges = { sources: c.upload('test::sources', tree!.sources), targets: c.upload('test::targets', tree!.targets) };
    made.push(edges.sources, edges.targets);
  }
  try {
    return await branches.run(points, n, edges, m, { histograms: { binning } });
  } finally {
    for (const b of made) b.destroy();
    branches.destroy();
    binning.destroy();
  }
}

const bits = (a: Float32Array) => new Uint32Array(a.buffer, a.byteOffset, a.length);

describe.skipIf(!lowered)(`issue 19: MST statistics on the GPU at a ${LIMIT}-byte binding limit`, () => {
  it.each(['records', 'arrays'] as const)('200,000 2D points (%s): exactly the unsplit statistics', async (layout) => {
    const got = await statistics(lowered!, layout);
    const want = await statistics(whole!, layout);
    expect(got.numBranches).toBe(want.numBranches);
    expect(got.numBranches).toBeGreaterThan(1000);
    expect(got.degree).toEqual(want.degree);
    expect(bits(got.edgeLengths)).toEqual(bits(want.edgeLengths));
    expect(bits(got.lengths)).toEqual(bits(want.lengths));
    expect(got.edgeCounts).toEqual(want.edgeCounts);
    expect(got.ends).toEqual(want.ends);
    expect(bits(got.endToEnd)).toEqual(bits(want.endToEnd));
    expect(got.histograms).toEqual(want.histograms);
    expect(lowered!.memory.liveBuffers).toBe(0);
  });
});
