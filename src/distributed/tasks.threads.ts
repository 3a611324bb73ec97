/**
 * The 'pair' and 'forest' tasks' per-edge passes on the worker's host threads (issue 20, session 11;
 * partition.tasks.ts): each edge reads two rows at random (key order is not space order), so a pass costs cache
 * misses, not instructions (~110 and ~95 ns an edge on one thread at 5·10^6 rows), and the misses of many threads
 * overlap. The calling thread only waits meanwhile, so the worker's NATS reads (partition prefetches) go on.
 *
 *   pair-count    edges [start, end): how many join p's rows to q's (bit r of `bits`: union row r is p's)
 *   pair-list     the same edges' numbers, from `at` on in `out` (the ranges' counts summed before it)
 *   forest-keys   edges [start, end): keys[e] = squaredDistance(points, dim, lo[e], hi[e])   (distance.cpu's keys)
 *   forest-reply  proven edges [start, end): lo, hi = ids of the sorted edge safe[i]'s rows, keys its key
 *
 * Every array is a view of a SharedArrayBuffer (a plain one would be copied to the thread, and its answers lost):
 * the callers check with `shared`, and run the pass on their own thread otherwise. Never hand such a view to the
 * GPU: Dawn's upload of a SharedArrayBuffer-backed array crashed the process (lavapipe, session 11).
 */
import { squaredDistance } from '../knn/keys.cpu.js';
import { nextMessageId, splitOnWorkers, type JobTable, type WorkerReply } from '../host/threads.js';

interface Range {
  id: number;
  start: number;
  end: number;
}

type KeysJob = Range & {
  kind: 'forest-keys';
  points: Float32Array;
  dim: number;
  lo: Uint32Array;
  hi: Uint32Array;
  keys: Float32Array;
};

type ReplyJob = Range & {
  kind: 'forest-reply';
  ids: Uint32Array;
  /** The sorted edges' rows and keys, and the proven edges' numbers in them. */
  rowLo: Uint32Array;
  rowHi: Uint32Array;
  sortedKeys: Float32Array;
  safe: Uint32Array;
  lo: Uint32Array;
  hi: Uint32Array;
  keys: Float32Array;
};

/** Keys of edges [start, end) (the one-thread loop of the 'forest' task, on a range). */
export function forestKeys(j: Omit<KeysJob, 'kind' | 'id'> & { id?: number }): WorkerReply {
  const { points, dim, lo, hi, keys, start, end } = j;
  for (let e = start; e < end; e++) keys[e] = squaredDistance(points, dim, lo[e], hi[e]);
  return { id: j.id ?? 0 };
}

/** Proven edges [start, end) in global ids (the one-thread loop of the 'forest' task, on a range). */
export function forestReply(j: Omit<ReplyJob, 'kind' | 'id'> & { id?: number }): WorkerReply {
  const { ids, rowLo, rowHi, sortedKeys, safe, lo, hi, keys, start, end } = j;
  for (let i = start; i < end; i++) {
    const e = safe[i];
    lo[i] = ids[rowLo[e]];
    hi[i] = ids[rowHi[e]];
    keys[i] = sortedKeys[e];
  }
  return { id: j.id ?? 0 };
}

type CrossJob = Range & {
  kind: 'pair-count' | 'pair-list';
  bits: Uint32Array;
  sources: Uint32Array;
  targets: Uint32Array;
  /** pair-list: where the range's edge numbers go. */
  out?: Uint32Array;
  at?: number;
};

/** pair-count / pair-list on a range: the edges whose ends lie in different partitions of the pair. */
export function crossingEdges(j: Omit<CrossJob, 'kind' | 'id'> & { id?: number }): WorkerReply & { count: number } {
  const { bits, sources, targets, start, end, out } = j;
  let at = j.at ?? 0;
  let count = 0;
  for (let e = start; e < end; e++) {
    const s = sources[e];
    const t = targets[e];
    if (((bits[s >>> 5] >>> (s & 31)) & 1) === ((bits[t >>> 5] >>> (t & 31)) & 1)) continue;
    if (out !== undefined) out[at++] = e;
    count++;
  }
  return { id: j.id ?? 0, count };
}

