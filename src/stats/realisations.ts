/**
 * MST statistics over seeded realisations of one catalogue (issue 20 §3): k copies of the catalogue, each perturbed
 * by a Gaussian positional jitter or randomly subsampled (resample.ts), measured with mstStats on the catalogue's
 * own bins, and summarised per bin by the realisations' mean and unbiased standard deviation — how much the four
 * statistics (d, l, b, √(1 − s)) move under the catalogue's positional errors, or under sampling noise at a lower
 * density (Naidoo et al. 2020, MNRAS 491, 1709, section 4: jittered realisations; the DESI MST analyses subsample
 * to a common density).
 *
 *   catalogue → its histograms     (mstStats, or `options.catalogue`): the bins every realisation is counted on
 *   r = 0 … k − 1:
 *     seed_r = seed + r            realisation r is the same whatever k is (k = 10 extends k = 5)
 *     points_r = jitter(points, σ, seed_r) | subsample(points, fraction, seed_r)   (realisationPoints)
 *     histograms_r = runOne(r, points_r, task_r)   (default: mstStats on the catalogue's bins, arrays left behind)
 *   per statistic and bin: mean and std over r  (compareStats' moments: the same numbers the --plot bands draw)
 *
 * `runOne` is the seam for running realisations elsewhere: a remote runner can ignore `points_r` and rebuild it from
 * the task (`realisationPoints(catalogue, task)`: resampling is deterministic on every machine) where the catalogue
 * already lives. Runs may overlap (`concurrency`); each result is placed by r, so the summary does not depend on the
 * order they finish in.
 *
 * Positions are perturbed on the host in float64 and rounded to float32 once (resample.ts); in a periodic box the
 * jittered points are wrapped into [0, L). The same seed gives the same points on every backend; the histograms then
 * agree as mstStats' own do (the GPU measures lengths in float32, so a value on a bin edge may fall on either side).
 */
import { AbortError, InputError } from '../errors.js';
import { batchBackend } from '../gpu/fallback.js';
import type { GpuContext } from '../gpu/context.js';
import type { ProgressCallback } from '../progress.js';
import { compareStats } from './compare.js';
import { binsOf, type MstBins } from './histogram.js';
import { mstStats, type MstStatsOptions } from './mstStats.js';
import { jitter, subsample } from './resample.js';
import { STAT_NAMES, type MstHistograms, type StatName } from './types.js';

export interface RealisationStatsOptions extends Omit<MstStatsOptions, 'emst' | 'arrays' | 'bins'> {
  /** Gaussian jitter: σ of the displacement, one for all axes or one per axis, each finite and ≥ 0. */
  jitter?: number | ArrayLike<number>;
  /** Random subsampling: keep round(fraction · n) points, fraction in (0, 1]. Exactly one of jitter and subsample. */
  subsample?: number;
  /** k, the number of realisations: an integer ≥ 1. */
  realisations: number;
  /** Realisation r uses seed + r (an integer; default 0). */
  seed?: number;
  /**
   * The catalogue's histograms, whose bins the realisations are counted on (e.g. `mstStats(points).histograms`);
   * default: computed here from `points` with `bins` (the tree then stays on the GPU).
   */
  catalogue?: MstHistograms;
  /** The catalogue's bins when `catalogue` is not given (as mstStats' `bins`). */
  bins?: MstStatsOptions['bins'];
  /** Realisations run at once (default 1): more only helps a `runOne` that runs them elsewhere. */
  concurrency?: number;
  /** Called as each realisation finishes, with its index and histograms. */
  onRealisation?: (r: number, histograms: MstHistograms) => void;
}

/** What realisation r is: enough to rebuild its points from the catalogue anywhere (realisationPoints). */
export interface RealisationTask {
  /** 0-based index. */
  r: number;
  /** Its seed: options.seed + r. */
  seed: number;
  method: 'jitter' | 'subsample';
  /** With jitter: σ (one number, or one per axis). */
  sigma?: number | number[];
  /** With subsample: the fraction kept. */
  fraction?: number;
  /** Coordinates per point of the catalogue. */
  dim: number;
  /** The periodic box the jitter wraps into (mstStats' box), if any. */
  box?: number[];
}

/**
 * Measures one realisation's points on the catalogue's bins. `batch` gives what every realisation shares — the
 * catalogue's points and the bins — for a runner that sends the catalogue to its workers once and each realisation
 * as its task alone (issue 20: the NATS runner, src/cli/stats.nats.ts).
 */
export type RunRealisation = (
  r: number,
  points: Float32Array,
  task: RealisationTask,
  batch: { catalogue: Float32Array | Float64Array; bins: MstBins },
) => Promise<MstHistograms>;

