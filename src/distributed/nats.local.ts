/**
 * The same-host handoff (issue 20): a coordinator and the workers on its own host pass the run's partitions and the
 * tasks' large results as files in one folder of shared memory (`/dev/shm/treeline-<run>/` by default) instead of
 * through the object store. On one 2-GPU host at 2·10^8 points the store carried 3.2 GB of partitions in, 8.8 GB out
 * (every worker reads every partition at k = 4) and 2.4 GB of results each way, all through nats-server on the same
 * host — 10–14 s of the coordinator's serial time (the first task waited for its partitions' upload, each worker's
 * first pair for its reads) and host memory traffic beside the tasks (session 12, bench/RESULTS.md). With the folder
 * (session 15, the same H100 x2 host and machine start): 2 workers 95.6 → 74.2 s, the server's traffic 14.4 GB → 19 MB.
 *
 *   coordinator   makes the folder (mode 0700) with a random `token` file; writes partition.<p> there (the same
 *                 bytes as the object, nats.codec.ts; on a host with the cores, in parts partition.<p>.<j> with
 *                 partition.<p> their index: partsPerFile) instead of uploading it; tells every task's header the
 *                 folder and the token (TaskHeader.local)
 *   worker        reads the token: equal → the coordinator's folder is its own (same host, same user, same view of
 *                 the folder; a container with its own /dev/shm sees another or none) → partitions from the files,
 *                 results above one message as result.<id> files with a stub stored in their place (LocalStub)
 *   otherwise     the object store: a partition not stored yet is asked for on `treeline.need.<run>`, and the
 *                 coordinator uploads it (and every later one: a remote worker needs most) from its file
 *
 * Files appear whole (written to a temporary name, then renamed; a file's arrays in shared memory by a worker thread,
 * the coordinator's partitions a few files at once: nats.local.threads.ts; a parted one's index after its parts) and
 * are named by the run id, whose epoch (the input's fingerprint) the run's KV entry pins: a file under the right name
 * is the right content. The folder goes with the run's objects at its end (and with them where the run fails before
 * its state is written: coordinator.ts); an interrupted run keeps it for its resumption (a folder without its
 * partition files, or with one of which a part is missing or short, starts the run over: messageFileFault).
 */
import { errors, type Msg, type NatsConnection } from '@nats-io/transport-node';
import type { ObjectStore } from '@nats-io/obj';
import { inLanes } from '../host/lanes.js';
import { loadNodeThreads } from '../host/threads.js';
import { bodyLimit, putMessage } from './nats.js';
import { decodeTaskMessage, encodedPieces, MAX_MESSAGE_BYTES } from './nats.codec.js';
import { fileWritesOnThreads, writeFileOnWorker } from './nats.local.threads.js';
import type { NatsJobs } from './nats.jobs.js';
import { partitionObject } from './nats.tasks.js';
import type { TaskMessage } from './types.js';
import { messageOf } from '../errors.js';

/** Where the coordinator's files are, and the token that proves a worker sees the same folder. */
export type LocalLink = {
  dir: string;
  token: string;
};

/** What a worker stores as `result.<id>` when the result itself went to the coordinator's folder. */
export interface LocalStub {
  /** The result's file name in the folder, and its size in bytes. */
  localResult: { file: string; bytes: number };
}

/** node:fs, imported once (a computed specifier: the library imports no node: module statically, package.test.ts). */
let loadedFs: typeof import('node:fs') | undefined;
async function nodeFs(): Promise<typeof import('node:fs')> {
  const name = 'node:fs';
  return (loadedFs ??= (await import(/* @vite-ignore */ name)) as typeof import('node:fs'));
}

/** `dir/name` (the folder is a POSIX path: /dev/shm or the user's). */
const join = (dir: string, name: string): string => `${dir.replace(/\/+$/, '')}/${name}`;

export const partitionFile = (p: number): string => `partition.${p}`;
export const resultFile = (id: string): string => `result.${id}`;
export const needSubject = (run: string): string => `treeline.need.${run}`;

/** The default folder: /dev/shm where it is a writable folder (Linux), else none (the object store alone). */
export async function defaultLocalBase(): Promise<string | null> {
  try {
    const { promises: fs, constants } = await nodeFs();
    await fs.access('/dev/shm', constants.W_OK | constants.X_OK);
    return (await fs.stat('/dev/shm')).isDirectory() ? '/dev/shm' : null;
  } catch {
    return null;
  }
}

