/**
 * The 'pairs' method's last step (partition.pairs.ts, issue 20 session 11): sorted edge lists merged into emst()'s
 * output — sources, targets and weights fround(√key) in (weight, source, target) order — on one thread (mergeToTree)
 * or on the coordinator's host threads. On the H100 host the one-thread merge took 95 ns an edge at 5·10^7 (4.7 s:
 * the largest of the coordinator's own steps after the last forest; ~19 s at 2·10^8).
 *
 *   merge-range   the lists' ranges [from[i], to[i]) merged into the output from `at` on (mergeRange)
 *
 * The threaded merge cuts the canonical (key, lo, hi) order at splitters taken from the longest list; each thread
 * merges the lists' pieces between two splitters (no edge is in two lists, so the cuts agree), and the runs of equal
 * weight that a cut splits are put in order afterwards. Its arrays must be views of SharedArrayBuffers (the coordinator
 * reads the forests' results into such: nats.ts getMessage `shared`).
 *
 * With an EdgeSink's files (the CLI's `--format npy -o dir`) each thread also writes what it has merged to the three
 * .npy files as it goes (writeSync at the element's offset, every WRITE_EDGES edges, up to the run of equal weight
 * still open), and the sink starts the disk's writeback meanwhile: the files' bytes go out while the merge runs, not
 * after it. At 2·10^8 points (2.4 GB of output) on the H100 x2 / H200 x2 hosts, writing three 800 MB files into the
 * page cache takes 0.2–0.5 s and their fsync 0.5–1.25 s more (the disk takes ~1.5–2 GB/s: the writeback is most of
 * the CLI's io::write, 1.35–1.65 s after the merge's 0.85–0.94 s). Emulated on the H200 x2 host, a 1 s merge and its
 * files made durable took 1.46–1.65 s so against 2.43–2.50 s one after the other (bench/RESULTS.md).
 */
import { nextMessageId, splitOnWorkers, type JobTable, type WorkerReply } from '../host/threads.js';
import { sortRunInPlace, type EdgeList } from '../emst/edges.cpu.js';
import { shared } from './tasks.threads.js';
import { syncFs } from './nats.local.threads.js';
import type { EdgeSinkFiles } from './types.js';

/** Sorted lists in canonical (key, lo, hi) order, as parallel arrays of arrays. */
export interface EdgeLists {
  lo: Uint32Array[];
  hi: Uint32Array[];
  keys: Float32Array[];
}

/**
 * Lists' ranges [from[i], to[i]) merged into out[at …): the lists' heads compared in turn (a handful of lists), weights
 * fround(√key), and each run of equal weight inside the written range put in (source, target) order. `flush(a, b)`:
 * called with out[a, b) final (b at the start of a run: an open run may still be re-sorted), every `flushEdges` or
 * more, and at the end with the rest.
 */
export function mergeRange(
  lists: EdgeLists,
  from: ArrayLike<number>,
  to: ArrayLike<number>,
  out: EdgeList,
  at: number,
  flush?: (from: number, to: number) => void,
  flushEdges = WRITE_EDGES,
): void {
  const { sources, targets, weights } = out;
  const L = lists.keys.length;
  const LO = lists.lo;
  const HI = lists.hi;
  const KEYS = lists.keys;
  // Each list's head in small typed arrays (the scan over them stays monomorphic); a list refills its head only.
  const pos = Int32Array.from(from);
  const end = Int32Array.from(to);
  const headKey = new Float32Array(L);
  const headLo = new Uint32Array(L);
  const headHi = new Uint32Array(L);
  const live = new Uint8Array(L);
  let m = 0;
  for (let i = 0; i < L; i++) {
    m += end[i] - pos[i];
    if (pos[i] >= end[i]) continue;
    headKey[i] = KEYS[i][pos[i]];
    headLo[i] = LO[i][pos[i]];
    headHi[i] = HI[i][pos[i]];
    live[i] = 1;
  }
  let runStart = at;
  let previous = -1;
  let flushed = at;
  for (let t = at; t < at + m; t++) {
    let best = -1;
    let bk = 0;
    let bl = 0;
    let bh = 0;
    for (let i = 0; i < L; i++) {
      if (live[i] === 0) continue;
      const k = headKey[i];
      const lo = headLo[i];
      if (best < 0 || k < bk || (k === bk && (lo < bl || (lo === bl && headHi[i] < bh)))) {
        best = i;
        bk = k;
        bl = lo;
        bh = headHi[i];
      }
    }
    const p = ++pos[best];
    if (p < end[best]) {
      headKey[best] = KEYS[best][p];
      headLo[best] = LO[best][p];
      headHi[best] = HI[best][p];
    } else live[best] = 0;
    const w = Math.fround(Math.sqrt(bk));
    sources[t] = bl;
    targets[t] = bh;
    weights[t] = w;
    if (w !== previous) {
      if (t - runStart > 1) sortRunInPlace(sources, targets, runStart, t);
      runStart = t;
      previous = w;
      if (flush !== undefined && t - flushed >= flushEdges) {
        flush(flushed, t);
        flushed = t;
      }
    }
  }
  if (at + m - runStart > 1) sortRunInPlace(sources, targets, runStart, at + m);
  if (flush !== undefined && at + m > flushed) flush(flushed, at + m);
}