export const taskJobs = {
  'pair-count': (m: CrossJob) => crossingEdges(m),
  'pair-list': (m: CrossJob) => crossingEdges(m),
  'forest-keys': (m: KeysJob) => forestKeys(m),
  'forest-reply': (m: ReplyJob) => forestReply(m),
} satisfies JobTable;

/**
 * From `minEdges` edges on the 'pair' task finds its crossing edges and the 'forest' task its keys and reply here
 * (partition.tasks.ts); `runs` counts the passes that ran on threads (tests lower minEdges and check runs).
 * TREELINE_TASK_THREADS=0 turns it off (A/B runs on the H100).
 */
export const taskThreading = {
  minEdges:
    (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.TREELINE_TASK_THREADS ===
    '0'
      ? Infinity
      : 1 << 18,
  runs: 0,
};

/** Whether every array is a view of a SharedArrayBuffer (threads may then write into it). */
export function shared(...arrays: ArrayBufferView[]): boolean {
  return arrays.every((a) => typeof SharedArrayBuffer !== 'undefined' && a.buffer instanceof SharedArrayBuffer);
}

/**
 * Runs `job`'s range [0, count) split over `threads` worker threads (the calling thread waits). False where that
 * cannot be (fewer than 2 threads, no worker threads or script, arrays not shared): the caller then runs it itself.
 */
async function onThreads<J extends { kind: string }>(
  threads: number,
  count: number,
  job: J,
  arrays: ArrayBufferView[],
  what: string,
): Promise<boolean> {
  if (threads < 2 || count < 2 * threads || !shared(...arrays)) return false;
  const id = nextMessageId();
  const done = await splitOnWorkers(threads, false, what, async (pass) => {
    await pass((part) => ({
      ...job,
      id,
      start: Math.floor((part * count) / threads),
      end: Math.floor(((part + 1) * count) / threads),
    }));
    return true;
  });
  if (done === true) taskThreading.runs++;
  return done === true;
}

/**
 * The numbers of the edges [0, m) whose ends lie in different partitions (pair-count, then pair-list), in order, on
 * `threads` threads; null where that did not run (see onThreads).
 */
export async function crossingEdgesThreaded(
  threads: number,
  j: { bits: Uint32Array; sources: Uint32Array; targets: Uint32Array },
  m: number,
): Promise<Uint32Array | null> {
  if (threads < 2 || m < 2 * threads || !shared(j.bits, j.sources, j.targets)) return null;
  const range = (part: number) => ({
    start: Math.floor((part * m) / threads),
    end: Math.floor(((part + 1) * m) / threads),
  });
  const out = await splitOnWorkers(threads, false, "the 'pair' task's crossing edges", async (pass) => {
    const id1 = nextMessageId();
    const counts = await pass<WorkerReply & { count: number }>((part) => ({
      kind: 'pair-count',
      id: id1,
      ...j,
      ...range(part),
    }));
    const at = [0];
    for (const c of counts) at.push(at[at.length - 1] + c.count);
    const list = new Uint32Array(new SharedArrayBuffer(4 * Math.max(at[threads], 1)), 0, at[threads]);
    const id2 = nextMessageId();
    await pass((part) => ({ kind: 'pair-list', id: id2, ...j, ...range(part), out: list, at: at[part] }));
    return list;
  });
  if (out !== null) taskThreading.runs++;
  return out;
}

/** forest-keys over edges [0, m) on `threads` threads; false where it did not run (see onThreads). */
export function forestKeysThreaded(
  threads: number,
  j: { points: Float32Array; dim: number; lo: Uint32Array; hi: Uint32Array; keys: Float32Array },
  m: number,
): Promise<boolean> {
  const job = { kind: 'forest-keys' as const, ...j };
  return onThreads(threads, m, job, [j.points, j.lo, j.hi, j.keys], "the 'forest' task's keys");
}

/** forest-reply over proven edges [0, count) on `threads` threads; false where it did not run (see onThreads). */
export function forestReplyThreaded(
  threads: number,
  j: Omit<ReplyJob, 'kind' | 'id' | 'start' | 'end'>,
  count: number,
): Promise<boolean> {
  const job = { kind: 'forest-reply' as const, ...j };
  const arrays = [j.ids, j.rowLo, j.rowHi, j.sortedKeys, j.safe, j.lo, j.hi, j.keys];
  return onThreads(threads, count, job, arrays, "the 'forest' task's reply");
}
