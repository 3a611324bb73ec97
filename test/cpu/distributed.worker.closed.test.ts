/**
 * issue 20, defect: a worker whose connection closed under it for good (the server refused it on a reconnect, or
 * closed it; here the test closes it) rejected out of runWorker with ClosedConnectionError where its task in hand was on
 * its last delivery: the task's failure is told in a note (nc.publish), which throws on a closed connection. (Its acks,
 * naks and `working` heartbeats do not throw: nats.js drops a message's reply on a closed connection.) On an earlier
 * delivery it logged that it returned the task for a retry — a nak that never left — and counted it. It now ends its
 * loop with one line naming the task in hand (JetStream hands it out again after its ack wait) and resolves with its
 * summary, as a stopped worker does; closed while it waits for a task, the same line without one. One nats-server
 * (random loopback port), the worker in this process, its connection taken as it is made (connectNats wrapped).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import * as nats from '../../src/distributed/nats.js';
import { NatsJobs } from '../../src/distributed/nats.jobs.js';
import { PARTITION_TASKS } from '../../src/distributed/partition.tasks.js';
import { runWorker } from '../../src/distributed/worker.js';
import type { BatchTask } from '../../src/distributed/worker.tasks.js';
import { startNatsServer, type NatsServer } from '../helpers/nats.js';

/** The connections runWorker made (name 'treeline worker'). */
const workerConnections: NatsConnection[] = [];
vi.mock(import('../../src/distributed/nats.js'), async (original) => {
  const real = await original();
  return {
    ...real,
    connectNats: async (o: nats.NatsOptions) => {
      const nc = await real.connectNats(o);
      if (o.name === 'treeline worker') workerConnections.push(nc);
      return nc;
    },
  };
});

let server: NatsServer;
let nc: NatsConnection;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await nats.connectNats({ url: server.url });
}, 60_000);

afterAll(async () => {
  await nc?.close();
  await server?.stop();
}, 30_000);

describe('runWorker: its connection closed under it', () => {
  for (const maxAttempts of [3, 1]) {
    it(`while a task computes (heartbeats due, its result not stored), its ${maxAttempts === 1 ? 'last' : 'first'} delivery: one line naming the task, none returned or failed, and runWorker resolves with its summary`, async () => {
      const run = `closed-under-worker-${maxAttempts}`;
      const jobs = await NatsJobs.open(nc, run, { fresh: true });
      let calls = 0;
      // The task closes its worker's connection, then computes past several heartbeats.
      const cut: BatchTask = async () => {
        calls++;
        await workerConnections.at(-1)!.close();
        await new Promise((r) => setTimeout(r, 500));
        return { meta: {}, arrays: {} };
      };
      const log: string[] = [];
      const controller = new AbortController();
      const done = runWorker({
        url: server.url,
        env: { backend: 'cpu', threads: 1 },
        partitionTasks: PARTITION_TASKS,
        batchTasks: { cut },
        heartbeatMs: 100,
        maxAttempts,
        presenceMs: 150,
        signal: controller.signal,
        log: (line) => log.push(line),
      });
      try {
        jobs.submit('cut', undefined, { meta: {}, arrays: {} }).catch(() => undefined);
        const timer = setTimeout(() => controller.abort(), 15_000);
        const summary = await done.finally(() => clearTimeout(timer));
        expect(controller.signal.aborted, 'runWorker ended by itself, not by the test').toBe(false);
        expect(calls).toBe(1);
        expect(summary).toEqual({ done: 0, failed: 0, retried: 0, dropped: 0, closed: true });
        const said = log.filter((l) => /connection .*closed/.test(l));
        expect(said, log.join('\n')).toHaveLength(1);
        expect(said[0]).toMatch(
          /^worker: the connection to nats:\/\/\S+ closed, task cut \S+ in hand: it goes to another worker after its ack wait; stopping$/,
        );
      } finally {
        controller.abort();
        await done.catch(() => undefined);
        await jobs.close();
        await jobs.store.destroy();
      }
    }, 30_000);
  }

  it('while it waits for a task: one line, and runWorker resolves with its summary', async () => {
    const log: string[] = [];
    const controller = new AbortController();
    const before = workerConnections.length;
    const done = runWorker({
      url: server.url,
      env: { backend: 'cpu', threads: 1 },
      partitionTasks: PARTITION_TASKS,
      batchTasks: {},
      presenceMs: 150,
      signal: controller.signal,
      log: (line) => log.push(line),
    });
    const timer = setTimeout(() => controller.abort(), 15_000);
    try {
      for (let i = 0; i < 100 && !log.some((l) => /worker: connected/.test(l)); i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(workerConnections.length).toBe(before + 1);
      await workerConnections.at(-1)!.close();
      expect(await done).toEqual({ done: 0, failed: 0, retried: 0, dropped: 0, closed: true });
      expect(controller.signal.aborted, 'runWorker ended by itself, not by the test').toBe(false);
      expect(log.filter((l) => /connection .*closed/.test(l))).toEqual([
        expect.stringMatching(/^worker: the connection to nats:\/\/\S+ closed; stopping$/),
      ]);
    } finally {
      clearTimeout(timer);
      controller.abort();
      await done.catch(() => undefined);
    }
  }, 30_000);
});
