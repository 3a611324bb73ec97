/**
 * issue 20: putBytes' pipelined object-store put (src/distributed/nats.ts, putPipelined: up to `window` chunks
 * unacknowledged) against the library's putBlob (@nats-io/obj, one ack per chunk) on a real nats-server (random
 * loopback port, temporary store, test/helpers/nats.ts):
 *   - objects of 0, 1, chunk − 1, chunk, chunk + 1, 3·chunk + 17 bytes and ~3 MB (chunk = 4096) read back byte for
 *     byte by the library's getBlob, and their info (size, chunks, digest, options, description) and stored meta
 *     (the same JSON keys) equal putBlob's for the same bytes; the chunks lie in order on their subject;
 *   - a TaskMessage put as bytes reads back through getMessage;
 *   - replacing a name (pipelined ↔ library) leaves no orphan chunks, list() one entry, delete() removes it;
 *   - a failed ack (a publish rejecting once) purges the new chunks and falls back to putBlob: the object is whole
 *     and nothing else is left in the stream; a store too small for the object rejects and leaves the old object
 *     under that name readable and intact; a closed connection rejects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { Objm, type ObjectStore } from '@nats-io/obj';
import { connectNats, getMessage, putBytes, putWindow, DIGEST_OFF_THREAD_BYTES } from '../../src/distributed/nats.js';
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
const WINDOW = 8;

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

async function freshStore(opts: { max_bytes?: number } = {}): Promise<ObjectStore> {
  return new Objm(nc).create(`put-test-${bucketCount++}`, opts);
}

/** The stream's message count (every chunk and every meta message still stored). */
async function messages(os: ObjectStore): Promise<number> {
  return (await jsm.streams.info(streamOf(os))).state.messages;
}

/** The stored meta message's JSON for `name`. */
async function rawMeta(os: ObjectStore, name: string): Promise<Record<string, unknown>> {
  const m = await jsm.streams.getMessage(streamOf(os), { last_by_subj: metaSubject(os, name) });
  return m!.json<Record<string, unknown>>();
}

/** The chunks stored on `nuid`'s subject, in stream order, concatenated. */
async function storedChunks(os: ObjectStore, nuid: string): Promise<Uint8Array> {
  const subject = `$O.${bucketOf(os)}.C.${nuid}`;
  const parts: Uint8Array[] = [];
  let seq = 0;
  for (;;) {
    const m = await jsm.direct.getMessage(streamOf(os), { next_by_subj: subject, seq: seq + 1 });
    if (m === null) break;
    parts.push(m.data);
    seq = m.seq;
  }
  return Buffer.concat(parts);
}

