/**
 * issue 20, defect: an interrupted coordinator kept waiting for its tasks (Ctrl-C printed "stopping", then the run
 * went on until every task in flight was done). A coordinator stopped by SIGINT or SIGTERM while its workers compute
 * stops waiting at once (NatsExecutor, NatsJobs.submit's signal, NatsJobs.close) and exits with the interrupt's code
 * and message:
 *   - NatsJobs: an aborted signal, or close(), ends a wait and publishes nothing;
 *   - `treeline emst --nats` (pairs), SIGINT: exit 130 in well under the pairs' time, the same-host folder kept and
 *     named; the same --run-id resumes it, to the single-process tree;
 *   - `treeline stats --jitter --nats`, SIGTERM: exit 143 before the batch's realisations are done, its tasks still
 *     queued taken off the queue (a batch is never resumed).
 * One nats-server (random loopback port) and one `treeline worker` (CPU, one thread), so the tasks take seconds
 * after the signal.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { emst } from '../../src/emst/emst.js';
import { AbortError } from '../../src/errors.js';
import { connectNats, jetstreamManagerOf, TASK_STREAM, taskSubject } from '../../src/distributed/nats.js';
import { NatsJobs } from '../../src/distributed/nats.jobs.js';
import { parseNpy } from '../../src/io/npy.js';
import { cloud } from '../helpers/clouds.js';
import { runCliProcess } from '../helpers/cli.process.js';
import { startNatsServer, startWorker, stopProcess, type NatsServer, type WorkerProcess } from '../helpers/nats.js';

const N = 300_000;
const DIM = 3;

let server: NatsServer;
let worker: WorkerProcess;
const dir = mkdtempSync(join(tmpdir(), 'treeline-nats-interrupt-'));

beforeAll(async () => {
  server = await startNatsServer();
  worker = startWorker(server.url, ['--backend', 'cpu', '--threads', '1', '--ack-wait', '3']);
  await worker.waitFor(/worker: connected/);
}, 60_000);

afterAll(async () => {
  const end = worker && (await stopProcess(worker.process));
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
  // The worker finished what it held and exits 0 on SIGTERM; nothing is left running.
  expect(end, worker?.stderr().slice(-3000)).toEqual({ code: 0, signal: null });
  expect(server.process.exitCode !== null || server.process.signalCode !== null).toBe(true);
}, 60_000);

/** How many of run `run`'s tasks the task stream still holds (queued, or in a worker's hands unacknowledged). */
async function queuedTasks(run: string): Promise<number> {
  const nc = await connectNats({ url: server.url });
  try {
    const subject = taskSubject(run);
    const info = await (await jetstreamManagerOf(nc)).streams.info(TASK_STREAM, { subjects_filter: subject });
    return info.state.subjects?.[subject] ?? 0;
  } finally {
    await nc.close();
  }
}

