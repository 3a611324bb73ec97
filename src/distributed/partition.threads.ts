/**
 * partitionPoints() (partition.ts) on the host's worker threads, for the coordinator of a partitioned EMST (issue 20):
 * at 2·10^8 points the one-thread split (bounds, Morton codes, the 16-bit histogram, the copy into k partitions) is
 * ~20–30 s of the coordinator's own time before any task starts. The same partitions, array for array, in five
 * passes over ranges of the points (in shared memory), each range's work a job of its own file:
 *
 *   bounds   partition.bounds.ts   per-axis min/max and whether a coordinate is bad (checkCoordinates then throws
 *                                  its own error here); for the coordinator (partitionWithHashes) also the input
 *                                  fingerprint's block hashes, ranges of whole blocks
 *   digits   partition.buckets.ts  the Morton codes' top 16 bits (each point's bucket) and the range's histogram
 *   members  partition.buckets.ts  its points in buckets a cut falls in (few), which this thread ranks by code, then
 *                                  index
 *   count    partition.buckets.ts  its points per partition
 *   scatter  partition.buckets.ts  its points and ids into the partitions' shared arrays at the range's offsets, and
 *                                  per partition the box of the range's points (`box` on each partition)
 *
 * This file: the job table src/worker.ts dispatches to, and the calling thread's part (split(): the passes in order,
 * the frame, the ranking of split buckets' points, the offsets). The calling thread's own steps are O(k + 65536 +
 * split-bucket points) — at 2·10^8 points the one-thread scan for the split buckets' points and the partitions' boxes
 * (partitionInfo) were ~10 ns a point of its time (session 12).
 * `timings`: each pass's wall time under distributed::partition.<pass> (the H100 hosts' split did not scale with
 * threads as this machine's does: these say where). `signal`: looked at between the passes (after a turn of the
 * event loop, where a Ctrl-C's handler runs: the calling thread computes range 0 of each pass itself), AbortError
 * once it has aborted — an interrupt waits for one pass, not the whole split.
 *
 * Falls back to partitionPoints where there are no worker threads (or fewer points than minPoints, or one thread).
 */
import { bitsPerAxis, codeBits } from '../bvh/layout.js';
import { maxF, minF } from '../bvh/floatorder.js';
import { mortonCodesCpu, quantScale, type SceneFrame } from '../bvh/morton.cpu.js';
import { sortCodesCpu } from '../bvh/sort.cpu.js';
import { checkCoordinates } from '../emst/validate.js';
import { touchOnWorkers } from '../host/buffers.js';
import { AbortError, InputError } from '../errors.js';
import { turn } from '../host/lanes.js';
import {
  nextMessageId,
  partRange,
  passWithCaller,
  resolveThreads,
  splitOnWorkers,
  type JobTable,
} from '../host/threads.js';
import { partitionPoints, partOfRank, wholeBuckets } from './partition.js';
import {
  boundsOf,
  FINGERPRINT_BLOCK_WORDS,
  hashBlocks,
  type BoundsJob,
  type HashJob,
  type Range,
} from './partition.bounds.js';
import {
  countOf,
  digitsOf,
  membersOf,
  scatterOf,
  type CountJob,
  type DigitsJob,
  type MembersJob,
  type ScatterJob,
} from './partition.buckets.js';
import type { PartitionData } from './types.js';

/**
 * Per FINGERPRINT_BLOCK_WORDS words of the points' bytes, its two hash words (the same on any number of threads):
 * on `threads` threads where the points are in shared memory (sharedPoints) and there are at least minPoints rows of
 * `dim`, else on this thread.
 */
