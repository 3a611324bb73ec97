/**
 * The coordinator's state for one partitionedEmst() run (partition.emst.ts) and its traffic with the partitions'
 * owners: flat typed arrays over "slots" (partition p's row r is slot offsets[p] + r), the batches of tasks with
 * their byte counts, and the coordinates of the points that ever asked a question of another partition (fetched with
 * 'rows' once, kept here: the coordinator never holds the whole point set).
 */
import { AbortError, InputError } from '../errors.js';
import { boxKey } from '../knn/keys.cpu.js';
import { inverseAlphaSquared } from '../emst/distance.cpu.js';
import { metricOf } from '../emst/metric.js';
import { scaleExponent } from '../emst/scale.js';
import { messageBytes } from './partition.js';
import type {
  PartitionedEmstOptions,
  PartitionedEmstStats,
  PartitionExecutor,
  PartitionInfo,
  PartitionTaskKind,
  TaskMessage,
} from './types.js';

const f32 = Math.fround;

/** One task of a batch. */
export interface Task {
  partition: number;
  kind: PartitionTaskKind;
  msg: TaskMessage;
}

export class PartitionRun {
  readonly infos: PartitionInfo[];
  readonly dim: number;
  /** Partitions, and points over all of them. */
  readonly k: number;
  readonly n: number;
  /** k + 1 prefix counts: partition p's slots are offsets[p] … offsets[p + 1] − 1. */
  readonly offsets: number[];
  /** Partition per slot. */
  readonly partOf: Uint32Array;
  /** The single-process run's scale 2^exponent (src/emst/scale.ts), from the partitions' boxes. */
  readonly exponent: number;
  readonly minSamples: number;
  readonly alpha: number;
  /** Mutual reachability (metric.ts decides), fround(1 / alpha²), and the core's neighbour m = min(minSamples, n − 1). */
  readonly mr: boolean;
  readonly ia2: number;
  readonly m: number;
  /** Global id per slot (from the local trees' replies). */
  readonly gid: Uint32Array;
  /** Per slot: a lower bound on its key to any other partition's point (the owners' lowerBounds). */
  readonly lower: Float32Array;
  /** Per slot: squared core distance over all points (mutual reachability; empty otherwise). */
  readonly core2: Float32Array;
  /** Per partition: its finer cover (the 'tree' replies' cellBoxes, scaled); per slot: its subtree there. */
  readonly cutBoxes: Float32Array[] = [];
  readonly cutOf: Uint8Array;
  readonly stats: PartitionedEmstStats;
  readonly timings: Record<string, number> = {};
  /** Every partition's cells as sent (unscaled), the partition of each, and per partition its cells scaled. */
  private readonly cells: Float32Array;
  private readonly cellOwner: Uint32Array;
  private readonly scaledCells: Float32Array[];
  /** cacheAt[slot]: the slot's row in `cache` once fetched, else −1. */
  private readonly cacheAt: Int32Array;
  private cache = new Float32Array(0);
  private cached = 0;

