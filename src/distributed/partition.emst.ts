/**
 * `partitionedEmst()`: the exact EMST (or mutual-reachability MST) of points spread over k spatial partitions whose
 * owners answer tasks (partition.tasks.ts) through any PartitionExecutor — issue 20 §2. The result is emst()'s edge
 * for edge: the MST under the strict order (key, min id, max id) is unique, and every key here is computed by the
 * single-process arithmetic on the single-process run's scaled coordinates (src/emst/scale.ts).
 *
 * The algorithm (after the partition-then-merge EMSTs of distributed HDBSCAN*, e.g. Santos et al. 2019's MR-HDBSCAN*
 * "local MSTs + inter-partition edges", made exact by Borůvka with cross-partition nearest-other-component queries):
 *
 *   cores       (mutual reachability) each owner: core² among its own points, an upper bound; a point whose bound
 *               exceeds its key lower bound to another partition's cells asks that partition for its m smallest
 *               keys (halo), and its owner takes the m-th smallest of both lists: core² over all points;
 *   local trees each owner: the MST of its points with those cores. Cycle property under the strict order: every
 *               global MST edge with both ends in one partition is in that partition's tree;
 *   Borůvka     on the coordinator, from singletons: a component's lightest outgoing edge is the lighter of its
 *               lightest local-tree edge leaving it (the coordinator holds the union of the local trees) and its
 *               lightest cross-partition edge. Only points whose lower bound (key to another partition's cells;
 *               core²) is at most their component's current best ask, and only the partitions within that bound
 *               are asked: most interior points never ask. A component with no local-tree edge out (whole
 *               partitions) first asks with one point per component, the nearest to another partition, for a
 *               bound. Merge along the chosen edges; repeat until one component.
 *
 * Important! Offers, the merge and the owners' searches all order edges by (key, min global id, max global id):
 * any other tie-break can close a cycle among equal keys.
 *
 * The coordinator's state is flat typed arrays over "slots" (partition p's row r is slot offsets[p] + r): component
 * union-find, labels, the local trees' edges (dropped once inside a component), per-point lower bounds, cores, and
 * the coordinates of the points that ever asked (fetched with 'rows'). Per round: O(n) passes over the slots and the
 * remaining tree edges, one 'rows' batch for new askers, one 'nearest' batch carrying each asked partition's labels.
 * Periodic boxes and the scale cut are not supported.
 */
import { AbortError, InputError } from '../errors.js';
import { NONE } from '../bvh/layout.js';
import { boxKey } from '../knn/keys.cpu.js';
import { inverseAlphaSquared, weightOfKey } from '../emst/distance.cpu.js';
import { sortEdgesCanonical, type EdgeList } from '../emst/edges.cpu.js';
import { metricOf } from '../emst/metric.js';
import { scaleExponent, unscaleWeights } from '../emst/scale.js';
import { roundsFraction } from '../progress.js';
import { messageBytes } from './partition.js';
import type {
  PartitionedEmstOptions,
  PartitionedEmstResult,
  PartitionedEmstStats,
  PartitionExecutor,
  PartitionInfo,
  PartitionTaskKind,
  TaskMessage,
} from './types.js';

const f32 = Math.fround;

/**
 * The exact EMST (minSamples 1, alpha 1) or mutual-reachability MST of the executor's partitions' points, in
 * canonical order with global ids, equal edge for edge to emst() on all the points with the same options.
 *
 * @throws InputError for bad options or partitions, AbortError when `signal` aborts, and whatever a task rejects with.
 */
export async function partitionedEmst(
  executor: PartitionExecutor,
  options: PartitionedEmstOptions,
): Promise<PartitionedEmstResult> {
  const t0 = performance.now();
  const run = new Coordinator(executor, options);
  return run.run(t0);
}

interface Task {
  partition: number;
  kind: PartitionTaskKind;
  msg: TaskMessage;
}

