/**
 * The 'pair' and 'forest' tasks' per-edge passes on the worker's host threads (issue 20, session 11;
 * partition.tasks.ts): each edge reads two rows at random (key order is not space order), so a pass costs cache
 * misses, not instructions (~110 and ~95 ns an edge on one thread at 5·10^6 rows), and the misses of many threads
 * overlap. The calling thread only waits meanwhile, so the worker's NATS reads (partition prefetches) go on.
 *
 *   pair-union    union rows [start, end) from p's row a and q's row b on: ids, scaled points, cores, bits
 *   pair-count    edges [start, end): how many join p's rows to q's (bit r of `bits`: union row r is p's)
 *   pair-list     the same edges' numbers, from `at` on in `out` (the ranges' counts summed before it)
 *   forest-keys   edges [start, end): keys[e] = squaredDistance(points, dim, lo[e], hi[e])   (distance.cpu's keys)
 *   forest-reply  proven edges [start, end): lo, hi = ids of the sorted edge safe[i]'s rows, keys its key
 *
 * Every array is a view of a SharedArrayBuffer (a plain one would be copied to the thread, and its answers lost):
 * the callers check with `shared`, and run the pass on their own thread otherwise. (Dawn's upload of such a view
 * crashed the process on lavapipe, session 11; the uploads copy shared views since: src/gpu/buffers.ts unshared, and
 * the staging ring copies every view chunk by chunk. So the union's points, written here, go to the GPU as they are.)
 */
import { squaredDistance } from '../knn/keys.cpu.js';
import { envVar } from '../host/env.js';
import { nextMessageId, partRange, splitOnWorkers, type JobTable, type WorkerReply } from '../host/threads.js';

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

/** A pair's two lists, each ascending by global id, and their union's arrays (union row r: ids[r], … bit r of bits). */
export interface UnionArrays {
  pIds: Uint32Array;
  pPoints: Float32Array;
  qIds: Uint32Array;
  qPoints: Float32Array;
  dim: number;
  /** 2^exponent: the points are scaled as PartitionIndex scales them (exact). */
  scale: number;
  /** Mutual reachability only (else null): p's and q's squared cores, and the union's. */
  core2p: Float32Array | null;
  core2q: Float32Array | null;
  core2: Float32Array | null;
  ids: Uint32Array;
  points: Float32Array;
  /** Bit r: union row r is p's (words of 32 rows; the last word's bits past the union's end are 0). */
  bits: Uint32Array;
}

type UnionJob = Range & UnionArrays & { kind: 'pair-union'; a: number; b: number };

/**
 * Union rows [start, end), p's row `a` and q's row `b` the next to merge (the 'pair' task's loop, on a range): the
 * smaller id first, q's on a tie. The bits are gathered a word at a time, 3D unrolled (1.5× the per-bit, per-axis loop
 * when it was written). A range that starts inside a word keeps that word's bits below it (the range
 * before it wrote them: the one-thread loop's pieces); threads' ranges start at multiples of 32 rows, so no two write
 * one word. Answers where p's and q's next rows are after the range.
 */
export function unionRows(j: Omit<UnionJob, 'kind' | 'id'> & { id?: number }): WorkerReply & { a: number; b: number } {
  const { pIds, qIds, pPoints: pPts, qPoints: qPts, core2p, core2q, core2, ids, points, bits, dim, start, end } = j;
  const f = j.scale;
  const np = pIds.length;
  const nq = qIds.length;
  let { a, b } = j;
  let word = (start & 31) === 0 ? 0 : bits[start >>> 5] & ((1 << (start & 31)) - 1);
  for (let r = start, o = start * dim; r < end; r++, o += dim) {
    if (b >= nq || (a < np && pIds[a] < qIds[b])) {
      word |= 1 << (r & 31);
      ids[r] = pIds[a];
      const i = a * dim;
      if (dim === 3) {
        points[o] = pPts[i] * f;
        points[o + 1] = pPts[i + 1] * f;
        points[o + 2] = pPts[i + 2] * f;
      } else for (let d = 0; d < dim; d++) points[o + d] = pPts[i + d] * f;
      if (core2 !== null) core2[r] = core2p![a];
      a++;
    } else {
      ids[r] = qIds[b];
      const i = b * dim;
      if (dim === 3) {
        points[o] = qPts[i] * f;
        points[o + 1] = qPts[i + 1] * f;
        points[o + 2] = qPts[i + 2] * f;
      } else for (let d = 0; d < dim; d++) points[o + d] = qPts[i + d] * f;
      if (core2 !== null) core2[r] = core2q![b];
      b++;
    }
    if ((r & 31) === 31) {
      bits[r >>> 5] = word;
      word = 0;
    }
  }
  if (end > start && (end & 31) !== 0) bits[end >>> 5] = word;
  return { id: j.id ?? 0, a, b };
}

