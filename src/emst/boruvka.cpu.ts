/**
 * The CPU backend of `emst()`: seed 002's single-tree Borůvka (Prokopenko, Sao, Lebrun-Grandié, "A single-tree
 * algorithm to compute the Euclidean minimum spanning tree on GPUs", ../shared/seeds/002, §3, Figure 3), run
 * sequentially over the linear BVH the GPU builds (src/bvh), with the GPU's keys (distance.cpu.ts), so both
 * backends return the identical edge list wherever their float32 keys agree (DESIGN.md, floating point).
 *
 * Every round, as in Figure 3 and src/emst/boruvka.ts, except that the points whose best edge is already known
 * (below) offer it first, and the rest of the round runs only for the points left:
 *   1. the known best edges;
 *   2. labels → node uniformity: the prefix count of label changes along the Morton order (DESIGN.md);
 *   3. upper bounds: Morton-adjacent points in different components bound both components' shortest edge;
 *   4. every other point's best edge to another component (nearest.cpu.ts); every offer is folded into its
 *      component's minimum in the canonical (key, min, max) order — Important! any other tie-break can close a
 *      cycle among equal edges;
 *   5. merge along the chosen edges through the shared union-find (smaller root wins).
 * What the sequential CPU adds — each exact, because a point's candidates only shrink as components merge:
 *   - candidate lists: every point's k nearest neighbours, found once (src/knn/neighbours.cpu.ts), settle its best edge
 *     without a traversal while any of them lies in another component (candidates.cpu.ts);
 *   - reuse: a traversal that finds the point's exact best edge is reused while its far end stays outside;
 *   - lower bounds: what a point's list or traversal proved bounds all its later edges from below, and a point
 *     whose bound exceeds its component's current best is skipped (the "compact the points already
 *     bounded below their own lower bound").
 */
import { AbortError } from '../errors.js';
import { roundsFraction, type ProgressCallback } from '../progress.js';
import { buildBvhCpu, type BvhCpu } from '../bvh/lbvh.cpu.js';
import { UnionFind } from '../unionfind/unionfind.cpu.js';
import { createCursors } from './candidates.cpu.js';
import { cutKey, inverseAlphaSquared, weightOfKey } from './distance.cpu.js';
import { sortEdgesCanonical, type EdgeList } from './edges.cpu.js';
import { subtreeMinCore2, type ComponentBest, type Reachability } from './nearest.cpu.js';
import { nearestNeighbours, type NeighbourLists } from '../knn/neighbours.cpu.js';
import { turn } from '../host/lanes.js';
import { resolveThreads } from '../host/threads.js';
import { startNeighbourWorkers } from './neighbours.threads.js';
import { BoruvkaThreads, roundChunk } from './boruvka.threads.js';
import { allocator, RoundWork, type RoundShared, type RoundState } from './rounds.cpu.js';
import type { Metric } from './metric.js';

/**
 * Length of every point's candidate list (at least minSamples). Lists of 4 to 12 measured within noise of each
 * other on 10^6 uniform 2D points (longer lists cost k-NN time, shorter ones traversals in rounds 2–4); 8 keeps
 * the traversals rare.
 */
export const CANDIDATES = 8;

export interface EmstCpuOptions {
  /** Euclidean (default) or mutual reachability with core = minSamples-th neighbour (metric.ts: metricOf). */
  metric?: Metric;
  /** Periodic side lengths (float32, points already inside [0, L)): minimum-image distances. Euclidean only. */
  period?: Float32Array | null;
  /**
   * MiSTree's scale cut: pairs shorter than this are not edges (Euclidean only; default 0). The result is then the
   * minimum spanning forest of the remaining complete graph, n − c edges for c components.
   */
  minEdgeLength?: number;
  /**
   * Called at the start of every phase ('bvh', 'k-NN', 'Borůvka round r', 'sort') with the fraction of the work
   * done (PHASES below; the rounds by roundsFraction), and with 1 at the end (src/progress.ts).
   */
  onProgress?: ProgressCallback;
  /** Checked between rounds; an aborted signal throws AbortError. */
  signal?: AbortSignal;
  /**
   * emstCpuAsync only (emstCpu always runs on one thread): threads for the k-NN phase (Node worker threads beside
   * the calling one, neighbours.threads.ts), then for the Borůvka rounds' per-point work and the edge sort (the
   * calling thread and threads − 1 of those workers, boruvka.threads.ts); 1 = the single-threaded code. Default: min(available parallelism, 8)
   * in Node from 50,000 points on (THREADED_MIN_POINTS), else 1; one thread wherever worker threads are missing.
   */
  threads?: number;
  /**
   * Mutual reachability only: the squared core distances (keys) per original point index, used instead of the
   * ones the k-NN phase would compute — the partitioned EMST's local trees (src/distributed/partition.tasks.ts) take
   * the cores over all points, not only the partition's. The k-NN lists still serve as Borůvka's candidates: their
   * bounds (candidates.cpu.ts) hold for any cores, since every reachability key is at least both ends' core².
   */
  core2?: Float32Array;
}

