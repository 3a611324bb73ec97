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
 *   - candidate lists: every point's k nearest neighbours, found once (neighbours.cpu.ts), settle its best edge
 *     without a traversal while any of them lies in another component (candidates.cpu.ts);
 *   - reuse: a traversal that finds the point's exact best edge is reused while its far end stays outside;
 *   - lower bounds: what a point's list or traversal proved bounds all its later edges from below, and a point
 *     whose bound exceeds its component's current best is skipped (the "compact the points already
 *     bounded below their own lower bound").
 */
import { AbortError } from '../errors.js';
import { buildBvhCpu, type BvhCpu } from '../bvh/lbvh.cpu.js';
import { UnionFind } from '../unionfind/unionfind.cpu.js';
import { CandidateLists } from './candidates.cpu.js';
import { cutKey, edgeLess, inverseAlphaSquared, reachabilityKey, squaredDistance, weightOfKey } from './distance.cpu.js';
import { sortEdgesCanonical, type EdgeList } from './edges.cpu.js';
import {
  NearestOtherComponent,
  createComponentBest,
  subtreeMinCore2,
  type ComponentBest,
  type Reachability,
} from './nearest.cpu.js';
import { nearestNeighbours, type NeighbourLists } from './neighbours.cpu.js';
import { resolveThreads, startNeighbourWorkers } from './neighbours.threads.js';

/**
 * Length of every point's candidate list (at least minSamples). Lists of 4 to 12 measured within noise of each
 * other on 10^6 uniform 2D points (longer lists cost k-NN time, shorter ones traversals in rounds 2–4); 8 keeps
 * the traversals rare.
 */
export const CANDIDATES = 8;

export interface EmstCpuOptions {
  /** 1 (default): Euclidean. m ≥ 2, or any alpha ≠ 1: mutual reachability with core = m-th neighbour. */
  minSamples?: number;
  /** Mutual reachability divides distances by alpha (default 1). */
  alpha?: number;
  /** Periodic side lengths (float32, points already inside [0, L)): minimum-image distances. Euclidean only. */
  period?: Float32Array | null;
  /**
   * MiSTree's scale cut: pairs shorter than this are not edges (Euclidean only; default 0). The result is then the
   * minimum spanning forest of the remaining complete graph, n − c edges for c components.
   */
  minEdgeLength?: number;
  /** Called after every Borůvka round with the fraction of the n − 1 edges found. */
  onProgress?: (fraction: number) => void;
  /** Checked between rounds; an aborted signal throws AbortError. */
  signal?: AbortSignal;
  /**
   * emstCpuAsync only (emstCpu always runs on one thread): threads for the k-NN phase, Node worker threads beside
   * the calling one (neighbours.threads.ts); 1 = the single-threaded code. Default: min(available parallelism, 8)
   * in Node from 50,000 points on (THREADED_MIN_POINTS), else 1; one thread wherever worker threads are missing.
   */
  threads?: number;
}

/** The edge list, per-phase wall times (ms) under the `emst::…` labels, and the number of Borůvka rounds. */
export interface EmstCpuResult extends EdgeList {
  timings: Record<string, number>;
  rounds: number;
}

/** The exact EMST or mutual-reachability MST of valid row-major float32 `points` (n × dim), in canonical order. */
export function emstCpu(points: Float32Array, dim: number, options: EmstCpuOptions = {}): EmstCpuResult {
  if (points.length < 2 * dim) return noEdges(options);
  const clock = new PhaseClock();
  const bvh = buildBvhCpu(points, dim);
  clock.lap('emst::bvh');
  const lists = nearestNeighbours(bvh, listLength(bvh.n, options), options.period ?? null);
  const run = new BoruvkaCpu(bvh, lists, options, clock);
  while (!run.done) run.round();
  return run.result();
}

/**
 * As emstCpu, with the k-NN phase on `options.threads` threads (Node worker threads; the edges are identical), and
 * yielding to the event loop during that phase and between rounds so that an AbortSignal can fire.
 */
