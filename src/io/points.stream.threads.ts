/**
 * The large-file direct read of points.stream.ts (little-endian float32, C order, every column) on the host's worker
 * threads, where the points are in shared memory (PointReadOptions.shared: the partitioned EMST's coordinator). A
 * fresh array takes its pages at ~1 GB/s on one thread (a page fault at each 4 KiB page's first write, issue 5), and
 * libuv has 4 threads for file reads unless UV_THREADPOOL_SIZE was set before Node started; the finite check was one
 * more pass on the calling thread. Here each worker claims `step`-byte pieces of the body in turn (a shared counter),
 * reads each with readSync straight into the points' own bytes (its page faults on its own thread) and checks it at
 * once, while it is still in cache. Only whether every value passed comes back: requireFinite then names the first
 * that did not, with its usual message.
 */
import { readSync } from 'node:fs';
import { nextMessageId, splitOnWorkers, type JobTable, type WorkerReply } from '../host/threads.js';
import { finiteIn } from './points.finite.js';

export interface ReadPiecesJob {
  kind: 'read-pieces';
  id: number;
  /** The open file (descriptors are the process's: every thread reads the same one). */
  fd: number;
  /** The points' bytes: piece k is bytes [k·step, min((k + 1)·step, bytes)), read from file byte at + k·step. */
  buffer: SharedArrayBuffer;
  bytes: number;
  at: number;
  /** A multiple of 4, so that every piece is whole float32 values. */
  step: number;
  /** [0]: the next piece to claim; [1]: 1 once a worker met the file's end (then no piece is claimed). */
  control: Int32Array;
  /** Whether each piece is checked (requireFinite's test) after its read. */
  check: boolean;
}

export interface ReadPiecesReply extends WorkerReply {
  /** Whether every value this worker read passed requireFinite's test (with `check`; else true). */
  finite: boolean;
  /** The file byte at which the file ended while being read (it shrank since it was measured). */
  ended?: number;
}

/** The worker's side: claims pieces until none is left, reads and checks each. */
export function readPieces(job: ReadPiecesJob): ReadPiecesReply {
  const { fd, buffer, bytes, at, step, control, check } = job;
  const pieces = Math.ceil(bytes / step);
  let finite = true;
  while (Atomics.load(control, 1) === 0) {
    const k = Atomics.add(control, 0, 1);
    if (k >= pieces) break;
    const from = k * step;
    const length = Math.min(step, bytes - from);
    const view = new Uint8Array(buffer, from, length);
    for (let done = 0; done < length;) {
      const got = readSync(fd, view, done, length - done, at + from + done);
      if (got === 0) {
        Atomics.store(control, 1, 1);
        return { id: job.id, finite, ended: at + from + done };
      }
      done += got;
    }
    if (check) finite &&= finiteIn(new Float32Array(buffer, from, length / 4), 0, length / 4);
  }
  return { id: job.id, finite };
}

/**
 * Reads the `points.byteLength` bytes from file byte `at` on into `points` (over a SharedArrayBuffer) on `threads`
 * workers, each piece checked with `check`. Null where there are no worker threads (the caller reads on the calling
 * thread); else whether every value passed, and the first file byte at which the file ended early, if it did.
 */
export async function readPiecesOnWorkers(
  fd: number,
  points: Float32Array,
  at: number,
  step: number,
  threads: number,
  check = true,
): Promise<{ finite: boolean; ended?: number } | null> {
  const id = nextMessageId();
  const control = new Int32Array(new SharedArrayBuffer(8));
  const job: ReadPiecesJob = {
    kind: 'read-pieces',
    id,
    fd,
    buffer: points.buffer as SharedArrayBuffer,
    bytes: points.byteLength,
    at,
    step,
    control,
    check,
  };
  const replies = await splitOnWorkers(threads, false, 'io::read', async (pass) => {
    try {
      return await pass<ReadPiecesReply>(() => job);
    } catch (e) {
      Atomics.store(control, 1, 1); // the other workers stop claiming before the file is closed
      throw e;
    }
  });
  if (replies === null) return null;
  const ends = replies.flatMap((r) => (r.ended === undefined ? [] : [r.ended]));
  return { finite: replies.every((r) => r.finite), ...(ends.length ? { ended: Math.min(...ends) } : {}) };
}

/** The jobs src/worker.ts dispatches here. */
export const ioJobs = { 'read-pieces': readPieces } satisfies JobTable;