class Coordinator {
  private readonly infos: PartitionInfo[];
  private readonly dim: number;
  private readonly k: number;
  private readonly n: number;
  private readonly offsets: number[];
  /** Partition per slot. */
  private readonly partOf: Uint32Array;
  private readonly exponent: number;
  private readonly mr: boolean;
  private readonly minSamples: number;
  private readonly alpha: number;
  private readonly ia2: number;
  /** Core distances over all points' m-th neighbour (mutual reachability). */
  private readonly m: number;
  /** Every partition's cells, unscaled (as sent), their owners, and per partition its cells scaled. */
  private readonly cells: Float32Array;
  private readonly cellOwner: Uint32Array;
  private readonly scaledCells: Float32Array[];
  /** Global id per slot. */
  private readonly gid: Uint32Array;
  /** Per slot: lower bound on its key to any other partition's point. */
  private readonly lower: Float32Array;
  /** Per slot: squared core distance (mutual reachability). */
  private readonly core2: Float32Array;
  /** Coordinates of slots fetched so far: cacheAt[slot] = row in `cache`, or −1. */
  private readonly cacheAt: Int32Array;
  private cache = new Float32Array(0);
  private cached = 0;
  private readonly stats: PartitionedEmstStats;
  private readonly timings: Record<string, number> = {};

  constructor(
    private readonly executor: PartitionExecutor,
    private readonly options: PartitionedEmstOptions,
  ) {
    const { dim } = options;
    if (typeof dim !== 'number' || !Number.isInteger(dim) || dim < 1) {
      throw new InputError(`Expected dim to be a positive integer, got ${dim}.`);
    }
    const minSamples = options.minSamples ?? 1;
    if (!Number.isInteger(minSamples) || minSamples < 1) {
      throw new InputError(`Expected minSamples to be an integer >= 1, got ${minSamples}.`);
    }
    const alpha = options.alpha ?? 1;
    if (typeof alpha !== 'number' || !Number.isFinite(alpha) || alpha <= 0) {
      throw new InputError(`Expected alpha to be a finite number > 0, got ${alpha}.`);
    }
    this.dim = dim;
    this.minSamples = minSamples;
    this.alpha = alpha;
    this.mr = metricOf(minSamples, alpha).kind === 'mutual-reachability';
    this.ia2 = inverseAlphaSquared(alpha);
    const infos = (this.infos = executor.partitions());
    this.k = infos.length;
    this.offsets = [0];
    let maxAbs = 0;
    infos.forEach((info, p) => {
      if (info.id !== p) throw new InputError(`Expected partition ${p} to have id ${p}, got ${info.id}.`);
      if (!Number.isInteger(info.count) || info.count < 0) {
        throw new InputError(`Expected partition ${p}'s count to be an integer >= 0, got ${info.count}.`);
      }
      if (info.count > 0 && (info.lo.length !== dim || info.hi.length !== dim)) {
        throw new InputError(`Expected partition ${p}'s box to have dim=${dim} corners, got ${info.lo.length}.`);
      }
      for (const x of [...info.lo, ...info.hi]) maxAbs = Math.max(maxAbs, Math.abs(x));
      this.offsets.push(this.offsets[p] + info.count);
    });
    const n = (this.n = this.offsets[this.k]);
    if (n > 0xfffffffe) throw new InputError(`Expected at most 2^32 − 2 points, got n=${n}.`);
    this.m = Math.max(1, Math.min(minSamples, n - 1));
    // The single-process run's scale: emst() multiplies the points by 2^exponent for their largest |coordinate|.
    this.exponent = scaleExponent(maxAbs);
    this.partOf = new Uint32Array(n);
    for (let p = 0; p < this.k; p++) this.partOf.fill(p, this.offsets[p], this.offsets[p + 1]);
    const cells: number[] = [];
    const owner: number[] = [];
    const f = 2 ** this.exponent;
    this.scaledCells = infos.map((info, p) => {
      const own = info.count === 0 ? [] : info.cells && info.cells.length > 0 ? info.cells : [...info.lo, ...info.hi];
      if (own.length % (2 * dim) !== 0) {
        throw new InputError(`Expected partition ${p}'s cells to hold a multiple of 2·dim=${2 * dim} values.`);
      }
      cells.push(...own);
      for (let c = 0; c < own.length / (2 * dim); c++) owner.push(p);
      return Float32Array.from(own, (x) => f32(x) * f);
    });
    this.cells = Float32Array.from(cells);
    this.cellOwner = Uint32Array.from(owner);
    this.gid = new Uint32Array(n);
    this.lower = new Float32Array(n);
    this.core2 = new Float32Array(this.mr ? n : 0);
    this.cacheAt = new Int32Array(n).fill(-1);
    this.stats = { partitions: this.k, rounds: 0, messages: 0, bytesSent: 0, bytesReceived: 0, queries: 0 };
  }

