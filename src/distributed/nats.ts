/**
 * treeline on NATS JetStream (issue 20, §The engine): the connection and the names every process agrees on.
 *
 *   stream   TREELINE_TASKS   work-queue retention, subjects treeline.task.<run>: one message per task, taken by
 *                             one worker through the shared durable pull consumer `treeline-workers` (explicit ack;
 *                             `working` heartbeats while computing; redelivered after the ack wait when a worker dies)
 *   KV       treeline-runs    one entry per run id: the coordinator's run state (RunState, coordinator.ts)
 *   objects  treeline-<run>   per run: the partitions (`partition.<p>`), task bodies over the payload limit
 *                             (`task.<id>`) and every result (`result.<id>`); removed when the run succeeds
 *   subject  treeline.done.<run>  core NATS: a worker names (header Treeline-Task) each task whose result it has
 *                             stored, its body the result again when that fits one message
 *
 * Security: credentials (`--nats-creds`, a user:password or token in the URL) and TLS files are passed through to the
 * client. Without any of them the server must be on loopback, unless the caller allows anonymous access
 * (`allowAnonymous`, `--nats-allow-anonymous`): a worker executes whatever tasks the server hands it.
 */
import {
  connect,
  createInbox,
  credsAuthenticator,
  headers,
  nuid,
  type NatsConnection,
  type Subscription,
} from '@nats-io/transport-node';
import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  jetstreamManager,
  JsHeaders,
  RetentionPolicy,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { Base64UrlPaddedCodec, setSha256Backend, type ObjectStore } from '@nats-io/obj';
import { InputError } from '../errors.js';

// The object store checks every object's SHA-256; its default is a pure-JS hash (for browsers), several times slower
// than node:crypto's at partition sizes (200 MB: 54 → 178 MB/s put on loopback; with 1 MB chunks 470). This module
// is Node-only, so: the native one, process-wide.
setSha256Backend('native');
import { decodeTaskMessage, encodedSize, encodeTaskMessage } from './nats.codec.js';
import type { TaskMessage } from './types.js';
import { touchOnWorkers } from '../host/buffers.js';
import { resolveThreads } from '../host/threads.js';

export const TASK_STREAM = 'TREELINE_TASKS';
export const TASK_CONSUMER = 'treeline-workers';
export const RUNS_BUCKET = 'treeline-runs';
export const taskSubject = (run: string): string => `treeline.task.${run}`;
export const doneSubject = (run: string): string => `treeline.done.${run}`;
/**
 * Where a coordinator of a 'pairs' run tells every worker the run's size before its partitioning ({ run, n, dim, k,
 * euclidean }): the workers take their tasks' scratch meanwhile and GPU workers of a Euclidean run make one EMST of a
 * pair's size (worker.ts, partition.tasks.ts prepareRun).
 */
export const PREPARE_SUBJECT = 'treeline.prepare';
export const runBucket = (run: string): string => `treeline-${run}`;
/** The header naming the task of a note on treeline.done.<run>. */
export const TASK_HEADER = 'Treeline-Task';

/** How to reach the server: the URL and what authenticates the client. */
export interface NatsOptions {
  /** Server URL(s), comma-separated: nats://host:4222, tls://host:4222. */
  url: string;
  /** A NATS credentials file (JWT + NKey seed, `nsc generate creds`). */
  creds?: string;
  /** TLS client certificate and key (PEM files), for servers that verify clients. */
  tlsCert?: string;
  tlsKey?: string;
  /** CA certificate (PEM) that signed the server's certificate. */
  tlsCa?: string;
  /** Connect without credentials to a server that is not on loopback. */
  allowAnonymous?: boolean;
  /** The connection's name in the server's monitoring (`treeline worker`, `treeline emst`). */
  name?: string;
}

/** A run id: letters, digits, '-' and '_' (it names a subject, a KV key and an object-store bucket). */
export function checkRunId(id: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) {
    throw new InputError(`Expected a run id of 1–64 letters, digits, '-' or '_', got '${id}'.`);
  }
  return id;
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[?::1\]?)$/i;

