/**
 * issue 20, defect: the coordinator's partition uploads go in lanes (two files at once into the same-host folder,
 * each falling back to the object store where its file cannot be written); when one partition's upload to the object
 * store failed, the other lane went on writing and uploading the partitions after it, and the run failed with the
 * store's bare error. emstOnNats (src/distributed/coordinator.ts) stops every lane at the first failure — nothing is
 * written or uploaded after it — and fails with an error naming the partition and the cause.
 *
 * One nats-server (random loopback port), no worker (the run fails before a task could matter). The failures are
 * made here: every write into the folder fails as a full /dev/shm would, so each partition goes to the object store
 * (its puts one after another, the lanes' in turn: 0, 1, 2, 3, …), and the put of partition 2 fails after 200 ms,
 * while partition 3 (the other lane) waits for its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkPartitionSizes, emstOnNats } from '../../src/distributed/coordinator.js';
import { InputError } from '../../src/errors.js';
import { cloud } from '../helpers/clouds.js';
import { startNatsServer, type NatsServer } from '../helpers/nats.js';

/** What the coordinator wrote and uploaded, in order ('write partition.p', 'put partition.p', 'failed'). */
const io = vi.hoisted(() => ({ events: [] as string[], failFilesFrom: Infinity, failPut: '' }));

vi.mock('../../src/distributed/nats.local.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/distributed/nats.local.js')>();
  return {
    ...real,
    // Two lanes, whether or not this process writes files on worker threads.
    filesAtOnce: async (count: number) => Math.min(count, 2),
    writeMessageFile: async (...args: Parameters<typeof real.writeMessageFile>) => {
      const name = args[1];
      io.events.push(`write ${name}`);
      if (Number(name.slice('partition.'.length)) >= io.failFilesFrom) {
        throw Object.assign(new Error(`ENOSPC: no space left on device, write '${name}' (made by the test)`), {
          code: 'ENOSPC',
        });
      }
      return real.writeMessageFile(...args);
    },
  };
});

vi.mock('../../src/distributed/nats.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/distributed/nats.js')>();
  return {
    ...real,
    putMessage: async (...args: Parameters<typeof real.putMessage>) => {
      const name = args[1];
      if (name.startsWith('partition.')) io.events.push(`put ${name}`);
      if (name === io.failPut) {
        await new Promise((r) => setTimeout(r, 200));
        io.events.push('failed');
        throw new Error('insufficient resources (made by the test)');
      }
      return real.putMessage(...args);
    },
  };
});

let server: NatsServer;
const base = mkdtempSync(join(tmpdir(), 'treeline-coordinator-'));

beforeAll(async () => {
  server = await startNatsServer();
}, 60_000);

afterAll(async () => {
  await server?.stop();
  rmSync(base, { recursive: true, force: true });
}, 30_000);

describe("emstOnNats: the partitions' uploads", () => {
  it("one partition's upload to the object store fails: no lane writes or uploads after it, and the error names the partition and the cause", async () => {
    io.failFilesFrom = 0;
    io.failPut = 'partition.2';
    const log: string[] = [];
    const points = cloud('uniform', 4000, 3, 7);
    const error = await emstOnNats(points, {
      dim: 3,
      cluster: { url: server.url, partitions: 8, runId: 'upload-fails', localDir: base, log: (l) => log.push(l) },
    }).then(
      () => null,
      (e: Error) => e,
    );
    // (Anything still in flight would show here.)
    await new Promise((r) => setTimeout(r, 500));
    expect(error).toBeInstanceOf(Error);
    expect(error!.message).toMatch(/partition 2\b/);
    expect(error!.message).toContain('insufficient resources (made by the test)');
    const failedAt = io.events.indexOf('failed');
    expect(io.events.slice(0, failedAt), io.events.join(', ')).toContain('put partition.2');
    expect(io.events.slice(failedAt + 1), io.events.join(', ')).toEqual([]);
  }, 60_000);
});

describe('checkPartitionSizes: a partition past what one array takes (2^32 − 1 bytes) is refused up front', () => {
  it('names the size and the partitions that would do; a partition within it passes', () => {
    // Arrays never written: their pages are not taken (virtual memory only).
    const big = { id: 1, points: new Float32Array(3 * 270_000_000), ids: new Uint32Array(270_000_000) };
    const small = { id: 0, points: new Float32Array(3 * 1000), ids: new Uint32Array(1000) };
    expect(() => checkPartitionSizes([small, big], 3)).toThrow(InputError);
    expect(() => checkPartitionSizes([small, big], 3)).toThrow(
      /A partition of 4\.32 GB is past the 4\.29 GB a partition may have .*: use --partitions 3 or more \(this run has 2\)\./,
    );
    // 2.68·10^8 points × 16 bytes and the header: just within.
    const edge = { id: 0, points: new Float32Array(3 * 268_000_000), ids: new Uint32Array(268_000_000) };
    expect(() => checkPartitionSizes([edge, small], 3)).not.toThrow();
  });
});
