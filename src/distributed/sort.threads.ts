/**
 * The 'forest' task's canonical sort on the worker's host threads (issue 20, session 18): canonicalById (partition.pairs.ts)
 * took 0.8–1.4 s a partition of 5·10^7 points and 6–7 s one of 2.5·10^8 on one thread of the H100/H200 hosts.
 * emst()'s edges come ordered by weight (fround(√key)), then ids, and the canonical order (key, lo, hi) moves edges
 * only within runs of equal weight (a lighter weight means a lighter key): so the edges are cut into ranges at weight
 * changes and each range sorted apart, in place.
 *
 *   forest-sort  edges [start, end): canonicalById over the range, in place
 *
 * Then the calling thread checks each cut (the last edge before it against the first after it, in the canonical
 * order): sorted ranges with ordered cuts are the sorted whole. Where a cut is out of order (edges not ordered by
 * weight: not emst()'s), the whole is sorted again on the calling thread — the same result, as before.
 */
import { nextMessageId, splitOnWorkers, type JobTable, type WorkerReply } from '../host/threads.js';
import { canonicalById, type SortedEdges } from './partition.pairs.js';
import { shared, taskThreading } from './tasks.threads.js';

type SortJob = {
  id: number;
  kind: 'forest-sort';
  lo: Uint32Array;
  hi: Uint32Array;
  keys: Float32Array;
  start: number;
  end: number;
};

/** forest-sort on edges [start, end). */
export function forestSort(j: Omit<SortJob, 'kind' | 'id'> & { id?: number }): WorkerReply {
  const { lo, hi, keys, start, end } = j;
  canonicalById(lo.subarray(start, end), hi.subarray(start, end), keys.subarray(start, end), undefined, true);
  return { id: j.id ?? 0 };
}

/** Threaded sorts whose cuts were out of order (then sorted whole on the calling thread): for tests. */
export const sortThreading = { fallbacks: 0 };

export const sortJobs = {
  'forest-sort': (m: SortJob) => forestSort(m),
} satisfies JobTable;

/**
 * Cuts of [0, m) into `parts` ranges, each cut moved forward to the next change of weight fround(√key) (runs of one
 * weight are ~10 edges long at 2·10^8 points); ranges may be empty. A long run of one weight (an integer grid,
 * duplicates) moves a cut to its end: one thread then sorts more than its share (the same result).
 */
export function sortCuts(keys: Float32Array, parts: number): number[] {
  const m = keys.length;
  const cuts = [0];
  for (let i = 1; i < parts; i++) {
    let c = Math.max(cuts[cuts.length - 1], Math.floor((i * m) / parts));
    while (c > 0 && c < m && Math.fround(Math.sqrt(keys[c - 1])) === Math.fround(Math.sqrt(keys[c]))) c++;
    cuts.push(c);
  }
  cuts.push(m);
  return cuts;
}

/**
 * canonicalById in place on `threads` threads where the arrays are shared (and there are taskThreading.minEdges
 * edges at least), else on this thread: the same order either way (see the file's comment).
 */
export async function canonicalByIdThreaded(threads: number, edges: SortedEdges): Promise<SortedEdges> {
  const { lo, hi, keys } = edges;
  const m = keys.length;
  const whole = () => canonicalById(lo, hi, keys, undefined, true);
  if (threads < 2 || m < Math.max(2 * threads, taskThreading.minEdges) || !shared(lo, hi, keys)) return whole();
  const cuts = sortCuts(keys, threads);
  const id = nextMessageId();
  const done = await splitOnWorkers(threads, false, "the 'forest' task's sort", (pass) =>
    pass((part) => ({ kind: 'forest-sort', id, lo, hi, keys, start: cuts[part], end: cuts[part + 1] })),
  );
  if (done === null) return whole();
  for (let i = 1; i < cuts.length - 1; i++) {
    const c = cuts[i];
    if (c === 0 || c === m) continue;
    const a = c - 1;
    const ordered = keys[a] < keys[c] || (keys[a] === keys[c] && (lo[a] < lo[c] || (lo[a] === lo[c] && hi[a] < hi[c])));
    if (!ordered) {
      sortThreading.fallbacks++;
      return whole();
    }
  }
  taskThreading.runs++;
  return { lo, hi, keys };
}
