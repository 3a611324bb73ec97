/**
 * Issue 19: the largest n `treeline info` reports (src/bvh/capacity.ts) is the largest the code takes. Under a
 * lowered binding limit (GpuContextOptions.maxBindingBytes, as TREELINE_MAX_BINDING_BYTES sets it) every entry point
 * runs at its reported maximum — the recorder refuses any binding above the limit (gpu/recorder.ts), so an array the
 * capacity list misses fails here — and one point more is a one-line InputError before any GPU allocation.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { capacity, type CapacityTask } from '../../src/bvh/capacity.js';
import { emst } from '../../src/emst/emst.js';
import { hdbscan } from '../../src/hdbscan.js';
import { knn } from '../../src/knn/knn.js';
import { mstStats } from '../../src/stats/mstStats.js';
import { bigArrayWgsl } from '../../src/gpu/bigarray.js';
import { DEFAULT_MIN_CLUSTER_SIZE } from '../../src/cluster/options.js';
import { GpuError, InputError } from '../../src/errors.js';
import { MIN_BINDING_BYTES } from '../../src/gpu/context.js';
import type { GpuContext } from '../../src/gpu/context.js';
import { mulberry32 } from '../helpers/random.js';
import { tryGpuContext } from '../helpers/gpu.js';
import { expectSameEdges } from '../helpers/sameEdges.js';

/** 256 KiB: 16,384 points in 2D and 3D for the EMST, small enough for lavapipe. */
const LIMIT = 262144;
const ctx = await tryGpuContext({ maxBindingBytes: LIMIT });
afterAll(() => ctx?.destroy());

/** n random points in [0, 1)^dim with every tenth point a duplicate of the one before (ties). */
function points(n: number, dim: number, seed: number): Float32Array {
  const r = mulberry32(seed);
  const p = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < dim; k++) p[i * dim + k] = i % 10 === 9 ? p[(i - 1) * dim + k] : r();
  }
  return p;
}

/** Runs `call`, which must throw a one-line InputError, and checks that no GPU buffer was made meanwhile. */
async function refusedBeforeAllocation(c: GpuContext, call: () => Promise<unknown>, pattern: RegExp): Promise<void> {
  const before = c.memory;
  c.buffers.resetPeak();
  const err = await call().then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InputError);
  expect((err as Error).message).toMatch(pattern);
  expect((err as Error).message).not.toContain('\n');
  expect(c.memory.peakBytes).toBe(before.liveBytes);
  expect(c.memory.liveBuffers).toBe(before.liveBuffers);
}

const maxFor = (c: GpuContext, task: CapacityTask, dim: number) => capacity(c.limits, task, dim).maxPoints;