/** The URLs' hosts, and whether any URL carries its own user or token. */
function parseServers(url: string): { servers: string[]; hosts: string[]; inlineAuth: boolean } {
  const servers = url
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (servers.length === 0) throw new InputError(`Expected a NATS server URL (nats://host:port), got '${url}'.`);
  const hosts: string[] = [];
  let inlineAuth = false;
  for (const s of servers) {
    let u: URL;
    try {
      u = new URL(s.includes('://') ? s : `nats://${s}`);
    } catch {
      throw new InputError(`Expected a NATS server URL such as nats://127.0.0.1:4222, got '${s}'.`);
    }
    hosts.push(u.hostname);
    if (u.username || u.password) inlineAuth = true;
  }
  return { servers, hosts, inlineAuth };
}

/** Connects as `o` says; refuses an anonymous connection to a non-loopback server unless allowed. */
export async function connectNats(o: NatsOptions): Promise<NatsConnection> {
  const { servers, hosts, inlineAuth } = parseServers(o.url);
  const authenticated = !!o.creds || inlineAuth || (!!o.tlsCert && !!o.tlsKey);
  const remote = hosts.filter((h) => !LOOPBACK.test(h));
  if (!authenticated && remote.length > 0 && !o.allowAnonymous) {
    throw new InputError(
      `Refusing an anonymous NATS connection to ${remote.join(', ')} (not loopback): pass --nats-creds <file> or ` +
        'TLS client certificates (--nats-tls-cert/--nats-tls-key), or --nats-allow-anonymous on a trusted network.',
    );
  }
  if ((o.tlsCert === undefined) !== (o.tlsKey === undefined)) {
    throw new InputError('Expected --nats-tls-cert and --nats-tls-key together, got only one of them.');
  }
  const tls =
    o.tlsCert || o.tlsCa
      ? {
          ...(o.tlsCert ? { certFile: o.tlsCert, keyFile: o.tlsKey } : {}),
          ...(o.tlsCa ? { caFile: o.tlsCa } : {}),
        }
      : undefined;
  let creds: Uint8Array | undefined;
  if (o.creds) {
    try {
      // A computed specifier, like every node: import of the library (test/cpu/package.test.ts checks that).
      const fs = 'node:fs/promises';
      const { readFile } = (await import(/* @vite-ignore */ fs)) as typeof import('node:fs/promises');
      creds = await readFile(o.creds);
    } catch (e) {
      throw new InputError(`Cannot read the NATS credentials file '${o.creds}': ${(e as Error).message}`);
    }
  }
  try {
    return await connect({
      servers,
      name: o.name,
      ...(creds ? { authenticator: credsAuthenticator(creds) } : {}),
      ...(tls ? { tls } : {}),
      maxReconnectAttempts: -1,
    });
  } catch (e) {
    throw new InputError(`Cannot connect to the NATS server at ${o.url}: ${(e as Error).message}`);
  }
}

/**
 * Creates the task stream when missing (the coordinator, before its first task: a work queue keeps its messages
 * until a consumer takes them, so workers may start later).
 */
export async function ensureTaskStream(jsm: JetStreamManager): Promise<void> {
  try {
    await jsm.streams.info(TASK_STREAM);
  } catch {
    try {
      await jsm.streams.add({
        name: TASK_STREAM,
        subjects: ['treeline.task.>'],
        retention: RetentionPolicy.Workqueue,
      });
    } catch (e) {
      // Another process created it in between.
      await jsm.streams.info(TASK_STREAM).catch(() => {
        throw e;
      });
    }
  }
}

/** Creates the task stream and the workers' consumer when missing; sets the consumer's ack wait (workers). */
export async function ensureTaskQueue(jsm: JetStreamManager, ackWaitMs: number): Promise<void> {
  await ensureTaskStream(jsm);
  const config = {
    durable_name: TASK_CONSUMER,
    ack_policy: AckPolicy.Explicit,
    ack_wait: ackWaitMs * 1e6,
    filter_subject: 'treeline.task.>',
    // Redelivery is unbounded here: the worker counts deliveries itself and stores the failure as the task's
    // result (worker.ts), so the coordinator always hears the end of every task.
    max_deliver: -1,
  };
  try {
    const info = await jsm.consumers.info(TASK_STREAM, TASK_CONSUMER);
    if (info.config.ack_wait !== config.ack_wait) await jsm.consumers.update(TASK_STREAM, TASK_CONSUMER, config);
  } catch {
    await jsm.consumers.add(TASK_STREAM, config);
  }
}

/**
 * Whether run `run`'s object store is gone: its stream (`OBJ_<bucket>`, the object store's own naming) removed — the
 * run finished, was given up or deleted. false where it is there, and where the look itself fails (a reconnect proves
 * nothing).
 */
