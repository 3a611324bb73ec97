/**
 * CPU EMST timings on this machine (issue 4: 10^6 uniform 2D points faster than d3-delaunay + Kruskal, 10^6
 * uniform 3D points in under 20 s), with the 2D Delaunay + Kruskal baseline timed beside it on the same points.
 *
 *   node dist/bench/emst.cpu.js [--n 1e4,1e5,1e6] [--dim 2,3] [--kind uniform,normal] [--min-samples 1]
 *                               [--threads T] [--reps 3] [--no-delaunay] [--json]
 *
 * Seeded data (src/datasets), one untimed warm-up at n = 20,000 (JIT), then `reps` timed runs: wall and process CPU
 * time, min and median, per-phase wall times under the `emst::…` labels of the fastest run. Every run checks its
 * answer (n − 1 edges, no cycle, canonical order: src/emst/check.ts), and in 2D its total weight against Delaunay +
 * Kruskal (1e-6 relative). d3-delaunay is a dev dependency: without it the baseline is skipped and said so.
 * The EMST runs as emst() runs it (emstCpuAsync): its k-NN phase and rounds on `--threads` threads, by default the
 * library's (min(available parallelism, 8) from 50,000 points on); the warm-up starts those workers too.
 * CPU time counts every thread of the process (workers, the garbage collector).
 */
import { cpus } from 'node:os';
import { execFileSync } from 'node:child_process';
import { generate, type GeneratorName } from '../datasets/generate.js';
import { emstCpuAsync, type EmstCpuResult } from '../emst/boruvka.cpu.js';
import { resolveThreads } from '../host/threads.js';
import { checkSpanningTree, relativeDifference } from '../emst/check.js';
import { metricOf } from '../emst/metric.js';

export interface EmstCpuFigure {
  kind: GeneratorName;
  n: number;
  dim: number;
  minSamples: number;
  /** Threads of the k-NN phase and the Borůvka rounds. */
  threads: number;
  reps: number;
  wallMinMs: number;
  wallMedianMs: number;
  cpuMinMs: number;
  /** Per-phase wall times of the fastest run (ms). */
  phases: Record<string, number>;
  rounds: number;
  totalWeight: number;
  /** Delaunay + Kruskal on the same points (2D only): wall min / median, and the weight agreement. */
  delaunay?: { wallMinMs: number; wallMedianMs: number; relativeDifference: number };
}

export interface EmstCpuBenchOptions {
  sizes?: number[];
  dims?: number[];
  kinds?: GeneratorName[];
  minSamples?: number;
  /** Threads of the k-NN phase and the Borůvka rounds (default: the library's for each n). */
  threads?: number;
  reps?: number;
  delaunay?: boolean;
  log?: (line: string) => void;
}

type DelaunayCtor = new (points: Float64Array) => { triangles: Uint32Array; halfedges: Int32Array };

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Delaunay + Kruskal in float64 (the method of test/helpers/delaunay.ts, for general-position input). */
function delaunayKruskal(Delaunay: DelaunayCtor, points: Float32Array): number {
  const n = points.length >> 1;
  const { triangles, halfedges } = new Delaunay(Float64Array.from(points));
  const m = triangles.length;
  const a = new Uint32Array(m);
  const b = new Uint32Array(m);
  const w = new Float64Array(m);
  let edges = 0;
  for (let e = 0; e < m; e++) {
    if (halfedges[e] > e) continue;
    const u = triangles[e];
    const v = triangles[e % 3 === 2 ? e - 2 : e + 1];
    const dx = points[2 * u] - points[2 * v];
    const dy = points[2 * u + 1] - points[2 * v + 1];
    a[edges] = u;
    b[edges] = v;
    w[edges++] = Math.sqrt(dx * dx + dy * dy);
  }
  // Sort by weight with the native numeric sort: key = (float32 bits of w) · 2^22 + e, an exact integer below 2^53
  // (w >= 0, so its sign bit is 0; e < 2^22 edges). Near-ties thus order by float32 weight, then edge id.
  if (edges >= 1 << 22) throw new Error(`bench::emst.cpu: ${edges} Delaunay edges exceed the 2^22 this sort packs`);
  const bits = new Uint32Array(new Float32Array(w.subarray(0, edges)).buffer);
  const keyed = new Float64Array(edges);
  for (let e = 0; e < edges; e++) keyed[e] = bits[e] * 4194304 + e;
  keyed.sort();
  const parent = new Int32Array(n);
  for (let i = 0; i < n; i++) parent[i] = i;
  const find = (x: number) => {
    while (parent[x] !== x) x = parent[x] = parent[parent[x]];
    return x;
  };
  let total = 0;
  for (let r = 0, joined = 0; r < edges && joined < n - 1; r++) {
    const e = keyed[r] % 4194304;
    const ra = find(a[e]);
    const rb = find(b[e]);
    if (ra === rb) continue;
    parent[ra < rb ? rb : ra] = ra < rb ? ra : rb;
    total += w[e];
    joined++;
  }
  return total;
}