/**
 * Edges a merging thread writes to the sink's files at a time (12 MiB over the three arrays at 2^20): few calls, and
 * each file's inode lock (one writer at a time per file) held briefly.
 */
const WRITE_EDGES = 1 << 20;

/** A worker thread's failed write: which file (0 sources, 1 targets, 2 weights), Node's message and errno code. */
export interface WriteFailure {
  file: number;
  message: string;
  code?: string;
}

/**
 * out's elements [from, to) written to the sink's files (`files[f]`: the fd and the byte of element 0) with writeSync
 * at their offsets; the failure, if a write fails.
 */
function writeElements(
  fs: NonNullable<ReturnType<typeof syncFs>>,
  files: readonly { fd: number; at: number }[],
  out: EdgeList,
  from: number,
  to: number,
): WriteFailure | null {
  const arrays = [out.sources, out.targets, out.weights];
  for (let f = 0; f < 3; f++) {
    const a = arrays[f];
    const view = new Uint8Array(a.buffer, a.byteOffset + 4 * from, 4 * (to - from));
    try {
      for (let done = 0; done < view.length;) {
        done += fs.writeSync(files[f].fd, view, done, view.length - done, files[f].at + 4 * from + done);
      }
    } catch (e) {
      const { message, code } = e as NodeJS.ErrnoException;
      return { file: f, message: String(message), ...(code ? { code } : {}) };
    }
  }
  return null;
}

type MergeJob = EdgeLists &
  EdgeList & {
    kind: 'merge-range';
    id: number;
    from: number[];
    to: number[];
    at: number;
    /** The sink's files (sources, targets, weights) to write the merged range to, as it is merged. */
    files?: { fd: number; at: number }[];
  };

type SortedCheckJob = {
  kind: 'sorted-check';
  id: number;
  lo: Uint32Array;
  hi: Uint32Array;
  keys: Float32Array;
  n: number;
  from: number;
  to: number;
};

export const mergeJobs = {
  'merge-range': (j: MergeJob): WorkerReply & { failure?: WriteFailure } => {
    if (j.files === undefined) {
      mergeRange(j, j.from, j.to, j, j.at);
      return { id: j.id };
    }
    const fs = syncFs();
    if (fs === null) return { id: j.id, failure: { file: 0, message: 'process.getBuiltinModule is missing' } };
    // After a failed write the merge goes on (the result's arrays are whole) but writes no more.
    let failure: WriteFailure | null = null;
    const files = j.files;
    mergeRange(j, j.from, j.to, j, j.at, (a, b) => {
      failure ??= writeElements(fs, files, j, a, b);
    });
    return failure === null ? { id: j.id } : { id: j.id, failure };
  },
  'sorted-check': (j: SortedCheckJob): WorkerReply & { bad: number } => ({
    id: j.id,
    bad: firstUnsorted(j.lo, j.hi, j.keys, j.n, j.from, j.to),
  }),
} satisfies JobTable;

/**
 * The first edge e in [from, to) that is not a valid reply edge — lo < hi < n, key ≥ 0 — or not above edge e − 1 in the
 * canonical (key, lo, hi) order; −1 where there is none.
 */
export function firstUnsorted(
  lo: Uint32Array,
  hi: Uint32Array,
  keys: Float32Array,
  n: number,
  from: number,
  to: number,
): number {
  for (let e = from; e < to; e++) {
    if (!(lo[e] < hi[e] && hi[e] < n) || !(keys[e] >= 0)) return e;
    if (
      e > 0 &&
      !(
        keys[e - 1] < keys[e] ||
        (keys[e - 1] === keys[e] && (lo[e - 1] < lo[e] || (lo[e - 1] === lo[e] && hi[e - 1] < hi[e])))
      )
    ) {
      return e;
    }
  }
  return -1;
}

/**
 * firstUnsorted over a whole list in shared memory, on `threads` host threads (each a range, the first edge of each
 * compared with the one before it); null where no threads can take it (the caller checks on its own thread). At
 * 2·10^8 points the check of the last forest's 5·10^7 edges on the coordinator's thread was most of the 0.5–0.7 s it
 * took to take that reply, in the run's serial tail.
 */
