/**
 * HDBSCAN* end to end (issue 5): from points in host memory to labels in host memory — upload, BVH, core
 * distances, mutual-reachability Borůvka, read-back, canonical sort, single linkage, condensed tree, selection,
 * labels, probabilities and GLOSH — with the phase breakdown. Timed on the host (wall), since most phases after the
 * MST run on the CPU; the GPU context and compiled pipelines are warm. Also reports host memory (the issue's
 * ≤ 300 bytes per point after the MST): the peak resident set of each call (Linux: /proc/self/status VmHWM, reset
 * before the call through /proc/self/clear_refs) above the resident set just before it — so it counts the MST's host
 * side too, not the warm-up's one-time costs (compiled pipelines); garbage is collected (and its memory given back)
 * before each call. Elsewhere, the growth of process.memoryUsage() across the call (rss or arrayBuffers, the larger),
 * which misses freed scratch.
 *
 * GPU memory (issue 17's "the clustering adds ≤ 48 bytes per point above the MST's peak"): the peak of live GPU
 * buffers during each call (the context's tracker, gpu/buffers.ts; staging not counted) and, once per size, that of
 * emst() alone on the same points with the same minSamples. Buffer sizes are what treeline asks for, the same on
 * every device: a software adapter measures them too (`treeline bench hdbscan-normal3d --n 200000 --reps 1` with
 * lavapipe).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { GpuContext } from '../gpu/context.js';
import { hdbscan } from '../hdbscan.js';
import { emst } from '../emst/emst.js';
import { generate, type GeneratorName } from '../datasets/generate.js';

export interface HdbscanBenchRow {
  n: number;
  wallMs: number;
  phases: Record<string, number>;
  clusters: number;
  noise: number;
  hostBytesPerPoint: number;
  /** Whether hostBytesPerPoint is the call's peak (VmHWM), not the growth across it. */
  hostPeak: boolean;
  /** Peak of live GPU buffers during the call, above those live before it, per point. */
  gpuBytesPerPoint: number;
  /** The same for emst() alone (the mutual-reachability MST with the call's minSamples), per point. */
  mstGpuBytesPerPoint: number;
}

/** A /proc/self/status field in bytes (VmRSS, VmHWM), or null off Linux. */
function procBytes(field: string): number | null {
  try {
    const m = readFileSync('/proc/self/status', 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/**
 * Collects garbage and waits until the resident set stops shrinking (V8 frees ArrayBuffer and SharedArrayBuffer
 * memory on a background thread after a collection), at most ~2 s.
 */
async function settle(gc: () => void): Promise<void> {
  let last = Infinity;
  for (let i = 0; i < 20; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const rss = procBytes('VmRSS') ?? process.memoryUsage().rss;
    if (rss >= last - (1 << 20)) return;
    last = rss;
  }
}

/** Resets VmHWM to the current resident set (Linux ≥ 4.0); false where that is not possible. */
function resetPeak(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

export async function benchHdbscan(
  ctx: GpuContext,
  n: number,
  dim: number,
  kind: GeneratorName,
  reps: number,
  threads?: number,
  /** The points as a Float64Array (the same values: float32 ones widened), as numpy hands them over. */
  float64 = false,
): Promise<HdbscanBenchRow[]> {
  const generated = generate(kind, { n, dim, seed: 1, clusters: 10, noise: 0.1 });
  const points = float64 ? Float64Array.from(generated) : generated;
  const options = { dim, minClusterSize: 15, backend: 'gpu' as const, gpu: ctx, threads };
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  await hdbscan(points, options); // warm-up: pipelines compiled
  const gpuPeak = async (run: () => Promise<unknown>): Promise<number> => {
    const live = ctx.memory.liveBytes;
    ctx.buffers.resetPeak();
    await run();
    return (ctx.memory.peakBytes - live) / n;
  };
  const mstGpuBytesPerPoint = await gpuPeak(() =>
    emst(points, { dim, minSamples: options.minClusterSize, backend: 'gpu', gpu: ctx, threads }),
  );
  const rows: HdbscanBenchRow[] = [];
  for (let r = 0; r < reps; r++) {
    await settle(gc);
    const m0 = process.memoryUsage();
    const baseline = procBytes('VmRSS');
    const peak = baseline !== null && resetPeak();
    const live = ctx.memory.liveBytes;
    ctx.buffers.resetPeak();
    const t0 = performance.now();
    const res = await hdbscan(points, options);
    const wallMs = performance.now() - t0;
    const gpuBytesPerPoint = (ctx.memory.peakBytes - live) / n;
    const m1 = process.memoryUsage();
    const hwm = peak ? procBytes('VmHWM') : null;
    // ArrayBuffers live outside V8's heap but inside rss: the larger of the two growths, not their sum.
    const growth =
      hwm !== null && baseline !== null
        ? Math.max(0, hwm - baseline)
        : Math.max(0, m1.rss - m0.rss, m1.arrayBuffers - m0.arrayBuffers);
    let noise = 0;
    let clusters = 0;
    for (const l of res.labels) {
      if (l < 0) noise++;
      else if (l + 1 > clusters) clusters = l + 1;
    }
    if (res.labels.length !== n) throw new Error(`bench::hdbscan: ${res.labels.length} labels for n=${n}`);
    rows.push({
      n,
      wallMs,
      phases: res.timings ?? {},
      clusters,
      noise,
      hostBytesPerPoint: growth / n,
      hostPeak: hwm !== null,
      gpuBytesPerPoint,
      mstGpuBytesPerPoint,
    });
  }
  return rows;
}