  async run(t0: number): Promise<PartitionedEmstResult> {
    const { n } = this;
    const progress = this.options.onProgress;
    let edges: EdgeList = { sources: new Uint32Array(0), targets: new Uint32Array(0), weights: new Float32Array(0) };
    if (n >= 2) {
      this.checkAbort('before it started');
      if (this.mr) {
        progress?.(0, 'core distances');
        await this.lap('distributed::core', () => this.cores());
      }
      progress?.(0.2, 'local trees');
      const trees = await this.lap('distributed::trees', () => this.trees());
      progress?.(0.5, 'round 1');
      const tree = await this.lap('distributed::rounds', () => this.rounds(trees));
      edges = await this.lap('distributed::sort', async () => {
        const m = tree.keys.length;
        const weights = new Float32Array(m);
        for (let e = 0; e < m; e++) weights[e] = weightOfKey(tree.keys[e]);
        const sorted = sortEdgesCanonical({ sources: tree.sources, targets: tree.targets, weights });
        unscaleWeights(sorted, this.exponent);
        return sorted;
      });
    }
    progress?.(1);
    this.timings['distributed::total'] = performance.now() - t0;
    return { ...edges, timings: this.timings, stats: this.stats };
  }

  /** Mutual reachability: every slot's squared core distance over all points (header: "cores"). */
  private async cores(): Promise<void> {
    const { m, core2, lower } = this;
    const live = this.live();
    const meta = { exponent: this.exponent, m };
    const bounds = await this.call(
      live.map((p) => ({ partition: p, kind: 'coreBound', msg: { meta, arrays: this.cellArrays() } })),
    );
    live.forEach((p, i) => {
      core2.set(this.reply(bounds[i], 'core2', Float32Array, this.infos[p].count), this.offsets[p]);
      lower.set(this.reply(bounds[i], 'lower', Float32Array, this.infos[p].count), this.offsets[p]);
    });
    // Points whose own-partition bound another partition could undercut (strictly: an equal key leaves the m-th).
    const askers: number[] = [];
    for (let i = 0; i < this.n; i++) if (lower[i] < core2[i]) askers.push(i);
    await this.fetchRows(askers);
    const queries = this.infos.map(() => [] as number[]);
    const x = new Float64Array(this.dim);
    for (const i of askers) {
      this.coordinates(i, x);
      for (let b = 0; b < this.k; b++) {
        if (b === this.partOf[i] || this.infos[b].count === 0) continue;
        if (this.cellKey(x, b) < core2[i]) queries[b].push(i);
      }
    }
    // Each asker's m smallest keys over the partitions asked, merged.
    const haloAt = new Map<number, number>();
    askers.forEach((i, a) => haloAt.set(i, a));
    const halo = new Float32Array(askers.length * m).fill(Infinity);
    const asked = this.infos.map((_, b) => b).filter((b) => queries[b].length > 0);
    const replies = await this.call(
      asked.map((b) => ({ partition: b, kind: 'knn', msg: { meta, arrays: { points: this.rowsOf(queries[b]) } } })),
    );
    asked.forEach((b, t) => {
      const keys = this.reply(replies[t], 'keys', Float32Array, queries[b].length * m);
      queries[b].forEach((i, q) => {
        const at = haloAt.get(i)! * m;
        for (let r = 0; r < m; r++) insertSorted(halo, at, m, keys[q * m + r]);
      });
      this.stats.queries += queries[b].length;
    });
    // Their owners take the m-th smallest of their own list and the halo.
    const byOwner = this.infos.map(() => [] as number[]);
    for (const i of askers) byOwner[this.partOf[i]].push(i);
    const owners = this.infos.map((_, p) => p).filter((p) => byOwner[p].length > 0);
    const finals = await this.call(
      owners.map((p) => {
        const rows = Uint32Array.from(byOwner[p], (i) => i - this.offsets[p]);
        const keys = new Float32Array(rows.length * m);
        byOwner[p].forEach((i, q) => keys.set(halo.subarray(haloAt.get(i)! * m, haloAt.get(i)! * m + m), q * m));
        return { partition: p, kind: 'core', msg: { meta, arrays: { rows, keys } } };
      }),
    );
    owners.forEach((p, t) =>
      core2.set(this.reply(finals[t], 'core2', Float32Array, this.infos[p].count), this.offsets[p]),
    );
    this.checkAbort('after the core distances');
  }

