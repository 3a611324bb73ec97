/** `treeline bench`: runs benchmark suites on the GPU and prints figures with device, driver, commit and date. */
import { createGpuContext } from '../gpu/context.js';
import { InputError } from '../errors.js';
import { runCase, type BenchFigure } from '../bench/harness.js';
import { benchEnvironment } from '../bench/environment.js';
import { suites } from '../bench/suites.js';
import { benchHdbscan } from '../bench/hdbscan.js';
import { benchStats } from '../bench/stats.js';
import type { GeneratorName } from '../datasets/generate.js';
import { plural } from './options.js';

/** Host-timed end-to-end suites (points in memory → labels in memory). */
const hostSuites: Record<
  string,
  { dim: number; kind: 'blobs' | 'normal'; sizes: number[]; what: string; float64?: boolean }
> = {
  'hdbscan-blobs2d': { dim: 2, kind: 'blobs', sizes: [1e6, 1e7], what: 'blobs 2D' },
  'hdbscan-normal3d': { dim: 3, kind: 'normal', sizes: [1e6, 1e7], what: 'normal 3D' },
  // The same points as a Float64Array (numpy's default): rounded to float32 on the way to the GPU (issue 17 §4).
  'hdbscan-normal3d-f64': {
    dim: 3,
    kind: 'normal',
    sizes: [1e6, 1e7],
    what: 'normal 3D as a Float64Array',
    float64: true,
  },
};

/** Host-timed MST statistics suites (points in memory → histograms in memory), issue 7. */
const statsSuites: Record<string, { dim: number; kind: GeneratorName; sizes: number[]; box?: number[]; what: string }> =
  {
    'stats-uniform3d': { dim: 3, kind: 'uniform', sizes: [1e7, 1e8], what: 'uniform 3D, open box' },
    'stats-cosmology3d': {
      dim: 3,
      kind: 'cosmology',
      sizes: [1e7],
      box: [1000, 1000, 1000],
      what: 'clustered cosmology-like 3D, periodic box 1000',
    },
  };