export async function blockHashes(
  points: Float32Array | Float64Array,
  dim: number,
  threads: number,
  minPoints = 1_000_000,
): Promise<Uint32Array> {
  const words = new Uint32Array(points.buffer, points.byteOffset, points.byteLength / 4);
  const blocks = Math.ceil(words.length / FINGERPRINT_BLOCK_WORDS);
  const whole = (): Uint32Array => hashBlocks({ id: 0, kind: 'partition-hash', words, first: 0, last: blocks }).hashes;
  const parts = Math.min(threads, blocks);
  if (parts < 2 || points.length / dim < minPoints || !(points.buffer instanceof SharedArrayBuffer)) return whole();
  const rangeOf = (j: number): { first: number; last: number } => ({
    first: Math.floor((j * blocks) / parts),
    last: Math.floor(((j + 1) * blocks) / parts),
  });
  const done = await splitOnWorkers(parts, true, 'the input fingerprint', async (pass) => {
    const id = nextMessageId();
    const replies = await passWithCaller(
      pass,
      (j): HashJob => ({ id, kind: 'partition-hash', words, ...rangeOf(j) }),
      hashBlocks,
    );
    const out = new Uint32Array(2 * blocks);
    replies.forEach((r, j) => out.set(r.hashes, 2 * rangeOf(j).first));
    return out;
  });
  return done ?? whole();
}

/**
 * float32 points in shared memory, for the threaded passes (blockHashes, partitionPointsThreaded): a view where they
 * are there already (or are not float32, or threads < 2), else a copy whose pages the threads touch first (a fresh
 * buffer takes its pages at ~1 GB/s on one H100 host thread: 2.4 GB at 2·10^8).
 */
export async function sharedPoints<T extends Float32Array | Float64Array>(points: T, threads: number): Promise<T> {
  if (!(points instanceof Float32Array) || threads < 2 || points.buffer instanceof SharedArrayBuffer) return points;
  const buffer = new SharedArrayBuffer(points.byteLength);
  await touchOnWorkers([{ buffer, bytes: points.byteLength }], threads, 'partitionPoints');
  const xs = new Float32Array(buffer);
  xs.set(points);
  return xs as T;
}

/** The jobs src/worker.ts dispatches here. */
export const partitionJobs = {
  'partition-hash': (m: HashJob) => hashBlocks(m),
  'partition-bounds': (m: BoundsJob) => boundsOf(m),
  'partition-digits': (m: DigitsJob) => digitsOf(m),
  'partition-members': (m: MembersJob) => membersOf(m),
  'partition-count': (m: CountJob) => countOf(m),
  'partition-scatter': (m: ScatterJob) => scatterOf(m),
} satisfies JobTable;

/**
 * partitionPoints(points, dim, k) on `threads` threads (default: resolveThreads' for n points). The partitions'
 * arrays are views of two shared buffers (all points, all ids; partition p's rows at its offset), each with its
 * bounding box (`box`). `timings`: where the passes' wall times go (distributed::partition.copy, .bounds, .digits,
 * .members, .count, .scatter; the threaded path only).
 */
export async function partitionPointsThreaded(
  points: Float32Array | Float64Array,
  dim: number,
  k: number,
  options: SplitOptions = {},
): Promise<PartitionData[]> {
  return (await split(points, dim, k, options, false)).partitions;
}

export interface SplitOptions {
  threads?: number;
  minPoints?: number;
  timings?: Record<string, number>;
  signal?: AbortSignal;
}

/**
 * partitionPointsThreaded, and the input fingerprint's block hashes (blockHashes' values, on any number of threads)
 * computed in the split's bounds pass, whose ranges are then whole blocks: the coordinator's points read once for
 * both. Where the split runs on one thread (or the points are not float32), blockHashes after it.
 */
export async function partitionWithHashes(
  points: Float32Array | Float64Array,
  dim: number,
  k: number,
  options: SplitOptions = {},
): Promise<{ partitions: PartitionData[]; blocks: Uint32Array }> {
  const { partitions, blocks } = await split(points, dim, k, options, true);
  return {
    partitions,
    blocks: blocks ?? (await blockHashes(points, dim, await resolveThreads(options.threads, points.length / dim))),
  };
}

