/**
 * The EMST bench's host checks (emst.ts) on the host's worker threads: at 4·10^8 3D points on the H100's host one
 * thread took 92 s for the union-find and ~80 s for each spatial half (bench/RESULTS.md, issue 19's final batch of
 * the eleventh session), more than the device call leaves after generation and the run. The same verdicts:
 *
 *   spanning  n − 1 edges, every end below n, and no cycle: a concurrent union-find over shared parents (a root is
 *             linked below a smaller root by compare-exchange, so parent ids fall along every path and no cycle can
 *             form; finds halve paths with plain writes, which only ever point a non-root at one of its ancestors).
 *             Ranges of edges on threads; an edge whose ends have one root already closes a cycle (the edges joined
 *             them before it). The edge reported may differ from one thread's first; the verdict cannot.
 *   halves    the points' split at the middle of x's range (each point's half and its id within the half, the
 *             halves' points in id order) in three passes over ranges; then, per half, every edge of the whole tree
 *             with both ends in it must be an edge of the half's own EMST with its weight: ranges of the whole list
 *             each walk both halves' lists forward (one cursor a half, from a binary search for the range's first
 *             edge in that half; all lists in the canonical order; see emst.ts checkHalves).
 *
 * Every array a job carries lies in shared memory (toShared copies one that does not). Without worker threads (or
 * with one thread) the same jobs run on the calling thread, as one range. On the H100's host at 10^8 3D points and
 * 16 threads (584a53b): the union-find 3.6 s, the split 0.5 s, both halves compared 1.3 s (one thread at 4·10^8:
 * 92 s and ~80 s a half, most of it the lookups).
 */
import { sharedBuffer } from '../host/buffers.js';
import {
  nextMessageId,
  passWithCaller,
  splitOnWorkers,
  type JobTable,
  type RangePass,
  type WorkerReply,
} from '../host/threads.js';

export interface CheckedEdges {
  sources: Uint32Array;
  targets: Uint32Array;
  weights: Float32Array;
}

/** `a` itself where it views a SharedArrayBuffer, else a shared copy. */
export function toShared<T extends Uint32Array | Float32Array | Uint8Array>(a: T): T {
  if (a.buffer instanceof SharedArrayBuffer) return a;
  const ctor = a.constructor as new (buffer: SharedArrayBuffer, offset: number, length: number) => T;
  const copy = new ctor(sharedBuffer(a.byteLength), 0, a.length);
  copy.set(a as never);
  return copy;
}

/** Shared arrays for m edges (a read-back's destination: GpuEmst.readEdges' `into`). */
export function sharedEdges(m: number): CheckedEdges {
  return {
    sources: new Uint32Array(sharedBuffer(4 * m), 0, m),
    targets: new Uint32Array(sharedBuffer(4 * m), 0, m),
    weights: new Float32Array(sharedBuffer(4 * m), 0, m),
  };
}

/** [start, end) of range `part` of `parts` over `count` items. */
function rangeOf(count: number, part: number, parts: number): [number, number] {
  return [Math.floor((count * part) / parts), Math.floor((count * (part + 1)) / parts)];
}

// ---- the jobs (worker and calling thread) ----

interface InitJob {
  kind: 'check-init';
  id: number;
  parent: Uint32Array;
  part: number;
  parts: number;
}

interface UnionJob {
  kind: 'check-union';
  id: number;
  parent: Uint32Array;
  sources: Uint32Array;
  targets: Uint32Array;
  weights: Float32Array;
  part: number;
  parts: number;
}
type UnionReply = WorkerReply & { total: number; cycle: number; outside: number };

interface BoundsJob {
  kind: 'check-bounds';
  id: number;
  points: Float32Array;
  dim: number;
  n: number;
  part: number;
  parts: number;
}
type BoundsReply = WorkerReply & { lo: number; hi: number };

interface SideJob {
  kind: 'check-sides';
  id: number;
  points: Float32Array;
  dim: number;
  n: number;
  mid: number;
  part: number;
  parts: number;
  /** The placing pass only: the range's first id within each half, and the outputs. */
  at?: [number, number];
  code?: Uint32Array;
  halves?: [Float32Array, Float32Array];
}
type SideReply = WorkerReply & { low: number };