/** The edge list, per-phase wall times (ms) under the `emst::…` labels, and the number of Borůvka rounds. */
export interface EmstCpuResult extends EdgeList {
  timings: Record<string, number>;
  rounds: number;
}

/**
 * Where each phase starts in the fraction reported to onProgress: about the shares of the wall time measured with
 * --timings on 4·10^5 uniform 2D points (BVH 10 %, k-NN 35 %, rounds 50 %, sort 5 %).
 */
const PHASES = { bvh: 0, knn: 0.1, rounds: 0.45, sort: 0.95 } as const;

/** The exact EMST or mutual-reachability MST of valid row-major float32 `points` (n × dim), in canonical order. */
export function emstCpu(points: Float32Array, dim: number, options: EmstCpuOptions = {}): EmstCpuResult {
  if (points.length < 2 * dim) return noEdges(options);
  const clock = new PhaseClock();
  options.onProgress?.(PHASES.bvh, 'bvh');
  const bvh = buildBvhCpu(points, dim);
  clock.lap('emst::bvh');
  options.onProgress?.(PHASES.knn, 'k-NN');
  const lists = nearestNeighbours(bvh, listLength(bvh.n, options), options.period ?? null);
  const run = new BoruvkaCpu(bvh, lists, options, clock, 1);
  while (!run.done) run.round();
  return run.result();
}

/**
 * As emstCpu, with the k-NN phase, the rounds' per-point work and the edge sort on `options.threads` threads (Node
 * worker threads; the edges are identical), and yielding to the event loop while the workers run and between rounds
 * so that an AbortSignal can fire.
 */
export async function emstCpuAsync(
  points: Float32Array,
  dim: number,
  options: EmstCpuOptions = {},
): Promise<EmstCpuResult> {
  if (points.length < 2 * dim) return noEdges(options);
  const n = points.length / dim;
  const threads = await resolveThreads(options.threads, n);
  const clock = new PhaseClock();
  options.onProgress?.(PHASES.bvh, 'bvh');
  // Workers are taken first: a new one starts up while this thread builds the BVH.
  const workers = threads > 1 ? await startNeighbourWorkers(threads, n) : null;
  let bvh: BvhCpu;
  try {
    // For the workers: most of the BVH built in shared memory (the rest is copied for the k-NN phase).
    bvh = buildBvhCpu(points, dim, workers !== null);
  } catch (e) {
    workers?.release();
    throw e;
  }
  clock.lap('emst::bvh');
  options.onProgress?.(PHASES.knn, 'k-NN');
  const k = listLength(n, options);
  const period = options.period ?? null;
  if (workers === null) {
    const run = new BoruvkaCpu(bvh, nearestNeighbours(bvh, k, period), options, clock, 1);
    while (!run.done) {
      await turn();
      run.round();
    }
    return run.result();
  }
  // The rounds run on this thread and threads − 1 of the k-NN phase's workers, over its shared BVH.
  let team: BoruvkaThreads | null = null;
  try {
    const knn = await workers.run(bvh, k, period, options.signal);
    const helpers = workers.workers.slice(0, threads - 1);
    const run = new BoruvkaCpu(knn.bvh, knn.lists, options, clock, helpers.length + 1);
    if (helpers.length > 0) team = new BoruvkaThreads(helpers, run.shared);
    while (!run.done) {
      await turn();
      if (team === null) run.round();
      else await run.roundOn(team);
    }
    const result = await run.resultOn(team);
    team?.end();
    workers.release();
    return result;
  } catch (e) {
    // A failed or aborted phase's workers may still be inside a chunk: never reuse them.
    workers.terminate();
    throw e;
  }
}

/** The empty tree of 0 or 1 points. */
function noEdges(options: EmstCpuOptions): EmstCpuResult {
  options.onProgress?.(1);
  return {
    sources: new Uint32Array(0),
    targets: new Uint32Array(0),
    weights: new Float32Array(0),
    timings: {},
    rounds: 0,
  };
}

/** Length of every point's candidate list: CANDIDATES, or minSamples when larger, at most n − 1. */
function listLength(n: number, options: EmstCpuOptions): number {
  const m = options.metric?.kind === 'mutual-reachability' ? options.metric.minSamples : 1;
  return Math.min(n - 1, Math.max(CANDIDATES, m));
}

