/**
 * issue 20: the partitioned run's method named on the command line (`--nats-method rounds|pairs|pairs-kruskal`) and in
 * the API (`cluster.method`), not only through TREELINE_PARTITIONED_METHOD; and a partitioned run's options given
 * without --nats refused (they were ignored: the run was local). One nats-server (random loopback port) and one CPU
 * worker in this process.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emst } from '../../src/node.js';
import { InputError } from '../../src/errors.js';
import { writeNpy } from '../../src/io/npy.js';
import { cloud } from '../helpers/clouds.js';
import { runCliProcess } from '../helpers/cli.process.js';
import { startNatsServer, startWorkerInProcess, type NatsServer } from '../helpers/nats.js';

const DIM = 3;
let server: NatsServer;
let worker: ReturnType<typeof startWorkerInProcess>;
const dir = mkdtempSync(join(tmpdir(), 'treeline-nats-method-'));
const points = cloud('clustered', 3000, DIM, 91);
const file = join(dir, 'points.npy');

beforeAll(async () => {
  writeFileSync(file, writeNpy(points, [points.length / DIM, DIM]));
  server = await startNatsServer();
  worker = startWorkerInProcess(server.url, { backend: 'cpu', threads: 1 });
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('--nats-method and cluster.method', () => {
  it('treeline emst --nats-method pairs runs the pairs and writes the local run’s edges', async () => {
    const local = await runCliProcess(['emst', file, '-o', join(dir, 'local.csv')]);
    const remote = await runCliProcess([
      'emst',
      file,
      '--nats',
      server.url,
      '--partitions',
      '3',
      '--nats-method',
      'pairs',
      '--verbose',
      '-o',
      join(dir, 'remote.csv'),
    ]);
    expect(local.code, local.stderr).toBe(0);
    expect(remote.code, remote.stderr).toBe(0);
    expect(remote.stderr).toMatch(/pairs: 3 of 3 pairs done/);
    expect(remote.stderr).toMatch(/3 pairs \(\d+ edges kept\)/);
    expect(readFileSync(join(dir, 'remote.csv'))).toEqual(readFileSync(join(dir, 'local.csv')));
  }, 120_000);

  it("emst() with cluster.method 'pairs' gives the local tree; an unknown method is an InputError", async () => {
    const single = await emst(points, { dim: DIM, backend: 'cpu' });
    const parted = await emst(points, { dim: DIM, cluster: { url: server.url, partitions: 3, method: 'pairs' } });
    expect(Object.keys(parted.timings ?? {})).toContain('distributed::pairs.work');
    expect(parted.sources).toEqual(single.sources);
    expect(parted.targets).toEqual(single.targets);
    expect(parted.weights).toEqual(single.weights);
    const bad = { url: server.url, method: 'kruskal' } as unknown as { url: string };
    await expect(emst(points, { dim: DIM, cluster: bad })).rejects.toThrow(InputError);
    await expect(emst(points, { dim: DIM, cluster: bad })).rejects.toThrow(/cluster\.method .*'kruskal'/);
  }, 120_000);

  it('a bad --nats-method, and the run options without --nats, exit 2 naming them', async () => {
    const bad = await runCliProcess(['emst', file, '--nats', server.url, '--nats-method', 'boruvka']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--nats-method: expected one of rounds, pairs, pairs-kruskal, got 'boruvka'/);
    const alone = await runCliProcess(['emst', file, '--partitions', '3', '-o', join(dir, 'x.csv')]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/--partitions applies only to a run on workers: add --nats <url>/);
    const several = await runCliProcess(['hdbscan', file, '--run-id', 'r1', '--nats-method', 'pairs']);
    expect(several.code).toBe(2);
    expect(several.stderr).toMatch(/--run-id, --nats-method apply only to a run on workers/);
  }, 60_000);
});
