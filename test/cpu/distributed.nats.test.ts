/**
 * issue 20: the NATS transport — a real nats-server (random loopback port, temporary store) and `treeline worker`
 * processes (the bundled CLI, CPU backend); tasks published through NatsJobs (src/distributed/nats.jobs.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats } from '../../src/distributed/nats.js';
import { NatsJobs, TaskFailedError } from '../../src/distributed/nats.jobs.js';
import type { NatsConnection } from '@nats-io/transport-node';
import { startNatsServer, startWorker, stopProcess, type NatsServer, type WorkerProcess } from '../helpers/nats.js';

let server: NatsServer;
let workers: WorkerProcess[] = [];
let nc: NatsConnection;

beforeAll(async () => {
  server = await startNatsServer();
  workers = [0, 1, 2].map(() => startWorker(server.url, ['--backend', 'cpu', '--ack-wait', '3']));
  await Promise.all(workers.map((w) => w.waitFor(/worker: connected/)));
  nc = await connectNats({ url: server.url });
}, 60_000);

afterAll(async () => {
  await nc?.close();
  const ends = await Promise.all(workers.map((w) => stopProcess(w.process)));
  await server?.stop();
  // SIGTERM: each worker finishes and exits 0 (not killed by the signal).
  for (const e of ends) expect(e).toEqual({ code: 0, signal: null });
}, 60_000);

describe('treeline worker on NATS JetStream', () => {
  it('echo tasks come back with their arrays, inline and through the object store (> 1 MB)', async () => {
    const jobs = await NatsJobs.open(nc, 'echo-test');
    try {
      const small = { meta: { note: 'hi' }, arrays: { a: new Float32Array([1, 2, 3.5]), b: new Uint32Array([7]) } };
      const big = new Float64Array(300_000).map((_, i) => i * 0.5);
      const [r1, r2] = await Promise.all([
        jobs.submit('echo', undefined, small),
        jobs.submit('echo', undefined, { meta: {}, arrays: { big } }),
      ]);
      expect(r1.meta).toEqual({ note: 'hi', sums: { a: 6.5, b: 7 } });
      expect([...r1.arrays.a]).toEqual([1, 2, 3.5]);
      expect(r1.arrays.b).toBeInstanceOf(Uint32Array);
      expect(r2.arrays.big).toEqual(big);
      expect(jobs.traffic.tasks).toBe(2);
      expect(jobs.traffic.bytesSent).toBeGreaterThan(big.byteLength);
      // Asked again: answered from the stored result, not published.
      await jobs.submit('echo', undefined, small);
      expect(jobs.traffic).toMatchObject({ tasks: 2, reused: 1 });
    } finally {
      await jobs.close();
      await jobs.destroyStore();
    }
  });

  it('a task failing on every delivery fails with the worker error after 3 attempts', async () => {
    const jobs = await NatsJobs.open(nc, 'fail-test');
    try {
      const err = await jobs.submit('echo', undefined, { meta: { fail: 'boom 42' }, arrays: {} }).catch((e) => e);
      expect(err).toBeInstanceOf(TaskFailedError);
      expect(err.message).toMatch(/boom 42/);
      const all = workers.map((w) => w.stderr()).join('');
      expect(all.match(/failed \(delivery \d of 3\), returned for a retry: boom 42/g)).toHaveLength(2);
      expect(all).toMatch(/failed for good \(delivery 3 of 3\): boom 42/);
    } finally {
      await jobs.close();
      await jobs.destroyStore();
    }
  });
});