/** Per-phase wall times (ms) under the `emst::…` labels: each lap adds the time since the previous one. */
class PhaseClock {
  readonly timings: Record<string, number> = {};
  private t = performance.now();

  lap(label: string): void {
    const now = performance.now();
    this.timings[label] = (this.timings[label] ?? 0) + now - this.t;
    this.t = now;
  }
}

/** One run (n ≥ 2) over a built BVH and its candidate lists; round() or roundOn() runs one Borůvka round. */
class BoruvkaCpu {
  readonly n: number;
  rounds = 0;
  /** What every thread of the run shares (rounds.cpu.ts); in SharedArrayBuffers when threads > 1. */
  readonly shared: RoundShared;
  private edges = 0;
  private readonly state: RoundState;
  private readonly best: ComponentBest;
  /** This thread's per-point work (all of it on one thread). */
  private readonly work: RoundWork;
  private readonly chunks: number;
  /** The component labels (roots), the first `components` entries. */
  private readonly roots: Uint32Array;
  private components: number;
  private readonly uf: UnionFind;
  private readonly sources: Uint32Array;
  private readonly targets: Uint32Array;
  private readonly keys: Float32Array;
  /** Keys below the scale cut are not edges (0: no cut). */
  private readonly cut: number;
  /** A round added no edge: with a scale cut, the forest is complete. */
  private stalled = false;
  private readonly threads: number;

  /**
   * `lists`: every point's k nearest neighbours (k = listLength), the core distances of mutual reachability and the
   * candidate lists; their time counts as `emst::neighbours`, up to the end of this constructor. `threads` > 1: the
   * state lies in shared memory, in chunks for the workers (then `bvh` and `lists` must be shared already).
   */
  constructor(
    bvh: BvhCpu,
    lists: NeighbourLists,
    private readonly options: EmstCpuOptions,
    private readonly clock: PhaseClock,
    threads: number,
  ) {
    const n = (this.n = bvh.n);
    const alloc = allocator(threads > 1);
    const metric = options.metric;
    this.cut = cutKey(options.minEdgeLength ?? 0);
    let mr: Reachability | null = null;
    if (metric?.kind === 'mutual-reachability') {
      const { minSamples, alpha } = metric;
      const m = Math.min(minSamples, n - 1);
      const core2 = alloc.f32(n);
      const given = options.core2;
      if (given !== undefined) for (let i = 0; i < n; i++) core2[i] = given[bvh.order[i]];
      else for (let i = 0; i < n; i++) core2[i] = lists.keys[i * lists.k + m - 1];
      const minCore2 = alloc.f32(Math.max(n - 1, 1));
      minCore2.set(subtreeMinCore2(bvh, core2));
      mr = { core2, minCore2, ia2: inverseAlphaSquared(alpha) };
    }
    this.clock.lap('emst::neighbours');
    const chunk = threads > 1 ? roundChunk(n, threads) : n;
    this.chunks = Math.ceil(n / chunk);
    const label = alloc.u32(n);
    for (let i = 0; i < n; i++) label[i] = i;
    const lower = alloc.f32(n);
    if (mr !== null) lower.set(mr.core2);
    this.state = {
      label,
      changes: alloc.u32(n),
      nearest: alloc.i32(n).fill(-1),
      lower,
      searching: alloc.u32(n),
      pending: alloc.u32(n),
      pendingCount: alloc.u32(this.chunks),
      chunk,
    };
    this.best = alloc.best(n);
    const cursor = createCursors(n, lists.k, threads > 1);
    const period = options.period ?? null;
    this.shared = { bvh, lists, state: this.state, best: this.best, cursor, mr, period, cut: this.cut };
    this.work = new RoundWork(this.shared, null);
    this.roots = new Uint32Array(n);
    for (let i = 0; i < n; i++) this.roots[i] = i;
    this.components = n;
    this.uf = new UnionFind(n);
    this.sources = alloc.u32(n - 1);
    this.targets = alloc.u32(n - 1);
    this.keys = alloc.f32(n - 1);
    this.threads = threads;
    this.options.onProgress?.(PHASES.rounds, 'Borůvka round 1');
  }

  get done(): boolean {
    return this.edges >= this.n - 1 || this.stalled;
  }

  /** One Borůvka round on this thread: every component gains its best outgoing edge. */
  round(): void {
    this.begin();
    // 1. Every point whose best edge is already known offers it; the rest are queued.
    let pending = 0;
    for (let c = 0; c < this.chunks; c++) pending += this.work.settle(c, this.rounds);
    if (pending > 0) {
      this.countChanges();
      // 3. and 4. Upper bounds from Morton neighbours, then traversals for the queued points.
      for (let c = 0; c < this.chunks; c++) this.work.search(c, this.rounds);
    }
    this.finish();
  }

