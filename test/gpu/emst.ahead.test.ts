/**
 * What `treeline emst` starts ahead of the call (issue 17 §5, src/cli/gpuahead.ts): the pipelines compiled into the
 * context's cache from the file's shape before the points exist (warmEmstPipelines: the call then compiles nothing),
 * and the edge arrays allocated in shared memory and touched by worker threads while the GPU computes the tree
 * (prepareEdgeArrays: the GPU splits the pairs and the read-back copies each array straight into them) — the same
 * edges as emst()'s own read-back into fresh arrays (de-interleaved on the host).
 * The worker script is bundled from the sources (test/helpers/workers.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startGpuAhead } from '../../src/cli/gpuahead.js';
import { generate } from '../../src/datasets/generate.js';
import { emst, emstFor } from '../../src/emst/emst.js';
import { metricOf } from '../../src/emst/metric.js';
import { warmEmstPipelines } from '../../src/emst/pipeline.js';
import { warmClusterPipelines } from '../../src/cluster/warm.js';
import { hdbscan } from '../../src/hdbscan.js';
import { prepareEdgeArrays, readbackStats } from '../../src/emst/readback.threads.js';
import { destroyVariants, gpuVariants, requireGpu, tryGpuContext } from '../helpers/gpu.js';
import { useBundledWorkerScript } from '../helpers/workers.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

useBundledWorkerScript('treeline-emst-ahead-');
const all = await gpuVariants();
afterAll(() => destroyVariants(all));

describe.skipIf(all.length === 0).each(all)('emst ahead of the call ($name)', ({ ctx }) => {
  it.each([
    ['Euclidean', 5, 1],
    ['mutual reachability', 4, 7],
  ])('%s: warmed pipelines leave the call nothing to compile, and the tree is the same', async (_, dim, minSamples) => {
    const n = 1500;
    const points = generate('normal', { n, dim, seed: 11 });
    await warmEmstPipelines(ctx, n, dim, metricOf(minSamples, 1));
    const before = ctx.compileStats.pipelines;
    const r = await emst(points, { dim, minSamples, backend: 'gpu', gpu: ctx });
    expect(ctx.compileStats.pipelines).toBe(before);
    const cpu = await emst(points, { dim, minSamples, backend: 'cpu', threads: 1 });
    expect(Array.from(r.sources)).toEqual(Array.from(cpu.sources));
    expect(Array.from(r.targets)).toEqual(Array.from(cpu.targets));
    expect(Array.from(r.weights)).toEqual(Array.from(cpu.weights));
  });

  it("hdbscan(): emst's and the clustering's warm-ups leave it nothing to compile; the same clustering", async () => {
    const n = 2500;
    const points = generate('blobs', { n, dim: 3, seed: 21, clusters: 3 });
    await warmEmstPipelines(ctx, n, 3, metricOf(9, 1));
    await warmClusterPipelines(ctx, n, 9);
    const before = ctx.compileStats.pipelines;
    const r = await hdbscan(points, { dim: 3, minClusterSize: 9, backend: 'gpu', gpu: ctx });
    expect(ctx.compileStats.pipelines).toBe(before);
    const cpu = await hdbscan(points, { dim: 3, minClusterSize: 9, backend: 'cpu', threads: 1 });
    expect(Array.from(r.labels)).toEqual(Array.from(cpu.labels));
    expect(Array.from(r.probabilities)).toEqual(Array.from(cpu.probabilities));
  });

  it.each([
    [3300, 3],
    [140_000, 2],
  ])(
    'edges read straight into arrays touched ahead (%i points, touched on %i threads): the same as the plain read-back',
    async (count, threads) => {
      if (count > 10_000 && ctx !== all[0].ctx) return; // one device is enough for the larger case
      // Points on a coarse grid, some repeated: many equal weights, so the canonical tie order is exercised.
      const grid = generate('uniform', { n: count - 300, dim: 2, seed: 3 }).map((v) => Math.round(v * 300));
      const points = new Float32Array([...grid, ...grid.subarray(0, 600)]);
      const n = points.length / 2;
      const plain = await emst(points, { dim: 2, backend: 'gpu', gpu: ctx });
      const prepared = await prepareEdgeArrays(n - 1, threads, 0);
      expect(prepared).not.toBeNull();
      const direct = readbackStats.direct;
      const r = await emstFor(
        'emst',
        points,
        { dim: 2, backend: 'gpu', gpu: ctx },
        { readInto: prepared!.into, afterUpload: prepared!.start },
      );
      // The GPU split the pairs and the three arrays were read straight into the shared ones (pipeline.ts readEdges).
      expect(readbackStats.direct).toBe(direct + 1);
      expect(r.sources.buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(r.sources).toBe(prepared!.into.edges.sources);
      expect(Array.from(r.sources)).toEqual(Array.from(plain.sources));
      expect(Array.from(r.targets)).toEqual(Array.from(plain.targets));
      expect(Array.from(r.weights)).toEqual(Array.from(plain.weights));
    },
  );

  it('edge arrays are not prepared below the size or on one thread', async () => {
    expect(await prepareEdgeArrays(10, 4)).toBeNull();
    expect(await prepareEdgeArrays(1 << 20, 1, 0)).toBeNull();
  });
});

describe.skipIf(all.length === 0)('warmTransfers', () => {
  it('makes both staging rings and leaves no buffer behind', async () => {
    const ctx = (await tryGpuContext())!;
    try {
      expect([ctx.stagingBytes, ctx.readbackBytes]).toEqual([0, 0]);
      const live = ctx.memory.liveBytes;
      await ctx.warmTransfers();
      expect(ctx.stagingBytes).toBeGreaterThan(0);
      expect(ctx.readbackBytes).toBeGreaterThan(0);
      expect(ctx.memory.liveBytes).toBe(live);
    } finally {
      await ctx.destroy();
    }
  });
});

describe('startGpuAhead', () => {
  const dir = mkdtempSync(join(tmpdir(), 'treeline-ahead-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('cpu: no context, nothing warmed', async () => {
    let warmed = 0;
    const ahead = startGpuAhead('emst', 'cpu', join(dir, 'none.npy'), {}, async () => void warmed++);
    expect(await ahead.settle()).toEqual({ backend: 'cpu', gpu: null });
    await ahead.dispose();
    expect(warmed).toBe(0);
  });

  it.skipIf(all.length === 0 && !requireGpu)(
    'gpu: the context comes with the warm-up done for the shape the header states',
    async () => {
      // A 1 × 2 float32 .npy (version 1 header, padded to 64 bytes).
      const header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }";
      const padded = header.padEnd(64 - 10 - 1) + '\n';
      const bytes = new Uint8Array(10 + padded.length + 8);
      bytes.set([0x93, ...Array.from('NUMPY', (c) => c.charCodeAt(0)), 1, 0, padded.length, 0]);
      bytes.set(
        Array.from(padded, (c) => c.charCodeAt(0)),
        10,
      );
      const file = join(dir, 'one.npy');
      writeFileSync(file, bytes);
      const shapes: [number, number][] = [];
      const ahead = startGpuAhead('emst', 'gpu', file, {}, async (_ctx, { n, dim }) => void shapes.push([n, dim]));
      try {
        const { backend, gpu } = await ahead.settle();
        expect(backend).toBe('gpu');
        expect(gpu).not.toBeNull();
        expect(shapes).toEqual([[1, 2]]);
      } finally {
        await ahead.dispose();
      }
    },
  );
});
