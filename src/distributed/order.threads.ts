/**
 * The 'forest' task's rows renumbered in a coarse Morton order before its contraction (issue 20, session 19), on the
 * worker's host threads. A partition's rows follow the global ids (the input's order: random for generated points),
 * so a tree edge joins two random rows and the contraction's passes (contract.threads.ts, contract.blocks.ts: blocks
 * of rows, each thread's own row range) meet far edges everywhere. On the H200 x2 host at 2·10^8 points (k = 4,
 * session 19, call 4) the same points in Morton order gave forest::contract 0.66–1.31 s a partition of 5·10^7 against
 * 1.85–2.10 s (the cross-range peel 0.04–0.11 against 1.0–1.27 s) and the lone worker's run 31.5 against 36.6 s.
 *
 *   order-bounds   rows [start, end): each axis's least and greatest coordinate
 *   order-count    rows [start, end): each row's cell (G = 2^g cells an axis over the box, g·axes ≤ CELL_BITS, the
 *                  first min(dim, CELL_BITS) axes; the
 *                  cells in Morton order) into `cell`, and the range's count of rows a cell at its place in `counts`
 *   order-place    rows [start, end): rank[r] = the range's next place in r's cell (cells ascending, within a cell
 *                  ranges in order and rows in order: a stable counting sort), ids[rank[r]] = the old ids[r]
 *   order-relabel  edges [start, end): lo[e], hi[e] = rank[lo[e]], rank[hi[e]] (in place)
 *
 * Exact: the contraction and its Kruskal with floors never compare rows — which edges are proven depends on the edges'
 * order (unchanged: the canonical order was fixed by the old rows, which ascend with the ids) and the floors (moved
 * with their rows); only the label's representative row changes, and the coordinator compares labels for equality
 * alone. The reply maps rows to global ids through the renumbered ids, so every id it sends is the one it sent before.
 * Every array is a view of a SharedArrayBuffer (see tasks.threads.ts).
 */
import { envVar } from '../host/env.js';
import { nextMessageId, partRange, splitOnWorkers, type JobTable, type WorkerReply } from '../host/threads.js';
import { shared } from './tasks.threads.js';

/** Bits of a cell number (2^18 cells: ~190 rows a cell at 5·10^7 rows; counts take 1 MiB a thread). */
const CELL_BITS = 18;

interface Range {
  id: number;
  start: number;
  end: number;
}

type BoundsJob = Range & { kind: 'order-bounds'; points: Float32Array; dim: number };
type CountJob = Range & {
  kind: 'order-count';
  points: Float32Array;
  dim: number;
  /** Per axis: the box's least coordinate and cells / extent (0 for a flat axis). */
  low: number[];
  scale: number[];
  /** The axes whose cells make the code (the first min(dim, CELL_BITS)), `bits` bits each. */
  axes: number;
  bits: number;
  cell: Uint32Array;
  counts: Uint32Array;
  at: number;
};
type PlaceJob = Range & {
  kind: 'order-place';
  cell: Uint32Array;
  counts: Uint32Array;
  at: number;
  ids: Uint32Array;
  newIds: Uint32Array;
  rank: Uint32Array;
};
type RelabelJob = Range & { kind: 'order-relabel'; rank: Uint32Array; lo: Uint32Array; hi: Uint32Array };

type BoundsReply = WorkerReply & { low: number[]; high: number[] };