  constructor(
    private readonly executor: PartitionExecutor,
    readonly options: PartitionedEmstOptions,
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
    // emst() multiplies all points by 2^exponent for their largest |coordinate|: the boxes hold it exactly.
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
      for (const x of own) cells.push(x);
      for (let c = 0; c < own.length / (2 * dim); c++) owner.push(p);
      return Float32Array.from(own, (x) => f32(x) * f);
    });
    this.cells = Float32Array.from(cells);
    this.cellOwner = Uint32Array.from(owner);
    this.gid = new Uint32Array(n);
    this.lower = new Float32Array(n);
    this.core2 = new Float32Array(this.mr ? n : 0);
    this.cutOf = new Uint8Array(n);
    this.cacheAt = new Int32Array(n).fill(-1);
    this.stats = {
      partitions: this.k,
      rounds: 0,
      messages: 0,
      bytesSent: 0,
      bytesReceived: 0,
      queries: 0,
      contracted: 0,
    };
  }

  /** Partitions with points. */
  live(): number[] {
    return this.infos.filter((info) => info.count > 0).map((info) => info.id);
  }

  /** The arrays every 'tree' and 'coreBound' request carries: all partitions' cells and their owners. */
  cellArrays(): TaskMessage['arrays'] {
    return { cells: this.cells, cellOwner: this.cellOwner };
  }

  /** The key from scaled point x to partition b's nearest cell box: a lower bound on its key to b's points. */
  cellKey(x: Float64Array, b: number): number {
    const cells = this.scaledCells[b];
    const dim = this.dim;
    let best = Infinity;
    for (let c = 0; c < cells.length; c += 2 * dim) {
      const key = boxKey(cells, c, dim, x, x[0], dim > 1 ? x[1] : 0, dim > 2 ? x[2] : 0, null);
      if (key < best) best = key;
    }
    return best;
  }

  /** Fetches the coordinates of the slots not fetched before ('rows', one task per partition). */
  async fetchRows(slots: ArrayLike<number>): Promise<void> {
    const byPart = this.infos.map(() => [] as number[]);
    let fresh = 0;
    for (let s = 0; s < slots.length; s++) {
      const i = slots[s];
      if (this.cacheAt[i] !== -1) continue;
      this.cacheAt[i] = -2; // claimed: a slot listed twice is fetched once
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

  /** Slot i's coordinates (fetched before), scaled, into x. */
  coordinates(i: number, x: Float64Array): void {
    const at = this.cacheAt[i] * this.dim;
    const f = 2 ** this.exponent;
    for (let d = 0; d < this.dim; d++) x[d] = this.cache[at + d] * f;
  }

  /** The unscaled coordinates of `slots` (fetched before), as one row-major array. */
  rowsOf(slots: number[]): Float32Array {
    const dim = this.dim;
    const out = new Float32Array(slots.length * dim);
    slots.forEach((i, q) => out.set(this.cache.subarray(this.cacheAt[i] * dim, this.cacheAt[i] * dim + dim), q * dim));
    return out;
  }

  /**
   * Runs a batch of independent tasks (runMany when the executor has it), counting messages and bytes. `onReply(t,
   * reply)`: called once per task as its reply arrives (after the batch for an executor that does not tell), so the
   * coordinator can work on early replies while later ones compute; its time is the coordinator's, not waiting.
   */
  async call(tasks: Task[], onReply?: (t: number, reply: TaskMessage) => void): Promise<TaskMessage[]> {
    if (tasks.length === 0) return [];
    for (const t of tasks) this.stats.bytesSent += messageBytes(t.msg);
    this.stats.messages += tasks.length;
    const told = new Uint8Array(tasks.length);
    const tell = (t: number, reply: TaskMessage): void => {
      if (onReply === undefined || told[t]) return;
      told[t] = 1;
      const s = performance.now();
      const waiting = this.inFlight > 0;
      try {
        onReply(t, reply);
      } finally {
        if (waiting) this.ownWhileWaiting += performance.now() - s;
      }
    };
    // Waiting is counted while any call is in flight (calls may overlap: 'pairs' sends forests during its pairs).
    if (this.inFlight++ === 0) this.since = performance.now();
    let replies: TaskMessage[];
    try {
      replies = this.executor.runMany
        ? await this.executor.runMany(tasks, tell)
        : await Promise.all(
            tasks.map((t, i) =>
              this.executor.run(t.partition, t.kind, t.msg).then((reply) => {
                tell(i, reply);
                return reply;
              }),
            ),
          );
    } finally {
      if (--this.inFlight === 0) this.closedWaits += performance.now() - this.since;
    }
    replies.forEach((reply, t) => tell(t, reply));
    if (replies.length !== tasks.length) {
      throw new Error(`partitionedEmst: runMany returned ${replies.length} replies for ${tasks.length} tasks`);
    }
    for (const r of replies) this.stats.bytesReceived += messageBytes(r);
    return replies;
  }

  /** A reply's array `name`, checked for its type and length. */
  reply<T extends Float32Array | Uint32Array | Uint8Array>(
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

  /**
   * Runs `f`, adding its wall time to `label` and the part of it spent waiting for the owners' replies (their work
   * and the transport's; in process the owners' searches) to `label.wait`: the rest is the coordinator's own work.
   */
  async lap<T>(label: string, f: () => Promise<T>): Promise<T> {
    const t = performance.now();
    const w = this.waited();
    try {
      return await f();
    } finally {
      this.timings[label] = (this.timings[label] ?? 0) + performance.now() - t;
      this.timings[`${label}.wait`] = (this.timings[`${label}.wait`] ?? 0) + this.waited() - w;
    }
  }

  /**
   * Wall time (ms) so far with at least one call() awaiting replies, less the onReply work done meanwhile (the
   * coordinator's own): overlapping calls count once.
   */
  private waited(): number {
    const open = this.inFlight > 0 ? performance.now() - this.since : 0;
    return this.closedWaits + open - this.ownWhileWaiting;
  }

  private inFlight = 0;
  private since = 0;
  private closedWaits = 0;
  private ownWhileWaiting = 0;

  checkAbort(when: string): void {
    if (this.options.signal?.aborted) throw new AbortError(`partitionedEmst was aborted ${when}.`);
  }
}
