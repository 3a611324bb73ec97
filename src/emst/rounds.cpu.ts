/**
 * The per-point work of a CPU Borůvka round (boruvka.cpu.ts, steps 1, 3 and 4), one chunk of Morton positions at a
 * time, folded into one thread's component minima:
 *   settle(chunk) — step 1: every point whose best edge is known (reused, or settled by its candidate list) offers
 *                   it; the others are queued for a traversal (pending) and their components marked as searching;
 *   search(chunk) — step 3: upper bounds from the chunk's Morton-adjacent pairs in different components, then
 *                   step 4: a traversal for every queued point that can still improve its component's best edge.
 * One thread (boruvka.cpu.ts) runs one chunk of all n points straight into the run's minima. Worker threads
 * (boruvka.threads.ts) each claim chunks and fold into minima of their own, which the calling thread merges in the
 * canonical (key, min, max) order. Every point's offer is an exact edge, and a point is skipped or pruned only by a
 * key some edge of its component achieves, so each component's merged minimum is its exact best edge whichever
 * thread ran which chunk: the tree is the single-threaded one, bit for bit. (What a point learns for later rounds —
 * its lower bound, a reusable best edge — may differ with the split, but never the edges.)
 */
import type { BvhCpu } from '../bvh/lbvh.cpu.js';
import { CandidateLists } from './candidates.cpu.js';
import { edgeLess, reachabilityKey } from './distance.cpu.js';
import { squaredDistance } from '../knn/keys.cpu.js';
import { NearestOtherComponent, type ComponentBest, type Reachability } from './nearest.cpu.js';
import type { NeighbourLists } from '../knn/neighbours.cpu.js';

/** The state of a run that every thread reads and writes (SharedArrayBuffers when threaded), per Morton position. */
export interface RoundState {
  /** Component label: the smallest Morton position of the component. */
  label: Uint32Array;
  /** Prefix count of label changes along the Morton order (step 2). */
  changes: Uint32Array;
  /** Morton position of each point's exact best other-component point, or −1 when unknown. */
  nearest: Int32Array;
  /** A lower bound on the key of every edge from each point to another component (grows every round). */
  lower: Float32Array;
  /** searching[c] === round: component c has points queued for a traversal this round. */
  searching: Uint32Array;
  /** Points queued by settle(chunk), from the chunk's first position on; pendingCount[chunk] of them. */
  pending: Uint32Array;
  pendingCount: Uint32Array;
  /** Morton positions per chunk. */
  chunk: number;
}

/**
 * A thread's own component minima: entry c is valid in a phase only where stamp[c] is the phase's mark, and is
 * otherwise (re)started on first use — with no edge and key +∞ when settling, with the run's best key (an edge that
 * exists, so a valid radius) and no edge when searching.
 */
export interface LocalBest {
  best: ComponentBest;
  stamp: Uint32Array;
}

/** The mark of a round's phase in LocalBest.stamp (0 is never one). */
export const phaseMark = (round: number, phase: 'settle' | 'search'): number =>
  2 * round + (phase === 'search' ? 1 : 0);

const NONE = 0xffffffff;

/** Everything a thread needs to run chunks of a round (in shared memory when threaded). */
export interface RoundShared {
  bvh: BvhCpu;
  lists: NeighbourLists;
  state: RoundState;
  /** The run's component minima: written by the calling thread only, read by workers for their radii. */
  best: ComponentBest;
  /** The candidate lists' cursors (candidates.cpu.ts, createCursors). */
  cursor: Uint16Array | Uint32Array;
  mr: Reachability | null;
  period: Float32Array | null;
  /** Keys below the scale cut are not edges (0: no cut). */
  cut: number;
}

export class RoundWork {
  private readonly n: number;
  private readonly dim: number;
  private readonly bvh: BvhCpu;
  private readonly state: RoundState;
  /** The run's component minima (read for radii when `local` is given, else written). */
  private readonly runBest: ComponentBest;
  /** The minima this thread folds into: the run's own, or `local`'s. */
  private readonly best: ComponentBest;
  private readonly stamp: Uint32Array | null;
  private readonly candidates: CandidateLists;
  private readonly traversal: NearestOtherComponent;
  private readonly mr: Reachability | null;
  private readonly period: Float32Array | null;
  private readonly cut: number;

  /** The work of one thread: into the run's minima (local null), or into `local`'s. */
  constructor(shared: RoundShared, local: LocalBest | null) {
    const { bvh, state, mr, period, cut } = shared;
    this.bvh = bvh;
    this.n = bvh.n;
    this.dim = bvh.dim;
    this.state = state;
    this.runBest = shared.best;
    this.best = local === null ? shared.best : local.best;
    this.stamp = local === null ? null : local.stamp;
    this.mr = mr;
    this.period = period;
    this.cut = cut;
    this.candidates = new CandidateLists(shared.lists, bvh.order, state.label, mr, cut, shared.cursor);
    this.traversal = new NearestOtherComponent(bvh, state.label, state.changes, this.best, mr, period, cut);
  }

  /** Step 1 for the chunk's points; returns how many it queued for a traversal. */
  settle(chunk: number, round: number): number {
    const { label, nearest, lower, pending, searching } = this.state;
    const { candidates, stamp } = this;
    const mark = phaseMark(round, 'settle');
    const first = chunk * this.state.chunk;
    const end = Math.min(first + this.state.chunk, this.n);
    let queued = first;
    for (let q = first; q < end; q++) {
      const c = label[q];
      if (stamp !== null && stamp[c] !== mark) this.start(c, mark, Infinity);
      const j = nearest[q];
      if (j >= 0) {
        if (label[j] !== c) {
          this.offer(c, lower[q], q, j);
          continue;
        }
        nearest[q] = -1;
      }
      if (candidates.open(q)) {
        const settled = candidates.settle(q, c);
        if (candidates.foundKey > lower[q]) lower[q] = candidates.foundKey;
        if (settled) {
          nearest[q] = candidates.foundAt;
          this.offer(c, lower[q], q, candidates.foundAt);
          continue;
        }
      }
      pending[queued++] = q;
      searching[c] = round;
    }
    this.state.pendingCount[chunk] = queued - first;
    return queued - first;
  }

