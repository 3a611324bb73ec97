/**
 * MST statistics end to end (issues 7 and 17): from points in host memory to MiSTree's histograms in host memory —
 * upload, exact EMST on the GPU, then degree, edge lengths, branches and the histograms on the GPU with the tree left
 * there (`arrays: false`: only the histograms and counts are read back). Timed on the host (wall). `emst::total` is
 * the EMST's part (without a read-back), the rest the statistics' (`stats::…` phases).
 */
import type { GpuContext } from '../gpu/context.js';
import { mstStats } from '../stats/mstStats.js';
import { generate, type GeneratorName } from '../datasets/generate.js';

export interface StatsBenchRow {
  n: number;
  wallMs: number;
  emstMs: number;
  statsMs: number;
  phases: Record<string, number>;
  branches: number;
  backend: string;
}

export async function benchStats(
  ctx: GpuContext,
  n: number,
  dim: number,
  kind: GeneratorName,
  reps: number,
  box?: number[],
): Promise<StatsBenchRow[]> {
  const points = generate(kind, { n, dim, seed: 1 });
  const options = { dim, backend: 'gpu' as const, gpu: ctx, arrays: false, ...(box ? { box } : {}) };
  await mstStats(points, options); // warm-up: pipelines compiled
  const rows: StatsBenchRow[] = [];
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    const s = await mstStats(points, options);
    const wallMs = performance.now() - t0;
    // The answer checked from what came back: a spanning tree's n − 1 edges, each in an edge-length bin (the default
    // range is [0, 1.05 · max]), and at most n nodes in the degree bins.
    const sum = (a: Float64Array) => a.reduce((x, y) => x + y, 0);
    const inBins = sum(s.histograms.edgeLength.counts);
    if (s.numEdges !== n - 1 || inBins !== n - 1) {
      throw new Error(`bench::stats: ${s.numEdges} edges, ${inBins} in the edge-length bins, for n=${n}`);
    }
    const degrees = sum(s.histograms.degree.counts);
    if (degrees > n || (n > 2 && s.numBranches === 0)) {
      throw new Error(`bench::stats: ${degrees} nodes in the degree bins, ${s.numBranches} branches, for n=${n}`);
    }
    const emstMs = s.timings['emst::total'] ?? 0;
    const statsMs = wallMs - emstMs;
    rows.push({ n, wallMs, emstMs, statsMs, phases: s.timings, branches: s.numBranches, backend: s.backend });
  }
  return rows;
}
