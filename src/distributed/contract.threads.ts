/**
 * The 'forest' task's contraction on the worker's host threads (issue 20, session 18): the passes that restrict a
 * partition's tree to the Steiner tree of its terminals (the rows with a floor), so that contractForest's Kruskal runs
 * over 3–5 % of the edges (contractForestThreaded, partition.pairs.ts, tells why that is exact).
 *
 *   contract-degree  rows [start, end): every edge is read, and each end in the range counts its degree and XORs in
 *                    the other end (the one thread writing these rows: no atomics); then the range's initial leaves
 *                    (degree 1, no floor) are marked
 *   contract-peel    rows [start, end): from each initial leaf of the range, peels leaves along the tree while the
 *                    next row is left with degree 1 and has no floor (its sole remaining neighbour is its XOR word)
 *   contract-count   edges [start, end) (start a multiple of 32): the edges whose two ends are not peeled — the
 *                    Steiner tree's — as bits of `bits` (whole words), their count, and their ends' Kruskal words
 *                    set to themselves
 *
 * State, in contractForest's records (16 bytes a row, partition.pairs.ts): word 0, the Kruskal parent later, holds
 * 2 × the degree + 1 for an initial leaf, PEELED's bit once peeled; word 3, unused by the Kruskal, the XOR of the
 * remaining neighbours; word 1 is the floor (f32, +∞ for none); word 2 (the parent under the safe edges) is left
 * alone. One line a row: the peel's loads and atomics touch one cache line each.
 *
 * The peel is race-free on a connected tree with one terminal at least (the caller runs none without; a cycle is
 * never peeled, and the Kruskal after it throws on it): a row is peeled by the one
 * thread that saw it a leaf — an initial leaf by its range's thread, any other by the thread whose decrement left its
 * degree at 1 — and that thread's read of its XOR word comes after every other neighbour's XOR, each of which went
 * before that neighbour's decrement (sequentially consistent atomics). Two adjacent rows can be leaves at once only
 * when they are all that is left of their component, which then holds no terminal. Rows stay below PEELED (2^31:
 * the records of such a partition would take 32 GiB; contractForestThreaded refuses more). Every thread of the degree
 * pass reads all m edges (m × threads reads, sequential; forest::contract.degree shows it if it ever matters).
 *
 * Every array must be a view of a SharedArrayBuffer (see tasks.threads.ts).
 */
import { nextMessageId, splitOnWorkers, type JobTable, type WorkerReply } from '../host/threads.js';
import { onThreads } from './tasks.threads.js';

/** Word 0's mark of a peeled row (its top bit: a degree count never reaches it). */
export const PEELED = 0x80000000;

interface RowRange {
  id: number;
  records: Uint32Array;
  start: number;
  end: number;
}

type DegreeJob = RowRange & { kind: 'contract-degree'; lo: Uint32Array; hi: Uint32Array; touch?: boolean };
type PeelJob = RowRange & { kind: 'contract-peel'; touch?: boolean };
type CountJob = RowRange & {
  kind: 'contract-count';
  lo: Uint32Array;
  hi: Uint32Array;
  bits: Uint32Array;
  touch?: boolean;
};
type CountReply = WorkerReply & { count: number; touched?: number };
/** (`touched`: the touching loads' XOR, returned so that no compiler drops them.) */
type TouchReply = WorkerReply & { touched?: number };

/** Ends a pass holds before it touches their records and updates them (their loads overlap; 64–256 alike). */
const TOUCH = 64;
/** Chains a thread peels at once, step by step in turn (each step's record loads overlap). */
const CHAINS = 16;

