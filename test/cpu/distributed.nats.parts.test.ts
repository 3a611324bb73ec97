/**
 * issue 20: the coordinator's partition files in parts (nats.local.ts writeMessageFile's `parts`, partsPerFile: 4 on
 * the 32-core hosts, 1 on a 2-core machine, so that no other test writes them) through a whole run: partsPerFile is
 * made 3 here. A 'pairs' run interrupted after its first pair keeps its folder with partition.p.0 … .2 and their
 * index partition.p; started again with the same run id it resumes from them (coordinator.ts partitionsLost reads
 * each index and checks its parts' sizes) and gives the single-process tree, edge for edge.
 *
 * One nats-server (random loopback port) and one worker in this process (CPU, one thread): it sees the folder, so it
 * reads the parted files.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { emstOnNats } from '../../src/distributed/coordinator.js';
import { emst } from '../../src/emst/emst.js';
import { AbortError } from '../../src/errors.js';
import { cloud } from '../helpers/clouds.js';
import { startNatsServer, startWorkerInProcess, type NatsServer } from '../helpers/nats.js';

vi.mock('../../src/distributed/nats.local.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/distributed/nats.local.js')>();
  return { ...real, partsPerFile: async () => 3 };
});

let server: NatsServer;
const base = mkdtempSync(join(tmpdir(), 'treeline-parts-'));

beforeAll(async () => {
  server = await startNatsServer();
}, 60_000);

afterAll(async () => {
  await server?.stop();
  rmSync(base, { recursive: true, force: true });
}, 30_000);

describe('emstOnNats: partition files in parts', () => {
  it('a run interrupted after its first pair keeps partition.p.0 … .2 and their index; it resumes from them to the same tree', async () => {
    const points = cloud('clustered', 30_000, 3, 61);
    const single = await emst(points, { dim: 3, backend: 'cpu' });
    const worker = startWorkerInProcess(server.url, { backend: 'cpu', threads: 1 });
    const lines: string[] = [];
    try {
      const cluster = {
        url: server.url,
        partitions: 3,
        runId: 'parts-resume',
        localDir: base,
        log: (l: string) => lines.push(l),
      };
      const controller = new AbortController();
      const first = await emstOnNats(points, {
        dim: 3,
        method: 'pairs',
        cluster,
        signal: controller.signal,
        onProgress: (_f, phase) => phase && /^pairs: 1 of /.test(phase) && controller.abort(),
      }).catch((e: unknown) => e);
      expect(first).toBeInstanceOf(AbortError);
      const kept = readdirSync(join(base, 'treeline-parts-resume')).filter((f) => f.startsWith('partition.'));
      expect(kept.sort()).toEqual(
        [0, 1, 2].flatMap((p) => [`partition.${p}`, ...[0, 1, 2].map((j) => `partition.${p}.${j}`)]),
      );
      const again = await emstOnNats(points, { dim: 3, method: 'pairs', cluster });
      expect(again.resumed).toBe(true);
      expect(again.sources).toEqual(single.sources);
      expect(again.targets).toEqual(single.targets);
      expect(new Uint32Array(again.weights.buffer, again.weights.byteOffset, again.weights.length)).toEqual(
        new Uint32Array(single.weights.buffer, single.weights.byteOffset, single.weights.length),
      );
    } finally {
      await worker.stop();
    }
    // The worker read the partitions from their files: none failed, none was asked of the object store.
    expect(worker.log.filter((l) => /failed|returned for a retry/.test(l))).toEqual([]);
    expect(lines.filter((l) => /object store|uploaded for a worker/.test(l))).toEqual([]);
  }, 60_000);
});
