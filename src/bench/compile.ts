/**
 * Pipeline compilation of the EMST on a fresh GPU context (issue 17 §5): every repetition creates a new context
 * (a new device, so nothing of the bench context's pipeline cache is reused) and times `GpuEmst.create` on it — what
 * `emstGpu` reports as `emst::compile` on a process's first call, minus the process's own start (the Dawn instance
 * and the adapter are the process's). The figure is context creation + compile, host-timed; the notes give the
 * compile alone (min, median and the first repetition, which also pays whatever the driver caches in-process) and
 * the pipelines and shader modules created. A fresh process (`treeline emst FILE --timings`, `emst::compile`) remains
 * the end-to-end measure.
 */
import { createGpuContext, type GpuContext } from '../gpu/context.js';
import { GpuEmst } from '../emst/pipeline.js';
import { metricOf } from '../emst/metric.js';
import type { BenchCase } from './harness.js';

export async function benchCompile(ctx: GpuContext, n: number, dim: number, minSamples: number): Promise<BenchCase> {
  const compileMs: number[] = [];
  let stats = { pipelines: 0, modules: 0, slowest: '' };
  return {
    run: async () => {
      const fresh = await createGpuContext({ features: ctx.features });
      try {
        const t0 = performance.now();
        const e = await GpuEmst.create(fresh, n, dim, metricOf(minSamples));
        compileMs.push(performance.now() - t0);
        const { pipelines, modules, labels, ms } = fresh.compileStats;
        // The critical path: the kernels that took longest from creation to resolution (all start together).
        const slowest = labels
          .map((label, i) => ({ label, ms: ms[i] }))
          .filter((k) => Number.isFinite(k.ms))
          .sort((a, b) => b.ms - a.ms)
          .slice(0, 3)
          .map((k) => `${k.label} ${k.ms.toFixed(1)}`)
          .join(', ');
        stats = { pipelines, modules, slowest };
        e.destroy();
      } finally {
        await fresh.destroy();
      }
    },
    check: async () => {
      if (stats.pipelines === 0) throw new Error('bench::compile: no pipeline was created');
    },
    destroy: () => undefined,
    notes: () => {
      const sorted = [...compileMs].sort((a, b) => a - b);
      return (
        `GpuEmst.create alone: first ${compileMs[0].toFixed(1)} ms, min ${sorted[0].toFixed(1)} ms, median ` +
        `${sorted[sorted.length >> 1].toFixed(1)} ms over ${compileMs.length} fresh contexts; ` +
        `${stats.pipelines} pipelines, ${stats.modules} shader modules; slowest (ms, last context): ${stats.slowest}`
      );
    },
  };
}