/** order-bounds on rows [start, end). */
export function orderBounds(j: Omit<BoundsJob, 'kind' | 'id'> & { id?: number }): BoundsReply {
  const { points, dim, start, end } = j;
  const low = new Array<number>(dim).fill(Infinity);
  const high = new Array<number>(dim).fill(-Infinity);
  for (let a = 0; a < dim; a++) {
    let lo = Infinity;
    let hi = -Infinity;
    for (let r = start, o = start * dim + a; r < end; r++, o += dim) {
      const x = points[o];
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
    low[a] = lo;
    high[a] = hi;
  }
  return { id: j.id ?? 0, low, high };
}

/**
 * spread[v]: v's bits placed `axes` apart (bit b at bit b·axes), for v < 2^bits — a cell's Morton code is the OR of
 * spread[c_a] << (axes − 1 − a) over the axes (axis 0 first at each level). (Interleaving bit by bit took ~50–70 ns a
 * row on the development machine; the table ~10–20.)
 */
function spreadTable(axes: number, bits: number): Uint32Array {
  const table = new Uint32Array(2 ** bits);
  for (let v = 0; v < table.length; v++) {
    let code = 0;
    for (let b = 0; b < bits; b++) code += ((v >>> b) & 1) * 2 ** (b * axes);
    table[v] = code;
  }
  return table;
}

/** order-count on rows [start, end): each row's cell (its cell coordinates' bits interleaved, most significant first). */
export function orderCount(j: Omit<CountJob, 'kind' | 'id'> & { id?: number }): WorkerReply {
  const { points, dim, low, scale, axes, bits, cell, counts, at, start, end } = j;
  const top = (1 << bits) - 1;
  const spread = spreadTable(axes, bits);
  const lo = Float64Array.from(low);
  const sc = Float64Array.from(scale);
  for (let r = start; r < end; r++) {
    let c = 0;
    for (let a = 0, o = r * dim; a < axes; a++, o++) {
      const q = Math.floor((points[o] - lo[a]) * sc[a]);
      c |= spread[q < top ? q : top] << (axes - 1 - a);
    }
    cell[r] = c;
    counts[at + c]++;
  }
  return { id: j.id ?? 0 };
}

/** order-place on rows [start, end): `counts` from `at` on holds the range's first place in each cell. */
export function orderPlace(j: Omit<PlaceJob, 'kind' | 'id'> & { id?: number }): WorkerReply {
  const { cell, counts, at, ids, newIds, rank, start, end } = j;
  for (let r = start; r < end; r++) {
    const place = counts[at + cell[r]]++;
    rank[r] = place;
    newIds[place] = ids[r];
  }
  return { id: j.id ?? 0 };
}

/** order-relabel on edges [start, end). */
export function orderRelabel(j: Omit<RelabelJob, 'kind' | 'id'> & { id?: number }): WorkerReply {
  const { rank, lo, hi, start, end } = j;
  for (let e = start; e < end; e++) {
    lo[e] = rank[lo[e]];
    hi[e] = rank[hi[e]];
  }
  return { id: j.id ?? 0 };
}

export const orderJobs = {
  'order-bounds': (m: BoundsJob) => orderBounds(m),
  'order-count': (m: CountJob) => orderCount(m),
  'order-place': (m: PlaceJob) => orderPlace(m),
  'order-relabel': (m: RelabelJob) => orderRelabel(m),
} satisfies JobTable;

const orderOff = envVar('TREELINE_FOREST_ORDER') === '0';

/**
 * From `minRows` rows the 'forest' task renumbers its rows (TREELINE_FOREST_ORDER=0: never, for A/B runs); `runs`
 * counts the renumberings (tests lower minRows and check it).
 */
export const orderThreading = { minRows: orderOff ? Infinity : 1 << 18, runs: 0 };

/**
 * The rows [0, n) of `points` renumbered in a coarse Morton order on `threads` threads: `rank` (old row → new row),
 * `ids` (the global ids in the new rows' order), and `lo`, `hi` (m edges' rows) renumbered in place. Null where it did
 * not run (fewer than 2 threads, below minRows, an array not in shared memory): the caller keeps its rows then.
 */
export async function localOrderThreaded(
  threads: number,
  j: {
    points: Float32Array;
    dim: number;
    ids: Uint32Array;
    lo: Uint32Array;
    hi: Uint32Array;
    /** n words each (the worker's scratch): each row's cell, `rank`, the renumbered ids. */
    cell: Uint32Array;
    rank: Uint32Array;
    newIds: Uint32Array;
  },
  n: number,
  m: number,
  times?: Record<string, number>,
): Promise<{ rank: Uint32Array; ids: Uint32Array } | null> {
  const { points, dim, ids, lo, hi, cell, rank, newIds } = j;
  if (threads < 2 || n < orderThreading.minRows || n < 2 * threads) return null;
  if (!shared(points, ids, lo, hi, cell, rank, newIds)) return null;
  // (Above CELL_BITS dimensions the first CELL_BITS axes alone, a bit each: the cells stay 2^18 at most.)
  const axes = Math.min(dim, CELL_BITS);
  const bits = Math.floor(CELL_BITS / axes);
  const cells = 2 ** (bits * axes);
  const u32 = (length: number) => new Uint32Array(new SharedArrayBuffer(4 * Math.max(1, length)), 0, length);
  const rows = (part: number) => partRange(part, n, threads);
  const edges = (part: number) => partRange(part, m, threads);
  const out = await splitOnWorkers(threads, false, "the 'forest' task's row order", async (pass) => {
    const t0 = performance.now();
    const b = nextMessageId();
    const boxes = await pass<BoundsReply>((part) => ({ kind: 'order-bounds', id: b, points, dim, ...rows(part) }));
    const low: number[] = [];
    const scale: number[] = [];
    for (let a = 0; a < axes; a++) {
      let lo = Infinity;
      let hi = -Infinity;
      for (const box of boxes) {
        lo = Math.min(lo, box.low[a]);
        hi = Math.max(hi, box.high[a]);
      }
      low.push(lo);
      // (A flat or non-finite extent puts every row in cell 0 of that axis.)
      scale.push(hi > lo && Number.isFinite(hi - lo) ? 2 ** bits / (hi - lo) : 0);
    }
    const counts = u32(cells * threads);
    const c = nextMessageId();
    const grid = { points, dim, low, scale, axes, bits, cell, counts };
    const t1 = performance.now();
    await pass((part) => ({ kind: 'order-count', id: c, ...grid, at: part * cells, ...rows(part) }));
    // Each range's first place in each cell: cells ascending, within a cell the ranges in order.
    let place = 0;
    for (let k = 0; k < cells; k++) {
      for (let t = 0; t < threads; t++) {
        const count = counts[t * cells + k];
        counts[t * cells + k] = place;
        place += count;
      }
    }
    const t2 = performance.now();
    const p = nextMessageId();
    const placed = { cell, counts, ids, newIds, rank };
    await pass((part) => ({ kind: 'order-place', id: p, ...placed, at: part * cells, ...rows(part) }));
    const t3 = performance.now();
    const r = nextMessageId();
    await pass((part) => ({ kind: 'order-relabel', id: r, rank, lo, hi, ...edges(part) }));
    if (times) {
      times['forest::order.bounds'] = t1 - t0;
      times['forest::order.count'] = t2 - t1;
      times['forest::order.place'] = t3 - t2;
      times['forest::order.relabel'] = performance.now() - t3;
    }
    return { rank: rank.subarray(0, n), ids: newIds.subarray(0, n) };
  });
  if (out !== null) orderThreading.runs++;
  return out;
}