/** Every suite `treeline bench` knows, with what it measures: `bench --help` lists these (so the list cannot drift). */
export function benchSuitesHelp(): string {
  const rows: [string, string][] = [
    ...Object.entries(suites).map(([name, s]): [string, string] => [name, s.description]),
    ...Object.entries(hostSuites).map(([name, s]): [string, string] => [
      name,
      `hdbscan() end to end, host points → host labels, ${s.what}, minClusterSize 15 (sizes ${s.sizes.join(', ')})`,
    ]),
    ...Object.entries(statsSuites).map(([name, s]): [string, string] => [
      name,
      `mstStats() end to end, ${s.what} (sizes ${s.sizes.join(', ')})`,
    ]),
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  return [
    '',
    'Suites (none named: all but the hdbscan-* and stats-* ones):',
    ...rows.map(([name, what]) => `  ${name.padEnd(width)}  ${what}`),
  ].join('\n');
}

export interface BenchOptions {
  sizes?: number[];
  /** Input files, for suites that read them (graph). */
  inputs?: string[];
  reps: number;
  warmup: number;
  json: boolean;
  disableRobustness: boolean;
  /** Host threads of the hdbscan suites (hdbscan()'s `threads`; its default when absent). */
  threads?: number;
}

export async function runBench(names: string[], opts: BenchOptions, log: (s: string) => void): Promise<string> {
  const chosen = names.length ? names : Object.keys(suites);
  for (const name of chosen) {
    if (!suites[name] && !hostSuites[name] && !statsSuites[name])
      throw new InputError(
        `Unknown benchmark '${name}'; known: ${[...Object.keys(suites), ...Object.keys(hostSuites), ...Object.keys(statsSuites)].join(', ')}`,
      );
  }
  const ctx = await createGpuContext({ disableRobustness: opts.disableRobustness });
  try {
    const env = benchEnvironment(ctx);
    log(`device: ${env.device}\ndriver: ${env.driver}\ncommit: ${env.commit}  date: ${env.date}  node: ${env.node}`);
    log(`robustness: ${opts.disableRobustness ? 'disabled (disable_robustness)' : 'on (default)'}`);
    const figures: BenchFigure[] = [];
    for (const name of chosen) {
      const st = statsSuites[name];
      if (st) {
        for (const n of opts.sizes ?? st.sizes) {
          const rows = await benchStats(ctx, n, st.dim, st.kind, opts.reps, st.box);
          const best = rows.reduce((a, b) => (b.wallMs < a.wallMs ? b : a));
          const med = (f: (r: (typeof rows)[number]) => number) => rows.map(f).sort((a, b) => a - b)[rows.length >> 1];
          log(
            `${name} n=${n} (${st.what}; host points → host histograms): wall min ${best.wallMs.toFixed(1)} ms ` +
              `(median ${med((r) => r.wallMs).toFixed(1)}; ${rows.length} reps) = EMST ${best.emstMs.toFixed(1)} ms + ` +
              `statistics ${best.statsMs.toFixed(1)} ms (median ${med((r) => r.statsMs).toFixed(1)}): statistics / EMST = ` +
              `${(best.statsMs / best.emstMs).toFixed(2)} | ${plural(best.branches, 'branch', 'branches')} | ${best.backend}\n` +
              `  phases (ms): ${Object.entries(best.phases)
                .map(([k, v]) => `${k} ${v.toFixed(1)}`)
                .join(', ')}`,
          );
        }
        continue;
      }
      const host = hostSuites[name];
      if (host) {
        for (const n of opts.sizes ?? host.sizes) {
          const rows = await benchHdbscan(ctx, n, host.dim, host.kind, opts.reps, opts.threads, host.float64);
          const walls = rows.map((r) => r.wallMs).sort((a, b) => a - b);
          const best = rows.reduce((a, b) => (b.wallMs < a.wallMs ? b : a));
          log(
            `${name} n=${n} (minClusterSize 15, end to end from host points to host labels${opts.threads ? `, ${opts.threads} threads` : ''}): wall min ` +
              `${walls[0].toFixed(1)} ms, median ${walls[walls.length >> 1].toFixed(1)} ms (${rows.length} reps) | ` +
              `${plural(best.clusters, 'cluster')}, ${best.noise} noise | host memory ${best.hostPeak ? 'peak' : 'growth'} ${Math.max(...rows.map((r) => r.hostBytesPerPoint)).toFixed(0)} B/point (most of any repetition) | ` +
              `GPU memory peak ${best.gpuBytesPerPoint.toFixed(1)} B/point, MST alone ${best.mstGpuBytesPerPoint.toFixed(1)}: the clustering adds ${(best.gpuBytesPerPoint - best.mstGpuBytesPerPoint).toFixed(1)} (Must ≤ 48)\n` +
              `  phases (ms): ${Object.entries(best.phases)
                .map(([k, v]) => `${k} ${v.toFixed(1)}`)
                .join(', ')}`,
          );
        }
        continue;
      }
      const suite = suites[name];
      if (suite.fromFile) {
        if (!opts.inputs?.length) throw new InputError(`The '${name}' benchmark needs --input FILE (one or more).`);
        for (const path of opts.inputs) {
          let n = 0;
          const f = await runCase(
            ctx,
            name,
            0,
            async () => {
              const c = await suite.fromFile!(ctx, path);
              n = c.n;
              return c;
            },
            { reps: opts.reps, warmup: opts.warmup, rates: (ms) => suite.rates(n, ms) },
          );
          f.n = n;
          figures.push(f);
          log(formatFigure(f));
        }
        continue;
      }
      for (const n of opts.sizes ?? suite.defaultSizes) {
        const f = await runCase(ctx, name, n, () => suite.make(ctx, n), {
          reps: opts.reps,
          warmup: opts.warmup,
          rates: (ms) => suite.rates(n, ms),
        });
        figures.push(f);
        log(formatFigure(f));
      }
    }
    return opts.json
      ? JSON.stringify({ environment: env, robustness: !opts.disableRobustness, figures }, null, 2) + '\n'
      : '';
  } finally {
    await ctx.destroy();
  }
}

export function formatFigure(f: BenchFigure): string {
  const rates = Object.entries(f.rates)
    .map(([k, v]) => `${v.toFixed(2)} ${k}`)
    .join(', ');
  const phases = Object.entries(f.phases)
    .map(([k, v]) => `${k} ${v.toFixed(3)}`)
    .join(', ');
  return (
    `${f.name} n=${f.n}: GPU min ${f.gpuMinMs.toFixed(3)} ms, median ${f.gpuMedianMs.toFixed(3)} ms ` +
    `(wall min ${f.wallMinMs.toFixed(3)}, median ${f.wallMedianMs.toFixed(3)}; ${f.reps} reps) | ${rates} | ` +
    `peak ${(f.peakBytes / 2 ** 20).toFixed(1)} MiB | checked: ${f.checked ? 'yes' : 'NO'}${f.notes ? ` | ${f.notes}` : ''}\n  phases (ms): ${phases}` +
    `\n  per repetition (ms): ${f.gpuMs.map((x) => x.toFixed(2)).join(', ')}`
  );
}