  /** Every partition's local tree, in slots; also the global ids and lower bounds per slot. */
  private async trees(): Promise<{ u: Uint32Array; v: Uint32Array; keys: Float32Array }> {
    const live = this.live();
    const meta = { exponent: this.exponent, minSamples: this.minSamples, alpha: this.alpha };
    const replies = await this.call(
      live.map((p) => {
        const arrays: TaskMessage['arrays'] = this.cellArrays();
        if (this.mr) arrays.core2 = this.core2.slice(this.offsets[p], this.offsets[p + 1]);
        return { partition: p, kind: 'tree', msg: { meta, arrays } };
      }),
    );
    const total = live.reduce((s, p) => s + this.infos[p].count - 1, 0);
    const u = new Uint32Array(total);
    const v = new Uint32Array(total);
    const keys = new Float32Array(total);
    let at = 0;
    live.forEach((p, t) => {
      const count = this.infos[p].count;
      const reply = replies[t];
      const ids = this.reply(reply, 'ids', Uint32Array, count);
      for (let r = 1; r < count; r++) {
        if (ids[r] <= ids[r - 1]) throw new Error(`partition ${p}: ids are not ascending at row ${r}`);
      }
      this.gid.set(ids, this.offsets[p]);
      this.lower.set(this.reply(reply, 'lower', Float32Array, count), this.offsets[p]);
      const s = this.reply(reply, 'sources', Uint32Array, count - 1);
      const d = this.reply(reply, 'targets', Uint32Array, count - 1);
      keys.set(this.reply(reply, 'keys', Float32Array, count - 1), at);
      for (let e = 0; e < count - 1; e++) {
        u[at + e] = this.offsets[p] + s[e];
        v[at + e] = this.offsets[p] + d[e];
      }
      at += count - 1;
    });
    this.checkAbort('after the local trees');
    return { u, v, keys };
  }