describe.skipIf(!ctx)(`issue 19: the reported maximum n at a ${LIMIT}-byte binding limit`, () => {
  const c = ctx!;

  it('the context works to the lowered limit and knows the device’s own', () => {
    expect(c.limits.maxStorageBufferBindingSize).toBe(LIMIT);
    expect(c.deviceLimits.maxStorageBufferBindingSize).toBeGreaterThan(LIMIT);
    expect(c.bindingLowered).toBe(true);
    // Every other limit is the device's.
    expect(c.limits.maxStorageBuffersPerShaderStage).toBe(c.deviceLimits.maxStorageBuffersPerShaderStage);
    expect(c.limits.maxBufferSize).toBe(c.deviceLimits.maxBufferSize);
  });

  it.each([
    [2, 'emst::changes array must fit'],
    [3, 'emst::changes array must fit'],
  ] as const)(
    'emst() in %iD at the smallest limit: n − 1 edges at the maximum, an InputError one point above',
    async (dim, why) => {
      // Split (issue 19: Borůvka in subtree windows and parts): at 256 KiB some 49,000–65,000 points, too slow for
      // lavapipe, so at the smallest limit the context takes (64 KiB: 16,384 in 2D and 3D, the changes bound whole
      // where a binding holds less than one window of their scan). The labels (n + 2 words) are then in two parts, as
      // every 4-byte array is beyond 5.4·10^8 points on the H100: the edges must be the unsplit device's.
      const small = (await tryGpuContext({ maxBindingBytes: MIN_BINDING_BYTES }))!;
      try {
        const n = maxFor(small, { kind: 'emst' }, dim);
        expect(n).toBeGreaterThan(MIN_BINDING_BYTES / 16); // beyond the links bound whole
        const pts = points(n + 1, dim, 19 + dim);
        const tree = await emst(pts.subarray(0, n * dim), { dim, backend: 'gpu', gpu: small });
        expect(tree.sources.length).toBe(n - 1);
        expectSameEdges(tree, await emst(pts.subarray(0, n * dim), { dim, backend: 'gpu', gpu: c }));
        await refusedBeforeAllocation(
          small,
          () => emst(pts, { dim, backend: 'gpu', gpu: small }),
          new RegExp(
            `^emst on the GPU takes at most ${n} points in ${dim} dimensions on this device, got ${n + 1}: .*${why}.*TREELINE_MAX_BINDING_BYTES`,
          ),
        );
      } finally {
        await small.destroy();
      }
    },
  );

  it.each([2, 3])('hdbscan() in %iD: clusters at the maximum, an InputError one point above', async (dim) => {
    const task = { kind: 'hdbscan', minClusterSize: DEFAULT_MIN_CLUSTER_SIZE, resident: true } as const;
    const n = maxFor(c, task, dim);
    expect(n).toBeLessThan(maxFor(c, { ...task, resident: false }, dim));
    const pts = points(n + 1, dim, 29 + dim);
    const r = await hdbscan(pts.subarray(0, n * dim), { dim, backend: 'gpu', gpu: c });
    expect(r.labels.length).toBe(n);
    await refusedBeforeAllocation(
      c,
      () => hdbscan(pts, { dim, backend: 'gpu', gpu: c }),
      new RegExp(
        `^hdbscan \\(clustered on the GPU\\) on the GPU takes at most ${n} points .*got ${n + 1}: .*TREELINE_RESIDENT=0`,
      ),
    );
  });

  it('mstStats() in 3D: statistics at the maximum, an InputError one point above', async () => {
    const n = maxFor(c, { kind: 'mstStats' }, 3);
    const pts = points(n + 1, 3, 41);
    const s = await mstStats(pts.subarray(0, n * 3), { dim: 3, backend: 'gpu', gpu: c });
    expect(s.numEdges).toBe(n - 1);
    await refusedBeforeAllocation(
      c,
      () => mstStats(pts, { dim: 3, backend: 'gpu', gpu: c }),
      /^mstStats on the GPU takes at most/,
    );
  });

  it('knn() k = 8 in 3D at the smallest limit: neighbours at the maximum, an InputError one point above', async () => {
    // Every array in parts (issue 19): the search's parts, not one binding, set the cap — at 256 KiB some 65,000 3D
    // points, too slow for lavapipe, so at the smallest limit the context takes (64 KiB: 16,384).
    const small = (await tryGpuContext({ maxBindingBytes: MIN_BINDING_BYTES }))!;
    try {
      const k = 8;
      const n = maxFor(small, { kind: 'knn', k }, 3);
      expect(capacity(small.limits, { kind: 'knn', k }, 3).limitedBy).toBe('knn::search');
      expect(n).toBeGreaterThan(MIN_BINDING_BYTES / 16);
      const pts = points(n + 1, 3, 43);
      const r = await knn(pts.subarray(0, n * 3), { dim: 3, k, backend: 'gpu', gpu: small });
      expect(r.indices.length).toBe(n * k);
      expect(r.indices.every((i) => i < n)).toBe(true);
      await refusedBeforeAllocation(
        small,
        () => knn(pts, { dim: 3, k, backend: 'gpu', gpu: small }),
        /^knn \(k = 8\) on the GPU .*knn::search kernel binds its arrays in parts/,
      );
    } finally {
      await small.destroy();
    }
  });

  it('a kernel binding more than the lowered limit is refused by the recorder, naming the binding', async () => {
    const big = c.createBuffer('test::tooBig', LIMIT + 4);
    const small = c.createBuffer('test::small', 16);
    try {
      // emst/gather.wgsl with src in one binding, bound whole: what every kernel did before big arrays.
      const whole = await c.kernel({
        label: 'test::whole',
        shader: 'emst/gather',
        entry: 'main',
        bindings: { g: 'uniform', order: 'read', out: 'read_write', src: 'read' },
        uniforms: { n: 'u32', p0: 'u32', p1: 'u32', p2: 'u32' },
        workgroupSize: 64,
        generated: [bigArrayWgsl({ name: 'src', type: 'u32', access: 'read', binding: 3, slots: 1, partElements: 0 })],
      });
      const err = await c
        .submit('test::tooBig', (rec) =>
          rec.dispatch(whole, {
            buffers: { order: small, src: big, out: small },
            uniforms: { n: 4 },
            threads: 4,
          }),
        )
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(GpuError);
      expect((err as Error).message).toMatch(
        /test::whole: binding 'src' \(test::tooBig\) is 262148 bytes, above the binding limit of 262144 bytes/,
      );
    } finally {
      big.destroy();
      small.destroy();
    }
  });
});