export async function firstUnsortedThreaded(
  list: { lo: Uint32Array; hi: Uint32Array; keys: Float32Array },
  n: number,
  threads: number,
): Promise<number | null> {
  const m = list.keys.length;
  if (threads < 2 || !shared(list.lo, list.hi, list.keys)) return null;
  const id = nextMessageId();
  const bad = await splitOnWorkers(threads, false, 'the check of a sorted list', async (pass) => {
    const replies = await pass<WorkerReply & { bad: number }>((t) => ({
      kind: 'sorted-check',
      id,
      lo: list.lo,
      hi: list.hi,
      keys: list.keys,
      n,
      from: Math.floor((m * t) / threads),
      to: Math.floor((m * (t + 1)) / threads),
    }));
    const found = replies.map((r) => r.bad).filter((e) => e >= 0);
    return found.length === 0 ? -1 : Math.min(...found);
  });
  return bad;
}

/** The first position in list i whose (key, lo, hi) is not below (k, l, h). */
function lowerBound(keys: Float32Array, lo: Uint32Array, hi: Uint32Array, k: number, l: number, h: number): number {
  let a = 0;
  let b = keys.length;
  while (a < b) {
    const mid = (a + b) >>> 1;
    const below = keys[mid] < k || (keys[mid] === k && (lo[mid] < l || (lo[mid] === l && hi[mid] < h)));
    if (below) a = mid + 1;
    else b = mid;
  }
  return a;
}

/**
 * mergeRange of whole lists into `out` (m = their total edges) on `threads` threads; false where that cannot be
 * (fewer than 2 threads or 2^16 edges a thread, no worker threads or script, an array not shared, `files` given but
 * no synchronous node:fs on the threads): the caller then merges on its own thread. `files` (an EdgeSink's, opened for
 * m edges): the threads write out's elements to them as they merge, the runs a cut split are written again once in
 * order, and files.done() is called; a failed write throws files.failure(…) (after every thread has answered).
 */
export async function mergeToTreeThreaded(
  lists: EdgeLists,
  out: EdgeList,
  threads: number,
  timings?: Record<string, number>,
  files?: EdgeSinkFiles,
): Promise<boolean> {
  const L = lists.keys.length;
  let m = 0;
  for (const k of lists.keys) m += k.length;
  const arrays = [...lists.lo, ...lists.hi, ...lists.keys, out.sources, out.targets, out.weights];
  if (threads < 2 || m < threads << 16 || out.weights.length !== m || !shared(...arrays)) return false;
  if (files !== undefined && syncFs() === null) return false;
  // Splitters from the longest list, evenly spaced: cut t's positions in every list.
  let longest = 0;
  for (let i = 1; i < L; i++) if (lists.keys[i].length > lists.keys[longest].length) longest = i;
  const cuts: number[][] = [new Array<number>(L).fill(0)];
  for (let t = 1; t < threads; t++) {
    const s = Math.floor((lists.keys[longest].length * t) / threads);
    const [k, l, h] = [lists.keys[longest][s], lists.lo[longest][s], lists.hi[longest][s]];
    cuts.push(lists.keys.map((keys, i) => lowerBound(keys, lists.lo[i], lists.hi[i], k, l, h)));
  }
  cuts.push(lists.keys.map((keys) => keys.length));
  const starts = cuts.map((cut) => cut.reduce((s, p) => s + p, 0));
  const id = nextMessageId();
  const t0 = performance.now();
  const done = await splitOnWorkers(threads, false, "the 'pairs' method's merge", async (pass) => {
    const replies = await pass<WorkerReply & { failure?: WriteFailure }>((t) => ({
      kind: 'merge-range',
      id,
      lo: lists.lo,
      hi: lists.hi,
      keys: lists.keys,
      sources: out.sources,
      targets: out.targets,
      weights: out.weights,
      from: cuts[t],
      to: cuts[t + 1],
      at: starts[t],
      ...(files ? { files: files.files.map(({ fd, at }) => ({ fd, at })) } : {}),
    }));
    return replies.find((r) => r.failure !== undefined)?.failure ?? true;
  });
  if (done === null) return false;
  if (done !== true) throw files!.failure(done.file, done);
  const t1 = performance.now();
  // Runs of equal weight that a cut split: each put in order whole (it may span several cuts).
  const { sources, targets, weights } = out;
  let fixedTo = 0;
  for (let t = 1; t < threads; t++) {
    const b0 = starts[t];
    if (b0 <= 0 || b0 >= m || b0 < fixedTo || weights[b0 - 1] !== weights[b0]) continue;
    let a = b0 - 1;
    while (a > 0 && weights[a - 1] === weights[b0]) a--;
    let b = b0 + 1;
    while (b < m && weights[b] === weights[b0]) b++;
    sortRunInPlace(sources, targets, a, b);
    fixedTo = b;
    // (The threads wrote these runs in their halves' order: again, whole; weights are unchanged by the sort.)
    if (files) {
      await files.write(0, sources, a, b);
      await files.write(1, targets, a, b);
    }
  }
  files?.done();
  if (timings) {
    timings['distributed::merge.ranges'] = t1 - t0;
    timings['distributed::merge.cuts'] = performance.now() - t1;
  }
  return true;
}
