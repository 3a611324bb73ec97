/**
 * issue 20, defect: a worker retried the tasks of a run that had been deleted (its object store removed while its
 * tasks were in hand or still queued): each was nak'ed, redelivered and computed again until its attempts ran out,
 * and counted as retried. runWorker (src/distributed/worker.ts) drops such a task — terminated, one log line, counted
 * neither done, failed nor retried — before it computes (a queued task) or when its result cannot be stored (the task
 * in hand). One nats-server (random loopback port) and a worker in this process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectNats, jetstreamManagerOf, TASK_STREAM, taskSubject } from '../../src/distributed/nats.js';
import { NatsJobs } from '../../src/distributed/nats.jobs.js';
import type { BatchTask } from '../../src/distributed/worker.tasks.js';
import { startNatsServer, startWorkerInProcess, type NatsServer } from '../helpers/nats.js';

let server: NatsServer;
let nc: NatsConnection;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connectNats({ url: server.url });
}, 60_000);

afterAll(async () => {
  await nc?.close();
  await server?.stop();
}, 30_000);

/** Resolves once `ok()` holds, polling every 50 ms; fails after `ms`. */
async function until(ok: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const t0 = performance.now();
  while (!(await ok())) {
    if (performance.now() - t0 > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** How many of run `run`'s tasks the task stream still holds (queued, or in a worker's hands unacknowledged). */
async function queuedTasks(run: string): Promise<number> {
  const subject = taskSubject(run);
  const info = await (await jetstreamManagerOf(nc)).streams.info(TASK_STREAM, { subjects_filter: subject });
  return info.state.subjects?.[subject] ?? 0;
}

describe('runWorker: the tasks of a deleted run', () => {
  it('a run whose object store is removed with one task in hand and one queued: both dropped, neither retried nor failed', async () => {
    const run = 'deleted-run';
    let calls = 0;
    let started!: () => void;
    const inHand = new Promise<void>((r) => (started = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const hold: BatchTask = async () => {
      calls++;
      started();
      await released;
      return { meta: {}, arrays: {} };
    };
    const worker = startWorkerInProcess(server.url, { backend: 'cpu', threads: 1 }, { hold });
    try {
      const jobs = await NatsJobs.open(nc, run, { fresh: true });
      const waits = [0, 1].map((i) => jobs.submit('hold', undefined, { meta: { i }, arrays: {} }).catch(() => null));
      await inHand;
      await until(async () => (await queuedTasks(run)) === 2, 5000, 'both tasks queued');
      // The run is deleted: its coordinator gone, its object store removed; its tasks stay on the queue.
      await jobs.close();
      await jobs.store.destroy();
      await Promise.all(waits);
      release();
      await until(async () => (await queuedTasks(run)) === 0, 15_000, "the run's tasks taken off the queue");
    } finally {
      release();
    }
    const summary = await worker.stop();
    // The task in hand ran once (its result had nowhere to go); the queued one never ran.
    expect(calls).toBe(1);
    expect(summary).toEqual({ done: 0, failed: 0, retried: 0 });
    const dropped = worker.log.filter((l) => l.includes(`dropped: run ${run} is gone`));
    expect(dropped, worker.log.join('\n')).toHaveLength(2);
    expect(worker.log.filter((l) => /returned for a retry|failed for good|dropped a task message/.test(l))).toEqual([]);
  }, 30_000);
});