export function runGone(jsm: JetStreamManager, run: string): Promise<boolean> {
  return streamGone(jsm, `OBJ_${runBucket(run)}`);
}

/** Whether stream `stream` is gone: false where it is there, and where the look itself fails (a reconnect). */
async function streamGone(jsm: JetStreamManager, stream: string): Promise<boolean> {
  try {
    await jsm.streams.info(stream);
    return false;
  } catch (e) {
    return e instanceof JetStreamApiError && e.code === JetStreamApiCodes.StreamNotFound;
  }
}

/** JetStream's manager on `nc`; an InputError naming the remedy where the server runs without JetStream. */
export async function jetstreamManagerOf(nc: NatsConnection): Promise<JetStreamManager> {
  try {
    return await jetstreamManager(nc);
  } catch (e) {
    throw new InputError(
      `The NATS server at ${nc.getServer()} has no JetStream (${(e as Error).message}): start it with -js ` +
        '(scripts/nats-server.sh does).',
    );
  }
}

/** The largest body a message may have on this server, leaving room for headers. */
export const bodyLimit = (nc: NatsConnection): number => Math.max(4096, (nc.info?.max_payload ?? 1 << 20) - 16_384);

/**
 * Stores `bytes` under `name`, in chunks of `chunkBytes` (bodyLimit: the object store's default, 128 KiB, moved a
 * quarter as fast on loopback). `window` chunks in flight at once (putPipelined; default putWindow(), from
 * TREELINE_NATS_PUT_WINDOW); 0: the library's putBlob, which waits for each chunk's ack before the next.
 */
export async function putBytes(
  os: ObjectStore,
  name: string,
  bytes: Uint8Array,
  chunkBytes: number,
  window = putWindow(),
): Promise<void> {
  if (window > 0 && (await putPipelined(os, name, bytes, chunkBytes, window))) return;
  await os.putBlob({ name, options: { max_chunk_size: chunkBytes } }, bytes);
}

/** putBytes' default window: TREELINE_NATS_PUT_WINDOW (0–1024; 0 = the library's putBlob), else PUT_WINDOW. */
export function putWindow(): number {
  return windowFromEnv('TREELINE_NATS_PUT_WINDOW', PUT_WINDOW);
}

/** A window (0–1024) from the environment variable `name`, else `fallback`; anything else is an InputError. */
function windowFromEnv(name: string, fallback: number): number {
  const v = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];
  if (v === undefined || v === '') return fallback;
  const w = Number(v);
  if (!Number.isInteger(w) || w < 0 || w > 1024) {
    throw new InputError(`Expected ${name} to be an integer from 0 to 1024, got '${v}'.`);
  }
  return w;
}

/** From this size on putPipelined hashes on a libuv thread (WebCrypto) instead of on the calling thread. */
export const DIGEST_OFF_THREAD_BYTES = 1 << 24;

/** putBytes' chunks in flight by default. */
const PUT_WINDOW = 16;

/** What putPipelined uses of @nats-io/obj 3.4's ObjectStoreImpl (not part of its public types). */
interface StoreInternals {
  js: JetStreamClient & { nc: NatsConnection; getOptions(): { timeout?: number } };
  jsm: JetStreamManager;
  stream: string;
  name: string;
}

function internalsOf(os: ObjectStore): StoreInternals | null {
  const o = os as unknown as Partial<StoreInternals>;
  const ok =
    typeof o.js?.publish === 'function' &&
    typeof o.js?.getOptions === 'function' &&
    typeof o.jsm?.streams?.purge === 'function' &&
    typeof o.stream === 'string' &&
    typeof o.name === 'string';
  return ok ? (o as StoreInternals) : null;
}

/** node:crypto's createHash, imported once (a computed specifier: the library imports no node: module statically). */
let loadedCreateHash: typeof import('node:crypto').createHash | undefined;

async function nodeCreateHash(): Promise<typeof import('node:crypto').createHash> {
  if (loadedCreateHash === undefined) {
    const crypto = 'node:crypto';
    ({ createHash: loadedCreateHash } = (await import(/* @vite-ignore */ crypto)) as typeof import('node:crypto'));
  }
  return loadedCreateHash;
}