describe('putBytes, pipelined (issue 20)', () => {
  it('the default window is a small positive count; TREELINE_NATS_PUT_WINDOW sets it, 0 selects putBlob', () => {
    expectWindowFromEnv('TREELINE_NATS_PUT_WINDOW', putWindow, 32);
  });

  // The last: hashed on a libuv thread (WebCrypto) while the chunks go out.
  const sizes = [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 17, 3 * (1 << 20) + 5, DIGEST_OFF_THREAD_BYTES + 5];
  it.each(sizes)(
    '%i bytes: read back whole, info and meta as putBlob writes them',
    async (size) => {
      const os = await freshStore();
      const bytes = randomBytes(size, size + 1);
      await putBytes(os, 'new', bytes, CHUNK, WINDOW);
      await putBytes(os, 'old', bytes, CHUNK, 0);
      const got = await os.getBlob('new');
      expect(got).not.toBeNull();
      expect(Buffer.from(got!).equals(Buffer.from(bytes))).toBe(true);
      const a = (await os.info('new'))!;
      const b = (await os.info('old'))!;
      expect(a.size).toBe(size);
      expect(a.chunks).toBe(Math.ceil(size / CHUNK));
      expect([a.size, a.chunks, a.digest, a.description, a.deleted, a.bucket]).toEqual([
        b.size,
        b.chunks,
        b.digest,
        b.description,
        b.deleted,
        b.bucket,
      ]);
      expect(a.options).toEqual(b.options);
      expect(a.nuid).not.toBe(b.nuid);
      const [ma, mb] = [await rawMeta(os, 'new'), await rawMeta(os, 'old')];
      expect(Object.keys(ma)).toEqual(Object.keys(mb));
      for (const k of ['bucket', 'name', 'nuid', 'mtime']) (delete ma[k], delete mb[k]);
      expect(ma).toEqual(mb);
      // The chunks in stream order are the bytes in order; nothing else is stored (two objects' chunks and metas).
      expect(Buffer.from(await storedChunks(os, a.nuid)).equals(Buffer.from(bytes))).toBe(true);
      expect(await messages(os)).toBe(2 * (a.chunks + 1));
      await os.destroy();
    },
    30_000,
  );

  it('a large view of shared memory (WebCrypto refuses it): hashed on the calling thread, the same digest', async () => {
    const os = await freshStore();
    const size = DIGEST_OFF_THREAD_BYTES + 3;
    const bytes = new Uint8Array(new SharedArrayBuffer(size + 8), 8, size);
    bytes.set(randomBytes(size, 7));
    await putBytes(os, 'new', bytes, 1 << 20, WINDOW);
    await putBytes(os, 'old', bytes.slice(), 1 << 20, 0);
    const [a, b] = [(await os.info('new'))!, (await os.info('old'))!];
    expect(a.digest).toBe(b.digest);
    expect(Buffer.from((await os.getBlob('new'))!).equals(Buffer.from(bytes))).toBe(true);
    await os.destroy();
  }, 30_000);

  it('keeps up to `window` chunks unacknowledged (putBlob: one)', async () => {
    const os = await freshStore();
    const inner = os as unknown as { js: { publish: (...a: unknown[]) => Promise<unknown> } };
    let open = 0;
    let most = 0;
    const js = Object.create(inner.js) as typeof inner.js;
    js.publish = (...a: unknown[]) => {
      most = Math.max(most, ++open);
      return inner.js.publish(...a).finally(() => open--);
    };
    const watched = Object.create(os) as ObjectStore;
    (watched as unknown as { js: unknown }).js = js;
    const bytes = randomBytes(64 * CHUNK, 12);
    for (const window of [WINDOW, 3, 1, 0]) {
      most = 0;
      await putBytes(watched, `w${window}`, bytes, CHUNK, window);
      expect(most).toBe(Math.max(window, 1));
      expect(Buffer.from((await os.getBlob(`w${window}`))!).equals(Buffer.from(bytes))).toBe(true);
    }
    await os.destroy();
  }, 30_000);

  it('a TaskMessage put as bytes reads back through getMessage', async () => {
    const os = await freshStore();
    const r = mulberry32(7);
    const msg = {
      meta: { kind: 'tree', n: 12345 },
      arrays: {
        points: Float32Array.from({ length: 3 * 12345 }, () => r()),
        ids: Uint32Array.from({ length: 12345 }, (_, i) => i * 7),
      },
    };
    const bytes = encodeTaskMessage(msg);
    await putBytes(os, 'msg', bytes, CHUNK, WINDOW);
    const back = await getMessage(os, 'msg');
    expect(back).not.toBeNull();
    expect(back!.meta).toEqual(msg.meta);
    expect(Array.from(back!.arrays.points as Float32Array)).toEqual(Array.from(msg.arrays.points));
    expect(Array.from(back!.arrays.ids as Uint32Array)).toEqual(Array.from(msg.arrays.ids));
    await os.destroy();
  }, 30_000);

  it('replacing a name leaves no orphan chunks; list and delete see one object', async () => {
    const os = await freshStore();
    const steps: [number, number][] = [
      [5 * CHUNK + 3, WINDOW],
      [2 * CHUNK, 0],
      [9 * CHUNK + 1, WINDOW],
      [CHUNK - 5, WINDOW],
      [7 * CHUNK, 0],
      [4 * CHUNK + 9, WINDOW],
    ];
    let seed = 100;
    for (const [size, window] of steps) {
      const bytes = randomBytes(size, seed++);
      await putBytes(os, 'x', bytes, CHUNK, window);
      const info = (await os.info('x'))!;
      expect(info.size).toBe(size);
      // This object's chunks and its one meta message (the rollup keeps the last): no chunk of an earlier put.
      expect(await messages(os)).toBe(info.chunks + 1);
      expect(Buffer.from((await os.getBlob('x'))!).equals(Buffer.from(bytes))).toBe(true);
    }
    expect((await os.list()).map((i) => i.name)).toEqual(['x']);
    await os.delete('x');
    expect(await os.get('x')).toBeNull();
    expect(await messages(os)).toBe(1);
    // A deleted name put again.
    const bytes = randomBytes(3 * CHUNK, 1);
    await putBytes(os, 'x', bytes, CHUNK, WINDOW);
    expect(Buffer.from((await os.getBlob('x'))!).equals(Buffer.from(bytes))).toBe(true);
    expect(await messages(os)).toBe(3 + 1);
    await os.destroy();
  }, 30_000);

  it('a failed ack purges the new chunks and falls back to putBlob: the object whole, nothing left over', async () => {
    const os = await freshStore();
    const before = randomBytes(2 * CHUNK + 1, 5);
    await putBytes(os, 'f', before, CHUNK, WINDOW);
    // The same store with a JetStream client whose 4th publish rejects (once): putPipelined's chunk 3.
    const inner = os as unknown as { js: { publish: (...a: unknown[]) => Promise<unknown> } };
    let calls = 0;
    const js = Object.create(inner.js) as typeof inner.js;
    js.publish = (...a: unknown[]) =>
      ++calls === 4 ? Promise.reject(new Error('injected ack failure')) : inner.js.publish(...a);
    const failing = Object.create(os) as ObjectStore;
    (failing as unknown as { js: unknown }).js = js;
    const bytes = randomBytes(20 * CHUNK + 11, 6);
    await putBytes(failing, 'f', bytes, CHUNK, WINDOW);
    // The pipelined try published chunks 0–2 and some beyond the failed one, then the library published all 21.
    expect(calls).toBeGreaterThan(4 + 21);
    expect(Buffer.from((await os.getBlob('f'))!).equals(Buffer.from(bytes))).toBe(true);
    const info = (await os.info('f'))!;
    expect(info.chunks).toBe(21);
    expect(await messages(os)).toBe(21 + 1);
    await os.destroy();
  }, 30_000);

  it('a store too small rejects and leaves the old object under the name intact', async () => {
    const os = await freshStore({ max_bytes: 64 * 1024 });
    const small = randomBytes(3 * CHUNK, 9);
    await putBytes(os, 's', small, CHUNK, WINDOW);
    const count = await messages(os);
    await expect(putBytes(os, 's', randomBytes(40 * CHUNK, 10), CHUNK, WINDOW)).rejects.toThrow();
    expect(Buffer.from((await os.getBlob('s'))!).equals(Buffer.from(small))).toBe(true);
    expect(await messages(os)).toBe(count);
    await os.destroy();
  }, 30_000);

  it('a closed connection rejects', async () => {
    const other = await connectNats({ url: server.url });
    const os = await new Objm(other).create(`put-test-${bucketCount++}`);
    await other.close();
    await expect(putBytes(os, 'c', randomBytes(5 * CHUNK, 11), CHUNK, WINDOW)).rejects.toThrow();
    await (await new Objm(nc).open(bucketOf(os))).destroy();
  }, 30_000);
});