/** Runs the benchmark; returns one figure per (kind, dim, n). */
export async function benchEmstCpu(options: EmstCpuBenchOptions = {}): Promise<EmstCpuFigure[]> {
  const log = options.log ?? ((line: string) => console.log(line));
  const reps = options.reps ?? 3;
  const minSamples = options.minSamples ?? 1;
  let Delaunay: DelaunayCtor | null = null;
  if (options.delaunay !== false) {
    try {
      const moduleName = 'd3-delaunay';
      Delaunay = ((await import(moduleName)) as { Delaunay: DelaunayCtor }).Delaunay;
    } catch {
      log('bench::emst.cpu: d3-delaunay is not installed (a dev dependency): no Delaunay + Kruskal baseline.');
    }
  }
  // JIT warm-up, on as many threads as the largest size will use.
  const warmThreads = await resolveThreads(options.threads, Math.max(...(options.sizes ?? [1e6])));
  await emstCpuAsync(generate('uniform', { n: 20000, dim: 2, seed: 99 }), 2, { metric: metricOf(minSamples), threads: warmThreads });
  const figures: EmstCpuFigure[] = [];
  for (const kind of options.kinds ?? (['uniform'] as GeneratorName[])) {
    for (const dim of options.dims ?? [2, 3]) {
      for (const n of options.sizes ?? [1e4, 1e5, 1e6]) {
        const points = generate(kind, { n, dim, seed: 1 });
        const threads = await resolveThreads(options.threads, n);
        const wall: number[] = [];
        const cpu: number[] = [];
        let best: EmstCpuResult | null = null;
        for (let r = 0; r < reps; r++) {
          const c0 = cpuMs();
          const t0 = performance.now();
          const result = await emstCpuAsync(points, dim, { metric: metricOf(minSamples), threads });
          wall.push(performance.now() - t0);
          cpu.push(cpuMs() - c0);
          const check = checkSpanningTree(n, result);
          if (!check.ok) throw new Error(`bench::emst.cpu ${kind} d=${dim} n=${n}: ${check.problems.join(' ')}`);
          if (best === null || wall[r] === Math.min(...wall)) best = result;
        }
        const totalWeight = best!.weights.reduce((s, x) => s + x, 0);
        const figure: EmstCpuFigure = {
          kind, n, dim, minSamples, threads, reps,
          wallMinMs: Math.min(...wall), wallMedianMs: median(wall), cpuMinMs: Math.min(...cpu),
          phases: best!.timings, rounds: best!.rounds, totalWeight,
        };
        if (dim === 2 && minSamples === 1 && Delaunay !== null) {
          const dwall: number[] = [];
          let total = 0;
          for (let r = 0; r < reps; r++) {
            const t0 = performance.now();
            total = delaunayKruskal(Delaunay, points);
            dwall.push(performance.now() - t0);
          }
          const rel = relativeDifference(totalWeight, total);
          if (rel > 1e-6) throw new Error(`bench::emst.cpu ${kind} n=${n}: total ${totalWeight} vs Delaunay ${total}`);
          figure.delaunay = { wallMinMs: Math.min(...dwall), wallMedianMs: median(dwall), relativeDifference: rel };
        }
        figures.push(figure);
        log(formatFigure(figure));
      }
    }
  }
  return figures;
}

function formatFigure(f: EmstCpuFigure): string {
  const phases = Object.entries(f.phases).map(([k, v]) => `${k.replace('emst::', '')} ${v.toFixed(0)}`).join(', ');
  const base = `${f.kind} d=${f.dim} n=${f.n} minSamples=${f.minSamples} threads=${f.threads}: wall ${f.wallMinMs.toFixed(0)} ms (median ${f.wallMedianMs.toFixed(0)}), cpu ${f.cpuMinMs.toFixed(0)} ms, ${f.rounds} rounds [${phases}] checked`;
  if (!f.delaunay) return base;
  return `${base}; Delaunay + Kruskal ${f.delaunay.wallMinMs.toFixed(0)} ms (median ${f.delaunay.wallMedianMs.toFixed(0)}), total weight within ${f.delaunay.relativeDifference.toExponential(1)}`;
}

function parseList<T>(args: string[], flag: string, parse: (s: string) => T): T[] | undefined {
  const i = args.indexOf(flag);
  return i < 0 ? undefined : args[i + 1].split(',').map(parse);
}

async function main(args: string[]): Promise<void> {
  const commit = process.env.TREELINE_COMMIT || (() => {
    try {
      return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return 'unknown';
    }
  })();
  console.log(`bench::emst.cpu on ${cpus()[0]?.model ?? 'unknown CPU'} × ${cpus().length}, node ${process.version}, commit ${commit}, ${new Date().toISOString()}`);
  const figures = await benchEmstCpu({
    sizes: parseList(args, '--n', Number),
    dims: parseList(args, '--dim', Number),
    kinds: parseList(args, '--kind', (s) => s as GeneratorName),
    minSamples: parseList(args, '--min-samples', Number)?.[0],
    threads: parseList(args, '--threads', Number)?.[0],
    reps: parseList(args, '--reps', Number)?.[0],
    delaunay: !args.includes('--no-delaunay'),
  });
  if (args.includes('--json')) console.log(JSON.stringify(figures, null, 2));
}

if (typeof process !== 'undefined' && process.argv[1]?.endsWith('emst.cpu.js')) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