/**
 * The object store's put (@nats-io/obj 3.4, ObjectStoreImpl._put) with up to `window` chunks unacknowledged: the
 * library publishes each chunk and awaits its PubAck before the next (one round trip per chunk: 260–280 MB/s on
 * the H100 host's loopback, issue 20). Writes what _put writes, so the library's get/info/list/delete and
 * getMessage read it unchanged: the chunks in order on `$O.<bucket>.C.<nuid>` (one connection publishes in order
 * and the server stores them in that order: every ack's sequence is checked to rise with the chunk's index), then
 * the meta message on `$O.<bucket>.M.<name, base64url>` with the rollup header (bucket, nuid, size, chunks, name,
 * description, options.max_chunk_size, mtime, digest "SHA-256=<base64url>", deleted: false), then the replaced
 * object's chunks purged. Returns false, having waited for every chunk in flight and purged the new chunks, where an
 * ack failed or came out of order, or the store is not that class (the caller then puts through the library).
 */
async function putPipelined(
  os: ObjectStore,
  name: string,
  bytes: Uint8Array,
  chunkBytes: number,
  window: number,
): Promise<boolean> {
  const store = internalsOf(os);
  if (store === null || name.length === 0) return false;
  const { js, jsm, stream } = store;
  const timeout = js.getOptions().timeout;
  const maxChunk = Math.min(chunkBytes, js.nc.info?.max_payload || 1024);
  const old = await os.info(name);
  const id = nuid.next();
  const chunkSubject = `$O.${store.name}.C.${id}`;
  const createHash = await nodeCreateHash();
  // The digest of a large put on a libuv thread while the chunks go out (WebCrypto's digest, which copies its input
  // first): on the calling thread it took ~0.8 s a GB of the put's ~2.2 (H200 x2 host, session 14). Views of shared
  // memory, which WebCrypto refuses, and small puts: hashed here, chunk by chunk.
  const subtle = (globalThis as { crypto?: Crypto }).crypto?.subtle;
  const offThread =
    subtle !== undefined && bytes.length >= DIGEST_OFF_THREAD_BYTES && !(bytes.buffer instanceof SharedArrayBuffer);
  const digest = offThread ? subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>) : null;
  digest?.catch(() => undefined); // awaited below
  const sha = offThread ? null : createHash('sha256');
  const chunks = Math.ceil(bytes.length / maxChunk);
  const seqs = new Float64Array(chunks);
  let failure: unknown = null;
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < chunks && failure === null; i++) {
    if (inFlight.length >= window) await inFlight.shift();
    if (failure !== null) break;
    const chunk = bytes.subarray(i * maxChunk, Math.min(bytes.length, (i + 1) * maxChunk));
    inFlight.push(
      js.publish(chunkSubject, chunk, { timeout }).then(
        (ack) => {
          if (ack.stream !== stream) failure ??= new Error(`chunk ${i} stored in stream ${ack.stream}, not ${stream}`);
          seqs[i] = ack.seq;
        },
        (e: unknown) => {
          failure ??= e;
        },
      ),
    );
    sha?.update(chunk);
  }
  await Promise.all(inFlight);
  for (let i = 1; i < chunks && failure === null; i++) {
    if (!(seqs[i] > seqs[i - 1])) failure = new Error(`chunk ${i} stored before chunk ${i - 1}`);
  }
  let sum: Uint8Array | null = null;
  if (failure === null) {
    try {
      sum = new Uint8Array(digest !== null ? await digest : sha!.digest());
    } catch (e) {
      failure = e;
    }
  }
  if (failure === null) {
    const info = {
      bucket: store.name,
      nuid: id,
      size: bytes.length,
      chunks,
      name,
      description: '',
      options: { max_chunk_size: maxChunk },
      mtime: new Date().toISOString(),
      digest: `SHA-256=${Base64UrlPaddedCodec.encode(sum!)}`,
      deleted: false,
    };
    const h = headers();
    h.set(JsHeaders.RollupHdr, JsHeaders.RollupValueSubject);
    try {
      await js.publish(`$O.${store.name}.M.${Base64UrlPaddedCodec.encode(name)}`, JSON.stringify(info), {
        headers: h,
        timeout,
      });
    } catch (e) {
      failure = e;
    }
  }
  if (failure !== null) {
    await jsm.streams.purge(stream, { filter: chunkSubject }).catch(() => undefined);
    return false;
  }
  // The new object is live; as _put, a failed cleanup of the old one's chunks is not the put's failure.
  if (old) await jsm.streams.purge(stream, { filter: `$O.${store.name}.C.${old.nuid}` }).catch(() => undefined);
  return true;
}

