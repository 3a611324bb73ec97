/**
 * issue 20: getBytes' pull read of an object (src/distributed/nats.ts, readPulled: a pull consumer of its own with
 * `window` chunks requested ahead, the SHA-256 on a hashing thread from HASH_THREAD_BYTES on) against the library's
 * get (window 0) on a real nats-server (random loopback port, temporary store, test/helpers/nats.ts):
 *   - objects of 0, 1, chunk − 1, chunk, chunk + 1, 3·chunk + 17 bytes, ~3 MB and ≥ 16 MiB (chunk = 4096 and the
 *     server's ~1 MB), written by the library's putBlob and by putBytes' pipelined put, read back byte for byte with
 *     windows 0, 1, 3 and 16, into ordinary and shared memory; no consumer is left on the stream;
 *   - a TaskMessage through getMessage with either read; a replaced object reads as its last version; a missing or
 *     deleted one is null;
 *   - a wrong digest in the object's info, a missing chunk, an info claiming fewer bytes, the store removed during
 *     the read: an error naming the object (the last within seconds);
 *     TREELINE_NATS_GET_WINDOW sets the default window (0 = the library's get), anything else is an input error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { headers } from '@nats-io/transport-node';
import { jetstreamManager, JsHeaders, type JetStreamManager } from '@nats-io/jetstream';
import { Objm, type ObjectStore } from '@nats-io/obj';
import {
  AHEAD_BYTES,
  bodyLimit,
  connectNats,
  getBytes,
  getMessage,
  getWindow,
  HASH_THREAD_BYTES,
  putBytes,
} from '../../src/distributed/nats.js';
import { encodeTaskMessage } from '../../src/distributed/nats.codec.js';
import { mulberry32 } from '../helpers/random.js';
import {
  bucketOf,
  expectWindowFromEnv,
  metaSubject,
  randomBytes,
  startNatsServer,
  streamOf,
  type NatsServer,
} from '../helpers/nats.js';

const CHUNK = 4096;

let server: NatsServer;
let nc: NatsConnection;
let jsm: JetStreamManager;
let bucketCount = 0;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connectNats({ url: server.url });
  jsm = await jetstreamManager(nc);
}, 60_000);

afterAll(async () => {
  await nc?.close();
  await server?.stop();
}, 30_000);

async function freshStore(): Promise<ObjectStore> {
  return new Objm(nc).create(`get-test-${bucketCount++}`);
}

const same = (a: Uint8Array, b: Uint8Array): boolean =>
  Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/** Pull consumers on the store's stream (readPulled's; the library's get leaves push consumers to expire). */
async function consumers(os: ObjectStore): Promise<number> {
  const all = await jsm.consumers.list(streamOf(os)).next();
  return all.filter((c) => c.config.deliver_subject === undefined).length;
}

/** Publishes `name`'s meta message again with `change` applied to its JSON (rollup: it replaces the old one). */
async function rewriteMeta(os: ObjectStore, name: string, change: (info: Record<string, unknown>) => void) {
  const padded = metaSubject(os, name);
  const m = await jsm.streams.getMessage(streamOf(os), { last_by_subj: padded });
  const info = m!.json<Record<string, unknown>>();
  change(info);
  const h = headers();
  h.set(JsHeaders.RollupHdr, JsHeaders.RollupValueSubject);
  const js = (os as unknown as { js: { publish(s: string, d: string, o: unknown): Promise<unknown> } }).js;
  await js.publish(padded, JSON.stringify(info), { headers: h });
}

