/**
 * Shared memory for the host's threaded passes: SharedArrayBuffers allocated so that they cost nothing until
 * touched, and their first touch (one write per 4 KiB page) spread over worker threads ahead of the work that
 * writes them (issue 5: every page of a fresh array costs a page fault at its first write, ~2.5–3 µs per 4 KiB
 * page on the 2-core machine and the H100's host, single-threaded). src/cluster/buffers.ts lays out hdbscan()'s.
 */
import { nextMessageId, splitOnWorkers, type JobTable } from './threads.js';

/**
 * Bytes from which a buffer is allocated with room up to glibc's largest mmap threshold (32 MiB): glibc serves
 * allocations under its threshold (which rises to the size of the last large block freed) from freed heap memory,
 * which calloc then clears on the calling thread — 20–40 ms for hdbscan's buffers at 10^6 points on a second call
 * (a 16 MB SharedArrayBuffer 0.03 ms first, up to 20 ms after a free; a 40 MB one 0.05 ms every time). Beyond the
 * threshold the memory comes from the OS as zero pages that only cost when touched, so the room past the array
 * costs address space, not memory (the touching below stops at the array's end).
 */
const ROOMY_BYTES = 1 << 20;
const MMAP_BYTES = 32 * 2 ** 20 + 65536;

export function sharedBuffer(bytes: number): SharedArrayBuffer {
  return new SharedArrayBuffer(bytes >= ROOMY_BYTES ? Math.max(bytes, MMAP_BYTES) : bytes);
}

/** A worker's share of the touching: every 4 KiB page of its part of each buffer gets one write of 0. */
export interface TouchJob {
  kind: 'touch-pages';
  id: number;
  buffers: { buffer: SharedArrayBuffer; bytes: number }[];
  part: number;
  parts: number;
}

export interface TouchReply {
  id: number;
  pages?: number;
  error?: string;
}

/** The worker's side. */
export function touchPages(job: TouchJob): TouchReply {
  let pages = 0;
  for (const { buffer, bytes } of job.buffers) {
    const words = new Int32Array(buffer, 0, bytes >>> 2);
    const from = Math.floor((words.length * job.part) / job.parts) & ~1023;
    const to =
      job.part + 1 === job.parts ? words.length : Math.floor((words.length * (job.part + 1)) / job.parts) & ~1023;
    for (let i = from; i < to; i += 1024, pages++) words[i] = 0;
  }
  return { id: job.id, pages };
}

/**
 * Starts `threads` worker threads touching every page of `buffers` (the bytes each uses, from offset 0); resolves
 * when they are done. Every range runs on a worker: the calling thread goes on (to drive the GPU). `what` names the
 * work in errors.
 */
export function touchOnWorkers(
  buffers: { buffer: SharedArrayBuffer; bytes: number }[],
  threads: number,
  what: string,
): Promise<void> {
  const id = nextMessageId();
  const job = (part: number): TouchJob => ({ kind: 'touch-pages', id, buffers, part, parts: threads });
  return splitOnWorkers(threads, false, what, (pass) => pass<TouchReply>(job)).then(() => undefined);
}

/** The worker's side (src/worker.ts). */
export const hostJobs = { 'touch-pages': touchPages } satisfies JobTable;