interface WalkJob {
  kind: 'check-walk';
  id: number;
  code: Uint32Array;
  whole: CheckedEdges;
  /** Each half's EMST in its local ids (empty for a half under 2 points). */
  trees: [CheckedEdges, CheckedEdges];
  part: number;
  parts: number;
}
type WalkReply = WorkerReply & { inside: [number, number]; bad: number; badHalf: number };

function initParents(j: InitJob): WorkerReply {
  const [s, e] = rangeOf(j.parent.length, j.part, j.parts);
  const p = j.parent;
  for (let i = s; i < e; i++) p[i] = i;
  return { id: j.id };
}

/** The root of x, halving the path on the way (plain writes: each points a non-root at an ancestor of it). */
function find(p: Uint32Array, x: number): number {
  let px = p[x];
  while (px !== x) {
    const g = p[px];
    if (g !== px) p[x] = g;
    x = px;
    px = p[x];
  }
  return x;
}

function unionRange(j: UnionJob): UnionReply {
  const { parent: p, sources, targets, weights } = j;
  const n = p.length;
  const [s, e] = rangeOf(sources.length, j.part, j.parts);
  let total = 0;
  for (let i = s; i < e; i++) {
    const u = sources[i];
    const v = targets[i];
    if (u >= n || v >= n) return { id: j.id, total, cycle: -1, outside: i };
    for (;;) {
      let a = find(p, u);
      let b = find(p, v);
      if (a === b) return { id: j.id, total, cycle: i, outside: -1 };
      if (a < b) [a, b] = [b, a];
      // a (the larger root) below b, unless a stopped being a root meanwhile: then find again.
      if (Atomics.compareExchange(p, a, a, b) === a) break;
    }
    total += weights[i];
  }
  return { id: j.id, total, cycle: -1, outside: -1 };
}

function boundsRange(j: BoundsJob): BoundsReply {
  const { points, dim } = j;
  const [s, e] = rangeOf(j.n, j.part, j.parts);
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = s, o = s * dim; i < e; i++, o += dim) {
    const x = points[o];
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  return { id: j.id, lo, hi };
}

/** The range's points in the low half (x < mid); given `code`, also each point's code and its copy in its half. */
function sidesRange(j: SideJob): SideReply {
  const { points, dim, mid } = j;
  const [s, e] = rangeOf(j.n, j.part, j.parts);
  if (!j.code) {
    let low = 0;
    for (let i = s, o = s * dim; i < e; i++, o += dim) if (points[o] < mid) low++;
    return { id: j.id, low };
  }
  const code = j.code;
  const [h0, h1] = j.halves!;
  let [a0, a1] = j.at!;
  for (let i = s, o = s * dim; i < e; i++, o += dim) {
    if (points[o] < mid) {
      code[i] = a0;
      for (let d = 0; d < dim; d++) h0[a0 * dim + d] = points[o + d];
      a0++;
    } else {
      code[i] = (a1 | 0x80000000) >>> 0;
      for (let d = 0; d < dim; d++) h1[a1 * dim + d] = points[o + d];
      a1++;
    }
  }
  return { id: j.id, low: a0 - j.at![0] };
}

/** Whether tree edge k comes before (w, a, b) in the canonical order (weight, min id, max id). */
function treeBefore(tree: CheckedEdges, k: number, w: number, a: number, b: number): boolean {
  const wk = tree.weights[k];
  if (wk !== w) return wk < w;
  const s = tree.sources[k];
  const t = tree.targets[k];
  const ak = s < t ? s : t;
  if (ak !== a) return ak < a;
  return (s < t ? t : s) < b;
}