/** contract-degree on rows [start, end) (see the file's comment). */
export function contractDegree(j: Omit<DegreeJob, 'kind' | 'id'> & { id?: number }): TouchReply {
  const { records: u32, lo, hi, start, end } = j;
  const f32 = new Float32Array(u32.buffer, u32.byteOffset, u32.length);
  const span = end - start;
  for (let r = start; r < end; r++) {
    u32[4 * r] = 0;
    u32[4 * r + 3] = 0;
  }
  const m = lo.length;
  let touched = 0;
  if (!j.touch) {
    for (let e = 0; e < m; e++) {
      const u = lo[e];
      const v = hi[e];
      if ((u - start) >>> 0 < span) {
        u32[4 * u] += 2;
        u32[4 * u + 3] ^= v;
      }
      if ((v - start) >>> 0 < span) {
        u32[4 * v] += 2;
        u32[4 * v + 3] ^= u;
      }
    }
  }
  // `touch`: the range's ends, TOUCH at a time: their records loaded together first (a random row a miss each), then counted.
  // (No closure for the flush: V8 keeps a closure's mutated variables in a context, slow in this loop.)
  const row = new Uint32Array(TOUCH + 1);
  const other = new Uint32Array(TOUCH + 1);
  let held = 0;
  for (let e = 0; j.touch && e <= m; e++) {
    if (e < m) {
      const u = lo[e];
      const v = hi[e];
      if ((u - start) >>> 0 < span) {
        row[held] = u;
        other[held++] = v;
      }
      if ((v - start) >>> 0 < span) {
        row[held] = v;
        other[held++] = u;
      }
      if (held < TOUCH - 1) continue;
    }
    for (let i = 0; i < held; i++) touched ^= u32[4 * row[i]];
    for (let i = 0; i < held; i++) {
      const x = row[i];
      u32[4 * x] += 2;
      u32[4 * x + 3] ^= other[i];
    }
    held = 0;
  }
  for (let r = start; r < end; r++) if (u32[4 * r] === 2 && f32[4 * r + 1] === Infinity) u32[4 * r] = 3;
  return { id: j.id ?? 0, touched };
}

/**
 * contract-peel from the initial leaves of rows [start, end) (see the file's comment): CHAINS chains at once, each
 * step first loading every chain's next record (plain loads, which overlap), then peeling (the atomics then hit the
 * cache: a locked instruction waits for every load before it, so one chain at a time paid a miss a step).
 */
export function contractPeel(j: Omit<PeelJob, 'kind' | 'id'> & { id?: number }): TouchReply {
  const { records: u32, start, end } = j;
  const f32 = new Float32Array(u32.buffer, u32.byteOffset, u32.length);
  const chains = j.touch ? CHAINS : 1;
  const at = new Int32Array(chains).fill(-1);
  const next = new Uint32Array(chains);
  let r = start;
  let live = 0;
  let touched = 0;
  for (;;) {
    for (let k = 0; k < chains && r < end; k++) {
      if (at[k] >= 0) continue;
      while (r < end && u32[4 * r] !== 3) r++;
      if (r < end) {
        at[k] = r++;
        live++;
      }
    }
    if (live === 0) break;
    // A leaf's XOR word is its sole neighbour left (no other thread writes it: the file's comment).
    for (let k = 0; k < chains; k++) {
      const x = at[k];
      if (x < 0) continue;
      const p = Atomics.load(u32, 4 * x + 3);
      next[k] = p;
      touched ^= u32[4 * p + 2];
    }
    for (let k = 0; k < chains; k++) {
      const x = at[k];
      if (x < 0) continue;
      const p = next[k];
      u32[4 * x] = PEELED;
      Atomics.xor(u32, 4 * p + 3, x);
      const before = Atomics.sub(u32, 4 * p, 2) >>> 1;
      // p is now a leaf when it had two neighbours left; a terminal (a floor) stays.
      if (before !== 2 || f32[4 * p + 1] !== Infinity) {
        at[k] = -1;
        live--;
      } else at[k] = p;
    }
  }
  return { id: j.id ?? 0, touched };
}

/** contract-count on edges [start, end) (see the file's comment). */
export function contractCount(j: Omit<CountJob, 'kind' | 'id'> & { id?: number }): CountReply {
  const { records: u32, lo, hi, bits, start, end } = j;
  const touch = j.touch === true;
  let count = 0;
  let word = 0;
  let touched = 0;
  for (let e = start; e < end; e++) {
    if (touch && ((e - start) & (TOUCH - 1)) === 0) {
      const stop = Math.min(end, e + TOUCH);
      for (let i = e; i < stop; i++) touched ^= u32[4 * lo[i]] ^ u32[4 * hi[i]];
    }
    const u = lo[e];
    const v = hi[e];
    // (A Steiner row's word 0 is a degree count or, once set here, its own row: below PEELED either way.)
    if (u32[4 * u] < PEELED && u32[4 * v] < PEELED) {
      word |= 1 << (e & 31);
      count++;
      u32[4 * u] = u;
      u32[4 * v] = v;
    }
    if ((e & 31) === 31 || e === end - 1) {
      bits[e >>> 5] = word;
      word = 0;
    }
  }
  return { id: j.id ?? 0, count, touched };
}