describe('an interrupted coordinator stops waiting for its tasks', () => {
  it('NatsJobs: a submit under an aborted signal, or pending when the jobs close, rejects with AbortError and publishes nothing', async () => {
    const nc = await connectNats({ url: server.url });
    try {
      const jobs = await NatsJobs.open(nc, 'interrupt-jobs', { fresh: true });
      const aborted = AbortSignal.abort();
      await expect(jobs.submit('echo', undefined, { meta: { a: 1 }, arrays: {} }, aborted)).rejects.toThrow(AbortError);
      // close() right after the submit, before its publish: the wait ends, the task is never queued.
      const pending = jobs.submit('echo', undefined, { meta: { a: 2 }, arrays: {} });
      await jobs.close();
      await expect(pending).rejects.toThrow(AbortError);
      expect(jobs.traffic.tasks).toBe(0);
      await jobs.destroyStore();
    } finally {
      await nc.close();
    }
  });

  it('treeline emst --nats (pairs), SIGINT during its first task: exit 130 within seconds; the same --run-id resumes to the single-process tree', async () => {
    const points = cloud('clustered', N, DIM, 51);
    const file = join(dir, 'points.f32');
    writeFileSync(file, points);
    const out = join(dir, 'tree');
    const runId = 'interrupt-test';
    const args = [
      ...['emst', file, '--dim', String(DIM), '--nats', server.url, '--partitions', '4', '--run-id', runId],
      ...['--nats-local-dir', dir, '--format', 'npy', '-o', out, '--verbose'],
    ];
    const env = { TREELINE_PARTITIONED_METHOD: 'pairs' };
    const count = (re: RegExp): number => worker.stderr().match(re)?.length ?? 0;
    const startedBefore = count(/ started /g);
    const pairsBefore = count(/worker: pair p\d+ \S+ done/g);
    let child: ChildProcess | undefined;
    const first = runCliProcess(args, { env, timeoutMs: 60_000, onSpawn: (c) => (child = c) });
    await worker.waitFor(/ started /, startedBefore + 1);
    const sent = performance.now();
    child!.kill('SIGINT');
    const r = await first;
    const tookMs = performance.now() - sent;
    const doneAtExit = count(/worker: pair p\d+ \S+ done/g) - pairsBefore;
    expect(r.code, r.stderr).toBe(130);
    expect(r.signal).toBeNull();
    expect(r.stderr).toMatch(/interrupted \(SIGINT\); no output was written\./);
    // Nothing left behind that Node complains about (a rejection nobody handled, a listener per wait).
    expect(r.stderr).not.toMatch(/Unhandled|Warning/);
    // The run's folder stays for --run-id (and says so); no output was written.
    const folder = /stay in (\S+) for --run-id interrupt-test/.exec(r.stderr)?.[1];
    expect(folder, r.stderr).toBeDefined();
    expect(existsSync(folder!)).toBe(true);
    expect(existsSync(out)).toBe(false);
    // It stopped while the worker still had pairs to compute (before the fix it waited for all six: ~8 s here).
    expect(doneAtExit).toBeLessThan(6);
    expect(tookMs).toBeLessThan(3000);

    const again = await runCliProcess(args, { env, timeoutMs: 110_000 });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/run interrupt-test: resuming \(running/);
    expect(again.stderr).toMatch(/emst: run interrupt-test \(resumed\)/);
    expect(existsSync(folder!)).toBe(false);
    const column = (name: string): Uint32Array => {
      const { data } = parseNpy(readFileSync(join(out, name)));
      return new Uint32Array(new Uint8Array(data).buffer);
    };
    const single = await emst(points, { dim: DIM, backend: 'cpu' });
    expect(column('sources.npy')).toEqual(single.sources);
    expect(column('targets.npy')).toEqual(single.targets);
    expect(column('weights.npy')).toEqual(new Uint32Array(single.weights.buffer));
  }, 180_000);

  it('treeline stats --jitter --nats, SIGTERM during its first realisation: exit 143 within seconds, not after the batch', async () => {
    const catalogue = join(dir, 'catalogue.f32');
    writeFileSync(catalogue, cloud('uniform', 100_000, DIM, 52));
    const args = [
      ...['stats', catalogue, '--dim', String(DIM), '--jitter', '0.01', '--realisations', '10', '--seed', '3'],
      ...['--backend', 'cpu', '--json', '--nats', server.url],
    ];
    const count = (re: RegExp): number => worker.stderr().match(re)?.length ?? 0;
    const startedBefore = count(/worker: mstStats \S+ started/g);
    const doneBefore = count(/worker: mstStats \S+ done/g);
    let child: ChildProcess | undefined;
    const run = runCliProcess(args, { timeoutMs: 60_000, onSpawn: (c) => (child = c) });
    await worker.waitFor(/worker: mstStats \S+ started/, startedBefore + 1);
    const sent = performance.now();
    child!.kill('SIGTERM');
    const r = await run;
    const tookMs = performance.now() - sent;
    expect(r.code, r.stderr).toBe(143);
    expect(r.stderr).toMatch(/interrupted \(SIGTERM\); no output was written\./);
    expect(r.stderr).not.toMatch(/Unhandled|Warning/);
    expect(r.stdout).toBe('');
    expect(count(/worker: mstStats \S+ done/g) - doneBefore).toBeLessThan(10);
    expect(tookMs).toBeLessThan(3000);
    // The batch's tasks still queued went with it (no resumption wants them): no worker computes them for nobody.
    const runId = /stats: run (\S+) on the workers/.exec(r.stderr)?.[1];
    expect(runId, r.stderr).toBeDefined();
    expect(await queuedTasks(runId!)).toBe(0);
  });
});