/**
 * Stores `msg` under `name` (chunked as putBytes); returns its size in bytes. A message over 64 MB is encoded into a
 * buffer kept for the next one (a partition upload, a forest's result: a fresh buffer of hundreds of MB took its
 * pages at ~0.25–1 GB/s, 40 % of a 400 MB put on the development machine); puts at once take separate buffers.
 * `pooledBytes`: that threshold (tests).
 */
export async function putMessage(
  os: ObjectStore,
  name: string,
  msg: TaskMessage,
  chunkBytes: number,
  pooledBytes = POOLED_BYTES,
): Promise<number> {
  const size = encodedSize(msg);
  if (size < pooledBytes) {
    const bytes = encodeTaskMessage(msg);
    await putBytes(os, name, bytes, chunkBytes);
    return bytes.length;
  }
  const at = encodeBuffers.findIndex((b) => b.length >= size);
  // An eighth more than this message: a worker's next forest result, a few edges longer, still fits (a fresh buffer
  // for it was ~0.6 s of page faults at 2·10^8, k = 4, in the run's last step).
  const buffer = at >= 0 ? encodeBuffers.splice(at, 1)[0] : new Uint8Array(size + Math.ceil(size / 8));
  try {
    await putBytes(os, name, encodeTaskMessage(msg, buffer), chunkBytes);
    return size;
  } finally {
    encodeBuffers.push(buffer);
    // Two kept at most (a coordinator's upload beside a task body; a worker's result): the largest.
    encodeBuffers.sort((x, y) => y.length - x.length).splice(2);
  }
}

/** From this many bytes on, putMessage encodes into a kept buffer. */
const POOLED_BYTES = 64 << 20;

/** Idle encode buffers (putMessage). */
const encodeBuffers: Uint8Array[] = [];

/**
 * The message stored under `name`, or null when there is none.
 *
 * One read at a time per process: two object-store reads at once on one connection (each an ordered push consumer
 * with flow control) stalled for 60–150 s in 5 of 6 tries at 200–400 MB on loopback (session 11; one at a time never
 * did) — and a worker read its task's partition, the partner and a prefetch at once. The chunks go straight into one
 * array of the object's size (getBlob gathered them, then copied them into a second array). `shared`: that array is
 * a SharedArrayBuffer's (the coordinator's task results: its threaded merge reads them; a worker's partitions: its
 * pairs' threaded union; the GPU's uploads copy such views, src/gpu/buffers.ts unshared), whose pages the host's
 * threads take first from `touchBytes` (default 64 MiB) on: a fresh buffer's first writes ran at ~1 GB/s on one H100
 * host thread, beside the chunks' own work — a forest's 600 MB result at 2·10^8, k = 4, read in the run's last step.
 * The chunks come through readPulled (a pull consumer, the SHA-256 on a hashing thread) unless
 * TREELINE_NATS_GET_WINDOW is 0 (the library's get); one at a time still (readPulled at once on one connection was not
 * tried).
 */
export function getMessage(
  os: ObjectStore,
  name: string,
  options: { shared?: boolean; touchBytes?: number } = {},
): Promise<TaskMessage | null> {
  return getBytes(os, name, options).then((bytes) => (bytes === null ? null : decodeTaskMessage(bytes)));
}

/**
 * The bytes of the object stored under `name` (getMessage's read, one at a time per process), or null when there is
 * none. `window`: chunks requested ahead (readPulled; default getWindow(), from TREELINE_NATS_GET_WINDOW); 0: the
 * library's get.
 */
export function getBytes(
  os: ObjectStore,
  name: string,
  options: { shared?: boolean; touchBytes?: number; window?: number } = {},
): Promise<Uint8Array | null> {
  const touch = options.touchBytes ?? TOUCH_BYTES;
  const window = options.window ?? getWindow();
  const read = reads.then(() => readBytes(os, name, options.shared === true, touch, window));
  reads = read.then(
    () => undefined,
    () => undefined,
  );
  return read;
}

/** The tail of this process' object-store reads (getBytes). */
let reads: Promise<void> = Promise.resolve();

/** getMessage's default touchBytes. */
const TOUCH_BYTES = 64 << 20;

