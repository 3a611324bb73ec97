/**
 * issue 20, defects of the distributed layer found by earlier sessions, each a case below (one nats-server on a random
 * loopback port, workers in this process):
 *
 *   - a resumed run checked its same-host folder's partition files by their names alone: a partition written in parts
 *     (nats.local.ts writeMessageFile's `parts`) whose part was missing or short was handed to the workers, whose
 *     reads failed until the task failed for good, and the run with it. The resume now reads each index and its
 *     parts' sizes, names the broken file, removes it with its parts, and starts the run over — or, where the object
 *     store holds that partition, resumes (its workers read it from the store);
 *   - a fresh run whose upload of its partitions failed part-way (the server out of JetStream storage) left its
 *     object store, with the partitions stored before the failure, in the server: no KV entry named it, so nothing
 *     would remove it. The run now removes what it made before it rejects;
 *   - a worker asked the server for the run's object-store stream (runGone: one stream-info request) before every
 *     task. The answer "still there" is now kept for RUN_LOOK_MS per run; "gone", and every look after a task's
 *     failure, is asked anew, so a removed run's tasks are still dropped at once (distributed.worker.test.ts);
 *   - a run id started afresh (its folder lost, or the same id run again) left its earlier start's queued tasks on the
 *     queue, which workers then computed for nobody, asking for partitions of a folder that was gone. A fresh open
 *     takes them off; a resumption keeps them (their results are what it reads).
 */
import { mkdtempSync, readdirSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { emst } from '../../src/emst/emst.js';
import { AbortError } from '../../src/errors.js';
import { emstOnNats } from '../../src/distributed/coordinator.js';
import {
  bodyLimit,
  connectNats,
  jetstreamManagerOf,
  PREPARE_SUBJECT,
  putMessage,
  runBucket,
  TASK_STREAM,
  taskSubject,
} from '../../src/distributed/nats.js';
import { partitionObject } from '../../src/distributed/nats.tasks.js';
import { Objm } from '@nats-io/obj';
import { encodeTaskMessage } from '../../src/distributed/nats.codec.js';
import { NatsJobs } from '../../src/distributed/nats.jobs.js';
import { partitionFile, readMessageFile, writeMessageFile } from '../../src/distributed/nats.local.js';
import { RUN_LOOK_MS } from '../../src/distributed/worker.js';
import { subscribePrepare } from '../../src/distributed/worker.prepare.js';
import type { BatchTask } from '../../src/distributed/worker.tasks.js';
import { cloud } from '../helpers/clouds.js';
import { startNatsServer, startWorkerInProcess, type NatsServer } from '../helpers/nats.js';

const DIM = 3;

let server: NatsServer;
let nc: NatsConnection;
const dir = mkdtempSync(join(tmpdir(), 'treeline-faults-'));

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connectNats({ url: server.url });
}, 60_000);

