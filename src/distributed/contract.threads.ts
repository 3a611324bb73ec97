/**
 * The 'forest' task's contraction on the worker's host threads (issue 20, sessions 18–19): the passes that restrict a
 * partition's tree to the Steiner tree of its terminals (the rows with a floor), so that contractForest's Kruskal runs
 * over 3–5 % of the edges (contractForestThreaded, partition.pairs.ts, tells why that is exact).
 *
 * The edges come in key order, so consecutive edges touch rows all over the partition: a pass that updates rows edge
 * by edge takes a cache (and, with 4 KiB pages, a TLB) miss an edge, and session 18's passes did (degree 0.92–1.22 s,
 * peel 0.88–1.19 s, count 0.25–0.28 s a forest of 5·10^7 rows on 16 threads of the H200 host), while every thread of
 * its degree pass also read all m edges. The 'forest' task renumbers its rows in a coarse Morton order first
 * (order.threads.ts: a partition's own rows follow the input's order, random for generated points — on those the
 * cross-range peel below took 0.9–1.3 s a forest on the H200 host, 0.04–0.14 s once renumbered), so the tree is local in
 * row numbers: at 4·10^6 uniform points in Morton order, 97.5 % of its edges join two rows of one block of 2^16 rows.
 * Hence a radix partition of the edges by block, and a peel that stays in a block while it can:
 *
 *   contract-tally    edges [start, end): each block's near edges (both ends in it) and far entries (one end in it,
 *                     the other elsewhere), counted
 *   contract-scatter  edges [start, end): a near edge as one word (its ends' offsets in their block), a far edge as
 *                     an entry (row, other row) in each end's block, at the range's cursors (tallyToCursors)
 *   contract-degree   blocks [first, last), the thread's rows [start, end): block after block, each row's degree and
 *                     the XOR of its neighbours from the block's entries (the block's 1 MB of records in the cache;
 *                     the one thread writing these rows: no atomics), then, still in the cache, from each leaf of the
 *                     block (degree 1, no floor) peels along the tree with plain stores while the next row is in the
 *                     range and its degree is whole (the block's rows and those of the range's blocks before it);
 *                     last, the leaves that waited for a later block. A leaf whose sole neighbour lies in another
 *                     thread's range is left marked (word 0 = 3)
 *   contract-peel     rows [start, end): from each marked leaf of the range, peels on with atomics (its chain may go
 *                     on in any range) while the next row is left with degree 1 and has no floor
 *   contract-mark     rows [start, end): the rows left unpeeled — the Steiner tree's — as bits of `steiner` (n / 8
 *                     bytes: the count's reads hit the cache), and their count
 *   contract-count    edges [start, end) (start a multiple of 32): the edges with both ends in `steiner`, as bits of
 *                     `bits` (whole words), and their count; and rows [start, end): the Steiner rows' own records,
 *                     numbered densely in row order, for the Kruskal (its finds then stay in 16 bytes a Steiner row)
 *   contract-gather   edges [start, end): the Steiner edges in order, their ends as Steiner rows
 *
 * The block passes live in contract.blocks.ts. State, in contractForest's records (16 bytes a row, partition.pairs.ts;
 * since session 19 the Kruskal has its own): word 0 holds 2 × the degree (+ 1 for a marked leaf), PEELED's bit once
 * peeled; word 3 the XOR of the remaining neighbours (a leaf's sole neighbour); word 1 is the floor (f32, +∞ for none);
 * word 2 is left alone. One line a row. Degrees and XORs do not depend on the order in which the edges are added, nor
 * the Steiner tree on the order of the peel: the same rows stay, the same bits come out.
 *
 * The peel is race-free on a connected tree with one terminal at least (the caller runs none without; a cycle is
 * never peeled, and the Kruskal after it throws on it). In contract-degree each thread reads and writes its own rows
 * only, and steps onto a row only once every edge of that row is counted (a chain stops before rows of a later block
 * or of another range): one leaf removal at a time, as one thread would. In contract-peel (after every thread's
 * contract-degree) a row is peeled by the one thread that saw it a leaf — a marked leaf by its range's thread, any
 * other by the thread whose decrement left its degree at 1 — and that thread's read of its XOR word comes after every
 * other neighbour's XOR, each of which went before that neighbour's decrement (sequentially consistent atomics). Two
 * adjacent rows can be leaves at once only when they are all that is left of their component, which then holds no
 * terminal. Rows stay below PEELED (2^31: the records of such a partition would take 32 GiB;
 * contractForestThreaded refuses more).
 *
 * Every array must be a view of a SharedArrayBuffer (see tasks.threads.ts).
 */