/** One statistic over the realisations, on the catalogue's bins. */
export interface RealisationMoments {
  /** Bin edges, length bins + 1 (the catalogue's). */
  edges: Float64Array;
  /** Bin centres, length bins. */
  x: Float64Array;
  /** The catalogue's own value per bin (y: normalised, or counts with `normalise: false`). */
  catalogue: Float64Array;
  /** The realisations' mean of y per bin. */
  mean: Float64Array;
  /** The realisations' unbiased (k − 1) standard deviation of y per bin; NaN with k = 1. */
  std: Float64Array;
}

export interface RealisationStats {
  method: 'jitter' | 'subsample';
  /** With jitter: σ as given. */
  sigma?: number | number[];
  /** With subsample: the fraction kept. */
  fraction?: number;
  /** k. */
  realisations: number;
  /** The first seed; realisation r used seed + r. */
  seed: number;
  /** The catalogue's histograms (the bins). */
  catalogue: MstHistograms;
  /** Each realisation's histograms, by r. */
  histograms: MstHistograms[];
  /** Per statistic: the catalogue, the realisations' mean and std per bin. */
  moments: Record<StatName, RealisationMoments>;
  /** Wall times in ms: `stats::catalogue` (when computed here), `stats::realisations`. */
  timings: Record<string, number>;
}

/** Options checked at the door: the method, its amount, k and the seed (messages name the option and the value). */
function checkOptions(options: RealisationStatsOptions): {
  method: 'jitter' | 'subsample';
  sigma?: number | number[];
  fraction?: number;
  k: number;
  seed: number;
  concurrency: number;
} {
  if (options === null || typeof options !== 'object')
    throw new InputError(`Expected an options object with { dim, realisations, jitter | subsample }, got ${options}.`);
  const { jitter: sigma, subsample: fraction, realisations: k } = options;
  if ((sigma === undefined) === (fraction === undefined)) {
    throw new InputError(
      `Expected exactly one of options.jitter (σ) and options.subsample (fraction), got jitter=${String(sigma)}, ` +
        `subsample=${String(fraction)}.`,
    );
  }
  if (!Number.isInteger(k) || k < 1)
    throw new InputError(`Expected options.realisations to be an integer ≥ 1, got ${String(k)}.`);
  const seed = options.seed ?? 0;
  if (!Number.isSafeInteger(seed) || !Number.isSafeInteger(seed + k - 1))
    throw new InputError(`Expected options.seed to be an integer, got ${String(seed)}.`);
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new InputError(`Expected options.concurrency to be an integer ≥ 1, got ${String(concurrency)}.`);
  if (sigma !== undefined) {
    if (options.coords === 'radec') {
      throw new InputError(
        `options.jitter moves positions in their own units; with coords 'radec' (degrees on the sphere) it is not ` +
          `supported: jitter Cartesian positions, or use options.subsample.`,
      );
    }
    const list = typeof sigma === 'number' ? [sigma] : Array.from(sigma as ArrayLike<number>);
    list.forEach((s, a) => {
      if (typeof s !== 'number' || !Number.isFinite(s) || s < 0) {
        const which = typeof sigma === 'number' ? '' : `[${a}]`;
        throw new InputError(`Expected options.jitter${which} (σ) to be finite and ≥ 0, got ${String(s)}.`);
      }
    });
    return { method: 'jitter', sigma: typeof sigma === 'number' ? sigma : list, k, seed, concurrency };
  }
  if (typeof fraction !== 'number' || !(fraction > 0 && fraction <= 1))
    throw new InputError(`Expected options.subsample (the fraction kept) in (0, 1], got ${String(fraction)}.`);
  return { method: 'subsample', fraction, k, seed, concurrency };
}

/** The points of realisation `task.r` of `points` (row-major n × task.dim): deterministic for the task. */
export function realisationPoints(points: Float32Array | Float64Array, task: RealisationTask): Float32Array {
  if (task.method === 'jitter') {
    return jitter(points, {
      dim: task.dim,
      sigma: task.sigma ?? 0,
      seed: task.seed,
      ...(task.box ? { box: task.box } : {}),
    });
  }
  return subsample(points, { dim: task.dim, fraction: task.fraction, seed: task.seed }).points;
}

/**
 * Runs `one(r)` for r = 0 … k − 1, at most `concurrency` at once, taken in order. The first failure stops every lane
 * from taking another r and is thrown once the running ones have ended (so what they share, a GPU context, can be
 * destroyed after); an aborted `signal` stops them the same way with AbortError.
 */
export async function runIndexed(
  k: number,
  concurrency: number,
  signal: AbortSignal | undefined,
  one: (r: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let done = 0;
  let failure: { error: unknown } | null = null;
  const lane = async (): Promise<void> => {
    while (next < k && !failure && !signal?.aborted) {
      const r = next++;
      try {
        await one(r);
        done++;
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, k) }, lane));
  if (failure) throw (failure as { error: unknown }).error;
  if (signal?.aborted) throw new AbortError(`aborted with ${done} of ${k} done.`);
}