  /** Borůvka over the slots (header: "Borůvka"); the MST's edges in global ids and their keys. */
  private async rounds(tree: { u: Uint32Array; v: Uint32Array; keys: Float32Array }) {
    const { n, gid } = this;
    const parent = new Uint32Array(n);
    for (let i = 0; i < n; i++) parent[i] = i;
    const find = (i: number): number => {
      while (parent[i] !== i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
      }
      return i;
    };
    const label = new Uint32Array(n);
    const bestKey = new Float32Array(n);
    const bestLo = new Uint32Array(n);
    const bestHi = new Uint32Array(n);
    const bestU = new Uint32Array(n);
    const bestV = new Uint32Array(n);
    // Offers edge (u, v) with `key` to component c in the canonical order.
    const offer = (c: number, key: number, u: number, v: number): void => {
      const a = gid[u] < gid[v] ? gid[u] : gid[v];
      const b = gid[u] < gid[v] ? gid[v] : gid[u];
      if (key < bestKey[c] || (key === bestKey[c] && (a < bestLo[c] || (a === bestLo[c] && b < bestHi[c])))) {
        bestKey[c] = key;
        bestLo[c] = a;
        bestHi[c] = b;
        bestU[c] = u;
        bestV[c] = v;
      }
    };
    const outU = new Uint32Array(n - 1);
    const outV = new Uint32Array(n - 1);
    const outKey = new Float32Array(n - 1);
    let edges = 0;
    let alive = tree.keys.length;
    const { u: tu, v: tv, keys: tk } = tree;
    const roots: number[] = [];
    const whole = new Uint32Array(this.k);
    const x = new Float64Array(this.dim);
    while (edges < n - 1) {
      this.stats.rounds++;
      const round = this.stats.rounds;
      roots.length = 0;
      for (let i = 0; i < n; i++) {
        const c = find(i);
        label[i] = c;
        if (c === i) {
          roots.push(i);
          bestKey[i] = Infinity;
          bestLo[i] = NONE;
          bestHi[i] = NONE;
        }
      }
      // 1. The local trees' edges leaving a component (those inside one are dropped for good).
      let kept = 0;
      for (let e = 0; e < alive; e++) {
        const cu = label[tu[e]];
        const cv = label[tv[e]];
        if (cu === cv) continue;
        tu[kept] = tu[e];
        tv[kept] = tv[e];
        tk[kept++] = tk[e];
        offer(cu, tk[e], tu[e], tv[e]);
        offer(cv, tk[e], tu[e], tv[e]);
      }
      alive = kept;
      // Partitions inside one component are never asked on its behalf.
      for (let p = 0; p < this.k; p++) {
        const a = this.offsets[p];
        const b = this.offsets[p + 1];
        let c = a < b ? label[a] : NONE;
        for (let i = a + 1; i < b && c !== NONE; i++) if (label[i] !== c) c = NONE;
        whole[p] = c;
      }
      // 2. Components of whole partitions have no tree edge out: one asker each first, for a bound.
      const open = roots.filter((c) => bestKey[c] === Infinity);
      if (open.length > 0) {
        const probe = new Map<number, number>();
        const low = new Map<number, number>();
        for (let i = 0; i < n; i++) {
          const c = label[i];
          if (bestKey[c] !== Infinity) continue;
          const l = this.lowerKey(i);
          if (!probe.has(c) || l < low.get(c)!) {
            probe.set(c, i);
            low.set(c, l);
          }
        }
        await this.ask([...probe.values()], label, whole, () => Infinity, offer, x);
      }
      // 3. Every point that might hold its component's lightest cross-partition edge asks.
      const askers: number[] = [];
      for (let i = 0; i < n; i++) if (this.lowerKey(i) <= bestKey[label[i]]) askers.push(i);
      await this.ask(askers, label, whole, (c) => bestKey[c], offer, x);
      // 4. Merge along every component's best edge (an edge chosen by both of its components is added once).
      const before = edges;
      for (const c of roots) {
        if (bestKey[c] === Infinity) continue;
        const ru = find(bestU[c]);
        const rv = find(bestV[c]);
        if (ru === rv) continue;
        if (ru < rv) parent[rv] = ru;
        else parent[ru] = rv;
        outU[edges] = bestLo[c];
        outV[edges] = bestHi[c];
        outKey[edges++] = bestKey[c];
      }
      if (edges === before)
        throw new Error(`partitionedEmst: Borůvka round ${round} added no edge (${edges} of ${n - 1})`);
      const components = n - edges;
      this.options.onProgress?.(0.5 + 0.45 * roundsFraction(n, components), `round ${round + 1}`);
      if (edges < n - 1) this.checkAbort(`after Borůvka round ${round} (${edges} of ${n - 1} edges)`);
    }
    return { sources: outU, targets: outV, keys: outKey };
  }