afterAll(async () => {
  await nc?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

/** Whether the server holds stream `name`. */
async function hasStream(conn: NatsConnection, name: string): Promise<boolean> {
  const jsm = await jetstreamManagerOf(conn);
  return jsm.streams.info(name).then(
    () => true,
    () => false,
  );
}

type Cluster = { url: string; partitions: number; runId: string; localDir: string };

/** A run's first start, with no worker: interrupted once its partitions are stored (its state is in the KV then). */
async function firstStartStored(points: Float32Array, cluster: Cluster): Promise<string> {
  const controller = new AbortController();
  const first = await emstOnNats(points, {
    dim: DIM,
    signal: controller.signal,
    cluster: { ...cluster, log: (line) => /partitions stored/.test(line) && controller.abort() },
  }).catch((e: unknown) => e);
  expect(first).toBeInstanceOf(AbortError);
  return join(dir, `treeline-${cluster.runId}`);
}

/**
 * The same run started again, with a worker in this process once the coordinator has looked at its folder (its answer
 * to the damage is what is tested; `looked` runs then, first); the result checked against the single-process tree.
 */
async function startAgain(
  points: Float32Array,
  cluster: Cluster,
  looked: () => void = () => undefined,
): Promise<{ resumed: boolean; lines: string[] }> {
  const lines: string[] = [];
  let worker: ReturnType<typeof startWorkerInProcess> | null = null;
  try {
    const again = await emstOnNats(points, {
      dim: DIM,
      cluster: {
        ...cluster,
        log: (line) => {
          lines.push(line);
          if (!worker && /resuming|starting over/.test(line)) {
            looked();
            worker = startWorkerInProcess(server.url, { backend: 'cpu', threads: 1 });
          }
        },
      },
    });
    const single = await emst(points, { dim: DIM, backend: 'cpu' });
    expect(again.sources).toEqual(single.sources);
    expect(again.targets).toEqual(single.targets);
    expect(again.weights).toEqual(single.weights);
    return { resumed: again.resumed, lines };
  } finally {
    await (worker as ReturnType<typeof startWorkerInProcess> | null)?.stop();
  }
}

describe('emstOnNats: a resumed run whose partition file lost a part', () => {
  for (const [fault, damage] of [
    ['missing', (path: string) => rmSync(path)],
    ['short', (path: string) => truncateSync(path, statSync(path).size - 4096)],
  ] as const) {
    it(`a part ${fault}: the resume names the file and starts over, to the single-process tree`, async () => {
      const points = cloud('clustered', 20_000, DIM, 7);
      const runId = `faults-part-${fault}`;
      const cluster = { url: server.url, partitions: 3, runId, localDir: dir };
      const folder = await firstStartStored(points, cluster);
      // Partition 1 written again in 2 parts (as a host with the cores writes it: partsPerFile), then one part damaged.
      const msg = (await readMessageFile(folder, partitionFile(1)))!;
      await writeMessageFile(folder, partitionFile(1), msg, undefined, 2);
      expect(
        readdirSync(folder)
          .filter((f) => f.startsWith('partition.1'))
          .sort(),
      ).toEqual(['partition.1', 'partition.1.0', 'partition.1.1']);
      damage(join(folder, 'partition.1.1'));
      const { resumed, lines } = await startAgain(points, cluster);
      expect(resumed).toBe(false);
      const said = lines.find((l) => /starting over/.test(l));
      expect(said, lines.join('\n')).toMatch(new RegExp(`run ${runId}: .*partition\\.1\\.1`));
    }, 60_000);
  }
});

describe('emstOnNats: a resumed run whose partition file lost a part, the partition in the object store', () => {
  it('removes the file with its parts and resumes, the worker reading that partition from the store', async () => {
    const points = cloud('clustered', 20_000, DIM, 8);
    const runId = 'faults-part-stored';
    const cluster = { url: server.url, partitions: 3, runId, localDir: dir };
    const folder = await firstStartStored(points, cluster);
    const msg = (await readMessageFile(folder, partitionFile(1)))!;
    // In the object store too (as the coordinator uploads it for a worker on another host), then in 2 parts here,
    // one of them gone.
    const os = await new Objm(nc).open(runBucket(runId));
    await putMessage(os, partitionObject(1), msg, bodyLimit(nc));
    await writeMessageFile(folder, partitionFile(1), msg, undefined, 2);
    rmSync(join(folder, 'partition.1.1'));
    let left: string[] | null = null;
    const { resumed, lines } = await startAgain(points, cluster, () => {
      left = readdirSync(folder).filter((f) => f.startsWith('partition.1'));
    });
    expect(resumed, lines.join('\n')).toBe(true);
    // The index and the part that was left, removed before the resumption went on.
    expect(left).toEqual([]);
    expect(lines.some((l) => /starting over/.test(l))).toBe(false);
  }, 60_000);
});

describe('emstOnNats: a fresh run whose upload fails part-way', () => {
  it("rejects with the server's error and removes the run's object store (the partitions stored before the failure) and queued tasks", async () => {
    // 4 partitions of ~240 KB each (60,000 3D points and their ids) into 600 KB of JetStream storage: the third fails.
    const small = await startNatsServer({ maxFileStore: 600_000 });
    const own = await connectNats({ url: small.url });
    try {
      const runId = 'faults-upload';
      const failure = await emstOnNats(cloud('uniform', 60_000, DIM, 9), {
        dim: DIM,
        cluster: { url: small.url, partitions: 4, runId, localDir: false },
      }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(Error);
      // (The upload's error names the run and partition; a task published meanwhile may hit the limit first.)
      expect((failure as Error).message).toMatch(/insufficient resources/);
      expect(await hasStream(own, `OBJ_${runBucket(runId)}`)).toBe(false);
      // Nor its tasks published before the failure (its first local trees, their partitions stored): no worker would
      // compute them for nobody.
      const jsm = await jetstreamManagerOf(own);
      const queued = await jsm.streams.info(TASK_STREAM, { subjects_filter: taskSubject(runId) });
      expect(queued.state.subjects?.[taskSubject(runId)] ?? 0).toBe(0);
    } finally {
      await own.close();
      await small.stop();
    }
  }, 60_000);
});

describe('runWorker: runGone asked at most once per RUN_LOOK_MS per run', () => {
  it('60 tasks of one run: fewer stream-info requests for its object store than tasks, about one per RUN_LOOK_MS; once the run is removed, its next task is dropped before it starts', async () => {
    const run = 'faults-run-gone';
    const stream = `OBJ_${runBucket(run)}`;
    let looks = 0;
    const sub = nc.subscribe(`$JS.API.STREAM.INFO.${stream}`, { callback: () => void looks++ });
    await nc.flush();
    let calls = 0;
    const count: BatchTask = async () => {
      calls++;
      return { meta: {}, arrays: {} };
    };
    const jobs = await NatsJobs.open(nc, run, { fresh: true });
    const worker = startWorkerInProcess(server.url, { backend: 'cpu', threads: 1 }, { count });
    const tasks = 60;
    try {
      // (The worker's own opening looks, before its first task, are not counted.)
      await jobs.submit('count', undefined, { meta: { i: -1 }, arrays: {} });
      looks = 0;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: tasks }, (_, i) => jobs.submit('count', undefined, { meta: { i }, arrays: {} })),
      );
      const ms = performance.now() - t0;
      await nc.flush();
      expect(calls).toBe(tasks + 1);
      expect(looks).toBeLessThan(tasks);
      expect(looks, `${looks} looks in ${ms.toFixed(0)} ms`).toBeLessThanOrEqual(Math.ceil(ms / RUN_LOOK_MS) + 1);
    } finally {
      sub.unsubscribe();
      await jobs.close();
      await jobs.store.destroy();
    }
    // The run removed (its coordinator gone): a task of it queued RUN_LOOK_MS after the worker's last look is dropped
    // before it is computed.
    await new Promise((r) => setTimeout(r, RUN_LOOK_MS + 200));
    const late = encodeTaskMessage({ meta: { task: { run, id: 'late', kind: 'count' } }, arrays: {} });
    await jetstream(nc).publish(taskSubject(run), late);
    for (let i = 0; i < 200 && !worker.log.some((l) => l.includes(`count late dropped: run ${run} is gone`)); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const summary = await worker.stop();
    expect(calls).toBe(tasks + 1);
    // (It may also have dropped tasks the earlier cases' interrupted first starts left queued: their runs are gone.)
    expect(summary, worker.log.join('\n')).toMatchObject({ done: tasks + 1, failed: 0, retried: 0 });
    expect(worker.log.filter((l) => l.includes(`dropped: run ${run} is gone`))).toEqual([
      expect.stringContaining('worker: count late dropped'),
    ]);
  }, 60_000);
});

describe('NatsJobs.open: a run id started afresh', () => {
  it("takes its earlier start's tasks off the queue (a resumption keeps them)", async () => {
    const run = `fresh-${Date.now().toString(36)}`;
    const jsm = await jetstreamManagerOf(nc);
    const js = jetstream(nc);
    const queued = async (): Promise<number> =>
      (await jsm.streams.info(TASK_STREAM, { subjects_filter: taskSubject(run) })).state.subjects?.[taskSubject(run)] ??
      0;
    const first = await NatsJobs.open(nc, run, { fresh: true });
    // Two tasks of the first start still on the queue (no worker took them), one of another run.
    const other = `other-${run}`;
    for (const [subject, i] of [
      [taskSubject(run), 0],
      [taskSubject(run), 1],
      [taskSubject(other), 2],
    ] as const) {
      await js.publish(subject, encodeTaskMessage({ meta: { i }, arrays: {} }));
    }
    await first.close();
    expect(await queued()).toBe(2);
    const resumed = await NatsJobs.open(nc, run, { publication: '' });
    await resumed.close();
    expect(await queued()).toBe(2);
    const again = await NatsJobs.open(nc, run, { fresh: true });
    await again.close();
    expect(await queued()).toBe(0);
    const others = await jsm.streams.info(TASK_STREAM, { subjects_filter: taskSubject(other) });
    expect(others.state.subjects?.[taskSubject(other)]).toBe(1);
    await jsm.streams.purge(TASK_STREAM, { filter: taskSubject(other) });
    await again.destroyStore();
  });
});

describe("subscribePrepare: a 'pairs' run's size told to the workers", () => {
  it('prepares a size once, and a run id told again with another size again (a run id reused on other points)', async () => {
    const lines: string[] = [];
    const conn = await connectNats({ url: server.url });
    const preparation = subscribePrepare(
      conn,
      { backend: 'cpu', threads: 1 },
      () => 1,
      (l) => lines.push(l),
      () => false,
    );
    try {
      await conn.flush(); // the subscription at the server before anything is told
      const tell = (n: number): void =>
        nc.publish(PREPARE_SUBJECT, JSON.stringify({ run: 'prep-1', n, dim: 3, k: 2, euclidean: true }));
      tell(1000);
      tell(1000);
      tell(3000);
      nc.publish(PREPARE_SUBJECT, 'not json');
      await nc.flush();
      const taken = (): number => lines.filter((l) => /^worker: scratch for run prep-1 taken/.test(l)).length;
      for (let i = 0; i < 100 && taken() < 2; i++) {
        await new Promise((r) => setTimeout(r, 50));
        await preparation.ready();
      }
      // Nothing more after a while (the repeated size was not prepared again).
      await new Promise((r) => setTimeout(r, 300));
      await preparation.ready();
      expect(taken(), lines.join('\n')).toBe(2);
    } finally {
      preparation.stop();
      await conn.close();
    }
  });
});