describe('getBytes, pulled (issue 20)', () => {
  it('TREELINE_NATS_GET_WINDOW sets the default window, 0 selects the library get; others are input errors', () => {
    expectWindowFromEnv('TREELINE_NATS_GET_WINDOW', getWindow, 64);
  });

  const sizes = [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 17, 3 * (1 << 20) + 5];
  it.each(sizes)(
    '%i bytes in 4 KiB chunks, put by putBlob and pipelined: every window reads them back whole',
    async (size) => {
      const os = await freshStore();
      const bytes = randomBytes(size, size + 1);
      await putBytes(os, 'lib', bytes, CHUNK, 0);
      await putBytes(os, 'piped', bytes, CHUNK, 8);
      for (const name of ['lib', 'piped']) {
        for (const window of [0, 1, 3, 16]) {
          for (const shared of [false, true]) {
            const got = await getBytes(os, name, { window, shared });
            expect(got).not.toBeNull();
            expect(got!.length).toBe(size);
            expect(got!.buffer instanceof SharedArrayBuffer).toBe(shared);
            expect(same(got!, bytes)).toBe(true);
          }
        }
      }
      expect(await consumers(os)).toBe(0);
      await os.destroy();
    },
    60_000,
  );

  it('≥ 16 MiB in the server-sized chunks (hashed on the hashing thread), ordinary and shared memory', async () => {
    const os = await freshStore();
    const chunk = bodyLimit(nc);
    const size = 2 * HASH_THREAD_BYTES + 3;
    expect(size).toBeGreaterThanOrEqual(16 << 20);
    const bytes = randomBytes(size, 77);
    await putBytes(os, 'big', bytes, chunk);
    await putBytes(os, 'big-lib', bytes, chunk, 0);
    for (const name of ['big', 'big-lib']) {
      for (const [window, shared] of [
        [16, false],
        [16, true],
        [2, false],
        [1024, true],
        [0, true],
      ] as const) {
        const got = await getBytes(os, name, { window, shared, touchBytes: 1 << 20 });
        expect(got!.buffer instanceof SharedArrayBuffer).toBe(shared);
        expect(same(got!, bytes)).toBe(true);
      }
    }
    // Reads queued at once still run one at a time and all come back whole.
    const all = await Promise.all([16, 0, 16, 4].map((window) => getBytes(os, 'big', { window })));
    for (const got of all) expect(same(got!, bytes)).toBe(true);
    expect(await consumers(os)).toBe(0);
    await os.destroy();
  }, 60_000);

  it("a window far beyond the server's 64 MB pending: AHEAD_BYTES at most requested ahead, read back whole", async () => {
    const os = await freshStore();
    const chunk = bodyLimit(nc);
    const bytes = randomBytes(80 << 20, 5);
    await putBytes(os, 'wide', bytes, chunk);
    // The same store through a connection whose publishes are watched: every pull request's batch.
    const inner = os as unknown as { js: { nc: NatsConnection } };
    const batches: number[] = [];
    const watchedNc = Object.create(inner.js.nc) as NatsConnection;
    watchedNc.publish = (subject: string, data?: unknown, opts?: unknown) => {
      if (subject.startsWith('$JS.API.CONSUMER.MSG.NEXT.')) batches.push(JSON.parse(String(data)).batch as number);
      return inner.js.nc.publish(subject, data as string, opts as never);
    };
    const js = Object.create(inner.js) as { nc: NatsConnection };
    js.nc = watchedNc;
    const watched = Object.create(os) as ObjectStore;
    (watched as unknown as { js: unknown }).js = js;
    for (const window of [1024, 16]) {
      batches.length = 0;
      const got = await getBytes(watched, 'wide', { window });
      expect(same(got!, bytes)).toBe(true);
      const most = Math.min(window, Math.floor(AHEAD_BYTES / chunk));
      expect(batches[0]).toBe(most);
      expect(Math.max(...batches)).toBe(most);
      expect(batches.reduce((a, b) => a + b, 0)).toBe(Math.ceil(bytes.length / chunk));
    }
    expect(await consumers(os)).toBe(0);
    await os.destroy();
  }, 60_000);

  it('a TaskMessage through getMessage, either read; a replaced object reads as its last version', async () => {
    const os = await freshStore();
    const r = mulberry32(3);
    const msg = (n: number) => ({
      meta: { kind: 'tree', n },
      arrays: { points: Float32Array.from({ length: 3 * n }, () => r()) },
    });
    const saved = process.env.TREELINE_NATS_GET_WINDOW;
    try {
      for (const [n, window] of [
        [5000, '16'],
        [7, '0'],
        [20000, '3'],
        [1, '16'],
      ] as const) {
        const m = msg(n);
        await putBytes(os, 'm', encodeTaskMessage(m), CHUNK);
        process.env.TREELINE_NATS_GET_WINDOW = window;
        for (const shared of [false, true]) {
          const back = await getMessage(os, 'm', { shared });
          expect(back!.meta).toEqual(m.meta);
          expect(Array.from(back!.arrays.points as Float32Array)).toEqual(Array.from(m.arrays.points));
        }
      }
    } finally {
      if (saved === undefined) delete process.env.TREELINE_NATS_GET_WINDOW;
      else process.env.TREELINE_NATS_GET_WINDOW = saved;
    }
    await os.destroy();
  }, 60_000);

  it('a missing or deleted object is null', async () => {
    const os = await freshStore();
    await putBytes(os, 'gone', randomBytes(3 * CHUNK, 4), CHUNK);
    await os.delete('gone');
    for (const window of [0, 16]) {
      expect(await getBytes(os, 'never', { window })).toBeNull();
      expect(await getBytes(os, 'gone', { window })).toBeNull();
      expect(await getMessage(os, 'never')).toBeNull();
    }
    await os.destroy();
  }, 30_000);

  it('a store removed during the read (a batch given up mid-task): an error naming the object within seconds, not after the stall', async () => {
    const os = await freshStore();
    await putBytes(os, 'big', randomBytes(32 << 20, 9), CHUNK);
    const t0 = performance.now();
    const read = getBytes(os, 'big', { window: 1 });
    read.catch(() => undefined);
    // Once the read's consumer is on the stream (8192 chunks one at a time: well under way), the store goes. The
    // server answers no pull for a consumer of a removed stream: before the fix the read waited READ_STALL_MS.
    while ((await consumers(os)) === 0) await new Promise((r) => setTimeout(r, 5));
    await os.destroy();
    await expect(read).rejects.toThrow(/object 'big': its store was removed during the read/);
    expect(performance.now() - t0).toBeLessThan(10_000);
  }, 30_000);

  it('a wrong digest, a missing chunk or fewer bytes than stored: an error naming the object', async () => {
    const os = await freshStore();
    for (const [name, size] of [
      ['small', 5 * CHUNK + 3],
      ['large', HASH_THREAD_BYTES + 5],
    ] as const) {
      const bytes = randomBytes(size, size);
      await putBytes(os, name, bytes, CHUNK);
      const digest = (await os.info(name))!.digest;
      await rewriteMeta(os, name, (info) => {
        info.digest = `SHA-256=${Buffer.alloc(32, 7).toString('base64url')}=`;
      });
      for (const shared of [false, true]) {
        await expect(getBytes(os, name, { window: 16, shared })).rejects.toThrow(`object '${name}' is corrupt`);
      }
      await expect(getBytes(os, name, { window: 0 })).rejects.toThrow(/corrupt/);
      // Restored: it reads again (a failed read leaves nothing behind that stops the next).
      await rewriteMeta(os, name, (info) => {
        info.digest = digest;
      });
      expect(same((await getBytes(os, name, { window: 16 }))!, bytes)).toBe(true);
      await rewriteMeta(os, name, (info) => {
        info.size = (info.size as number) - 1;
      });
      await expect(getBytes(os, name, { window: 16 })).rejects.toThrow(`object '${name}' holds more than`);
      await rewriteMeta(os, name, (info) => {
        info.size = (info.size as number) + 1;
      });
    }
    // A chunk gone from the stream (the third of 'small').
    const subject = `$O.${bucketOf(os)}.C.${(await os.info('small'))!.nuid}`;
    let seq = 0;
    for (let i = 0; i < 3; i++) {
      seq = (await jsm.direct.getMessage(streamOf(os), { next_by_subj: subject, seq: seq + 1 }))!.seq;
    }
    await jsm.streams.deleteMessage(streamOf(os), seq);
    for (const window of [1, 3, 16]) {
      await expect(getBytes(os, 'small', { window })).rejects.toThrow(`object 'small' ended after`);
    }
    expect(await consumers(os)).toBe(0);
    await os.destroy();
  }, 60_000);
});
