/**
 * Spatial partitions for the partitioned exact EMST (issue 20 §2), and the in-process executor that runs their tasks
 * without a transport (tests; `partitionedEmst` on one machine).
 *
 * partitionPoints() sorts the points along the BVH's Z-curve (src/bvh/morton.cpu.ts: the same frame, codes and
 * stable sort as the EMST's own BVH) and cuts the order into k contiguous ranges of ⌊n/k⌋ or ⌈n/k⌉ points. Within a
 * partition the rows are then put back in ascending global id: a tree over the partition in local row numbers, mapped
 * through `ids`, keeps the global (key, min id, max id) tie order, because the map is monotone.
 *
 * A Morton range's bounding box can be far larger than the region its points fill (a range that crosses a high
 * octree boundary spans both sides), so partitionInfo() also describes each partition by CELLS boxes over
 * octree-aligned runs of its Morton order (runs cut at equal counts can straddle a high octree boundary too): the
 * owners bound their points' keys to other partitions with them.
 */
import { InputError } from '../errors.js';
import { codeBits } from '../bvh/layout.js';
import { mortonCodesCpu, sceneFrameCpu } from '../bvh/morton.cpu.js';
import { sortCodesCpu } from '../bvh/sort.cpu.js';
import { checkCoordinates } from '../emst/validate.js';
import { PARTITION_TASKS } from './partition.tasks.js';
import type {
  PartitionData,
  PartitionExecutor,
  PartitionInfo,
  PartitionTaskKind,
  TaskEnv,
  TaskMessage,
} from './types.js';

/** Boxes per partition in PartitionInfo.cells (runs of its Morton order). */
export const CELLS = 64;

/**
 * Splits row-major `points` (n × dim; a Float64Array is rounded to float32) into `k` spatial partitions along the
 * Z-curve, each with its global ids ascending. k may exceed n (the partitions beyond the points are empty).
 *
 * @throws InputError for a bad dim or k, a length not a multiple of dim, or a coordinate that is not finite.
 */
export function partitionPoints(points: Float32Array | Float64Array, dim: number, k: number): PartitionData[] {
  if (!Number.isInteger(dim) || dim < 1) throw new InputError(`Expected dim to be a positive integer, got ${dim}.`);
  if (!Number.isInteger(k) || k < 1) throw new InputError(`Expected partitions to be a positive integer, got ${k}.`);
  if (points.length % dim !== 0) {
    throw new InputError(`Expected points.length to be a multiple of dim=${dim}, got ${points.length}.`);
  }
  checkCoordinates(points, dim);
  const xs = points instanceof Float32Array ? points : new Float32Array(points);
  const n = xs.length / dim;
  const part = zOrderParts(mortonCodesCpu(xs, n, dim, sceneFrameCpu(xs, n, dim)), n, codeBits(dim), k);
  // Rows in index order: each partition's ids come out ascending.
  const counts = new Uint32Array(k);
  for (let i = 0; i < n; i++) counts[part[i]]++;
  const out: PartitionData[] = [];
  for (let p = 0; p < k; p++)
    out.push({ id: p, dim, points: new Float32Array(counts[p] * dim), ids: new Uint32Array(counts[p]) });
  counts.fill(0);
  for (let i = 0; i < n; i++) {
    const p = part[i];
    const r = counts[p]++;
    const o = out[p];
    o.ids[r] = i;
    for (let d = 0; d < dim; d++) o.points[r * dim + d] = xs[i * dim + d];
  }
  return out;
}

/**
 * Per point, its partition when the points in (Morton code, index) order — the BVH's stable sort — are cut into k
 * ranges, range p holding ranks ⌊p·n/k⌋ … ⌊(p + 1)·n/k⌋ − 1. Without sorting everything: a histogram of the codes'
 * top 16 bits ranks whole buckets, and only the buckets a cut falls in are sorted (by code, then index).
 * (partition.threads.ts does the same in ranges on worker threads, from the same pieces below.)
 */
