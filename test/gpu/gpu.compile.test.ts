/**
 * Issue 17 §5: a call compiles only the kernels it needs, each once per context, and their WGSL modules once per
 * composed text. Counted through `GpuContext.compileStats` on fresh contexts (one with every optional feature, one
 * with none), since the counts are per context.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { GpuEmst, emstGpu, inPlaceDefault } from '../../src/emst/pipeline.js';
import { EUCLIDEAN } from '../../src/emst/metric.js';
import { metricOf } from '../../src/emst/metric.js';
import { createScanner } from '../../src/primitives/scan.js';
import { GpuError } from '../../src/errors.js';
import type { GpuContext } from '../../src/gpu/index.js';
import { cloud } from '../helpers/clouds.js';
import { tryGpuContext } from '../helpers/gpu.js';

const contexts: GpuContext[] = [];
const fresh = async (features: 'all' | 'none'): Promise<GpuContext | null> => {
  const ctx = await tryGpuContext({ features });
  if (ctx) contexts.push(ctx);
  return ctx;
};
const probe = await fresh('none');
afterAll(() => Promise.all(contexts.map((c) => c.destroy())));

/** Kernels only mutual-reachability runs use. */
const REACHABILITY = ['knn::search', 'emst::gather', 'emst::mincore'];

describe.skipIf(probe === null).each(['all', 'none'] as const)('kernel compilation (features: %s)', (features) => {
  it('a Euclidean GpuEmst compiles no k-NN, gather or mutual-reachability kernel, and each kernel once', async () => {
    const ctx = (await fresh(features))!;
    const e = await GpuEmst.create(ctx, 1000, 3, EUCLIDEAN);
    e.destroy();
    const { labels, pipelines, modules } = ctx.compileStats;
    expect(labels.filter((l) => REACHABILITY.includes(l))).toEqual([]);
    // Borůvka unions in its own WGSL: the union-find's other kernels are not compiled.
    expect(labels.filter((l) => l.startsWith('unionfind::'))).toEqual(['unionfind::init']);
    expect(new Set(labels).size).toBe(labels.length);
    expect(pipelines).toBe(labels.length);
    // Kernels that differ only in entry point share a module (the scan's three, for one).
    expect(modules).toBeLessThan(pipelines);
    // A second pipeline for the same shape compiles nothing.
    const again = await GpuEmst.create(ctx, 1000, 3, EUCLIDEAN);
    again.destroy();
    expect(ctx.compileStats.pipelines).toBe(pipelines);
    // Mutual reachability adds exactly its own kernels.
    const mr = await GpuEmst.create(ctx, 1000, 3, metricOf(5));
    mr.destroy();
    expect(ctx.compileStats.labels.slice(pipelines).sort()).toEqual([...REACHABILITY].sort());
  });

  it('emstGpu compiles in its emst::compile phase only: the rounds and the read-back compile nothing more', async () => {
    const ctx = (await fresh(features))!;
    // emstGpu's layout: in place (issue 19) unless TREELINE_EMST_INPLACE=0, which compiles the point scatter too.
    const e = await GpuEmst.create(ctx, 500, 2, EUCLIDEAN, false, { inPlace: inPlaceDefault() });
    e.destroy();
    const created = ctx.compileStats.pipelines;
    for (const n of [0, 1, 2, 257, 500]) {
      const r = await emstGpu(cloud('uniform', n, 2, n + 1), 2, { ctx });
      expect(r.sources.length).toBe(Math.max(n - 1, 0));
    }
    expect(ctx.compileStats.pipelines).toBe(created);
  });

  it('kernels started together share their module and all resolve', async () => {
    const ctx = (await fresh(features))!;
    await Promise.all([createScanner(ctx, 5000), createScanner(ctx, 5000)]);
    const { labels, modules, ms } = ctx.compileStats;
    // Each kernel's time from creation to resolution is known once it has resolved.
    expect(ms.length).toBe(labels.length);
    expect(ms.every((t) => Number.isFinite(t) && t >= 0)).toBe(true);
    expect(labels.sort()).toEqual(
      ['primitives::scanDownsweep', 'primitives::scanDownsweepInPlace', 'primitives::scanUpsweep'].sort(),
    );
    expect(modules).toBe(1);
  });

  it('a WGSL compilation error names the kernel and quotes the failing line', async () => {
    const ctx = (await fresh(features))!;
    const spec = {
      label: 'test::broken',
      shader: 'test/fill',
      entry: 'main',
      bindings: ['uniform', 'rw'] as const,
      workgroupSize: 32,
      enable: ['no_such_extension'],
    };
    const err = await ctx.kernel(spec).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GpuError);
    expect((err as Error).message).toMatch(/test::broken/);
    expect((err as Error).message).toMatch(/WGSL compilation failed[\s\S]*enable no_such_extension;/);
    // The failure is not cached as a kernel; the context stays usable.
    ctx.check('after the error');
    const ok = await ctx.kernel({ ...spec, enable: undefined });
    expect(ok.pipeline).toBeDefined();
  });
});