export async function emstCpuAsync(points: Float32Array, dim: number, options: EmstCpuOptions = {}): Promise<EmstCpuResult> {
  if (points.length < 2 * dim) return noEdges(options);
  const n = points.length / dim;
  const threads = await resolveThreads(options.threads, n);
  const clock = new PhaseClock();
  // Workers are taken first: a new one starts up while this thread builds the BVH.
  const workers = threads > 1 ? await startNeighbourWorkers(threads, n) : null;
  let bvh: BvhCpu;
  try {
    bvh = buildBvhCpu(points, dim);
  } catch (e) {
    workers?.cancel();
    throw e;
  }
  clock.lap('emst::bvh');
  const k = listLength(n, options);
  const period = options.period ?? null;
  const lists = workers ? await workers.run(bvh, k, period, options.signal) : nearestNeighbours(bvh, k, period);
  const run = new BoruvkaCpu(bvh, lists, options, clock);
  while (!run.done) {
    await yieldToEventLoop();
    run.round();
  }
  return run.result();
}

/** The empty tree of 0 or 1 points. */
function noEdges(options: EmstCpuOptions): EmstCpuResult {
  options.onProgress?.(1);
  return { sources: new Uint32Array(0), targets: new Uint32Array(0), weights: new Float32Array(0), timings: {}, rounds: 0 };
}

/** Length of every point's candidate list: CANDIDATES, or minSamples when larger, at most n − 1. */
function listLength(n: number, options: EmstCpuOptions): number {
  return Math.min(n - 1, Math.max(CANDIDATES, options.minSamples ?? 1));
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

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => (typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0)));
}

/** One run (n ≥ 2) over a built BVH and its candidate lists; round() runs one Borůvka round. */
class BoruvkaCpu {
  readonly n: number;
  rounds = 0;
  private edges = 0;
  private readonly dim: number;
  private readonly mr: Reachability | null = null;
  /** Component label per Morton position: the smallest Morton position of the component. */
  private readonly label: Uint32Array;
  private readonly changes: Uint32Array;
  private readonly best: ComponentBest;
  private readonly search: NearestOtherComponent;
  private readonly candidates: CandidateLists;
  /** Morton position of each point's exact best other-component point, or −1 when unknown. */
  private readonly nearest: Int32Array;
  /** A lower bound on the key of every edge from each point to another component (grows every round). */
  private readonly lower: Float32Array;
  /** The component labels (roots), the first `components` entries. */
  private readonly roots: Uint32Array;
  private components: number;
  /** The points left for a traversal this round. */
  private readonly pending: Uint32Array;
  /** searching[c] === rounds: component c has points left for a traversal this round. */
  private readonly searching: Uint32Array;
  private readonly uf: UnionFind;
  private readonly sources: Uint32Array;
  private readonly targets: Uint32Array;
  private readonly keys: Float32Array;
  private readonly period: Float32Array | null;
  /** Keys below the scale cut are not edges (0: no cut). */
  private readonly cut: number;
  /** A round added no edge: with a scale cut, the forest is complete. */
  private stalled = false;

  /**
   * `lists`: every point's k nearest neighbours (k = listLength), the core distances of mutual reachability and the
   * candidate lists; their time counts as `emst::neighbours`, up to the end of this constructor.
   */
  constructor(
    private readonly bvh: BvhCpu,
    lists: NeighbourLists,
    private readonly options: EmstCpuOptions,
    private readonly clock: PhaseClock,
  ) {
    const n = (this.n = bvh.n);
    this.dim = bvh.dim;
    const minSamples = options.minSamples ?? 1;
    const alpha = options.alpha ?? 1;
    const m = Math.min(minSamples, n - 1);
    this.period = options.period ?? null;
    this.cut = cutKey(options.minEdgeLength ?? 0);
    if (minSamples > 1 || alpha !== 1) {
      const core2 = new Float32Array(n);
      for (let i = 0; i < n; i++) core2[i] = lists.keys[i * lists.k + m - 1];
      this.mr = { core2, minCore2: subtreeMinCore2(this.bvh, core2), ia2: inverseAlphaSquared(alpha) };
    }
    this.clock.lap('emst::neighbours');
    this.label = new Uint32Array(n);
    for (let i = 0; i < n; i++) this.label[i] = i;
    this.changes = new Uint32Array(n);
    this.best = createComponentBest(n);
    this.search = new NearestOtherComponent(this.bvh, this.label, this.changes, this.best, this.mr, this.period, this.cut);
    this.candidates = new CandidateLists(lists, this.bvh.order, this.label, this.mr, this.cut);
    this.nearest = new Int32Array(n).fill(-1);
    this.lower = this.mr === null ? new Float32Array(n) : Float32Array.from(this.mr.core2);
    this.roots = new Uint32Array(n);
    for (let i = 0; i < n; i++) this.roots[i] = i;
    this.components = n;
    this.pending = new Uint32Array(n);
    this.searching = new Uint32Array(n);
    this.uf = new UnionFind(n);
    this.sources = new Uint32Array(n - 1);
    this.targets = new Uint32Array(n - 1);
    this.keys = new Float32Array(n - 1);
  }

