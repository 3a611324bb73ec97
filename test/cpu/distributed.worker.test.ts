/**
 * issue 20, defect: a worker retried the tasks of a run that had been deleted (its object store removed while its
 * tasks were in hand or still queued): each was nak'ed, redelivered and computed again until its attempts ran out,
 * and counted as retried. runWorker (src/distributed/worker.ts) drops such a task — terminated, one log line, counted
 * neither done, failed nor retried — before it computes (a queued task) or when its result cannot be stored (the task
 * in hand). One nats-server (random loopback port) and a worker in this process.
 *
 * issue 20, defect: a worker dropped a live run's task when anything failed before the task's own try (its object
 * store not opened, or a result's info not read, during a reconnect): terminated, so its coordinator never got a
 * result and only logged stall notes. Such a task is now returned for a retry like a failed one, and its
 * maxAttempts-th delivery fails it for good (told in its note where the store takes nothing), so none loops forever.
 *
 * The dropped tasks are counted: WorkerSummary.dropped, and `treeline worker`'s stop line where there were some.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Objm } from '@nats-io/obj';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import {
  connectNats,
  ensureTaskStream,
  jetstreamManagerOf,
  TASK_STREAM,
  taskSubject,
} from '../../src/distributed/nats.js';
import { encodeTaskMessage } from '../../src/distributed/nats.codec.js';
import { NatsJobs, TaskFailedError } from '../../src/distributed/nats.jobs.js';
import type { BatchTask } from '../../src/distributed/worker.tasks.js';
import { startNatsServer, startWorker, startWorkerInProcess, stopProcess, type NatsServer } from '../helpers/nats.js';

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
    expect(calls, worker.log.join('\n')).toBe(1);
    expect(summary, worker.log.join('\n')).toEqual({ done: 0, failed: 0, retried: 0, dropped: 2 });
    const dropped = worker.log.filter((l) => l.includes(`dropped: run ${run} is gone`));
    expect(dropped, worker.log.join('\n')).toHaveLength(2);
    expect(worker.log.filter((l) => /returned for a retry|failed for good|dropped a task message/.test(l))).toEqual([]);
  }, 30_000);
});

/** Rejects after `ms`, naming `what` (a run that hangs fails its test instead of its timeout). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer!: ReturnType<typeof setTimeout>;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)),
  );
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

describe('runWorker: a failure before the task starts', () => {
  it("its run's object store not opened once (a reconnect): the task is returned for a retry and done on its redelivery", async () => {
    const run = 'store-not-opened-once';
    let calls = 0;
    const echo: BatchTask = async (body) => {
      calls++;
      return { meta: { echo: body.meta.i }, arrays: {} };
    };
    const jobs = await NatsJobs.open(nc, run, { fresh: true });
    // The worker's open of the store (the run's first task) fails once; the coordinator's store is open already.
    const open = vi.spyOn(Objm.prototype, 'open').mockRejectedValueOnce(new Error('reconnecting (a test)'));
    const worker = startWorkerInProcess(server.url, { backend: 'cpu', threads: 1 }, { echo });
    try {
      const reply = await within(jobs.submit('echo', undefined, { meta: { i: 7 }, arrays: {} }), 15_000, 'the reply');
      expect(reply.meta.echo).toBe(7);
    } finally {
      open.mockRestore();
      await jobs.close();
      await jobs.store.destroy();
    }
    const summary = await worker.stop();
    const log = worker.log.join('\n');
    expect(calls, log).toBe(1);
    expect(summary, log).toEqual({ done: 1, failed: 0, retried: 1, dropped: 0 });
    expect(log).toMatch(/could not be started \(delivery 1 of 3\), returned for a retry: reconnecting \(a test\)/);
    expect(log).not.toMatch(/dropped/);
  }, 30_000);

  it('its object store never opened: failed for good on its third delivery, the error told in its note', async () => {
    const run = 'store-never-opened';
    let calls = 0;
    const echo: BatchTask = async () => {
      calls++;
      return { meta: {}, arrays: {} };
    };
    const jobs = await NatsJobs.open(nc, run, { fresh: true });
    const open = vi.spyOn(Objm.prototype, 'open').mockRejectedValue(new Error('unreachable (a test)'));
    const worker = startWorkerInProcess(server.url, { backend: 'cpu', threads: 1 }, { echo });
    let failure: unknown;
    try {
      failure = await within(
        jobs.submit('echo', undefined, { meta: {}, arrays: {} }).then(
          () => null,
          (e: unknown) => e,
        ),
        15_000,
        "the task's failure",
      );
    } finally {
      open.mockRestore();
      await jobs.close();
      await jobs.store.destroy();
    }
    expect(failure).toBeInstanceOf(TaskFailedError);
    expect((failure as Error).message).toMatch(/could not be started: unreachable \(a test\)/);
    const summary = await worker.stop();
    // The summary counted 3 retries in loaded full runs (sessions 17–18, once since) and in 1 of 6 runs of this file
    // alone: the server (nats-server 2.9.10) delivered the task 1, 2, then 1 again and 4 — a retry's redelivery met the
    // end of the pull the worker sent after its nak (both 1 s) and was handed out again as a first delivery
    // (worker.deliveries.ts). The worker now counts on from its own deliveries ('came back as delivery 1 … counted as
    // 3' in its log) and pulls for 1.5 s. Where anything here differs, the log says which deliveries came.
    const log = `the worker's log:\n${worker.log.join('\n')}`;
    const retries = worker.log.filter((l) => /returned for a retry/.test(l));
    const finalFailures = worker.log.filter((l) => /failed for good \(delivery 3 of 3\)/.test(l));
    expect(calls, log).toBe(0);
    expect(summary, log).toEqual({ done: 0, failed: 1, retried: 2, dropped: 0 });
    expect(retries, log).toHaveLength(2);
    expect(finalFailures, log).toHaveLength(1);
    expect(await queuedTasks(run), log).toBe(0);
  }, 30_000);
});

describe('treeline worker: the stop line', () => {
  it("counts the dropped tasks where there were some ('1 dropped'), and is as before where there were none", async () => {
    await ensureTaskStream(await jetstreamManagerOf(nc));
    const args = ['--backend', 'cpu', '--threads', '1'];
    const dropping = startWorker(server.url, args);
    await dropping.waitFor(/worker: connected/);
    // A message with no task header: no worker can read it.
    await jetstream(nc).publish(taskSubject('no-task'), encodeTaskMessage({ meta: {}, arrays: {} }));
    await dropping.waitFor(/worker: dropped a task message: .*no task header/);
    expect(await stopProcess(dropping.process)).toEqual({ code: 0, signal: null });
    expect(dropping.stderr()).toContain('worker: stopped (0 done, 0 failed, 0 returned for a retry, 1 dropped)\n');

    const idle = startWorker(server.url, args);
    await idle.waitFor(/worker: connected/);
    expect(await stopProcess(idle.process)).toEqual({ code: 0, signal: null });
    expect(idle.stderr()).toContain('worker: stopped (0 done, 0 failed, 0 returned for a retry)\n');
  }, 60_000);
});
