/**
 * issue 20, defect: the batch tasks (a `stats --nats` catalogue or realisation: statsTask, worker.stats.ts; an
 * `hdbscan a b c --nats` file: hdbscanFileTask, cli/hdbscan.nats.ts) ignored the worker's share of its host
 * (TaskEnv.hostThreads, worker.host.ts): without --threads they took their calls' own defaults — up to 8 threads for
 * the MST, 16 for hdbscan's passes beside a GPU — however many workers shared the host. They now hold those defaults
 * to the share as the partition tasks do: the share from the calls' size threshold on (50,000 points; one thread
 * below it, as before), the default where the share is not less, --threads where given.
 *
 * The calls are wrapped here to see the `threads` they get (mstStats; hdbscanSweep, hdbscan()'s entry for the CLI;
 * readInputPoints, hdbscan's file read); they compute as usual. The file's read was not held either (its reads in
 * flight on libuv's threads, 4, however small the share): it now takes --threads, else the share.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { statsTask } from '../../src/distributed/worker.stats.js';
import { hdbscanFileTask } from '../../src/cli/hdbscan.nats.js';
import type { TaskEnv } from '../../src/distributed/types.js';
import { writeNpy } from '../../src/io/npy.js';
import { cloud } from '../helpers/clouds.js';

/** The `threads` each wrapped call was given, in order; and each file read's (readInputPoints'). */
const seen = vi.hoisted(() => ({ threads: [] as (number | undefined)[], reads: [] as (number | undefined)[] }));

vi.mock('../../src/cli/options.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/cli/options.js')>();
  return {
    ...real,
    readInputPoints: (...args: Parameters<typeof real.readInputPoints>) => {
      seen.reads.push(args[2]?.threads);
      return real.readInputPoints(...args);
    },
  };
});

vi.mock('../../src/stats/mstStats.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/stats/mstStats.js')>();
  return {
    ...real,
    mstStats: (...args: Parameters<typeof real.mstStats>) => {
      seen.threads.push(args[1].threads);
      return real.mstStats(...args);
    },
  };
});

vi.mock('../../src/hdbscan.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/hdbscan.js')>();
  return {
    ...real,
    hdbscanSweep: (...args: Parameters<typeof real.hdbscanSweep>) => {
      seen.threads.push(args[1].threads);
      return real.hdbscanSweep(...args);
    },
  };
});

const dir = mkdtempSync(join(tmpdir(), 'treeline-worker-tasks-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeEach(() => {
  seen.threads.length = 0;
  seen.reads.length = 0;
});

/** Above the threads' size threshold (THRESHOLDS.emstThreadsMinPoints, 50,000), and below it. */
const BIG = 60_000;
const SMALL = 2_000;

/**
 * A worker's envs and the threads each gives at n points: --threads 3; shares of 1 and 2 threads (2 on a host of 2 or
 * more cores); a share of 16 (not less than any default here).
 */
const envs: [string, TaskEnv, (n: number) => number | undefined][] = [
  ['--threads 3', { backend: 'cpu', threads: 3, hostThreads: 1 }, () => 3],
  ['a share of 1', { backend: 'cpu', hostThreads: 1 }, () => 1],
  ['a share of 2', { backend: 'cpu', hostThreads: 2 }, (n) => (n >= 50_000 ? Math.min(2, availableParallelism()) : 1)],
  ['a share of 16', { backend: 'cpu', hostThreads: 16 }, () => undefined],
];

describe('statsTask(msg, env): the MST threads', () => {
  for (const [name, env, want] of envs) {
    it(`${name}: ${[BIG, SMALL].map((n) => `${want(n) ?? 'the default'} at ${n} points`).join(', ')}`, async () => {
      for (const n of [BIG, SMALL]) {
        const reply = await statsTask(
          { meta: { options: { dim: 3 } }, arrays: { points: cloud('uniform', n, 3, 5) } },
          env,
          () => Promise.reject(new Error('no objects here')),
        );
        expect(reply.meta.numEdges).toBe(n - 1);
      }
      expect(seen.threads).toEqual([want(BIG), want(SMALL)]);
    }, 60_000);
  }
});

describe('hdbscanFileTask(msg, env): the clustering threads', () => {
  const inputs = [BIG, SMALL].map((n) => {
    const file = join(dir, `points-${n}.npy`);
    writeFileSync(file, writeNpy(cloud('clustered', n, 3, 9), [n, 3]));
    return file;
  });
  const options = { minClusterSize: [25], method: 'eom', epsilon: 0, maxClusterSize: 0, alpha: 1, backend: 'cpu' };
  for (const [name, env, want] of envs) {
    it(`${name}: ${[BIG, SMALL].map((n) => `${want(n) ?? 'the default'} at ${n} points`).join(', ')}`, async () => {
      for (const input of inputs) {
        const output = join(dir, `${name.replace(/\W+/g, '-')}-${input.slice(dir.length + 1)}.csv`);
        const reply = await hdbscanFileTask({ meta: { item: { input, output }, options }, arrays: {} }, env);
        expect((reply.meta.summary as string[]).length).toBeGreaterThan(0);
      }
      expect(seen.threads).toEqual([want(BIG), want(SMALL)]);
      // The file's read (a large body's reads in flight) is held to the worker's threads whatever the file's size:
      // --threads, else the share.
      expect(seen.reads).toEqual([env.threads ?? env.hostThreads, env.threads ?? env.hostThreads]);
    }, 60_000);
  }
});
