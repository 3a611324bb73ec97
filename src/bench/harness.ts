/**
 * The benchmark harness: seeded data, warm-up, repetitions, min and median, per-phase GPU time from timestamp
 * queries under the kernels' labels, and the device, driver, commit and date printed with every figure
 * (DESIGN.md "Performance: how to measure"; CONVENTIONS.md 15).
 *
 * Timings are GPU-resident: data already on the GPU, pipelines compiled by the warm-up. `gpuMs` is the span from
 * the first timed pass's beginning to the last one's end; `wallMs` is submit → onSubmittedWorkDone on the host
 * (it includes the ~50 µs submission round-trip).
 */
import type { GpuContext } from '../gpu/context.js';
import type { Recorder } from '../gpu/recorder.js';
import { Timer, type TimerEntry } from '../gpu/timer.js';

/** One benchmark case, set up once: `encode` records the timed work, `check` validates its result. */
export interface BenchCase {
  /** Records the timed work as one submission. */
  encode?: (rec: Recorder) => void;
  /** Or runs it as several submissions (with read-backs), timing every pass with `timer`. */
  run?: (timer: Timer) => Promise<void>;
  check: () => Promise<void>;
  destroy: () => void;
  /** Extra facts about the last run (e.g. Borůvka rounds), printed with the figure. */
  notes?: () => string;
}

export interface BenchFigure {
  name: string;
  n: number;
  reps: number;
  /** GPU span per repetition: min and median, ms. */
  gpuMinMs: number;
  gpuMedianMs: number;
  /** GPU span of every repetition in order, ms. */
  gpuMs: number[];
  /** Host submit → done, ms. */
  wallMinMs: number;
  wallMedianMs: number;
  /** Per-label GPU time of the fastest repetition, ms. */
  phases: Record<string, number>;
  /** Peak bytes of live buffers during setup and runs. */
  peakBytes: number;
  /** Free-form derived figures (rates). */
  rates: Record<string, number>;
  checked: boolean;
  notes: string;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Milliseconds of back-to-back warm-up submissions (at least), and how many are queued at a time. */
const WARM_MS = 1500;
const WARM_QUEUE = 4;

/** Runs `make()`'s case: `warmup` untimed runs, `reps` timed ones, then its check. */
export async function runCase(
  ctx: GpuContext,
  name: string,
  n: number,
  make: () => Promise<BenchCase>,
  opts: { warmup?: number; reps?: number; rates?: (gpuMs: number) => Record<string, number> } = {},
): Promise<BenchFigure> {
  const warmup = opts.warmup ?? 3;
  const reps = opts.reps ?? 10;
  ctx.buffers.resetPeak();
  const c = await make();
  const timer = new Timer(ctx);
  try {
    let submitted = 0;
    const once = async (t?: Timer) => {
      if (c.run) await c.run(t ?? timer);
      else await ctx.submit(`bench::${name}`, c.encode!, { timer: t });
      submitted = performance.now();
      await ctx.onDone();
    };
    // Warm-up: at least `warmup` runs and at least WARM_MS of them (cases recorded into one submission keep
    // WARM_QUEUE submissions queued back to back), so that the GPU leaves its idle clock (the H100 idles at 345 MHz and steps up
    // only under sustained load; a bursty warm-up left repetitions 2× slower, bench/RESULTS.md).
    const t0warm = performance.now();
    for (let i = 0; i < warmup || performance.now() - t0warm < WARM_MS; i++) {
      timer.reset();
      if (c.run || !c.encode) {
        await once();
        continue;
      }
      const queued: Promise<void>[] = [];
      for (let q = 0; q < WARM_QUEUE; q++) queued.push(ctx.enqueue(`bench::${name}`, c.encode));
      await Promise.all(queued);
      await ctx.onDone();
    }
    const gpu: number[] = [];
    const hostReport = typeof process !== 'undefined' && process.env.TREELINE_BENCH_HOST === '1';
    const hostTimes: string[] = [];
    const wall: number[] = [];
    let best: Record<string, number> = {};
    let last: TimerEntry[] = [];
    for (let i = 0; i < reps; i++) {
      timer.reset();
      const t0 = performance.now();
      await once(timer);
      wall.push(performance.now() - t0);
      const t1 = performance.now();
      const entries = (last = await timer.read());
      if (hostReport) hostTimes.push(`${(submitted - t0).toFixed(1)}+${(t1 - submitted).toFixed(1)}+${(performance.now() - t1).toFixed(1)}`);
      const g = spanMs(entries) ?? wall[wall.length - 1];
      if (gpu.length === 0 || g < Math.min(...gpu)) {
        best = {};
        for (const e of entries) best[e.label] = (best[e.label] ?? 0) + e.ms;
      }
      gpu.push(g);
    }
    if (hostReport) process.stderr.write(`  host ms per repetition (submit + done + timer read): ${hostTimes.join(', ')}\n`);
    if (typeof process !== 'undefined' && process.env.TREELINE_BENCH_GAPS === '1') {
      process.stderr.write(gapReport(last));
    }
    await c.check();
    const gpuMin = Math.min(...gpu);
    return {
      name,
      n,
      reps,
      gpuMinMs: gpuMin,
      gpuMedianMs: median(gpu),
      gpuMs: gpu,
      wallMinMs: Math.min(...wall),
      wallMedianMs: median(wall),
      phases: best,
      peakBytes: ctx.memory.peakBytes,
      rates: opts.rates?.(gpuMin) ?? {},
      checked: true,
      notes: c.notes?.() ?? '',
    };
  } finally {
    timer.destroy();
    c.destroy();
  }
}

/** The first-begin to last-end span of the timed passes, or null without timestamps. */
function spanMs(entries: TimerEntry[]): number | null {
  if (entries.length === 0) return null;
  let lo = entries[0].start;
  let hi = entries[0].end;
  for (const e of entries) {
    if (e.start < lo) lo = e.start;
    if (e.end > hi) hi = e.end;
  }
  return hi - lo;
}

/** The largest idle gaps between consecutive timed passes of the last repetition (TREELINE_BENCH_GAPS=1). */
function gapReport(entries: TimerEntry[]): string {
  const gaps: { ms: number; from: string; to: string; at: number }[] = [];
  let idle = 0;
  for (let i = 1; i < entries.length; i++) {
    const ms = entries[i].start - entries[i - 1].end;
    idle += Math.max(ms, 0);
    gaps.push({ ms, from: entries[i - 1].label, to: entries[i].label, at: i });
  }
  gaps.sort((a, b) => b.ms - a.ms);
  const top = gaps.slice(0, 6).map((g) => `    ${g.ms.toFixed(3)} ms before pass ${g.at}: ${g.from} → ${g.to}`);
  // TREELINE_BENCH_TRACE: one label, or several separated by commas.
  const traced = (process.env.TREELINE_BENCH_TRACE ?? '')
    .split(',')
    .filter((t) => t !== '')
    .map((t) => `  ${t} passes (ms): ${entries.filter((e) => e.label === t).map((e) => e.ms.toFixed(3)).join(', ')}\n`)
    .join('');
  return `  gaps: ${entries.length} passes, ${idle.toFixed(3)} ms idle between them; largest:\n${top.join('\n')}\n${traced}`;
}