async function readBytes(
  os: ObjectStore,
  name: string,
  shared: boolean,
  touchBytes: number,
  window: number,
): Promise<Uint8Array | null> {
  if (window > 0) {
    const pulled = await readPulled(os, name, shared, touchBytes, window);
    if (pulled !== undefined) return pulled;
  }
  const r = await os.get(name);
  if (r === null) return null;
  const size = r.info.size;
  const out = await outputArray(size, shared, touchBytes); // (the chunks wait in the reader's queue meanwhile)
  const reader = r.data.getReader();
  let at = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (at + value.length > out.length) {
      throw new Error(`object '${name}' holds more than the ${out.length} bytes its info says.`);
    }
    out.set(value, at);
    at += value.length;
  }
  const error = await r.error;
  if (error) throw error;
  if (at !== out.length) throw new Error(`object '${name}' ended after ${at} of its ${out.length} bytes.`);
  return out;
}

/** The array an object of `size` bytes is read into: see getMessage. */
async function outputArray(size: number, shared: boolean, touchBytes: number): Promise<Uint8Array> {
  if (!shared) return new Uint8Array(size);
  const buffer = new SharedArrayBuffer(size);
  if (size >= touchBytes && size >= 4) {
    // At most 8 threads: a worker's partition prefetch may run while its task's passes hold its share of the host.
    await touchOnWorkers([{ buffer, bytes: size }], await resolveThreads(undefined, size, 8), 'getMessage');
  }
  return new Uint8Array(buffer);
}

/** getMessage's default window: TREELINE_NATS_GET_WINDOW (0–1024; 0 = the library's get), else GET_WINDOW. */
export function getWindow(): number {
  return windowFromEnv('TREELINE_NATS_GET_WINDOW', GET_WINDOW);
}

/** getMessage's chunks requested ahead by default (1 MB each on a default server: well under its 64 MB pending). */
const GET_WINDOW = 16;

/** readPulled's most bytes requested ahead. */
export const AHEAD_BYTES = 32 << 20;

/** A read with no chunk for this long fails (the library's get: a 30 s heartbeat, then waits on). */
export const READ_STALL_MS = 60_000;

/** A read with no chunk for this long looks its consumer up (readPulled): a removed store ends it at once. */
const PROBE_MS = 1000;

/** The API errors that say the read's consumer is gone with its stream. */
const GONE = new Set<number>([JetStreamApiCodes.ConsumerNotFound, JetStreamApiCodes.StreamNotFound]);

/**
 * An object's bytes through a pull consumer of our own, or null when there is no such object, or undefined where
 * this read does not apply (the store is not @nats-io/obj 3.4's class, the name is a link): the caller then reads
 * through the library. The library's get (an ordered push consumer with flow control, each chunk through an async
 * iterator and a ReadableStream, hashed on the calling thread) is bound by its one thread, not by the flow control
 * (2-core machine, session 14, 1 GB: ~1.8–2.6 s of that thread's CPU a read — SHA-256 ~0.6 s, the first writes to
 * the fresh array ~0.5–0.8 s, the rest the client's parsing and copying; into an array already touched it moved as
 * fast through a pull consumer as through its own). Here: an ephemeral consumer (no acks, in memory) filtered on the
 * object's chunk subject `$O.<bucket>.C.<nuid>`, fed by `no_wait` pull requests keeping `window` chunks (AHEAD_BYTES
 * at most) requested ahead; each chunk goes straight into the array in the subscription's callback, and the SHA-256
 * (checked against info.digest, as the library checks it) runs on a hashing thread (sha256Thread) beside the reading:
 * the reading thread's CPU ~1.2–1.4 s a GB (0.65–0.8 into shared memory, touched on the host's threads first). A
 * chunk beyond info.size, a missing chunk (the server answers a request with "no messages" before the object's
 * info.chunks came) or a digest that differs: an error naming the object. No chunk for `stallMs`: an error (a
 * reconnect mid-read loses the in-memory consumer; the library's ordered consumer would have been recreated); no
 * chunk for PROBE_MS and the consumer gone with its stream (the store removed mid-read): an error at once.
 */
