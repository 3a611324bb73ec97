/**
 * The same-host folder's file writes (nats.local.ts writeMessageFile) on a host worker thread: a message's arrays
 * that live in shared memory (a coordinator's partitions: views of partition.threads.ts's SharedArrayBuffers) are
 * written by a worker with writeSync straight from their own bytes, instead of by libuv's thread pool (4 threads,
 * shared with every other file operation of the process, unless UV_THREADPOOL_SIZE was set before Node started).
 *
 * Important! One thread per file, not more: tmpfs (and every Linux file system's buffered write) takes the file's
 * inode lock for each write, so writes to one file run one at a time whichever thread issues them (two threads
 * rewriting one /dev/shm file took twice one thread's time, two threads on two files one thread's:
 * bench/local-files.mjs). What divides the time is several files at once: the coordinator writes its partitions one
 * at a time in up to 8 part files (nats.local.ts partsPerFile; two whole ones at a time on 2–3 cores: filesAtOnce),
 * each file on its own worker.
 *
 * A file descriptor belongs to the process, not to the thread that opened it: a worker thread writes to the fd the
 * calling thread opened (io/points.stream.threads.ts reads the same way). The calling thread keeps the fd open until
 * the worker has answered or exited, so that its number is never reused under a write.
 */
import { nextMessageId, splitOnWorkers, workersAtHand, type JobTable, type WorkerReply } from '../host/threads.js';

/** A piece of a message file: bytes [from, from + length) of `buffer`, at file byte `at`. */
export interface SharedPiece {
  buffer: SharedArrayBuffer;
  from: number;
  length: number;
  at: number;
}

export interface WriteFileJob {
  kind: 'local-write';
  id: number;
  /** The open file (the calling thread's descriptor: the process's). */
  fd: number;
  pieces: SharedPiece[];
  /** Bytes per write call (between them the worker looks at `stop`). */
  step: number;
  /** [0]: 1 once the calling thread's own writes failed: no further write starts. */
  stop: Int32Array;
}

export interface WriteFileReply extends WorkerReply {
  /** The write that failed (Node's message and errno code), if one did. */
  failure?: { message: string; code?: string };
}

type SyncFs = Pick<typeof import('node:fs'), 'writeSync'>;

/**
 * node:fs on a worker thread, synchronously (the job answers synchronously): process.getBuiltinModule (Node ≥ 20.16),
 * with a computed name — the library imports no node: module statically (test/cpu/package.test.ts). Also the 'pairs'
 * merge's writes to an EdgeSink (merge.threads.ts).
 */
export function syncFs(): SyncFs | null {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const name = 'node:fs';
  return typeof proc?.getBuiltinModule === 'function' ? (proc.getBuiltinModule(name) as SyncFs) : null;
}

/** The worker's side: writes every piece in turn, `step` bytes a call, until done, a failure, or `stop`. */
export function writeFile(job: WriteFileJob): WriteFileReply {
  const fs = syncFs();
  if (fs === null) return { id: job.id, failure: { message: 'process.getBuiltinModule is missing (Node < 20.16)' } };
  try {
    for (const { buffer, from, length, at } of job.pieces) {
      const view = new Uint8Array(buffer, from, length);
      for (let done = 0; done < length;) {
        if (Atomics.load(job.stop, 0) !== 0) return { id: job.id };
        done += fs.writeSync(job.fd, view, done, Math.min(job.step, length - done), at + done);
      }
    }
  } catch (e) {
    const { message, code } = e as NodeJS.ErrnoException;
    return { id: job.id, failure: { message: String(message), ...(code ? { code } : {}) } };
  }
  return { id: job.id };
}

/** Whether writeFileOnWorker can run here: worker threads, the worker script and getBuiltinModule at hand. */
export async function fileWritesOnThreads(): Promise<boolean> {
  return syncFs() !== null && (await workersAtHand());
}

/**
 * Writes `pieces` to the open file `fd` on one worker thread (taken from the pool): resolves once every piece is
 * written, rejects with the failed write's error (its message and `code`, `path` named) or the worker's end. Null
 * where no worker is at hand (the caller writes them itself). Raise `stop[0]` to have the worker stop early; it still
 * answers before this settles.
 */
export async function writeFileOnWorker(
  fd: number,
  pieces: SharedPiece[],
  step: number,
  stop: Int32Array,
  path: string,
): Promise<true | null> {
  const job: WriteFileJob = { kind: 'local-write', id: nextMessageId(), fd, pieces, step, stop };
  const replies = await splitOnWorkers(1, false, `writing ${path}`, (pass) => pass<WriteFileReply>(() => job));
  if (replies === null) return null;
  const failure = replies[0].failure;
  if (failure) {
    throw Object.assign(new Error(`${failure.message} (writing ${path} on a worker thread)`), {
      code: failure.code,
      path,
    });
  }
  return true;
}

/** The jobs src/worker.ts dispatches here. */
export const localFileJobs = { 'local-write': writeFile } satisfies JobTable;
