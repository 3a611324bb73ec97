/**
 * The MST-statistics batch task (issue 20, §3): one catalogue's histograms on given bins, computed by a worker —
 * one `stats --compare` file, or one `--jitter` / `--subsample` realisation rebuilt on the worker from the
 * catalogue (stored once per run) and the realisation's seed (src/stats/realisations.ts: realisationPoints is
 * deterministic on every machine). The coordinator's side is coordinator.stats.ts.
 *
 *   request  meta { options: StatsTaskOptions, realisation?: RealisationTask }
 *            arrays { points } (a --compare file's points), or none (a realisation: the run's `catalogue` object),
 *                   and `bins.<statistic>`: the catalogue's bin edges (binsOf)
 *   reply    meta { n, numEdges, numBranches, normalised }
 *            arrays `<statistic>.edges|x|counts|y` for the four statistics (Float64Array)
 */
import { mstStats, type MstStatsOptions } from '../stats/mstStats.js';
import { realisationPoints, type RealisationTask } from '../stats/realisations.js';
import { STAT_NAMES, type Histogram, type MstHistograms } from '../stats/types.js';
import type { MstBins } from '../stats/histogram.js';
import { heldThreads } from '../host/threads.js';
import { MAX_DEFAULT_THREADS } from '../host/thresholds.js';
import type { TaskEnv, TaskMessage } from './types.js';

/** The mstStats options a task carries (the backend, GPU context and threads are the worker's own). */
export interface StatsTaskOptions {
  dim: number;
  coords?: 'cartesian' | 'radec';
  box?: number[];
  minEdgeLength?: number;
  normalise?: boolean;
}

/** The name of the run object holding the catalogue's points (a realisation batch). */
export const CATALOGUE_OBJECT = 'catalogue';

const HISTOGRAM_FIELDS = ['edges', 'x', 'counts', 'y'] as const;

/** The four histograms as a reply's arrays and meta. */
export function histogramsMessage(h: MstHistograms, meta: TaskMessage['meta']): TaskMessage {
  const arrays: TaskMessage['arrays'] = {};
  const normalised: Record<string, boolean> = {};
  for (const name of STAT_NAMES) {
    for (const f of HISTOGRAM_FIELDS) arrays[`${name}.${f}`] = h[name][f];
    normalised[name] = h[name].normalised;
  }
  return { meta: { ...meta, normalised }, arrays };
}

/** The four histograms back from `histogramsMessage`'s message. */
export function messageHistograms(m: TaskMessage): MstHistograms {
  const normalised = m.meta.normalised as Record<string, boolean>;
  const out = {} as Record<string, Histogram>;
  for (const name of STAT_NAMES) {
    const field = (f: string): Float64Array => {
      const a = m.arrays[`${name}.${f}`];
      if (!(a instanceof Float64Array)) throw new Error(`A statistics reply lacks ${name}.${f} (Float64Array).`);
      return a;
    };
    out[name] = {
      edges: field('edges'),
      x: field('x'),
      counts: field('counts'),
      y: field('y'),
      normalised: !!normalised?.[name],
    };
  }
  return out as unknown as MstHistograms;
}

/** The bins as arrays `bins.<statistic>` (each statistic's edges). */
export function binsArrays(bins: MstBins): TaskMessage['arrays'] {
  const arrays: TaskMessage['arrays'] = {};
  for (const name of STAT_NAMES) {
    const b = bins[name];
    if (b !== undefined) arrays[`bins.${name}`] = Float64Array.from(b as ArrayLike<number>);
  }
  return arrays;
}

function arraysBins(m: TaskMessage): MstBins {
  const bins: MstBins = {};
  for (const name of STAT_NAMES) {
    const a = m.arrays[`bins.${name}`];
    if (a !== undefined) bins[name] = a;
  }
  return bins;
}

/** The worker's side: `objects` loads (once per run) a stored object such as the catalogue. */
export async function statsTask(
  msg: TaskMessage,
  env: TaskEnv,
  objects: (name: string) => Promise<TaskMessage>,
): Promise<TaskMessage> {
  const options = msg.meta.options as unknown as StatsTaskOptions;
  const task = msg.meta.realisation as unknown as RealisationTask | undefined;
  let points: Float32Array;
  if (task) {
    const catalogue = (await objects(CATALOGUE_OBJECT)).arrays.points;
    if (!(catalogue instanceof Float32Array) && !(catalogue instanceof Float64Array)) {
      throw new Error("the run's catalogue object lacks its points.");
    }
    points = realisationPoints(catalogue, task);
  } else {
    const p = msg.arrays.points;
    if (!(p instanceof Float32Array)) throw new Error('a statistics task lacks its points (Float32Array).');
    points = p;
  }
  const o: MstStatsOptions = {
    dim: options.dim,
    ...(options.coords ? { coords: options.coords } : {}),
    ...(options.box ? { box: options.box } : {}),
    ...(options.minEdgeLength ? { minEdgeLength: options.minEdgeLength } : {}),
    ...(options.normalise !== undefined ? { normalise: options.normalise } : {}),
    bins: arraysBins(msg),
    arrays: false,
    backend: env.backend,
    ...(env.gpu ? { gpu: env.gpu } : {}),
    // --threads, else emst()'s default held to the worker's share of its host (as the partition tasks' MSTs).
    threads: env.threads ?? (await heldThreads(env.hostThreads, points.length / options.dim, MAX_DEFAULT_THREADS)),
  };
  const r = await mstStats(points, o);
  return histogramsMessage(r.histograms, { n: r.n, numEdges: r.numEdges, numBranches: r.numBranches });
}