function zOrderParts(codes: Uint32Array, n: number, bits: number, k: number): Uint32Array {
  const part = new Uint32Array(n);
  const shift = digitShift(bits);
  const start = new Float64Array(65537);
  for (let i = 0; i < n; i++) start[codeDigit(codes, i, shift) + 1]++;
  for (let b = 0; b < 65536; b++) start[b + 1] += start[b];
  const whole = wholeBuckets(start, n, k);
  const split: number[][] = [];
  for (let i = 0; i < n; i++) {
    const b = codeDigit(codes, i, shift);
    if (whole[b] >= 0) part[i] = whole[b];
    else (split[b] ??= []).push(i);
  }
  split.forEach((members, b) => {
    // By (code, index): a stable radix sort of the members' codes (members ascend by index).
    const sub = new Uint32Array(2 * members.length);
    members.forEach((i, t) => {
      sub[2 * t] = codes[2 * i];
      sub[2 * t + 1] = codes[2 * i + 1];
    });
    const { order } = sortCodesCpu(sub, members.length, bits);
    for (let t = 0; t < order.length; t++) part[members[order[t]]] = partOfRank(start[b] + t, n, k);
  });
  return part;
}

/** The partition of rank r: the largest p with ⌊p·n/k⌋ ≤ r (exact in doubles: (r + 1)·k < 2^53). */
export function partOfRank(r: number, n: number, k: number): number {
  return Math.floor(((r + 1) * k - 1) / n);
}

/** How far a code of `bits` bits shifts right to leave its top 16 bits. */
export function digitShift(bits: number): number {
  return Math.max(bits - 16, 0);
}

/** Code i's top 16 bits (codes as (low, high) u32 pairs; `shift` from digitShift). */
export function codeDigit(codes: Uint32Array, i: number, shift: number): number {
  const lo = codes[2 * i];
  const hi = codes[2 * i + 1];
  const d = shift >= 32 ? hi >>> (shift - 32) : shift === 0 ? lo : (lo >>> shift) | (hi << (32 - shift));
  return d & 0xffff;
}

/**
 * Per 16-bit bucket, given the histogram's 65537 prefix sums `start`: its partition, or −1 when a cut falls inside
 * it (its points are ranked one by one, by code then index).
 */
export function wholeBuckets(start: Float64Array, n: number, k: number): Int32Array {
  const whole = new Int32Array(65536).fill(-1);
  for (let b = 0; b < 65536; b++) {
    if (start[b + 1] === start[b]) continue;
    const first = partOfRank(start[b], n, k);
    if (first === partOfRank(start[b + 1] - 1, n, k)) whole[b] = first;
  }
  return whole;
}

/**
 * The partition's size, bounding box and at most CELLS cell boxes: octree-aligned runs of its Morton order
 * (mortonCells). O(count) after a radix sort of the partition's Morton codes. `cells: false`: the box alone, as one
 * cell (one pass; for runs that prune nothing by cells: the 'pairs' method's Euclidean runs).
 */
export function partitionInfo(data: PartitionData, options: { cells?: boolean } = {}): PartitionInfo {
  const { id, dim, points } = data;
  const n = points.length / dim;
  if (n === 0) return { id, count: 0, lo: [], hi: [], cells: [] };
  const cells =
    options.cells === false
      ? data.box
        ? [...data.box.lo, ...data.box.hi]
        : boundingBox(points, dim)
      : mortonCells(points, dim, CELLS);
  const lo = new Array<number>(dim).fill(Infinity);
  const hi = new Array<number>(dim).fill(-Infinity);
  for (let c = 0; c < cells.length; c += 2 * dim) {
    for (let d = 0; d < dim; d++) {
      lo[d] = Math.min(lo[d], cells[c + d]);
      hi[d] = Math.max(hi[d], cells[c + dim + d]);
    }
  }
  return { id, count: n, lo, hi, cells };
}

/** The points' bounding box as one cell (lo, hi). */
function boundingBox(points: Float32Array, dim: number): number[] {
  const lo = new Float32Array(dim).fill(Infinity);
  const hi = new Float32Array(dim).fill(-Infinity);
  for (let i = 0; i < points.length; i += dim) {
    for (let d = 0; d < dim; d++) {
      const x = points[i + d];
      if (x < lo[d]) lo[d] = x;
      if (x > hi[d]) hi[d] = x;
    }
  }
  return [...lo, ...hi];
}

/**
 * At most `max` tight boxes covering the points: their Morton order (as the BVH sorts it) split at the highest
 * differing code bit of the most populous run, until there are `max` runs or only runs of equal codes — the top of
 * the radix tree a BVH would build (Karras), so the runs are octree-aligned, without building the rest of it.
 */
