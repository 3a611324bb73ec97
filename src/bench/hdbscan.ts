/**
 * HDBSCAN* end to end (issue 5): from points in host memory to labels in host memory — upload, BVH, core
 * distances, mutual-reachability Borůvka, read-back, canonical sort, single linkage, condensed tree, selection,
 * labels, probabilities and GLOSH — with the phase breakdown. Timed on the host (wall), since most phases after the
 * MST run on the CPU; the GPU context and compiled pipelines are warm. Also reports the growth of host memory
 * (rss and arrayBuffers) across the call, the issue's ≤ 300 bytes per point after the MST: garbage is collected
 * before each repetition (the previous one's result would otherwise be freed during the call and hide the growth),
 * and the call's scratch is still uncollected when it returns, so the growth is the call's peak.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { GpuContext } from '../gpu/context.js';
import { hdbscan } from '../hdbscan.js';
import { generate, type GeneratorName } from '../datasets/generate.js';

export interface HdbscanBenchRow {
  n: number;
  wallMs: number;
  phases: Record<string, number>;
  clusters: number;
  noise: number;
  hostBytesPerPoint: number;
}

export async function benchHdbscan(
  ctx: GpuContext,
  n: number,
  dim: number,
  kind: GeneratorName,
  reps: number,
): Promise<HdbscanBenchRow[]> {
  const points = generate(kind, { n, dim, seed: 1, clusters: 10, noise: 0.1 });
  const options = { dim, minClusterSize: 15, backend: 'gpu' as const, gpu: ctx };
  await hdbscan(points, options); // warm-up: pipelines compiled
  const rows: HdbscanBenchRow[] = [];
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  for (let r = 0; r < reps; r++) {
    gc();
    const m0 = process.memoryUsage();
    const t0 = performance.now();
    const res = await hdbscan(points, options);
    const wallMs = performance.now() - t0;
    const m1 = process.memoryUsage();
    // ArrayBuffers live outside V8's heap but inside rss: the larger of the two growths, not their sum.
    const growth = Math.max(0, m1.rss - m0.rss, m1.arrayBuffers - m0.arrayBuffers);
    let noise = 0;
    let clusters = 0;
    for (const l of res.labels) {
      if (l < 0) noise++;
      else if (l + 1 > clusters) clusters = l + 1;
    }
    if (res.labels.length !== n) throw new Error(`bench::hdbscan: ${res.labels.length} labels for n=${n}`);
    rows.push({ n, wallMs, phases: res.timings ?? {}, clusters, noise, hostBytesPerPoint: growth / n });
  }
  return rows;
}