/**
 * One realisation's histograms: mstStats of its points on `options.bins` (the catalogue's: `binsOf(catalogue)`), the
 * per-item arrays left behind (on the GPU the tree stays there). What the default runner does, and what a worker
 * runs for a remote one: `measureRealisation(realisationPoints(catalogue, task), { dim, bins, …, gpu })`.
 */
export async function measureRealisation(
  points: Float32Array,
  options: Omit<MstStatsOptions, 'emst' | 'arrays'>,
): Promise<MstHistograms> {
  return (await mstStats(points, { ...options, arrays: false })).histograms;
}

/**
 * The per-bin mean and standard deviation of the MST statistics over `options.realisations` seeded realisations of
 * `points` (jittered or subsampled), on the catalogue's bins; `runOne` measures one realisation (default: mstStats
 * here, one GPU context shared by all of them).
 *
 * @throws InputError for invalid options (naming the option and the value), and what mstStats or runOne throw.
 */
export async function realisationStats(
  points: Float32Array | Float64Array,
  options: RealisationStatsOptions,
  runOne?: RunRealisation,
): Promise<RealisationStats> {
  const checked = checkOptions(options);
  const { method, k, seed } = checked;
  const {
    jitter: _j,
    subsample: _s,
    realisations: _k,
    seed: _seed,
    catalogue: given,
    concurrency: _c,
    onRealisation,
    onProgress,
    ...statsOptions
  } = options;
  const timings: Record<string, number> = {};
  // The default runner's one context (unless the caller gave one): created on first use, destroyed at the end.
  let shared: Promise<{ backend: 'auto' | 'gpu' | 'cpu'; gpu: GpuContext | null }> | null = null;
  const local = async (): Promise<Pick<MstStatsOptions, 'backend' | 'gpu'>> => {
    if (options.gpu) return { backend: options.backend, gpu: options.gpu };
    shared ??= batchBackend('mstStats', options.backend ?? 'auto');
    const { backend, gpu } = await shared;
    return { backend, ...(gpu ? { gpu } : {}) };
  };
  // The catalogue takes the first share of the progress, each realisation an equal share of the rest.
  const share = 1 / (k + (given ? 0 : 1));
  const part = (i: number, prefix: string): ProgressCallback | undefined =>
    onProgress && ((f, phase) => onProgress(share * (i + f), phase === undefined ? undefined : prefix + phase));
  try {
    let t = performance.now();
    let catalogue = given;
    if (!catalogue) {
      const s = await mstStats(points, { ...statsOptions, ...(await local()), arrays: false, onProgress: part(0, '') });
      catalogue = s.histograms;
      timings['stats::catalogue'] = performance.now() - t;
    }
    const bins = binsOf(catalogue);
    const dim = options.dim;
    const task = (r: number): RealisationTask => ({
      r,
      seed: seed + r,
      method,
      dim,
      ...(method === 'jitter' ? { sigma: checked.sigma } : { fraction: checked.fraction }),
      ...(options.box ? { box: [...options.box] } : {}),
    });
    const first = given ? 0 : 1;
    const run: RunRealisation =
      runOne ??
      (async (r, pts) =>
        measureRealisation(pts, {
          ...statsOptions,
          ...(await local()),
          bins,
          onProgress: part(first + r, `realisation ${r + 1}/${k}: `),
        }));
    t = performance.now();
    const histograms = new Array<MstHistograms>(k);
    await runIndexed(k, checked.concurrency, options.signal, async (r) => {
      const tk = task(r);
      if (runOne) part(first + r, `realisation ${r + 1}/${k}: `)?.(0, method);
      const h = await run(r, realisationPoints(points, tk), tk, { catalogue: points, bins });
      histograms[r] = h;
      onRealisation?.(r, h);
    });
    timings['stats::realisations'] = performance.now() - t;
    // compareStats checks each realisation's bins against the catalogue's (a remote runner's too) and gives the
    // moments the plot's bands are drawn from.
    const c = compareStats(catalogue, histograms, { chi2: [] });
    const moments = {} as Record<StatName, RealisationMoments>;
    for (const name of STAT_NAMES) {
      const { edges, x, catalogue: cat, mean, std } = c[name];
      moments[name] = { edges, x, catalogue: cat, mean, std };
    }
    onProgress?.(1, 'done');
    return {
      method,
      ...(method === 'jitter' ? { sigma: checked.sigma } : { fraction: checked.fraction }),
      realisations: k,
      seed,
      catalogue,
      histograms,
      moments,
      timings,
    };
  } finally {
    const made = await (shared as Promise<{ gpu: GpuContext | null }> | null)?.catch(() => null);
    if (made?.gpu) await made.gpu.destroy();
  }
}