async function readPulled(
  os: ObjectStore,
  name: string,
  shared: boolean,
  touchBytes: number,
  window: number,
  stallMs = READ_STALL_MS,
): Promise<Uint8Array | null | undefined> {
  const store = internalsOf(os);
  if (store === null || typeof store.jsm.consumers?.add !== 'function' || name.length === 0) return undefined;
  const info = await os.info(name);
  if (info === null || info.deleted) return null;
  if (info.options?.link) return undefined;
  if (!info.digest.startsWith('SHA-256=')) throw new Error(`object '${name}': unknown digest type '${info.digest}'.`);
  const text = info.digest.slice(8);
  const expected = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64url');
  if (expected.length !== 32) throw new Error(`object '${name}': unable to parse digest '${info.digest}'.`);
  const size = info.size;
  const out = await outputArray(size, shared, touchBytes);
  if (size === 0) return out;
  const { js, jsm, stream } = store;
  const nc = js.nc;
  const consumer = await jsm.consumers.add(stream, {
    ack_policy: AckPolicy.None,
    deliver_policy: DeliverPolicy.All,
    filter_subject: `$O.${store.name}.C.${info.nuid}`,
    mem_storage: true,
    inactive_threshold: 120e9, // ns: the server removes it if we die mid-read
  });
  const next = `$JS.API.CONSUMER.MSG.NEXT.${stream}.${consumer.name}`;
  const inbox = createInbox();
  const hasher = await sha256Thread(size);
  const chunks = info.chunks;
  // At most AHEAD_BYTES requested ahead, whatever the window: the server drops a client that falls further behind
  // than its max_pending (64 MB by default) as a slow consumer.
  const chunkBytes = Math.max(1, info.options?.max_chunk_size ?? Math.ceil(size / Math.max(1, chunks)));
  const ahead = Math.max(1, Math.min(window, Math.floor(AHEAD_BYTES / chunkBytes)));
  let [at, got, asked] = [0, 0, 0];
  let last = Date.now();
  let sub: Subscription | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  /** The read's end where its store went meanwhile, `why` as the server told it. */
  const removed = (why: string): Error =>
    new Error(`object '${name}': its store was removed during the read (${got} of its ${chunks} chunks read; ${why}).`);
  try {
    await new Promise<void>((resolve, reject) => {
      const ask = (): void => {
        const batch = Math.min(chunks - asked, ahead - (asked - got));
        if (batch <= 0) return;
        asked += batch;
        nc.publish(next, JSON.stringify({ batch, no_wait: true }), { reply: inbox });
      };
      sub = nc.subscribe(inbox, {
        callback: (err, m) => {
          if (err) return reject(err);
          last = Date.now();
          if (m.data.length === 0 && m.headers) {
            const code = m.headers.code;
            if (code === 100) return; // a heartbeat
            const answered = `the server answered ${code} ${m.headers.description}`;
            const ended = new Error(
              `object '${name}' ended after ${got} of its ${chunks} chunks (${at} of ${size} bytes): ${answered}.`,
            );
            // A store removed mid-read: its consumers go with it, and a pull in flight may be answered 409 Consumer
            // Deleted before the probe below finds the consumer gone — the same end, told the same way.
            if (code !== 409) return reject(ended);
            void streamGone(jsm, stream).then((gone) => reject(gone ? removed(answered) : ended));
            return;
          }
          if (at + m.data.length > size) {
            return reject(new Error(`object '${name}' holds more than the ${size} bytes its info says.`));
          }
          out.set(m.data, at);
          hasher.update(out, at, m.data.length);
          at += m.data.length;
          if (++got === chunks) resolve();
          else if (asked - got <= ahead >> 1) ask();
        },
      });
      // Important! The server answers no pull request once the stream is gone (a batch's store removed while a
      // worker still reads from it): a second without a chunk, the consumer is looked up, and its absence ends the
      // read at once rather than after stallMs.
      let probing = false;
      timer = setInterval(
        () => {
          const quiet = Date.now() - last;
          if (quiet > stallMs) {
            reject(new Error(`object '${name}': no chunk for ${stallMs / 1000} s (${got} of its ${chunks} read).`));
          } else if (quiet >= PROBE_MS && !probing) {
            probing = true;
            jsm.consumers
              .info(stream, consumer.name)
              .catch((e: unknown) => {
                if (!(e instanceof JetStreamApiError) || !GONE.has(e.code)) return; // (a reconnect: the stall decides)
                reject(removed(e.message));
              })
              .finally(() => (probing = false));
          }
        },
        Math.min(stallMs, PROBE_MS),
      );
      ask();
    });
    if (at !== size) throw new Error(`object '${name}' ended after ${at} of its ${size} bytes.`);
    const digest = await hasher.digest();
    if (!Buffer.from(digest).equals(expected)) {
      throw new Error(
        `object '${name}' is corrupt: its SHA-256 is ${Buffer.from(digest).toString('hex')}, its info says ` +
          `${expected.toString('hex')} (${info.digest}).`,
      );
    }
    return out;
  } finally {
    clearInterval(timer);
    sub?.unsubscribe();
    hasher.reset();
    await jsm.consumers.delete(stream, consumer.name).catch(() => undefined);
  }
}

