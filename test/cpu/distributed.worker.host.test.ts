/**
 * issue 20: a worker's default host threads follow the workers on its host (src/distributed/worker.host.ts):
 *   - taskHostThreads(cores, workers): max(1, min(16, ⌊cores / workers⌋));
 *   - HostPeers on one nats-server (random loopback port): three of one host count 3, one of another host is not
 *     counted; a stopped one (bye) drops out at once, a silent one (its connection closed, no bye) within the expiry;
 *   - runWorker in process: two workers without --threads each give their tasks the share of 2 workers, one with
 *     --threads 3 gives 3 (and counts for the others); a stopped worker drops out;
 *   - the 'pairs' EMST on two such workers equals the single-process emst().
 * Presence beats every 100–200 ms here (PRESENCE_MS is 5 s), so the file takes a few seconds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectNats } from '../../src/distributed/nats.js';
import { NatsJobs } from '../../src/distributed/nats.jobs.js';
import {
  EXPIRY_BEATS,
  hostCores,
  HostPeers,
  hostThreadsLine,
  taskHostThreads,
} from '../../src/distributed/worker.host.js';
import type { BatchTask } from '../../src/distributed/worker.tasks.js';
import type { TaskEnv } from '../../src/distributed/types.js';
import { emstOnNats } from '../../src/distributed/coordinator.js';
import { emst } from '../../src/emst/emst.js';
import { cloud } from '../helpers/clouds.js';
import { PRESENCE_TEST_MS, startNatsServer, startWorkerInProcess, type NatsServer } from '../helpers/nats.js';

let server: NatsServer;
const connections: NatsConnection[] = [];
const connect = async (): Promise<NatsConnection> => {
  const nc = await connectNats({ url: server.url });
  connections.push(nc);
  return nc;
};

beforeAll(async () => {
  server = await startNatsServer();
}, 60_000);

afterAll(async () => {
  await Promise.all(connections.map((nc) => nc.close().catch(() => undefined)));
  await server?.stop();
}, 30_000);

/** Resolves once `ok()` holds, polling every 20 ms; fails after `ms`. */
async function until(ok: () => boolean, ms = 5000): Promise<void> {
  const t0 = performance.now();
  while (!ok()) {
    if (performance.now() - t0 > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('taskHostThreads(cores, workers)', () => {
  it('is min(16, cores) alone, max(1, min(16, ⌊cores / workers⌋)) for several', () => {
    expect(taskHostThreads(32, 1)).toBe(16);
    expect(taskHostThreads(16, 1)).toBe(16);
    expect(taskHostThreads(16, 2)).toBe(8);
    expect(taskHostThreads(32, 2)).toBe(16);
    expect(taskHostThreads(32, 3)).toBe(10);
    expect(taskHostThreads(128, 1)).toBe(16);
    expect(taskHostThreads(128, 4)).toBe(16);
    expect(taskHostThreads(128, 12)).toBe(10);
    expect(taskHostThreads(2, 1)).toBe(2);
    expect(taskHostThreads(1, 1)).toBe(1);
    expect(taskHostThreads(16, 40)).toBe(1);
    expect(hostThreadsLine(32, 2)).toBe('worker: 2 workers on this host: 16 host threads a task (cores 32 / 2)');
    expect(hostThreadsLine(24, 2)).toBe('worker: 2 workers on this host: 12 host threads a task (cores 24 / 2)');
    expect(hostThreadsLine(64, 2)).toBe(
      'worker: 2 workers on this host: 16 host threads a task (cores 64 / 2, at most 16)',
    );
    expect(hostThreadsLine(64, 1)).toBe('worker: 1 worker on this host: 16 host threads a task (cores 64, at most 16)');
    expect(hostThreadsLine(2, 1)).toBe('worker: 1 worker on this host: 2 host threads a task (cores 2)');
    expect(hostThreadsLine(2, 2)).toBe('worker: 2 workers on this host: 1 host thread a task (cores 2 / 2)');
  });
});

describe('HostPeers on one server', () => {
  it('three of one host count 3 and one of another host is not counted; a stopped one drops out at once, a silent one within the expiry', async () => {
    const periodMs = 100;
    const [a, b, c] = await Promise.all(
      [0, 1, 2].map(async () => HostPeers.start(await connect(), { host: 'host-a', periodMs })),
    );
    const silentNc = await connect();
    const other = await HostPeers.start(await connect(), { host: 'host-b', periodMs });
    // The hello is answered at once: the third to start knows the first two without waiting for a beat.
    await until(() => [a, b, c].every((p) => p.count() === 3), 1000);
    expect(other.count()).toBe(1);
    await b.stop();
    await until(() => a.count() === 2 && c.count() === 2, 1000);
    // A fourth that goes silent (its connection closed, no bye) is counted, then drops out within the expiry.
    const silent = await HostPeers.start(silentNc, { host: 'host-a', periodMs });
    await until(() => a.count() === 3 && c.count() === 3, 1000);
    await silentNc.close();
    const t0 = performance.now();
    await until(() => a.count() === 2 && c.count() === 2, 3000);
    // Within the expiry (EXPIRY_BEATS periods), with slack for a loaded machine.
    expect(performance.now() - t0).toBeLessThan(EXPIRY_BEATS * periodMs + 700);
    // Beats keep the live ones counted past the expiry.
    await new Promise((r) => setTimeout(r, (EXPIRY_BEATS + 1) * periodMs));
    await until(() => a.count() === 2 && c.count() === 2 && other.count() === 1, 1000);
    await Promise.all([a, c, silent, other].map((p) => p.stop()));
  });
});

/** Two presence periods of startInProcess's workers: every worker has heard every other's beat. */
const beats = (): Promise<void> => new Promise((r) => setTimeout(r, 2 * PRESENCE_TEST_MS + 50));

const startInProcess = (env: TaskEnv, batchTasks: Record<string, BatchTask> = {}) =>
  startWorkerInProcess(server.url, env, batchTasks);

describe('runWorker: the default host threads of its tasks', () => {
  it('two workers without --threads take the share of 2 workers, one with --threads 3 takes 3; a stopped worker drops out', async () => {
    const nc = await connect();
    const cores = await hostCores();
    // Each round's probes wait for one another: two probes in hand at once are on two workers (one task at a time).
    let gate = { arrived: 0, release: () => {}, open: Promise.resolve() };
    const round = (): void => {
      let release = (): void => {};
      const open = new Promise<void>((r) => (release = r));
      gate = { arrived: 0, release, open };
    };
    const probe =
      (name: string): BatchTask =>
      async (_msg, env) => {
        if (++gate.arrived === 2) gate.release();
        await gate.open;
        return { meta: { name, threads: env.threads ?? null, hostThreads: env.hostThreads ?? null }, arrays: {} };
      };
    const a = startInProcess({ backend: 'cpu' }, { probe: probe('a') });
    const b = startInProcess({ backend: 'cpu' }, { probe: probe('b') });
    await until(() => [a, b].every((w) => w.log.some((l) => l.startsWith('worker: connected'))));
    await beats();
    const probes = async (run: string, count: number) => {
      round();
      if (count === 1) gate.arrived = 1;
      const jobs = await NatsJobs.open(nc, run);
      try {
        const replies = await Promise.all(
          Array.from({ length: count }, (_, i) => jobs.submit('probe', undefined, { meta: { i }, arrays: {} })),
        );
        return replies.map((r) => r.meta).sort((x, y) => String(x.name).localeCompare(String(y.name)));
      } finally {
        await jobs.close();
        await jobs.destroyStore();
      }
    };
    const two = taskHostThreads(cores, 2);
    expect(await probes('host-two', 2)).toEqual([
      { name: 'a', threads: null, hostThreads: two },
      { name: 'b', threads: null, hostThreads: two },
    ]);
    for (const w of [a, b]) expect(w.log).toContain(hostThreadsLine(cores, 2));

    // b stops (bye): a alone.
    await b.stop();
    expect(await probes('host-one', 1)).toEqual([{ name: 'a', threads: null, hostThreads: taskHostThreads(cores, 1) }]);
    expect(a.log).toContain(hostThreadsLine(cores, 1));

    // c with --threads 3: its tasks take 3 whatever the count, and a counts it.
    const c = startInProcess({ backend: 'cpu', threads: 3 }, { probe: probe('c') });
    await until(() => c.log.some((l) => l.startsWith('worker: connected')));
    await beats();
    expect(await probes('host-fixed', 2)).toEqual([
      { name: 'a', threads: null, hostThreads: two },
      { name: 'c', threads: 3, hostThreads: null },
    ]);
    // Told whenever the count changes: 2, 1, 2.
    expect(a.log.filter((l) => l.includes(' on this host: '))).toEqual([
      hostThreadsLine(cores, 2),
      hostThreadsLine(cores, 1),
      hostThreadsLine(cores, 2),
    ]);
    expect(c.log.some((l) => l.includes('on this host'))).toBe(false);
    await Promise.all([a.stop(), c.stop()]);
  });

  it("the 'pairs' EMST on two workers without --threads equals the single-process emst()", async () => {
    const nc = await connect();
    const a = startInProcess({ backend: 'cpu' });
    const b = startInProcess({ backend: 'cpu' });
    try {
      const points = cloud('clustered', 20_000, 3, 61);
      const single = await emst(points, { dim: 3, backend: 'cpu' });
      const parted = await emstOnNats(points, {
        dim: 3,
        method: 'pairs',
        cluster: { url: server.url, partitions: 3 },
      });
      expect(parted.sources).toEqual(single.sources);
      expect(parted.targets).toEqual(single.targets);
      expect(new Uint32Array(parted.weights.buffer, parted.weights.byteOffset, parted.weights.length)).toEqual(
        new Uint32Array(single.weights.buffer, single.weights.byteOffset, single.weights.length),
      );
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    // (Whichever took tasks counted both.)
    const cores = await hostCores();
    expect([...a.log, ...b.log]).toContain(hostThreadsLine(cores, 2));
  }, 60_000);
});