/**
 * How many of the union's first r rows are p's. Odeh et al. 2012, 'Merge Path – Parallel Merging Made Simple', §3: a
 * binary search along the merge matrix's r-th cross diagonal, for the first a where p[a] does not come before
 * q[r − a − 1] in unionRows' order — so each thread starts its range at (a, r − a) without merging the rows before it.
 */
export function unionSplit(pIds: Uint32Array, qIds: Uint32Array, r: number): number {
  let lo = Math.max(0, r - qIds.length);
  let hi = Math.min(r, pIds.length);
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (pIds[mid] < qIds[r - mid - 1]) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export const taskJobs = {
  'pair-union': (m: UnionJob) => unionRows(m),
  'pair-count': (m: CrossJob) => crossingEdges(m),
  'pair-list': (m: CrossJob) => crossingEdges(m),
  'forest-keys': (m: KeysJob) => forestKeys(m),
  'forest-reply': (m: ReplyJob) => forestReply(m),
} satisfies JobTable;

const threadsOff = envVar('TREELINE_TASK_THREADS') === '0';

/**
 * From `minEdges` edges on the 'pair' task finds its crossing edges and the 'forest' task its keys and reply here, and
 * from `minRows` rows the 'pair' task its union (partition.tasks.ts); `runs` counts the passes that ran on threads
 * (tests lower the sizes and check runs). TREELINE_TASK_THREADS=0 turns them off (A/B runs on the H100).
 */
export const taskThreading = {
  minEdges: threadsOff ? Infinity : 1 << 18,
  minRows: threadsOff ? Infinity : 1 << 18,
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
export async function onThreads<J extends { kind: string }>(
  threads: number,
  count: number,
  job: J,
  arrays: ArrayBufferView[],
  what: string,
): Promise<boolean> {
  if (threads < 2 || count < 2 * threads || !shared(...arrays)) return false;
  const id = nextMessageId();
  const done = await splitOnWorkers(threads, false, what, async (pass) => {
    await pass((part) => ({ ...job, id, ...partRange(part, count, threads) }));
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
  const range = (part: number) => partRange(part, m, threads);
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

/**
 * unionRows over the union's n rows on `threads` threads, thread t from row floor(t·n / threads) rounded down to a
 * multiple of 32 (whole words of `bits` each; a range may be empty) at its merge-path split (unionSplit); false where
 * it did not run (fewer than 2 threads, no worker threads, an array not in shared memory): the caller merges then.
 */
export async function unionThreaded(threads: number, j: UnionArrays, n: number): Promise<boolean> {
  // (A pair with itself has no q cores: q has no rows.)
  const cores = j.core2 === null ? [] : [j.core2, j.core2p, j.core2q].filter((a) => a !== null);
  const arrays = [j.pIds, j.pPoints, j.qIds, j.qPoints, j.ids, j.points, j.bits, ...cores];
  if (threads < 2 || !shared(...arrays)) return false;
  const bound = (part: number) => (part === threads ? n : Math.floor((part * n) / threads / 32) * 32);
  const id = nextMessageId();
  const done = await splitOnWorkers(threads, false, "the 'pair' task's union", async (pass) => {
    await pass((part) => {
      const start = bound(part);
      const a = unionSplit(j.pIds, j.qIds, start);
      return { kind: 'pair-union', id, ...j, start, end: bound(part + 1), a, b: start - a };
    });
    return true;
  });
  if (done === true) taskThreading.runs++;
  return done === true;
}