type ComplementJob = { id: number; kind: 'contract-complement'; open: Uint32Array; split: Uint32Array } & {
  start: number;
  end: number;
};

/**
 * contract-complement on edges [start, end): the edges not in `open` (ascending), written at their place in `split`
 * (the safe list: edge e goes to e − the open edges before it).
 */
export function contractComplement(j: Omit<ComplementJob, 'kind' | 'id'> & { id?: number }): WorkerReply {
  const { open, split, start, end } = j;
  let a = 0;
  let b = open.length;
  while (a < b) {
    const mid = (a + b) >>> 1;
    if (open[mid] < start) a = mid + 1;
    else b = mid;
  }
  let s = start - a;
  for (let e = start, o = a; e < end; e++) {
    if (o < open.length && open[o] === e) o++;
    else split[s++] = e;
  }
  return { id: j.id ?? 0 };
}

export const contractJobs = {
  'contract-degree': (m: DegreeJob) => contractDegree(m),
  'contract-peel': (m: PeelJob) => contractPeel(m),
  'contract-count': (m: CountJob) => contractCount(m),
  'contract-complement': (m: ComplementJob) => contractComplement(m),
} satisfies JobTable;

/**
 * `touch`: the passes load their records ahead in blocks (degree, count) and peel CHAINS chains at once (peel) — the
 * loads overlap where a random row costs a long miss. On the H200 x2 host (session 18, 2·10^8 points) the peel took
 * 1.03–1.32 s a forest against 1.31–1.54 plain, degree and count alike; on the development machine (2 threads, 4·10^6
 * rows of a uniform EMST, a test suite running beside it) the passes 0.92–1.49 s against 1.44–1.74. On by default;
 * TREELINE_CONTRACT_TOUCH=0 runs the plain loops (A/B runs).
 */
export const contractThreading = {
  touch:
    (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.TREELINE_CONTRACT_TOUCH !==
    '0',
};

/**
 * The three passes on `threads` threads over n rows and the m = lo.length edges: `bits` (⌈m / 32⌉ words) gets the
 * Steiner tree's edges; answers their count, or null where threads did not run (none, or no worker script): the
 * records are then untouched.
 */
export async function steinerEdgesThreaded(
  threads: number,
  j: { records: Uint32Array; lo: Uint32Array; hi: Uint32Array; bits: Uint32Array },
  n: number,
  times?: { degree: number; peel: number; count: number },
): Promise<number | null> {
  const m = j.lo.length;
  const rows = (part: number) => ({
    start: Math.floor((part * n) / threads),
    end: Math.floor(((part + 1) * n) / threads),
  });
  // Edge ranges on whole words of `bits`.
  const words = (m + 31) >>> 5;
  const edges = (part: number) => ({
    start: Math.min(m, 32 * Math.floor((part * words) / threads)),
    end: Math.min(m, 32 * Math.floor(((part + 1) * words) / threads)),
  });
  const what = "the 'forest' task's contraction";
  return splitOnWorkers(threads, false, what, async (pass) => {
    const t0 = performance.now();
    const d = nextMessageId();
    const touch = contractThreading.touch;
    await pass((part) => ({
      kind: 'contract-degree',
      id: d,
      records: j.records,
      lo: j.lo,
      hi: j.hi,
      touch,
      ...rows(part),
    }));
    const t1 = performance.now();
    const p = nextMessageId();
    await pass((part) => ({ kind: 'contract-peel', id: p, records: j.records, touch, ...rows(part) }));
    const t2 = performance.now();
    const c = nextMessageId();
    const counts = await pass<CountReply>((part) => ({ kind: 'contract-count', id: c, ...j, touch, ...edges(part) }));
    if (times) [times.degree, times.peel, times.count] = [t1 - t0, t2 - t1, performance.now() - t2];
    return counts.reduce((s, r) => s + r.count, 0);
  });
}

/**
 * The safe list of m edges (every edge not in `open`, ascending) into `split` on `threads` threads (tasks.threads.ts
 * onThreads' ranges); false where it did not run there (the caller then runs contractComplement over [0, m) itself).
 */
export function complementThreaded(
  threads: number,
  open: Uint32Array,
  split: Uint32Array,
  m: number,
): Promise<boolean> {
  const job = { kind: 'contract-complement' as const, open, split };
  return onThreads(threads, m, job, [open, split], "the 'forest' task's safe list");
}
