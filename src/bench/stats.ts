/**
 * MST statistics end to end (issue 7): from points in host memory to MiSTree's histograms in host memory — upload,
 * exact EMST on the GPU (read back in canonical order), then degree, edge lengths and branches on the GPU and the
 * histograms on the host. Timed on the host (wall). The issue's Must compares the statistics — everything after the
 * EMST — with the EMST they are computed from (`emst::total`, emst()'s own wall time).
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
  const options = { dim, backend: 'gpu' as const, gpu: ctx, ...(box ? { box } : {}) };
  await mstStats(points, options); // warm-up: pipelines compiled
  const rows: StatsBenchRow[] = [];
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    const s = await mstStats(points, options);
    const wallMs = performance.now() - t0;
    if (s.degree.length !== n || s.edgeLengths.length !== n - 1) {
      throw new Error(`bench::stats: ${s.degree.length} degrees and ${s.edgeLengths.length} edges for n=${n}`);
    }
    let degreeSum = 0;
    for (let i = 0; i < n; i++) degreeSum += s.degree[i];
    if (degreeSum !== 2 * (n - 1)) throw new Error(`bench::stats: degrees sum to ${degreeSum}, expected ${2 * (n - 1)}`);
    const emstMs = s.timings['emst::total'] ?? 0;
    rows.push({ n, wallMs, emstMs, statsMs: wallMs - emstMs, phases: s.timings, branches: s.branchLengths.length, backend: s.backend });
  }
  return rows;
}
