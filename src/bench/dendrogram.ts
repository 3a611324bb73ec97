/**
 * Dendrogram benchmark (issue 17 §1), GPU-resident: from Borůvka's raw MST edges in a GPU buffer to the
 * single-linkage rows and parents in GPU buffers — the canonical order (emst/canonical.ts) and the dendrogram
 * (cluster/dendrogram.ts) — timed per kernel label; the MST is computed once beforehand. ArborX's dendrogram of
 * 10^7 normal 3D points (core 16) takes 4 ms on the H100 (DESIGN.md, anchors); treeline's host singleLinkage
 * 350–570 ms on 16 threads. `check` reads the rows back and compares them with singleLinkage of readEdges' edge
 * list (the host path), whole; the notes give the host's single-thread singleLinkage time on the same tree.
 */
import type { GpuContext } from '../gpu/context.js';
import type { BenchCase } from './harness.js';
import { GpuEmst } from '../emst/pipeline.js';
import { createCanonicalSort } from '../emst/canonical.js';
import { GpuDendrogram, readDendrogram, type DendrogramBuffers } from '../cluster/dendrogram.js';
import { singleLinkage } from '../cluster/linkage.js';
import { createRadixSorter } from '../primitives/radixsort.js';
import { generate, type GeneratorName } from '../datasets/generate.js';
import { metricOf } from '../emst/metric.js';

export async function benchDendrogram(
  ctx: GpuContext,
  n: number,
  dim: number,
  kind: GeneratorName,
  minSamples = 1,
): Promise<BenchCase> {
  const points = generate(kind, { n, dim, seed: 1 });
  const buffer = ctx.upload('bench::points', points);
  const e = await GpuEmst.create(ctx, n, dim, metricOf(minSamples));
  const result = await e.run(buffer, n);
  buffer.destroy();
  const [canonical, sorter, dendrogram] = await Promise.all([
    createCanonicalSort(ctx),
    createRadixSorter(ctx, { maxCount: Math.max(n, 1), keyWords: 2 }),
    GpuDendrogram.create(ctx, n),
  ]);
  const keys = ctx.createBuffer('bench::canonicalKeys', 8 * Math.max(n, 1));
  const targets = ctx.createBuffer('bench::canonicalTargets', 4 * Math.max(n, 1));
  let out: DendrogramBuffers | null = null;
  let hostMs = 0;
  return {
    encode: (rec) => {
      canonical.encode(rec, { edges: result.edges, count: result.count, n, sorter, keys, values: targets });
      out = dendrogram.encode(rec, { keys, targets, n });
    },
    check: async () => {
      const got = await readDendrogram(ctx, out!, keys);
      const edges = await e.readEdges(result);
      const t0 = performance.now();
      const want = singleLinkage(edges, n);
      hostMs = performance.now() - t0;
      for (let i = 0; i < n - 1; i++) {
        if (
          got.left[i] !== want.left[i] ||
          got.right[i] !== want.right[i] ||
          got.size[i] !== want.size[i] ||
          got.distance[i] !== want.distance[i]
        ) {
          throw new Error(
            `bench::dendrogram: row ${i} is (${got.left[i]}, ${got.right[i]}, ${got.distance[i]}, ${got.size[i]}), ` +
              `singleLinkage's (${want.left[i]}, ${want.right[i]}, ${want.distance[i]}, ${want.size[i]})`,
          );
        }
      }
    },
    notes: () =>
      `minSamples ${minSamples}; host singleLinkage (1 thread) on the read-back edges ${hostMs.toFixed(1)} ms`,
    destroy: () => {
      keys.destroy();
      targets.destroy();
      dendrogram.destroy();
      sorter.destroy();
      e.destroy();
    },
  };
}