/** The first edge of `tree` not before (w, a, b) (binary search). */
function lowerBound(tree: CheckedEdges, w: number, a: number, b: number): number {
  let lo = 0;
  let hi = tree.sources.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (treeBefore(tree, mid, w, a, b)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One range of the whole list against both halves' trees: one cursor a half, each from a binary search. */
function walkRange(j: WalkJob): WalkReply {
  const { code, whole, trees } = j;
  const [s, e] = rangeOf(whole.sources.length, j.part, j.parts);
  const inside: [number, number] = [0, 0];
  const cursor = [-1, -1];
  for (let i = s; i < e; i++) {
    const cu = code[whole.sources[i]];
    const cv = code[whole.targets[i]];
    const h = cu >>> 31;
    if (cv >>> 31 !== h) continue;
    inside[h]++;
    const lu = cu & 0x7fffffff;
    const lv = cv & 0x7fffffff;
    const a = lu < lv ? lu : lv;
    const b = lu < lv ? lv : lu;
    const w = whole.weights[i];
    const tree = trees[h];
    const ts = tree.sources;
    const tt = tree.targets;
    const tw = tree.weights;
    const m = ts.length;
    let k = cursor[h] < 0 ? lowerBound(tree, w, a, b) : cursor[h];
    for (; k < m; k++) {
      const wk = tw[k];
      const ak = Math.min(ts[k], tt[k]);
      const bk = Math.max(ts[k], tt[k]);
      if (wk > w || (wk === w && (ak > a || (ak === a && bk >= b)))) break;
    }
    if (k === m || tw[k] !== w || Math.min(ts[k], tt[k]) !== a || Math.max(ts[k], tt[k]) !== b)
      return { id: j.id, inside, bad: i, badHalf: h };
    cursor[h] = k + 1;
  }
  return { id: j.id, inside, bad: -1, badHalf: -1 };
}

/** The worker's side (src/worker.ts). */
export const checkJobs = {
  'check-init': initParents,
  'check-union': unionRange,
  'check-bounds': boundsRange,
  'check-sides': sidesRange,
  'check-walk': walkRange,
} satisfies JobTable;

// ---- the calling side ----

/**
 * Runs `body` with a function that runs one job over `threads` ranges (range 0 on the calling thread) and answers
 * the replies in range order; on the calling thread alone where there are no worker threads.
 */
async function withRanges<T>(
  threads: number,
  what: string,
  body: (
    run: <J extends { kind: string; id: number }, R extends WorkerReply>(
      job: (part: number, parts: number) => J,
    ) => Promise<R[]>,
  ) => Promise<T>,
): Promise<T> {
  const run =
    (pass: RangePass | null, parts: number) =>
    async <J extends { kind: string; id: number }, R extends WorkerReply>(
      job: (part: number, parts: number) => J,
    ): Promise<R[]> => {
      const at = (j: J): R => (checkJobs as unknown as Record<string, (j: J) => R>)[j.kind](j);
      if (pass === null) return [at(job(0, 1))];
      return passWithCaller<J, R>(pass, (part) => job(part, parts), at);
    };
  if (threads >= 2) {
    const done = await splitOnWorkers(threads, true, what, async (pass) => ({ value: await body(run(pass, threads)) }));
    if (done !== null) return done.value;
  }
  return body(run(null, 1));
}

/**
 * n − 1 edges, every end below n, no cycle (so a spanning tree); answers the total weight (float64, summed per range
 * in list order). Throws naming the edge otherwise. Parents are u32 words: ids up to 2^32 − 2.
 */
export async function checkSpanningTree(n: number, edges: CheckedEdges, threads: number): Promise<number> {
  const m = edges.sources.length;
  if (m !== Math.max(0, n - 1)) throw new Error(`bench::emst: ${m} edges for n=${n}`);
  const parent = new Uint32Array(sharedBuffer(4 * n), 0, n);
  const sources = toShared(edges.sources);
  const targets = toShared(edges.targets);
  const weights = toShared(edges.weights);
  return withRanges(threads, 'bench::emst check', async (run) => {
    let id = nextMessageId();
    await run((part, parts): InitJob => ({ kind: 'check-init', id, parent, part, parts }));
    id = nextMessageId();
    const replies = await run<UnionJob, UnionReply>((part, parts) => ({
      kind: 'check-union',
      id,
      parent,
      sources,
      targets,
      weights,
      part,
      parts,
    }));
    let total = 0;
    for (const r of replies) {
      if (r.outside >= 0)
        throw new Error(
          `bench::emst: edge ${r.outside} (${sources[r.outside]}, ${targets[r.outside]}) has an end ≥ n = ${n}`,
        );
      if (r.cycle >= 0) throw new Error(`bench::emst: edge ${r.cycle} closes a cycle`);
      total += r.total;
    }
    return total;
  });
}

/** The points' split at the middle of x's range (checkHalves in emst.ts). */
export interface HalvesSplit {
  mid: number;
  counts: [number, number];
  /** Per point: its id within its half, with bit 31 set in the high half (x ≥ mid). */
  code: Uint32Array;
  /** Each half's points in id order (shared). */
  halves: [Float32Array, Float32Array];
}

export async function splitHalves(points: Float32Array, n: number, dim: number, threads: number): Promise<HalvesSplit> {
  if (n >= 2 ** 31) throw new Error(`bench::emst: the halves check takes fewer than 2^31 points, got ${n}`);
  const shared = toShared(points);
  return withRanges(threads, 'bench::emst halves', async (run) => {
    let id = nextMessageId();
    const bounds = await run<BoundsJob, BoundsReply>((part, parts) => ({
      kind: 'check-bounds',
      id,
      points: shared,
      dim,
      n,
      part,
      parts,
    }));
    const lo = Math.min(...bounds.map((b) => b.lo));
    const hi = Math.max(...bounds.map((b) => b.hi));
    const mid = lo + (hi - lo) / 2;
    id = nextMessageId();
    const sides = await run<SideJob, SideReply>((part, parts) => ({
      kind: 'check-sides',
      id,
      points: shared,
      dim,
      n,
      mid,
      part,
      parts,
    }));
    const lowCounts = sides.map((r) => r.low);
    const counts: [number, number] = [lowCounts.reduce((s, c) => s + c, 0), 0];
    counts[1] = n - counts[0];
    const code = new Uint32Array(sharedBuffer(4 * n), 0, n);
    const halves: [Float32Array, Float32Array] = [
      new Float32Array(sharedBuffer(4 * counts[0] * dim), 0, counts[0] * dim),
      new Float32Array(sharedBuffer(4 * counts[1] * dim), 0, counts[1] * dim),
    ];
    id = nextMessageId();
    const parts = lowCounts.length;
    const at: [number, number][] = [];
    for (let p = 0, a0 = 0, a1 = 0; p < parts; p++) {
      at.push([a0, a1]);
      const [s, e] = rangeOf(n, p, parts);
      a0 += lowCounts[p];
      a1 += e - s - lowCounts[p];
    }
    await run<SideJob, SideReply>((part, parts) => ({
      kind: 'check-sides',
      id,
      points: shared,
      dim,
      n,
      mid,
      part,
      parts,
      at: at[part],
      code,
      halves,
    }));
    return { mid, counts, code, halves };
  });
}

/**
 * Every edge of `whole` with both ends in one half must be an edge of that half's EMST (`trees[h]`, in local ids;
 * null for a half under 2 points, which can hold no edge) with its weight; answers how many lie inside each half.
 * Both halves in one pass over the whole list (one lookup of each end's code per edge). Throws naming the first such
 * edge a range found missing.
 */
export async function compareHalves(
  split: HalvesSplit,
  whole: CheckedEdges,
  trees: [CheckedEdges | null, CheckedEdges | null],
  threads: number,
): Promise<[number, number]> {
  const shared = (t: CheckedEdges | null): CheckedEdges =>
    t === null
      ? sharedEdges(0)
      : { sources: toShared(t.sources), targets: toShared(t.targets), weights: toShared(t.weights) };
  const w = shared(whole);
  const t: [CheckedEdges, CheckedEdges] = [shared(trees[0]), shared(trees[1])];
  return withRanges(threads, 'bench::emst halves', async (run) => {
    const id = nextMessageId();
    const replies = await run<WalkJob, WalkReply>((part, parts) => ({
      kind: 'check-walk',
      id,
      code: split.code,
      whole: w,
      trees: t,
      part,
      parts,
    }));
    const inside: [number, number] = [0, 0];
    for (const r of replies) {
      if (r.bad >= 0) {
        const u = w.sources[r.bad];
        const v = w.targets[r.bad];
        throw new Error(
          `bench::emst: edge ${r.bad} (${u}, ${v}, weight ${w.weights[r.bad]}) lies in half ${r.badHalf} but is not an edge of that half's own EMST`,
        );
      }
      inside[0] += r.inside[0];
      inside[1] += r.inside[1];
    }
    return inside;
  });
}