function mortonCells(points: Float32Array, dim: number, max: number): number[] {
  const n = points.length / dim;
  const { codes, order } = sortCodesCpu(
    mortonCodesCpu(points, n, dim, sceneFrameCpu(points, n, dim)),
    n,
    codeBits(dim),
  );
  const differ = (a: number, b: number) => codes[2 * a] !== codes[2 * b] || codes[2 * a + 1] !== codes[2 * b + 1];
  /** The first position in [a, b) whose code has the highest bit where codes[a] and codes[b − 1] differ. */
  const split = (a: number, b: number): number => {
    const x = codes[2 * a + 1] ^ codes[2 * (b - 1) + 1];
    const word = x !== 0 ? 1 : 0;
    const bit = 31 - Math.clz32(word === 1 ? x : codes[2 * a] ^ codes[2 * (b - 1)]);
    let lo = a;
    let hi = b - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((codes[2 * mid + word] >>> bit) & 1) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  const runs: [number, number][] = [[0, n]];
  while (runs.length < max) {
    let at = -1;
    for (let r = 0; r < runs.length; r++) {
      const [a, b] = runs[r];
      if (differ(a, b - 1) && (at < 0 || b - a > runs[at][1] - runs[at][0])) at = r;
    }
    if (at < 0) break;
    const [a, b] = runs[at];
    const m = split(a, b);
    runs.splice(at, 1, [a, m], [m, b]);
  }
  const out: number[] = [];
  for (const [a, b] of runs) {
    const lo = new Array<number>(dim).fill(Infinity);
    const hi = new Array<number>(dim).fill(-Infinity);
    for (let r = a; r < b; r++) {
      const o = order[r] * dim;
      for (let d = 0; d < dim; d++) {
        const x = points[o + d];
        if (x < lo[d]) lo[d] = x;
        if (x > hi[d]) hi[d] = x;
      }
    }
    out.push(...lo, ...hi);
  }
  return out;
}

const UTF8 = new TextEncoder();

/** The bytes a transport carries for `msg`: its meta as UTF-8 JSON plus every array's bytes. */
export function messageBytes(msg: TaskMessage): number {
  let bytes = UTF8.encode(JSON.stringify(msg.meta)).length;
  for (const a of Object.values(msg.arrays)) bytes += a.byteLength;
  return bytes;
}

/**
 * Runs every partition's tasks in this process (PARTITION_TASKS), one task at a time per call. Messages are copied
 * both ways, as a transport would: neither side can see the other's arrays change.
 */
export class InProcessExecutor implements PartitionExecutor {
  private readonly infos: PartitionInfo[];

  constructor(
    private readonly data: PartitionData[],
    private readonly env: TaskEnv = { backend: 'cpu' },
  ) {
    data.forEach((d, i) => {
      if (d.id !== i) throw new InputError(`Expected partition ${i} to have id ${i}, got ${d.id}.`);
    });
    this.infos = data.map((d) => partitionInfo(d));
  }

  partitions(): PartitionInfo[] {
    return this.infos.map((info) => ({ ...info }));
  }

  async run(partition: number, kind: PartitionTaskKind, msg: TaskMessage): Promise<TaskMessage> {
    const data = this.data[partition];
    if (data === undefined) throw new InputError(`No partition ${partition} (0 … ${this.data.length - 1}).`);
    const task = PARTITION_TASKS[kind];
    if (task === undefined) throw new InputError(`No partition task '${kind}'.`);
    const partner = async (q: number): Promise<PartitionData> => {
      const other = this.data[q];
      if (other === undefined) throw new InputError(`No partition ${q} (0 … ${this.data.length - 1}).`);
      return other;
    };
    return copyMessage(await task(data, copyMessage(msg), this.env, partner));
  }
}

/** A deep copy of a message (meta through JSON, as a transport carries it). */
export function copyMessage(msg: TaskMessage): TaskMessage {
  const arrays: TaskMessage['arrays'] = {};
  for (const [name, a] of Object.entries(msg.arrays)) arrays[name] = a.slice();
  return { meta: JSON.parse(JSON.stringify(msg.meta)), arrays };
}
