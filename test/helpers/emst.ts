/** One GPU EMST of host points through GpuEmst (create, upload, run, read the canonical edges back, free). */
import { GpuEmst } from '../../src/emst/pipeline.js';
import type { EdgeList } from '../../src/emst/edges.cpu.js';
import type { GpuContext } from '../../src/gpu/context.js';
import { metricOf } from '../../src/emst/metric.js';

export async function gpuEmstOnce(
  ctx: GpuContext,
  points: Float32Array,
  dim: number,
  minSamples = 1,
  options: { period?: Float32Array; layout?: { boxPartRecords?: number; lean?: boolean } } = {},
): Promise<EdgeList> {
  const n = points.length / dim;
  const { period, layout } = options;
  const e = await GpuEmst.create(ctx, Math.max(n, 1), dim, metricOf(minSamples), period !== undefined, layout);
  const buf = ctx.upload('test::points', points);
  try {
    return await e.readEdges(await e.run(buf, n, { period }));
  } finally {
    buf.destroy();
    e.destroy();
  }
}