  /**
   * Asks, for every slot in `askers`, the partitions within `boundOf(its component)` of it (except its own and those
   * inside its component) for its lightest edge to another component, and offers every answer to both components.
   */
  private async ask(
    askers: number[],
    label: Uint32Array,
    whole: Uint32Array,
    boundOf: (c: number) => number,
    offer: (c: number, key: number, u: number, v: number) => void,
    x: Float64Array,
  ): Promise<void> {
    await this.fetchRows(askers);
    const queries = this.infos.map(() => [] as number[]);
    for (const i of askers) {
      const c = label[i];
      const bound = boundOf(c);
      this.coordinates(i, x);
      for (let b = 0; b < this.k; b++) {
        if (b === this.partOf[i] || this.infos[b].count === 0 || whole[b] === c) continue;
        let lb = this.cellKey(x, b);
        if (this.mr) {
          if (this.ia2 !== 1) lb = f32(lb * this.ia2);
          if (this.core2[i] > lb) lb = this.core2[i];
        }
        if (lb <= bound) queries[b].push(i);
      }
    }
    const asked = this.infos.map((_, b) => b).filter((b) => queries[b].length > 0);
    const meta = { exponent: this.exponent, alpha: this.alpha, mr: this.mr };
    const replies = await this.call(
      asked.map((b) => {
        const qs = queries[b];
        const from = this.offsets[b];
        const to = this.offsets[b + 1];
        const arrays: TaskMessage['arrays'] = {
          points: this.rowsOf(qs),
          gid: Uint32Array.from(qs, (i) => this.gid[i]),
          comp: Uint32Array.from(qs, (i) => label[i]),
          bound: Float32Array.from(qs, (i) => boundOf(label[i])),
          labels: label.slice(from, to),
        };
        if (this.mr) {
          arrays.core2 = Float32Array.from(qs, (i) => this.core2[i]);
          arrays.ownCore2 = this.core2.slice(from, to);
        }
        return { partition: b, kind: 'nearest', msg: { meta, arrays } };
      }),
    );
    asked.forEach((b, t) => {
      const qs = queries[b];
      const key = this.reply(replies[t], 'key', Float32Array, qs.length);
      const row = this.reply(replies[t], 'row', Uint32Array, qs.length);
      this.stats.queries += qs.length;
      qs.forEach((i, q) => {
        if (row[q] === NONE) return;
        if (row[q] >= this.infos[b].count)
          throw new Error(`partition ${b} answered row ${row[q]} (${this.infos[b].count} rows)`);
        const j = this.offsets[b] + row[q];
        offer(label[i], key[q], i, j);
        offer(label[j], key[q], i, j);
      });
    });
  }

  /** A lower bound on the key of slot i to any point of another partition (mutual reachability: with its core). */
  private lowerKey(i: number): number {
    let l = this.lower[i];
    if (!this.mr) return l;
    if (this.ia2 !== 1) l = f32(l * this.ia2);
    return this.core2[i] > l ? this.core2[i] : l;
  }

  /** The key from scaled point x to partition b's nearest cell box: a lower bound on its key to b's points. */
  private cellKey(x: Float64Array, b: number): number {
    const cells = this.scaledCells[b];
    const w = 2 * this.dim;
    let best = Infinity;
    for (let c = 0; c < cells.length; c += w) {
      const key = boxKey(cells, c, this.dim, x, x[0], this.dim > 1 ? x[1] : 0, this.dim > 2 ? x[2] : 0, null);
      if (key < best) best = key;
    }
    return best;
  }

