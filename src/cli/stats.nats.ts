/**
 * `treeline stats … --nats <url>`: the realisations of a statistics batch measured by `treeline worker` processes
 * (issue 20, §3) — each `--compare` file (read here, its points sent as the task) and each `--jitter` /
 * `--subsample` realisation (the catalogue stored once in the run's object store; each task carries only the
 * realisation's seed, and the worker rebuilds its points: realisationPoints is deterministic). The histograms come
 * back on the catalogue's bins, so the output equals the local run's. The worker's side is
 * src/distributed/worker.stats.ts.
 */
import { InputError } from '../errors.js';
import { bodyLimit, putMessage } from '../distributed/nats.js';
import { untilAborted } from '../distributed/nats.jobs.js';
import { binsArrays, CATALOGUE_OBJECT, messageHistograms, type StatsTaskOptions } from '../distributed/worker.stats.js';
import type { RunRealisation } from '../stats/realisations.js';
import type { NatsCliOptions } from './nats.js';
import { closeBatchRun, openBatchRun } from './nats.batch.js';
import { periodicBox, plural, readInputPoints } from './options.js';
import type { StatsCliOptions, StatsRunners } from './stats.js';

/** Tasks a statistics batch keeps on the queue at once (every worker busy, results placed by index). */
const IN_FLIGHT = 256;

export interface StatsNatsRun {
  runners: StatsRunners;
  /** Takes its queued tasks off the queue, removes the run's objects and disconnects (closeBatchRun). */
  close(): Promise<void>;
}

/**
 * Connects and returns the runners computeStats takes (`catalogue`: the catalogue's path, for messages). `signal`:
 * the command's interrupt, which stops every wait for a realisation at once (AbortError).
 */
export async function statsNatsRunners(
  o: StatsCliOptions & NatsCliOptions,
  catalogue: string,
  log: (line: string) => void,
  signal?: AbortSignal,
): Promise<StatsNatsRun> {
  const batch = await openBatchRun(o, 'stats', log);
  const { nc, run, jobs } = batch;
  const options = (dim: number, box?: number[]): StatsTaskOptions => ({
    dim,
    coords: o.coords === 'radec' ? 'radec' : 'cartesian',
    ...(box ? { box } : {}),
    ...(o.minEdgeLength ? { minEdgeLength: o.minEdgeLength } : {}),
    normalise: !o.counts,
  });
  let catalogueDim = 0;
  let stored: Promise<unknown> | null = null;
  const realisation: RunRealisation = async (_r, _points, task, batch) => {
    // The catalogue once per run, whichever realisation comes first.
    stored ??= putMessage(
      jobs.store,
      CATALOGUE_OBJECT,
      { meta: {}, arrays: { points: batch.catalogue } },
      bodyLimit(nc),
    );
    await untilAborted(stored, signal, 'storing the catalogue');
    const reply = await jobs.submit(
      'mstStats',
      undefined,
      {
        meta: { options: { ...options(task.dim, task.box) }, realisation: { ...task } },
        arrays: binsArrays(batch.bins),
      },
      signal,
    );
    return messageHistograms(reply);
  };
  log(`stats: run ${run} on the workers at ${o.nats}`);
  return {
    runners: {
      concurrency: IN_FLIGHT,
      realisation,
      async compare(file, _index, bins) {
        const tab = await readInputPoints(file, o);
        if (catalogueDim === 0) catalogueDim = (await readInputPoints(catalogue, o)).dim;
        if (tab.dim !== catalogueDim)
          throw new InputError(`${file}: ${plural(tab.dim, 'column')}, but ${catalogue} has ${catalogueDim}.`);
        const reply = await jobs.submit(
          'mstStats',
          undefined,
          {
            meta: { options: { ...options(tab.dim, periodicBox(tab.dim, o.periodic)) } },
            arrays: { points: tab.points, ...binsArrays(bins) },
          },
          signal,
        );
        const m = reply.meta;
        return {
          file,
          n: Number(m.n),
          numEdges: Number(m.numEdges),
          numBranches: Number(m.numBranches),
          histograms: messageHistograms(reply),
        };
      },
    },
    close: () => closeBatchRun(batch),
  };
}