async function split(
  points: Float32Array | Float64Array,
  dim: number,
  k: number,
  options: SplitOptions,
  hash: boolean,
): Promise<{ partitions: PartitionData[]; blocks: Uint32Array | null }> {
  const one = () => ({ partitions: partitionPoints(points, dim, k), blocks: null });
  if (!Number.isInteger(dim) || dim < 1) throw new InputError(`Expected dim to be a positive integer, got ${dim}.`);
  const n = Math.floor(points.length / dim);
  const threads = await resolveThreads(options.threads, n);
  if (
    threads < 2 ||
    n < (options.minPoints ?? 1_000_000) ||
    !(points instanceof Float32Array) ||
    points.length % dim !== 0 ||
    !Number.isInteger(k) ||
    k < 1
  ) {
    return one();
  }
  // The points in shared memory (a view when they are already there): its pages first touched by the threads
  // together (a fresh buffer takes its pages at ~1 GB/s on one H100 host thread: 2.4 GB at 2·10^8), then one copy.
  const timings = options.timings ?? {};
  let last = performance.now();
  const signal = options.signal;
  // Each pass's time, then the signal (a turn first: its handler runs between the passes, not only after the split).
  const lap = async (pass: string): Promise<void> => {
    const now = performance.now();
    timings[`distributed::partition.${pass}`] = now - last;
    if (signal) {
      await turn();
      if (signal.aborted) throw new AbortError(`the partitioning was aborted after its ${pass} pass.`);
    }
    last = performance.now();
  };
  const xs = await sharedPoints(points, threads);
  await lap('copy');
  const parts = Math.min(threads, n);
  const rangeOf = (j: number) => partRange(j, n, parts);
  const done = await splitOnWorkers(parts, true, 'partitionPoints', async (pass) => {
    const range = (j: number): Range => ({ id: 0, points: xs, dim, ...rangeOf(j) });
    // Bounds and the frame (sceneFrameCpu's, from the ranges' minima and maxima).
    const id1 = nextMessageId();
    // With the hashes: range j is the rows that start in blocks [first, last), a share of whole blocks.
    const words = new Uint32Array(xs.buffer, xs.byteOffset, xs.length);
    const blockCount = Math.ceil(words.length / FINGERPRINT_BLOCK_WORDS);
    const blocksOf = (j: number) => ({
      first: Math.floor((j * blockCount) / parts),
      last: Math.floor(((j + 1) * blockCount) / parts),
    });
    const rowOf = (block: number): number =>
      block === blockCount ? n : Math.min(n, Math.ceil((block * FINGERPRINT_BLOCK_WORDS) / dim));
    const job1 = (j: number): BoundsJob => {
      if (!hash) return { ...range(j), id: id1, kind: 'partition-bounds' };
      const { first, last } = blocksOf(j);
      return {
        id: id1,
        kind: 'partition-bounds',
        points: xs,
        dim,
        start: rowOf(first),
        end: rowOf(last),
        words,
        first,
        last,
      };
    };
    const b = await passWithCaller(pass, job1, boundsOf);
    let blocks: Uint32Array | null = null;
    if (hash) {
      blocks = new Uint32Array(2 * blockCount);
      b.forEach((r, j) => blocks!.set(r.hashes!, 2 * blocksOf(j).first));
    }
    await lap('bounds');
    if (b.some((r) => r.bad)) checkCoordinates(xs, dim); // throws the one-thread error, naming the row
    const lo = new Float32Array(dim).fill(Infinity);
    const hi = new Float32Array(dim).fill(-Infinity);
    for (const r of b) {
      for (let a = 0; a < dim; a++) {
        lo[a] = minF(lo[a], r.lo[a]);
        hi[a] = maxF(hi[a], r.hi[a]);
      }
    }
    const bits = bitsPerAxis(dim);
    const scale = new Float32Array(dim);
    for (let a = 0; a < dim; a++) scale[a] = quantScale(bits, Math.fround(hi[a] - lo[a]));
    const frame: SceneFrame = { lo, hi, scale };
    // Digits and their histogram.
    const digits = new Uint16Array(new SharedArrayBuffer(2 * n));
    const id2 = nextMessageId();
    const job2 = (j: number): DigitsJob => ({ ...range(j), id: id2, kind: 'partition-digits', frame, digits });
    const histograms = await passWithCaller(pass, job2, digitsOf);
    await lap('digits');
    const start = new Float64Array(65537);
    for (const h of histograms) for (let d = 0; d < 65536; d++) start[d + 1] += h.counts[d];
    for (let d = 0; d < 65536; d++) start[d + 1] += start[d];
    const whole = wholeBuckets(start, n, k);
    // The split buckets' points (found by the ranges, ascending), ranked by (code, index) here.
    const id5 = nextMessageId();
    const job5 = (j: number): MembersJob => ({ ...range(j), id: id5, kind: 'partition-members', digits, whole });
    const members: number[][] = [];
    for (const r of await passWithCaller(pass, job5, membersOf)) {
      for (const i of r.members) (members[digits[i]] ??= []).push(i);
    }
    // Every split member as index · k + its partition, sorted by index (exact: n · k < 2^53, checked).
    if (n * k >= 2 ** 53) throw new InputError(`Expected points × partitions below 2^53, got ${n} × ${k}.`);
    let splits = 0;
    for (const list of members) if (list) splits += list.length;
    const packed = new Float64Array(splits);
    let put = 0;
    members.forEach((list, d) => {
      const sub = new Float32Array(list.length * dim);
      for (let t = 0; t < list.length; t++) for (let c = 0; c < dim; c++) sub[t * dim + c] = xs[list[t] * dim + c];
      // By (code, index): the BVH's stable radix sort of the codes, the list ascending by index (a comparator sort of
      // the split buckets' ~10^6 points at 2·10^8 normal points was ~0.5 s of the coordinator's serial front).
      const { order } = sortCodesCpu(mortonCodesCpu(sub, list.length, dim, frame), list.length, codeBits(dim));
      for (let rank = 0; rank < order.length; rank++) {
        packed[put++] = list[order[rank]] * k + partOfRank(start[d] + rank, n, k);
      }
    });
    packed.sort();
    const splitAt = new Uint32Array(splits);
    const splitPart = new Uint32Array(splits);
    for (let t = 0; t < splits; t++) {
      const i = Math.floor(packed[t] / k);
      splitAt[t] = i;
      splitPart[t] = packed[t] - i * k;
    }
    await lap('members');
    const shared = { k, digits, whole, splitAt, splitPart };
    // Counts per range and partition, then each range's offsets.
    const id3 = nextMessageId();
    const job3 = (j: number): CountJob => ({ ...range(j), ...shared, id: id3, kind: 'partition-count' });
    const counts = await passWithCaller(pass, job3, countOf);
    await lap('count');
    const total = new Float64Array(k + 1);
    for (const c of counts) for (let p = 0; p < k; p++) total[p + 1] += c.counts[p];
    for (let p = 0; p < k; p++) total[p + 1] += total[p];
    const out = new Float32Array(new SharedArrayBuffer(4 * n * dim));
    const ids = new Uint32Array(new SharedArrayBuffer(4 * n));
    const at = counts.map(() => new Float64Array(k));
    const next = total.slice(0, k);
    counts.forEach((c, j) => {
      for (let p = 0; p < k; p++) {
        at[j][p] = next[p];
        next[p] += c.counts[p];
      }
    });
    const id4 = nextMessageId();
    const job4 = (j: number): ScatterJob => ({
      ...range(j),
      ...shared,
      id: id4,
      kind: 'partition-scatter',
      at: at[j],
      out,
      ids,
    });
    const boxes = await passWithCaller(pass, job4, scatterOf);
    await lap('scatter');
    // Each partition's box: the ranges' in index order by strict < and > (the first of equal values stays).
    const partitions = Array.from({ length: k }, (_, p): PartitionData => {
      const lo = new Array<number>(dim).fill(Infinity);
      const hi = new Array<number>(dim).fill(-Infinity);
      for (const r of boxes) {
        for (let d = 0; d < dim; d++) {
          if (r.lo[p * dim + d] < lo[d]) lo[d] = r.lo[p * dim + d];
          if (r.hi[p * dim + d] > hi[d]) hi[d] = r.hi[p * dim + d];
        }
      }
      return {
        id: p,
        dim,
        points: out.subarray(total[p] * dim, total[p + 1] * dim),
        ids: ids.subarray(total[p], total[p + 1]),
        box: { lo, hi },
      };
    });
    return { partitions, blocks };
  });
  return done ?? one();
}