  /** Steps 3 and 4 for the chunk (after step 2 has counted the label changes of the whole round). */
  search(chunk: number, round: number): void {
    const { label, nearest, lower, pending, pendingCount, searching } = this.state;
    const { best, stamp, traversal, runBest, n } = this;
    const mark = phaseMark(round, 'search');
    const first = chunk * this.state.chunk;
    const end = Math.min(first + this.state.chunk, n - 1);
    // 3. Upper bounds from Morton neighbours in different components, for components that will search.
    for (let i = first; i < end; i++) {
      const a = label[i];
      const b = label[i + 1];
      if (a === b || (searching[a] !== round && searching[b] !== round)) continue;
      const k = this.key(i, i + 1);
      if (k < this.cut) continue;
      if (stamp !== null) {
        if (stamp[a] !== mark) this.start(a, mark, runBest.key[a]);
        if (stamp[b] !== mark) this.start(b, mark, runBest.key[b]);
      }
      this.offer(a, k, i, i + 1);
      this.offer(b, k, i + 1, i);
    }
    // 4. A traversal for every queued point that can still improve its component's best edge.
    const queued = first + pendingCount[chunk];
    for (let t = first; t < queued; t++) {
      const q = pending[t];
      const c = label[q];
      if (stamp !== null && stamp[c] !== mark) this.start(c, mark, runBest.key[c]);
      if (lower[q] > best.key[c]) continue;
      traversal.search(q);
      nearest[q] = traversal.foundAt;
      if (traversal.foundKey > lower[q]) lower[q] = traversal.foundKey;
    }
  }

  /** Starts this thread's entry c for the phase `mark` at key k with no edge. */
  private start(c: number, mark: number, k: number): void {
    this.stamp![c] = mark;
    const best = this.best;
    best.key[c] = k;
    best.lo[c] = NONE;
    best.hi[c] = NONE;
  }

  /** The key of the edge between Morton positions a and b. */
  private key(a: number, b: number): number {
    const k = squaredDistance(this.bvh.sortedPoints, this.dim, a, b, this.period);
    const mr = this.mr;
    return mr === null ? k : reachabilityKey(k, mr.core2[a], mr.core2[b], mr.ia2);
  }

  /** Makes (key k, Morton positions inside → outside) component c's best edge if it precedes the current one. */
  private offer(c: number, k: number, inside: number, outside: number): void {
    const { order } = this.bvh;
    const a = order[inside];
    const b = order[outside];
    const lo = a < b ? a : b;
    const hi = a < b ? b : a;
    const best = this.best;
    if (edgeLess(k, lo, hi, best.key[c], best.lo[c], best.hi[c])) {
      best.key[c] = k;
      best.lo[c] = lo;
      best.hi[c] = hi;
      best.inside[c] = inside;
      best.outside[c] = outside;
    }
  }
}

/**
 * Folds a thread's minima of phase `mark` into the run's, for the components listed in roots[0 … count): the
 * canonical (key, min, max) order, so the result does not depend on which thread found what. An entry started
 * without an edge never wins (it ties or trails the run's own entry, and the comparison is strict).
 */
export function mergeBest(run: ComponentBest, local: LocalBest, mark: number, roots: Uint32Array, count: number): void {
  const { stamp, best } = local;
  for (let r = 0; r < count; r++) {
    const c = roots[r];
    if (stamp[c] !== mark) continue;
    if (edgeLess(best.key[c], best.lo[c], best.hi[c], run.key[c], run.lo[c], run.hi[c])) {
      run.key[c] = best.key[c];
      run.lo[c] = best.lo[c];
      run.hi[c] = best.hi[c];
      run.inside[c] = best.inside[c];
      run.outside[c] = best.outside[c];
    }
  }
}

/** Runs chunks of `phase` claimed from next[0] until all `chunks` are taken; returns how many this thread ran. */
export function claimChunks(
  work: RoundWork,
  phase: 'settle' | 'search',
  round: number,
  next: Int32Array,
  chunks: number,
): number {
  let ran = 0;
  for (;;) {
    const chunk = Atomics.add(next, 0, 1);
    if (chunk >= chunks) return ran;
    if (phase === 'settle') work.settle(chunk, round);
    else work.search(chunk, round);
    ran++;
  }
}

/** Typed arrays over a SharedArrayBuffer when `shared`, else over an ArrayBuffer (browsers without isolation). */
export function allocator(shared: boolean) {
  const buffer = (bytes: number) => (shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
  return {
    u32: (n: number) => new Uint32Array(buffer(4 * n)),
    i32: (n: number) => new Int32Array(buffer(4 * n)),
    f32: (n: number) => new Float32Array(buffer(4 * n)),
    best: (n: number): ComponentBest => ({
      key: new Float32Array(buffer(4 * n)),
      lo: new Uint32Array(buffer(4 * n)),
      hi: new Uint32Array(buffer(4 * n)),
      inside: new Uint32Array(buffer(4 * n)),
      outside: new Uint32Array(buffer(4 * n)),
    }),
  };
}