import { envVar } from '../host/env.js';
import { nextMessageId, splitOnWorkers, type JobTable, type WorkerReply } from '../host/threads.js';
import { onThreads } from './tasks.threads.js';
import {
  blockBits,
  contractDegree,
  contractScatter,
  contractTally,
  PEELED,
  tallyToCursors,
  type DegreeJob,
  type ScatterJob,
  type TallyJob,
} from './contract.blocks.js';

export { blockBits, contractDegree, contractScatter, contractTally, PEELED, tallyToCursors };

interface RowRange {
  id: number;
  records: Uint32Array;
  start: number;
  end: number;
}

type PeelJob = RowRange & { kind: 'contract-peel'; touch?: boolean };
type MarkJob = RowRange & { kind: 'contract-mark'; steiner: Uint32Array };
type CountJob = {
  id: number;
  kind: 'contract-count';
  steiner: Uint32Array;
  lo: Uint32Array;
  hi: Uint32Array;
  bits: Uint32Array;
  start: number;
  end: number;
  records: Uint32Array;
  dense: Uint32Array;
  rowOf: Uint32Array;
  wordRank: Uint32Array;
  rowStart: number;
  rowEnd: number;
  base: number;
};
type CountReply = WorkerReply & { count: number };
type GatherJob = {
  id: number;
  kind: 'contract-gather';
  bits: Uint32Array;
  lo: Uint32Array;
  hi: Uint32Array;
  keys: Float32Array;
  steiner: Uint32Array;
  wordRank: Uint32Array;
  start: number;
  end: number;
  at: number;
  numbers: Uint32Array;
  subLo: Uint32Array;
  subHi: Uint32Array;
  subKeys: Float32Array;
};
/** (`touched`: the touching loads' XOR, returned so that no compiler drops them.) */
type TouchReply = WorkerReply & { touched?: number };
type Job<J> = Omit<J, 'kind' | 'id'> & { id?: number };

/** Chains a thread peels at once, step by step in turn (each step's record loads overlap). */
const CHAINS = 16;

/**
 * contract-peel from the marked leaves of rows [start, end) that contract-degree left (see the file's comment),
 * with atomics (a chain may go on in any range); `touch`: CHAINS chains at once, each step first loading every chain's
 * next record (plain loads, which overlap), then peeling (the atomics then hit the cache: a locked instruction waits
 * for every load before it, so one chain at a time paid a miss a step).
 */