/**
 * The run's folder under `base`, made anew with a fresh token (a resumed run keeps the one in its state:
 * coordinator.ts); null when it cannot be made or `base` has less than `bytes` free (a container's 64 MB /dev/shm):
 * the run then goes through the object store alone, and `why` says so.
 */
export async function openLocal(
  base: string,
  run: string,
  bytes: number,
): Promise<{ link: LocalLink | null; why?: string }> {
  const fs = (await nodeFs()).promises;
  const dir = join(base, `treeline-${run}`);
  try {
    const free = await fs.statfs(base);
    const room = free.bavail * free.bsize;
    if (room < bytes) {
      return { link: null, why: `${base} has ${mb(room)} free for the run's ${mb(bytes)} of partitions` };
    }
    await fs.rm(dir, { recursive: true, force: true });
    await fs.mkdir(dir, { mode: 0o700 });
    const token = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join(
      '',
    );
    await fs.writeFile(join(dir, 'token'), token, { mode: 0o600 });
    return { link: { dir, token } };
  } catch (e) {
    // (A folder made before the token's write failed, ENOSPC: not left behind in shared memory.)
    await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
    return { link: null, why: `${base}: ${(e as Error).message}` };
  }
}

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(0)} MB`;

/** Whether this process sees `link`'s folder: its token file reads back equal. */
export async function sameFolder(link: LocalLink): Promise<boolean> {
  try {
    return (await (await nodeFs()).promises.readFile(join(link.dir, 'token'), 'utf8')) === link.token;
  } catch {
    return false;
  }
}

/** Removes the run's folder (the run is done). */
export async function removeLocal(link: LocalLink): Promise<void> {
  await (await nodeFs()).promises.rm(link.dir, { recursive: true, force: true });
}

/** Removes `dir/name` (none there: nothing to do). */
export async function removeFile(dir: string, name: string): Promise<void> {
  await (await nodeFs()).promises.rm(join(dir, name), { force: true });
}

/** The file names in `dir`. */
export async function listFiles(dir: string): Promise<string[]> {
  return (await nodeFs()).promises.readdir(dir);
}

/** Pieces of a file read or written at once (on libuv's threads), and their size. */
const PIECE_BYTES = 64 << 20;
const IN_FLIGHT = 4;

/**
 * Message files the coordinator writes at once (its partitions). Each file is written by one thread (a file's writes
 * run one at a time under its inode lock: nats.local.threads.ts), so the threads divide the time by files: parts of
 * one partition (partsPerFile) or several partitions. Where a file can be written in parts (4 cores and more), one
 * partition at a time, every part thread on it: partition p is stored at (p + 1)/k of the writes' time, so the first
 * pair task (0, 1) starts after 2/k of it, as with two partitions at once, but the second (0, 2) after 3/k instead of
 * 4/k (two at once, 2 and 3 shared the threads and landed together), and a 'rounds' run's first local tree after 1/k.
 * Where it cannot (the 2-core development machine), two whole files at once: there (bench/local-files.mjs) two at
 * once kept 0 + 1's time and shortened all four's, while all four at once doubled 0 + 1's (the memory bandwidth shared
 * four ways). Only where each file gets a worker thread: libuv's 4 threads would be taken by one file's pieces
 * waiting on its lock, the other's behind them.
 */
const FILES_AT_ONCE = 2;

/** How many of `count` message files to write at once (writeMessageFile's callers: the coordinator's partitions). */
export async function filesAtOnce(count: number): Promise<number> {
  return (await fileWritesOnThreads()) ? filesFor((await loadNodeThreads())?.parallelism ?? 1, count) : 1;
}

/** filesAtOnce's count for `cores` and `count` files (with worker threads at hand): 1 where a file gets parts. */
export function filesFor(cores: number, count: number): number {
  return partsFor(cores, 1) > 1 ? 1 : Math.max(1, Math.min(count, FILES_AT_ONCE));
}

/**
 * Parts each of the coordinator's partition files is written in (writeMessageFile's `parts`), `lanes` files at once:
 * a file's writes run one at a time under its inode lock, so one partition of 800 MB (5·10^7 points × 16 bytes) took
 * ~1.5 s on one thread of the H100 hosts before the first pair task could start (session 17) — in parts, one thread
 * each, the host's other cores share it. One thread a part for every 2 cores beside the lanes', at most MAX_PARTS;
 * 1 (one file) where there are no worker threads or too few cores (the 2-core development machine).
 */
export async function partsPerFile(lanes: number): Promise<number> {
  return (await fileWritesOnThreads()) ? partsFor((await loadNodeThreads())?.parallelism ?? 1, lanes) : 1;
}

/** partsPerFile's count for `cores` and `lanes` (with worker threads at hand). */
export function partsFor(cores: number, lanes: number): number {
  return Math.max(1, Math.min(MAX_PARTS, Math.floor(cores / (2 * Math.max(1, lanes)))));
}

/**
 * 8: the 8 write threads the 16- and 32-core hosts had as two files of 4 parts (sessions 17–19), now on one file at a
 * time (filesAtOnce). More threads were not measured.
 */
const MAX_PARTS = 8;

/**
 * Writes `msg` (nats.codec.ts bytes) as `dir/name`, whole or not at all (a temporary name, renamed once written);
 * returns its size in bytes. Arrays in shared memory are written on a worker thread (nats.local.threads.ts), the
 * header and any other array meanwhile here through libuv's threads (everything here where there are no worker
 * threads). `pieceBytes`: bytes per write (tests pass small ones).
 *
 * `parts` > 1: the bytes in that many consecutive ranges, `name.0`, `name.1`, … (each written as above, at once, on
 * threads of their own), then `name` itself as a small index of them (PARTS_MAGIC, the count, each part's size) —
 * last, so that `name` exists only once every part does. readMessageFile reads either kind.
 */
export async function writeMessageFile(
  dir: string,
  name: string,
  msg: TaskMessage,
  pieceBytes = PIECE_BYTES,
  parts = 1,
): Promise<number> {
  const { size, pieces } = encodedPieces(msg);
  const path = join(dir, name);
  // (At least a page a part: no part empty.)
  const count = Math.max(1, Math.min(Math.floor(parts), Math.floor(size / PART_ALIGN)));
  if (count === 1) {
    await writeWhole(path, size, pieces, pieceBytes);
    return size;
  }
  // Part j: bytes [starts[j], starts[j + 1]), page-aligned cuts.
  const starts = Array.from({ length: count + 1 }, (_, j) =>
    j === count ? size : Math.floor((size * j) / count / PART_ALIGN) * PART_ALIGN,
  );
  const sizes = starts.slice(1).map((end, j) => end - starts[j]);
  try {
    // Every part's write ended (settled) before a failure is thrown: none lands after its cleanup below.
    const ends = await Promise.allSettled(
      sizes.map((length, j) => {
        const from = starts[j];
        const mine: { at: number; bytes: Uint8Array }[] = [];
        for (const { at, bytes } of pieces) {
          const a = Math.max(at, from);
          const b = Math.min(at + bytes.length, from + length);
          if (a < b) mine.push({ at: a - from, bytes: bytes.subarray(a - at, b - at) });
        }
        return writeWhole(partPath(path, j), length, mine, pieceBytes);
      }),
    );
    for (const end of ends) if (end.status === 'rejected') throw end.reason;
    const index = new Uint8Array(8 + 8 * count);
    const view = new DataView(index.buffer);
    index.set(PARTS_MAGIC, 0);
    view.setUint32(4, count, true);
    sizes.forEach((length, j) => view.setFloat64(8 + 8 * j, length, true));
    await writeWhole(path, index.length, [{ at: 0, bytes: index }], pieceBytes);
  } catch (e) {
    // No index, no parts: those written would hold their share of the folder (shared memory) until the run's end.
    const fs = (await nodeFs()).promises;
    await Promise.all(sizes.map((_, j) => fs.rm(partPath(path, j), { force: true }).catch(() => undefined)));
    throw e;
  }
  return size;
}

/** A part file's name (writeMessageFile's `parts`). */
const partPath = (path: string, j: number): string => `${path}.${j}`;
/** The first bytes of a parted message's index file ('TLP1'; a message itself starts 'TLT1': nats.codec.ts). */
const PARTS_MAGIC = [0x54, 0x4c, 0x50, 0x31];
/** Parts are cut at multiples of this (a page). */
const PART_ALIGN = 4096;

/** Writes `pieces` (offsets in the file) as the file `path` of `size` bytes: whole (a temporary, renamed) or not at all. */
async function writeWhole(
  path: string,
  size: number,
  pieces: { at: number; bytes: Uint8Array }[],
  pieceBytes: number,
): Promise<void> {
  const fs = (await nodeFs()).promises;
  const temp = `${path}.${process.pid}.part`;
  const onThread = (await fileWritesOnThreads())
    ? pieces.filter((p) => p.bytes.buffer instanceof SharedArrayBuffer)
    : [];
  const here = pieces.filter((p) => !onThread.includes(p));
  const file = await fs.open(temp, 'w', 0o600);
  try {
    // Padding between pieces reads as zeros: the file is extended to its size first.
    await file.truncate(size);
    // Important! Both writers have ended (the worker answered or exited) before the file is closed below: a closed
    // descriptor's number is reused by the next open, and a late write would land in that file.
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const there = onThread.length
      ? writeFileOnWorker(
          file.fd,
          onThread.map(({ at, bytes }) => ({
            buffer: bytes.buffer as SharedArrayBuffer,
            from: bytes.byteOffset,
            length: bytes.length,
            at,
          })),
          pieceBytes,
          stop,
          path,
        )
      : Promise.resolve(true);
    const ends = await Promise.allSettled([
      there,
      writePieces(file, here, pieceBytes).catch((e: unknown) => {
        Atomics.store(stop, 0, 1);
        throw e;
      }),
    ]);
    for (const end of ends) if (end.status === 'rejected') throw end.reason;
    // No worker after all (the pool's script went away meanwhile): the shared pieces here too.
    if ((ends[0] as PromiseFulfilledResult<true | null>).value === null) await writePieces(file, onThread, pieceBytes);
  } catch (e) {
    await file.close().catch(() => undefined);
    await fs.rm(temp, { force: true });
    throw e;
  }
  await file.close();
  await fs.rename(temp, path);
}

/** Writes `pieces` into `file` at their offsets, in `pieceBytes` parts, IN_FLIGHT at once (libuv's threads). */
async function writePieces(
  file: import('node:fs').promises.FileHandle,
  pieces: { at: number; bytes: Uint8Array }[],
  pieceBytes: number,
): Promise<void> {
  const jobs: { at: number; bytes: Uint8Array }[] = [];
  for (const { at, bytes } of pieces) {
    for (let o = 0; o < bytes.length; o += pieceBytes) {
      jobs.push({ at: at + o, bytes: bytes.subarray(o, Math.min(bytes.length, o + pieceBytes)) });
    }
  }
  await inLanes(jobs.length, IN_FLIGHT, async (j) => {
    const { at, bytes } = jobs[j];
    for (let done = 0; done < bytes.length;) {
      const { bytesWritten } = await file.write(bytes, done, bytes.length - done, at + done);
      done += bytesWritten;
    }
  });
}

/**
 * The message in `dir/name`, or null when there is no such file. `shared`: its arrays are views of a
 * SharedArrayBuffer (the coordinator's results, as getMessage's `shared`). A parted message (writeMessageFile's
 * `parts`) is read from its parts, all at once, into one buffer.
 */
export async function readMessageFile(
  dir: string,
  name: string,
  options: { shared?: boolean } = {},
): Promise<TaskMessage | null> {
  const fs = (await nodeFs()).promises;
  const path = join(dir, name);
  let file: import('node:fs').promises.FileHandle;
  try {
    file = await fs.open(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  const files: import('node:fs').promises.FileHandle[] = [file];
  try {
    const size = (await file.stat()).size;
    // The parts (start, size, file) where `name` is an index of them, else the file itself.
    let parts: { at: number; size: number; file: import('node:fs').promises.FileHandle; path: string }[] = [
      { at: 0, size, file, path },
    ];
    const sizes = await partSizes(file, path, size);
    if (sizes) {
      const count = sizes.length;
      parts = [];
      let at = 0;
      for (let j = 0; j < count; j++) {
        const length = sizes[j];
        const p = partPath(path, j);
        const f = await fs.open(p, 'r').catch((e: NodeJS.ErrnoException) => {
          throw new Error(`${p}, part ${j} of ${count} of ${path}, cannot be read (${e.code ?? e.message}).`);
        });
        files.push(f);
        const actual = (await f.stat()).size;
        if (actual !== length) throw new Error(`${p} has ${actual} bytes, its index ${length}.`);
        parts.push({ at, size: length, file: f, path: p });
        at += length;
      }
    }
    const total = parts.reduce((sum, p) => sum + p.size, 0);
    if (total > MAX_MESSAGE_BYTES) {
      throw new Error(`${path}: a message of ${total} bytes, past the ${MAX_MESSAGE_BYTES} that one array takes.`);
    }
    const out = options.shared ? new Uint8Array(new SharedArrayBuffer(total)) : new Uint8Array(total);
    // Every part's pieces in one queue, IN_FLIGHT at once a part (libuv's threads).
    const jobs: { part: (typeof parts)[number]; from: number; to: number }[] = [];
    for (const part of parts) {
      for (let from = 0; from < part.size; from += PIECE_BYTES) {
        jobs.push({ part, from, to: Math.min(part.size, from + PIECE_BYTES) });
      }
    }
    await inLanes(jobs.length, IN_FLIGHT * parts.length, async (j) => {
      const { part, from, to } = jobs[j];
      await readRange(part.file, part.path, out, part.at + from, to - from, from);
    });
    return decodeTaskMessage(out);
  } finally {
    await Promise.all(files.map((f) => f.close().catch(() => undefined)));
  }
}

/** The parts' sizes where the open file `path` of `size` bytes is an index (writeMessageFile's `parts`), else null. */
async function partSizes(
  file: import('node:fs').promises.FileHandle,
  path: string,
  size: number,
): Promise<number[] | null> {
  const head = new Uint8Array(Math.min(size, 8));
  await readRange(file, path, head, 0, head.length, 0);
  if (size < 16 || size % 8 !== 0 || !PARTS_MAGIC.every((b, i) => head[i] === b)) return null;
  const index = new Uint8Array(size);
  await readRange(file, path, index, 0, size, 0);
  const view = new DataView(index.buffer);
  const count = view.getUint32(4, true);
  if (size !== 8 + 8 * count) throw new Error(`${path}: an index of ${count} parts has ${size} bytes.`);
  return Array.from({ length: count }, (_, j) => view.getFloat64(8 + 8 * j, true));
}

/**
 * What keeps readMessageFile from reading `dir/name` whole, without reading the message itself: the file missing or
 * unreadable, or, where it is an index of parts, its index malformed, a part missing or of another size than the index
 * says (the error readMessageFile would throw, without its period); null where nothing does. A resumed run's check of
 * its partitions (coordinator.ts): each of its files appeared whole, but a part may have been removed since.
 */
export async function messageFileFault(dir: string, name: string): Promise<string | null> {
  const fs = (await nodeFs()).promises;
  const path = join(dir, name);
  const code = (e: NodeJS.ErrnoException): string => e.code ?? e.message;
  let file: import('node:fs').promises.FileHandle;
  try {
    file = await fs.open(path, 'r');
  } catch (e) {
    return `${path} cannot be read (${code(e as NodeJS.ErrnoException)})`;
  }
  try {
    const sizes = (await partSizes(file, path, (await file.stat()).size)) ?? [];
    for (let j = 0; j < sizes.length; j++) {
      const p = partPath(path, j);
      let actual: number;
      try {
        actual = (await fs.stat(p)).size;
      } catch (e) {
        return `${p}, part ${j} of ${sizes.length} of ${path}, cannot be read (${code(e as NodeJS.ErrnoException)})`;
      }
      if (actual !== sizes[j]) return `${p} has ${actual} bytes, its index ${sizes[j]}`;
    }
    return null;
  } catch (e) {
    return (e as Error).message.replace(/\.$/, '');
  } finally {
    await file.close().catch(() => undefined);
  }
}

/** Reads `length` bytes of `file` from its byte `at` into `out` at `into` (short reads continued; the end is an error). */
async function readRange(
  file: import('node:fs').promises.FileHandle,
  path: string,
  out: Uint8Array,
  into: number,
  length: number,
  at: number,
): Promise<void> {
  for (let done = 0; done < length;) {
    const { bytesRead } = await file.read(out, into + done, length - done, at + done);
    if (bytesRead === 0) throw new Error(`${path} ended after ${at + done} bytes, ${length - done} short.`);
    done += bytesRead;
  }
}

/** The stub's file, when `msg` is one (LocalStub). */
export function stubOf(msg: TaskMessage): LocalStub['localResult'] | null {
  const r = (msg.meta as Record<string, unknown> | null)?.localResult as LocalStub['localResult'] | undefined;
  return r && typeof r.file === 'string' && typeof r.bytes === 'number' ? r : null;
}

/**
 * The coordinator's answer to the workers that do not see its folder: a request on treeline.need.<run> naming
 * partition p has it uploaded from its file (after `saved`: every file written) and is answered once it is stored (or
 * with the error); every partition after it follows (a remote worker needs most), one at a time, each once. `stop()`
 * (the run's end, whichever way): no upload starts after it (a note asked since is answered with the error), and it
 * resolves once the one in flight has ended, so that none runs on against a closed connection or a removed store.
 */
export function serveNeeds(
  nc: NatsConnection,
  run: string,
  jobs: Pick<NatsJobs, 'store' | 'traffic' | 'local'>,
  count: number,
  saved: Promise<void>,
  log: (line: string) => void,
): { stop(): Promise<void> } {
  const link = jobs.local!;
  const uploads = new Map<number, Promise<void>>();
  let stopped = false;
  let chain: Promise<void> = saved.catch(() => undefined);
  const upload = (p: number): Promise<void> => {
    let done = uploads.get(p);
    if (!done) {
      done = chain.then(async () => {
        if (stopped) throw new Error(`run ${run} has ended`);
        if ((await jobs.store.info(partitionObject(p))) !== null) return;
        const msg = await readMessageFile(link.dir, partitionFile(p));
        if (msg === null) throw new Error(`its file ${partitionFile(p)} is missing from ${link.dir}`);
        jobs.traffic.bytesSent += await putMessage(jobs.store, partitionObject(p), msg, bodyLimit(nc));
        log(`run ${run}: partition ${p} uploaded for a worker that does not see ${link.dir}`);
      });
      uploads.set(p, done);
      chain = done.catch(() => undefined);
    }
    return done;
  };
  // A reply that cannot go (the connection closed at the run's end): the worker's request times out, and it asks again.
  const respond = (m: Msg, reply: { error?: string }): void => {
    try {
      m.respond(JSON.stringify(reply));
    } catch {
      // (nothing more to tell)
    }
  };
  const sub = nc.subscribe(needSubject(run), {
    callback: (_err, m) => {
      let p = NaN;
      try {
        p = Number((JSON.parse(new TextDecoder().decode(m.data)) as { partition?: unknown }).partition);
      } catch {
        // Not a need note: p stays NaN.
      }
      if (!Number.isInteger(p) || p < 0 || p >= count) {
        respond(m, { error: `no partition ${p} in a run of ${count}` });
        return;
      }
      const asked = upload(p);
      for (let q = p + 1; q < count; q++) upload(q).catch(() => undefined);
      asked.then(
        () => respond(m, {}),
        (e: Error) => {
          if (!stopped) log(`run ${run}: partition ${p} for a worker elsewhere: ${e.message}`);
          respond(m, { error: e.message });
        },
      );
    },
  });
  return {
    async stop() {
      if (!stopped) {
        stopped = true;
        try {
          sub.unsubscribe();
        } catch {
          // The connection is closed: so is the subscription.
        }
      }
      await chain;
    },
  };
}

/** How long a worker waits for a partition it asked the coordinator to upload (a 1 GB partition: seconds). */
const NEED_WAIT_MS = 600_000;
/**
 * How often it asks again meanwhile (the coordinator answers a repeat from the same upload): a coordinator gone since
 * the first ask is found out at the next (no responders), instead of holding the task for NEED_WAIT_MS.
 */
const NEED_ASK_MS = 15_000;

/**
 * Asks run `run`'s coordinator to upload partition p into `os` (a request on treeline.need.<run>, answered once it is
 * stored: serveNeeds), again every `askMs` while no answer comes and it is not stored. No coordinator listening (it
 * has stopped) fails at once: the task is retried.
 */
export async function askFor(
  nc: NatsConnection,
  run: string,
  p: number,
  os: ObjectStore,
  askMs = NEED_ASK_MS,
): Promise<void> {
  const what = `run ${run}'s partition ${p} is in neither the object store nor this worker's view of its coordinator's folder`;
  const until = Date.now() + NEED_WAIT_MS;
  for (;;) {
    let reply: { error?: string };
    try {
      const timeout = Math.max(1, Math.min(askMs, until - Date.now()));
      const m = await nc.request(needSubject(run), JSON.stringify({ partition: p }), { timeout });
      reply = JSON.parse(new TextDecoder().decode(m.data)) as { error?: string };
    } catch (e) {
      if (e instanceof errors.TimeoutError && Date.now() < until) {
        if ((await os.info(partitionObject(p)).catch(() => null)) !== null) return;
        continue;
      }
      throw new Error(`${what}; asking the coordinator for it (on ${needSubject(run)}): ${messageOf(e)}`);
    }
    if (reply.error) throw new Error(`${what}; the coordinator could not upload it: ${reply.error}`);
    return;
  }
}