/** From this size on an object's SHA-256 is computed on the hashing thread (smaller ones: on the calling thread). */
export const HASH_THREAD_BYTES = 8 << 20;

/** One read's SHA-256, fed the ranges of its array as they fill. */
interface Sha256Job {
  update(out: Uint8Array, at: number, bytes: number): void;
  digest(): Promise<Uint8Array>;
  /** Frees what the job holds (after digest, or instead of it). */
  reset(): void;
}

/**
 * A SHA-256 for a read of `size` bytes: under HASH_THREAD_BYTES (or where there are no worker threads) on the calling
 * thread, else on this process' hashing thread (one node:worker_threads worker, started at the first large read and
 * kept, unreferenced between reads): a view of shared memory is hashed there in place, any other range is copied
 * (a 1 MB chunk: a tenth of its hashing) and handed over. The reading thread's SHA-256 was ~0.6 s a GB (2-core
 * machine, SHA extensions) of a read's ~1.6 s a GB into a warm array.
 */
async function sha256Thread(size = Infinity): Promise<Sha256Job> {
  const createHash = await nodeCreateHash();
  const worker = size >= HASH_THREAD_BYTES ? await hashingThread() : null;
  if (worker === null) {
    const sha = createHash('sha256');
    return {
      update: (out, at, bytes) => void sha.update(out.subarray(at, at + bytes)),
      digest: () => Promise.resolve(new Uint8Array(sha.digest())),
      reset: () => undefined,
    };
  }
  const id = ++hashJobs;
  worker.ref();
  let done = false;
  const finish = (): void => {
    if (done) return;
    done = true;
    hashReplies.delete(id);
    worker.postMessage({ id, drop: true });
    if (hashReplies.size === 0) worker.unref();
  };
  return {
    update(out, at, bytes) {
      if (out.buffer instanceof SharedArrayBuffer) {
        worker.postMessage({ id, buffer: out.buffer, offset: out.byteOffset + at, bytes });
      } else {
        const copy = out.slice(at, at + bytes);
        worker.postMessage({ id, chunk: copy }, [copy.buffer]);
      }
    },
    digest() {
      return new Promise<Uint8Array>((resolve, reject) => {
        hashReplies.set(id, (r) => {
          finish();
          if (r.digest) resolve(r.digest);
          else reject(new Error(`the hashing thread failed: ${r.error}`));
        });
        worker.postMessage({ id, end: true });
      });
    },
    reset: finish,
  };
}

type HashReply = { id: number; digest?: Uint8Array; error?: string };
let hashJobs = 0;
const hashReplies = new Map<number, (r: HashReply) => void>();
let hashWorker: Promise<import('node:worker_threads').Worker | null> | undefined;

/** The hashing thread's code (CommonJS, run with eval). */
const HASH_WORKER = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const jobs = new Map();
parentPort.on('message', (m) => {
  if (m.drop) return void jobs.delete(m.id);
  let sha = jobs.get(m.id);
  if (sha === undefined) jobs.set(m.id, (sha = createHash('sha256')));
  try {
    if (m.chunk) sha.update(m.chunk);
    else if (m.buffer) sha.update(new Uint8Array(m.buffer, m.offset, m.bytes));
    if (m.end) {
      jobs.delete(m.id);
      parentPort.postMessage({ id: m.id, digest: new Uint8Array(sha.digest()) });
    }
  } catch (e) {
    jobs.delete(m.id);
    parentPort.postMessage({ id: m.id, error: String(e && e.message || e) });
  }
});`;

/** This process' hashing thread, or null where node:worker_threads is missing. */
function hashingThread(): Promise<import('node:worker_threads').Worker | null> {
  hashWorker ??= (async () => {
    try {
      const threads = 'node:worker_threads';
      const { Worker } = (await import(/* @vite-ignore */ threads)) as typeof import('node:worker_threads');
      const w = new Worker(HASH_WORKER, { eval: true });
      w.unref();
      w.on('message', (r: HashReply) => hashReplies.get(r.id)?.(r));
      const fail = (why: string): void => {
        hashWorker = undefined; // the next large read starts another
        for (const [id, reply] of [...hashReplies]) reply({ id, error: why });
      };
      w.on('error', (e) => fail(e.message));
      w.on('exit', (code) => fail(`it exited (${code})`));
      return w;
    } catch {
      return null;
    }
  })();
  return hashWorker;
}