  /** Fetches the coordinates of the slots not fetched before ('rows', one task per partition). */
  private async fetchRows(slots: number[]): Promise<void> {
    const byPart = this.infos.map(() => [] as number[]);
    let fresh = 0;
    for (const i of slots) {
      if (this.cacheAt[i] >= 0) continue;
      this.cacheAt[i] = -2; // claimed, so a slot listed twice is fetched once
      byPart[this.partOf[i]].push(i);
      fresh++;
    }
    if (fresh === 0) return;
    const dim = this.dim;
    if ((this.cached + fresh) * dim > this.cache.length) {
      const grown = new Float32Array(Math.max(2 * this.cache.length, (this.cached + fresh) * dim));
      grown.set(this.cache.subarray(0, this.cached * dim));
      this.cache = grown;
    }
    const parts = this.infos.map((_, p) => p).filter((p) => byPart[p].length > 0);
    const replies = await this.call(
      parts.map((p) => ({
        partition: p,
        kind: 'rows',
        msg: { meta: {}, arrays: { rows: Uint32Array.from(byPart[p], (i) => i - this.offsets[p]) } },
      })),
    );
    parts.forEach((p, t) => {
      const points = this.reply(replies[t], 'points', Float32Array, byPart[p].length * dim);
      byPart[p].forEach((i, q) => {
        this.cache.set(points.subarray(q * dim, q * dim + dim), this.cached * dim);
        this.cacheAt[i] = this.cached++;
      });
    });
  }

  /** Slot i's coordinates (fetched), scaled, into x. */
  private coordinates(i: number, x: Float64Array): void {
    const at = this.cacheAt[i] * this.dim;
    const f = 2 ** this.exponent;
    for (let d = 0; d < this.dim; d++) x[d] = this.cache[at + d] * f;
  }

  /** The unscaled coordinates of `slots` (fetched), as one row-major array. */
  private rowsOf(slots: number[]): Float32Array {
    const dim = this.dim;
    const out = new Float32Array(slots.length * dim);
    slots.forEach((i, q) => out.set(this.cache.subarray(this.cacheAt[i] * dim, this.cacheAt[i] * dim + dim), q * dim));
    return out;
  }

  private cellArrays(): TaskMessage['arrays'] {
    return { cells: this.cells, cellOwner: this.cellOwner };
  }

  /** Partitions with points. */
  private live(): number[] {
    return this.infos.filter((info) => info.count > 0).map((info) => info.id);
  }

  /** Runs a batch of independent tasks (runMany when the executor has it), counting messages and bytes. */
  private async call(tasks: Task[]): Promise<TaskMessage[]> {
    if (tasks.length === 0) return [];
    for (const t of tasks) this.stats.bytesSent += messageBytes(t.msg);
    this.stats.messages += tasks.length;
    const replies = this.executor.runMany
      ? await this.executor.runMany(tasks)
      : await Promise.all(tasks.map((t) => this.executor.run(t.partition, t.kind, t.msg)));
    if (replies.length !== tasks.length)
      throw new Error(`runMany returned ${replies.length} replies for ${tasks.length} tasks`);
    for (const r of replies) this.stats.bytesReceived += messageBytes(r);
    return replies;
  }

  /** A reply's array `name`, checked for its type and length. */
  private reply<T extends Float32Array | Uint32Array>(
    msg: TaskMessage,
    name: string,
    type: new (n: number) => T,
    length: number,
  ): T {
    const a = msg.arrays[name];
    if (!(a instanceof type) || a.length !== length) {
      const got = a === undefined ? 'nothing' : `${a.constructor.name}(${a.length})`;
      throw new Error(`partitionedEmst: expected a reply with ${name} = ${type.name}(${length}), got ${got}`);
    }
    return a;
  }

  private async lap<T>(label: string, f: () => Promise<T>): Promise<T> {
    const t = performance.now();
    const r = await f();
    this.timings[label] = performance.now() - t;
    return r;
  }

  private checkAbort(when: string): void {
    if (this.options.signal?.aborted) throw new AbortError(`partitionedEmst was aborted ${when}.`);
  }
}

/** Inserts `key` into the ascending list out[at … at + m) (dropping its last value) when it is smaller than that. */
function insertSorted(out: Float32Array, at: number, m: number, key: number): void {
  if (!(key < out[at + m - 1])) return;
  let t = m - 1;
  while (t > 0 && out[at + t - 1] > key) {
    out[at + t] = out[at + t - 1];
    t--;
  }
  out[at + t] = key;
}