  get done(): boolean {
    return this.edges >= this.n - 1 || this.stalled;
  }

  /** One Borůvka round: every component gains its best outgoing edge. */
  round(): void {
    const { n, label, changes, best, nearest, lower, candidates, search, searching, roots } = this;
    this.rounds++;
    for (let r = 0; r < this.components; r++) this.setBest(roots[r], Infinity, 0xffffffff, 0xffffffff, 0, 0);
    // 1. Every point whose best edge is already known: reused from the last round, or settled by its list.
    let pending = 0;
    for (let q = 0; q < n; q++) {
      const c = label[q];
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
      this.pending[pending++] = q;
      searching[c] = this.rounds;
    }
    if (pending > 0) {
      // 2. Node uniformity for the traversals: changes[i] = number of label changes among Morton positions 0 … i.
      changes[0] = 0;
      for (let i = 1; i < n; i++) changes[i] = changes[i - 1] + (label[i] !== label[i - 1] ? 1 : 0);
      // 3. Upper bounds from Morton neighbours in different components, for components that will search.
      for (let i = 0; i + 1 < n; i++) {
        const a = label[i];
        const b = label[i + 1];
        if (a === b || (searching[a] !== this.rounds && searching[b] !== this.rounds)) continue;
        const k = this.key(i, i + 1);
        if (k < this.cut) continue;
        this.offer(a, k, i, i + 1);
        this.offer(b, k, i + 1, i);
      }
      // 4. A traversal for every other point that can still improve its component's best edge.
      for (let t = 0; t < pending; t++) {
        const q = this.pending[t];
        if (lower[q] > best.key[label[q]]) continue;
        search.search(q);
        nearest[q] = search.foundAt;
        if (search.foundKey > lower[q]) lower[q] = search.foundKey;
      }
    }
    // 5. Merge along every component's best edge (an edge chosen by both of its components is added once).
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
      if (this.cut === 0) throw new Error(`emst: Borůvka round ${this.rounds} added no edge (${this.edges} of ${n - 1})`);
      this.stalled = true;
    }
    this.uf.labels(label);
    let components = 0;
    for (let r = 0; r < this.components; r++) if (label[roots[r]] === roots[r]) roots[components++] = roots[r];
    this.components = components;
    this.clock.lap('emst::boruvka');
    this.options.onProgress?.(this.edges / (n - 1));
    if (!this.done && this.options.signal?.aborted) {
      throw new AbortError(`emst was aborted after Borůvka round ${this.rounds} (${this.edges} of ${n - 1} edges).`);
    }
  }

  /** The edges in canonical order, with weights fround(sqrt(key)). */
  result(): EmstCpuResult {
    const m = this.edges;
    const weights = new Float32Array(m);
    for (let i = 0; i < m; i++) weights[i] = weightOfKey(this.keys[i]);
    const sorted = sortEdgesCanonical({ sources: this.sources.subarray(0, m), targets: this.targets.subarray(0, m), weights });
    this.clock.lap('emst::sort');
    return { ...sorted, timings: this.clock.timings, rounds: this.rounds };
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
    if (edgeLess(k, lo, hi, best.key[c], best.lo[c], best.hi[c])) this.setBest(c, k, lo, hi, inside, outside);
  }

  private setBest(c: number, k: number, lo: number, hi: number, inside: number, outside: number): void {
    const best = this.best;
    best.key[c] = k;
    best.lo[c] = lo;
    best.hi[c] = hi;
    best.inside[c] = inside;
    best.outside[c] = outside;
  }
}