  /** One Borůvka round with its per-point work (steps 1, 3, 4) split between this thread and `team`'s workers. */
  async roundOn(team: BoruvkaThreads): Promise<void> {
    this.begin();
    const signal = this.options.signal;
    await team.phase('settle', this.rounds, this.roots, this.components, signal);
    let pending = 0;
    const counts = this.state.pendingCount;
    for (let c = 0; c < this.chunks; c++) pending += counts[c];
    if (pending > 0) {
      this.countChanges();
      await team.phase('search', this.rounds, this.roots, this.components, signal);
    }
    this.finish();
  }

  /** Starts a round: no component has a best edge yet. */
  private begin(): void {
    this.rounds++;
    const { key, lo, hi, inside, outside } = this.best;
    const roots = this.roots;
    for (let r = 0; r < this.components; r++) {
      const c = roots[r];
      key[c] = Infinity;
      lo[c] = 0xffffffff;
      hi[c] = 0xffffffff;
      // Important! A component with no edge out (a scale cut) must merge nothing: union(0, 0) is a no-op.
      inside[c] = 0;
      outside[c] = 0;
    }
  }

  /** 2. Node uniformity for the traversals: changes[i] = number of label changes among Morton positions 0 … i. */
  private countChanges(): void {
    const { label, changes } = this.state;
    changes[0] = 0;
    for (let i = 1; i < this.n; i++) changes[i] = changes[i - 1] + (label[i] !== label[i - 1] ? 1 : 0);
  }

  /** 5. Merges along every component's best edge (an edge chosen by both of its components is added once). */
  private finish(): void {
    const { n, best, roots } = this;
    const label = this.state.label;
    const before = this.edges;
    for (let r = 0; r < this.components; r++) {
      const c = roots[r];
      if (this.uf.union(best.inside[c], best.outside[c])) {
        this.sources[this.edges] = best.lo[c];
        this.targets[this.edges] = best.hi[c];
        this.keys[this.edges] = best.key[c];
        this.edges++;
      }
    }
    // Without a scale cut every round adds an edge until the tree is complete; with one, a round that adds none
    // leaves only components with no edge out.
    if (this.edges === before && n > 1) {
      if (this.cut === 0)
        throw new Error(`emst: Borůvka round ${this.rounds} added no edge (${this.edges} of ${n - 1})`);
      this.stalled = true;
    }
    this.uf.labels(label);
    let components = 0;
    for (let r = 0; r < this.components; r++) if (label[roots[r]] === roots[r]) roots[components++] = roots[r];
    this.components = components;
    this.clock.lap('emst::boruvka');
    // The next round's start (or the sort's, once done): a forest under a scale cut ends with components > 1.
    if (this.done) this.options.onProgress?.(PHASES.sort, 'sort');
    else {
      const f = PHASES.rounds + (PHASES.sort - PHASES.rounds) * roundsFraction(n, this.components);
      this.options.onProgress?.(f, `Borůvka round ${this.rounds + 1}`);
    }
    if (!this.done && this.options.signal?.aborted) {
      throw new AbortError(`emst was aborted after Borůvka round ${this.rounds} (${this.edges} of ${n - 1} edges).`);
    }
  }

  /** The edges in canonical order, with weights fround(sqrt(key)); the sort split with `team` when given. */
  async resultOn(team: BoruvkaThreads | null): Promise<EmstCpuResult> {
    const edges = this.unsorted();
    const sorted = team === null ? sortEdgesCanonical(edges) : await team.sortEdges(edges, this.options.signal);
    this.clock.lap('emst::sort');
    this.options.onProgress?.(1, 'sort');
    return { ...sorted, timings: this.clock.timings, rounds: this.rounds };
  }

  /** As resultOn, on this thread. */
  result(): EmstCpuResult {
    const sorted = sortEdgesCanonical(this.unsorted());
    this.clock.lap('emst::sort');
    this.options.onProgress?.(1, 'sort');
    return { ...sorted, timings: this.clock.timings, rounds: this.rounds };
  }

  /** The edges found, with weights fround(sqrt(key)) (in shared memory when threaded). */
  private unsorted(): EdgeList {
    const m = this.edges;
    const weights = allocator(this.threads > 1).f32(m);
    for (let i = 0; i < m; i++) weights[i] = weightOfKey(this.keys[i]);
    return { sources: this.sources.subarray(0, m), targets: this.targets.subarray(0, m), weights };
  }
}