export function contractPeel(j: Job<PeelJob>): TouchReply {
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

/**
 * contract-mark on rows [start, end): the rows left unpeeled — the Steiner tree's — as bits of `steiner` (a word at
 * either end of the range, which the range beside may share, by an atomic OR), and their count.
 */
export function contractMark(j: Job<MarkJob>): CountReply {
  const { records: u32, steiner, start, end } = j;
  const first = start >>> 5;
  const last = (end - 1) >>> 5;
  let word = 0;
  let count = 0;
  for (let r = start; r < end; r++) {
    if (u32[4 * r] < PEELED) {
      word |= 1 << (r & 31);
      count++;
    }
    if ((r & 31) === 31 || r === end - 1) {
      const w = r >>> 5;
      if (w === first || w === last) Atomics.or(steiner, w, word);
      else steiner[w] = word;
      word = 0;
    }
  }
  return { id: j.id ?? 0, count };
}

/**
 * contract-count on edges [start, end) (start a multiple of 32): the edges with both ends in `steiner` as bits of
 * `bits` (whole words), and their count. (`steiner` takes n / 8 bytes, 6 MB at 5·10^7 rows: its reads hit the cache,
 * where the records' took a miss an edge.) And on rows [rowStart, rowEnd), whose first Steiner row is the `base`-th:
 * the Steiner rows' records for the Kruskal (`dense`, forestRecords' layout, row d the d-th Steiner row: its own root
 * twice, its floor), `rowOf` (each dense row's row) and `wordRank` (the Steiner rows before each word of `steiner`).
 */
export function contractCount(j: Job<CountJob>): CountReply {
  const { steiner, lo, hi, bits, start, end } = j;
  let count = 0;
  let word = 0;
  for (let e = start; e < end; e++) {
    const u = lo[e];
    const v = hi[e];
    if (((steiner[u >>> 5] >>> (u & 31)) & (steiner[v >>> 5] >>> (v & 31)) & 1) !== 0) {
      word |= 1 << (e & 31);
      count++;
    }
    if ((e & 31) === 31 || e === end - 1) {
      bits[e >>> 5] = word;
      word = 0;
    }
  }
  const { records: u32, dense, rowOf, wordRank, rowStart, rowEnd } = j;
  let d = j.base;
  for (let r = rowStart; r < rowEnd; r++) {
    if ((r & 31) === 0) wordRank[r >>> 5] = d;
    if (((steiner[r >>> 5] >>> (r & 31)) & 1) === 0) continue;
    dense[4 * d] = d;
    dense[4 * d + 1] = u32[4 * r + 1];
    dense[4 * d + 2] = d;
    dense[4 * d + 3] = 0;
    rowOf[d++] = r;
  }
  return { id: j.id ?? 0, count };
}

/** Row r's Steiner rank (its row in contract-count's `dense`): the Steiner rows before it. */
export function steinerRank(steiner: Uint32Array, wordRank: Uint32Array, r: number): number {
  let x = steiner[r >>> 5] & ((1 << (r & 31)) - 1);
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return wordRank[r >>> 5] + (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

/**
 * contract-gather on edges [start, end) (start a multiple of 32): the Steiner edges (`bits`' ones) in order from
 * `at` on — their numbers, their ends' Steiner ranks (steinerRank: the bitmap's words hit the cache), their keys.
 */
export function contractGather(j: Job<GatherJob>): WorkerReply {
  const { bits, lo, hi, keys, steiner, wordRank, start, end, numbers, subLo, subHi, subKeys } = j;
  let i = j.at;
  for (let w = start >>> 5, stop = (end + 31) >>> 5; w < stop; w++) {
    for (let b = bits[w]; b !== 0; b &= b - 1) {
      const e = 32 * w + 31 - Math.clz32(b & -b);
      numbers[i] = e;
      subLo[i] = steinerRank(steiner, wordRank, lo[e]);
      subHi[i] = steinerRank(steiner, wordRank, hi[e]);
      subKeys[i++] = keys[e];
    }
  }
  return { id: j.id ?? 0 };
}

type ComplementJob = { id: number; kind: 'contract-complement'; open: Uint32Array; split: Uint32Array } & {
  start: number;
  end: number;
};

/**
 * contract-complement on edges [start, end): the edges not in `open` (ascending), written at their place in `split`
 * (the safe list: edge e goes to e − the open edges before it).
 */
export function contractComplement(j: Job<ComplementJob>): WorkerReply {
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
  'contract-tally': (m: TallyJob) => contractTally(m),
  'contract-scatter': (m: ScatterJob) => contractScatter(m),
  'contract-degree': (m: DegreeJob) => contractDegree(m),
  'contract-peel': (m: PeelJob) => contractPeel(m),
  'contract-mark': (m: MarkJob) => contractMark(m),
  'contract-count': (m: CountJob) => contractCount(m),
  'contract-gather': (m: GatherJob) => contractGather(m),
  'contract-complement': (m: ComplementJob) => contractComplement(m),
} satisfies JobTable;

/**
 * `touch`: contract-peel peels CHAINS chains at once — the loads overlap where a random row costs a long miss. On the
 * H200 x2 host (session 18, 2·10^8 points, when contract-peel peeled every row) it took 1.03–1.32 s a forest against
 * 1.31–1.54 plain. Since session 19 it peels only what crosses the threads' ranges (0.3 % of the rows at 4·10^6 Morton
 * rows on 2 threads, 7 % on 16; nearly all where the rows are in no spatial order, as in some tests). The degree and
 * count passes, which loaded their records ahead too, no longer read records edge by edge. On by default;
 * TREELINE_CONTRACT_TOUCH=0 peels one chain at a time (A/B runs).
 */
export const contractThreading = {
  touch: envVar('TREELINE_CONTRACT_TOUCH') !== '0',
};

/**
 * The passes on `threads` threads over n rows and the m = lo.length edges: `bits` (⌈m / 32⌉ words) gets the Steiner
 * tree's edges; answers them and its rows (SteinerTree), or null where threads did not run (none, or no worker
 * script): the records are then untouched. `near` (m words at least, shared) is the scatter's scratch.
 */
export async function steinerEdgesThreaded(
  threads: number,
  j: {
    records: Uint32Array;
    lo: Uint32Array;
    hi: Uint32Array;
    keys: Float32Array;
    bits: Uint32Array;
    near: Uint32Array;
  },
  n: number,
  times?: { degree: number; peel: number; count: number; gather: number },
): Promise<SteinerTree | null> {
  const m = j.lo.length;
  const { records, lo, hi } = j;
  const shift = blockBits(n, threads);
  const blocks = Math.ceil(n / 2 ** shift);
  // Each thread's blocks, and their rows.
  const owned = (part: number) => ({
    first: Math.floor((part * blocks) / threads),
    last: Math.floor(((part + 1) * blocks) / threads),
  });
  const rows = (part: number) => {
    const { first, last } = owned(part);
    return { start: Math.min(n, first * 2 ** shift), end: Math.min(n, last * 2 ** shift) };
  };
  // Edge ranges on whole words of `bits`.
  const words = (m + 31) >>> 5;
  const edges = (part: number) => ({
    start: Math.min(m, 32 * Math.floor((part * words) / threads)),
    end: Math.min(m, 32 * Math.floor(((part + 1) * words) / threads)),
  });
  const shared = (length: number) => new Uint32Array(new SharedArrayBuffer(4 * Math.max(1, length)), 0, length);
  const tally = shared(2 * blocks * threads);
  const edgeJob = (part: number) => ({ lo, hi, shift, blocks, tally, at: 2 * blocks * part, ...edges(part) });
  const what = "the 'forest' task's contraction";
  return splitOnWorkers(threads, false, what, async (pass) => {
    const t0 = performance.now();
    const id = nextMessageId();
    await pass((part) => ({ kind: 'contract-tally', id, ...edgeJob(part) }));
    const { bounds, far } = tallyToCursors(tally, blocks);
    const entries = { near: j.near, far: new Uint32Array(new SharedArrayBuffer(8 * Math.max(1, far)), 0, 2 * far) };
    const s = nextMessageId();
    await pass((part) => ({ kind: 'contract-scatter', id: s, ...edgeJob(part), ...entries }));
    const d = nextMessageId();
    const block = { records, bounds, shift, blocks, n, ...entries };
    await pass((part) => ({ kind: 'contract-degree', id: d, ...block, ...owned(part) }));
    const t1 = performance.now();
    const p = nextMessageId();
    const touch = contractThreading.touch;
    await pass((part) => ({ kind: 'contract-peel', id: p, records, touch, ...rows(part) }));
    const t2 = performance.now();
    const k = nextMessageId();
    const steiner = shared((n + 31) >>> 5);
    const marked = await pass<CountReply>((part) => ({
      kind: 'contract-mark',
      id: k,
      records,
      steiner,
      ...rows(part),
    }));
    const bases = [0];
    for (const r of marked) bases.push(bases[bases.length - 1] + r.count);
    const size = bases[threads];
    const tree = { steiner, wordRank: shared(steiner.length), dense: shared(4 * size), rowOf: shared(size) };
    const c = nextMessageId();
    const count = { lo, hi, bits: j.bits, records, ...tree };
    const counts = await pass<CountReply>((part) => {
      const { start: rowStart, end: rowEnd } = rows(part);
      return { kind: 'contract-count', id: c, ...count, ...edges(part), rowStart, rowEnd, base: bases[part] };
    });
    const t3 = performance.now();
    const at = [0];
    for (const r of counts) at.push(at[at.length - 1] + r.count);
    const m2 = at[threads];
    const f32 = (length: number) => new Float32Array(new SharedArrayBuffer(4 * Math.max(1, length)), 0, length);
    const sub = { numbers: shared(m2), subLo: shared(m2), subHi: shared(m2), subKeys: f32(m2) };
    const g = nextMessageId();
    const gather = { bits: j.bits, lo, hi, keys: j.keys, steiner, wordRank: tree.wordRank, ...sub };
    await pass((part) => ({ kind: 'contract-gather', id: g, ...gather, ...edges(part), at: at[part] }));
    if (times) {
      [times.degree, times.peel, times.count] = [t1 - t0, t2 - t1, t3 - t2];
      times.gather = performance.now() - t3;
    }
    return {
      ...tree,
      rows: size,
      numbers: sub.numbers,
      edges: { lo: sub.subLo, hi: sub.subHi, keys: sub.subKeys },
    };
  });
}

/**
 * The Steiner tree steinerEdgesThreaded found, its rows numbered densely in row order: `edges` in the canonical order
 * with their ends so numbered (steinerRank), `numbers` each one's number among the m edges, `dense` the Steiner rows'
 * records for the Kruskal (forestRecords' layout), `rowOf` each one's row.
 */
export interface SteinerTree {
  edges: { lo: Uint32Array; hi: Uint32Array; keys: Float32Array };
  numbers: Uint32Array;
  rows: number;
  /** n bits: the Steiner rows. */
  steiner: Uint32Array;
  /** The Steiner rows before each word of `steiner`. */
  wordRank: Uint32Array;
  /** 4 words a Steiner row. */
  dense: Uint32Array;
  rowOf: Uint32Array;
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
