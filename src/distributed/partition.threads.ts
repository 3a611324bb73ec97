/**
 * partitionPoints() (partition.ts) on the host's worker threads, for the coordinator of a partitioned EMST (issue 20):
 * at 2·10^8 points the one-thread split (bounds, Morton codes, the 16-bit histogram, the copy into k partitions) is
 * ~20–30 s of the coordinator's own time before any task starts. The same partitions, array for array, in four
 * passes over ranges of the points (in shared memory):
 *
 *   bounds   per range: per-axis min/max (minF/maxF: −0 below +0; associative) and whether a coordinate is not
 *            finite or beyond ±MAX_COORDINATE (then checkCoordinates throws its own error on the calling thread);
 *            for the coordinator (partitionWithHashes) also the input fingerprint's block hashes, ranges of whole
 *            blocks
 *   digits   per range: the Morton codes (mortonCodesCpu on pieces, the frame of the whole set), each point's top
 *            16 bits into a shared Uint16Array, and the range's histogram of them
 *   members  per range: its points in buckets a cut falls in (few), which the calling thread ranks by code, then index
 *   count    per range: its points per partition — a bucket's partition (wholeBuckets), or for the few points of
 *            buckets a cut falls in, the partition the calling thread ranked them into (by code, then index)
 *   scatter  per range: its points and ids into the partitions' shared arrays, at the range's offsets (ranges in
 *            index order, and in index order within a range: ids ascend in every partition, as partitionPoints'),
 *            and per partition the bounding box of the range's points (partitionInfo's box without a pass of its
 *            own: `box` on each partition)
 *
 * The calling thread's own steps are O(k + 65536 + split-bucket points) — at 2·10^8 points the one-thread scan for
 * the split buckets' points and the partitions' boxes (partitionInfo) were ~10 ns a point of its time (session 12).
 * `timings`: each pass's wall time under distributed::partition.<pass> (the H100 hosts' split did not scale with
 * threads as this machine's does: these say where). `signal`: looked at between the passes (after a turn of the
 * event loop, where a Ctrl-C's handler runs: the calling thread computes range 0 of each pass itself), AbortError
 * once it has aborted — an interrupt waits for one pass, not the whole split.
 *
 * Falls back to partitionPoints where there are no worker threads (or fewer points than minPoints, or one thread).
 */
import { bitsPerAxis, codeBits, MAX_COORDINATE } from '../bvh/layout.js';
import { maxF, minF } from '../bvh/floatorder.js';
import { mortonCodesCpu, mortonDigitsCpu, quantScale, type SceneFrame } from '../bvh/morton.cpu.js';
import { sortCodesCpu } from '../bvh/sort.cpu.js';
import { checkCoordinates } from '../emst/validate.js';
import { touchOnWorkers } from '../host/buffers.js';
import { AbortError, InputError } from '../errors.js';
import { turn } from '../host/lanes.js';
import {
  nextMessageId,
  passWithCaller,
  resolveThreads,
  splitOnWorkers,
  type JobTable,
  type WorkerReply,
} from '../host/threads.js';
import { codeDigit, digitShift, partitionPoints, partOfRank, wholeBuckets } from './partition.js';
import type { PartitionData } from './types.js';

/** Points per mortonCodesCpu call within a range (its codes array: 16 bytes a point). */
const PIECE = 1 << 16;

interface Range {
  id: number;
  points: Float32Array;
  dim: number;
  start: number;
  end: number;
}

/**
 * `words`, `first`, `last` (partitionWithHashes): the range also hashes the fingerprint's blocks [first, last) of the
 * points' words, and [start, end) are the rows that start in those blocks.
 */
type BoundsJob = Range & { kind: 'partition-bounds'; words?: Uint32Array; first?: number; last?: number };
/** `hashes`: the blocks' two hash words each (hashBlocks'), where the job named blocks. */
type BoundsReply = WorkerReply & { lo: Float32Array; hi: Float32Array; bad: boolean; hashes?: Uint32Array };
type DigitsJob = Range & { kind: 'partition-digits'; frame: SceneFrame; digits: Uint16Array };
type DigitsReply = WorkerReply & { counts: Uint32Array };
type MembersJob = Range & { kind: 'partition-members'; digits: Uint16Array; whole: Int32Array };
type MembersReply = WorkerReply & { members: Uint32Array };
type CountJob = Range & {
  kind: 'partition-count';
  k: number;
  digits: Uint16Array;
  whole: Int32Array;
  /** The points of split buckets, ascending, and each one's partition. */
  splitAt: Uint32Array;
  splitPart: Uint32Array;
};
type CountReply = WorkerReply & { counts: Uint32Array };
/** Per partition p, its points' per-axis minima at p·dim … (+∞ where the range has none) and maxima (−∞). */
type ScatterReply = WorkerReply & { lo: Float32Array; hi: Float32Array };
type ScatterJob = Omit<CountJob, 'kind'> & {
  kind: 'partition-scatter';
  /** Per partition: where this range's points go in `out` / `ids` (rows). */
  at: Float64Array;
  out: Float32Array;
  ids: Uint32Array;
};

function bounds(j: BoundsJob): BoundsReply {
  const { points, dim, start, end } = j;
  const lo = new Float32Array(dim).fill(Infinity);
  const hi = new Float32Array(dim).fill(-Infinity);
  let good = true;
  if (j.words === undefined) good = boundsInto(points, dim, start, end, lo, hi);
  else {
    // With the fingerprint's blocks [first, last) (block-aligned ranges: partitionWithHashes), a block at a time: the
    // points leave memory once for both (the separate hash pass read all of them again: 'fingerprint' 0.5–0.8 s of
    // the coordinator's front at 2·10^8 on the H100 x2 hosts, the workers idle meanwhile). [start, end) are the rows
    // that start in these blocks' words.
    const { words } = j;
    const first = j.first!;
    const last = j.last!;
    const hashes = new Uint32Array(2 * (last - first));
    for (let b = first; b < last; b++) {
      let a = 0x811c9dc5;
      let c = 0x01000193 ^ 0x5bd1e995;
      const blockEnd = Math.min((b + 1) * FINGERPRINT_BLOCK_WORDS, words.length);
      if (dim === 3) {
        // In one loop with the rows' bounds: the hash's two multiply chains wait on each other word after word, and the
        // compares fill that wait. Words before the block's first row start (≤ 2, a row of the block before) and
        // after its last whole row are hashed alone; a row that starts in the block and ends past it is bounded here.
        const w0 = b * FINGERPRINT_BLOCK_WORDS;
        const r0 = Math.ceil(w0 / 3);
        const r1 = Math.floor(blockEnd / 3);
        for (let i = w0; i < 3 * r0; i++) {
          const w = words[i];
          a = Math.imul(a ^ w, 0x01000193);
          c = Math.imul(c ^ w, 0x5bd1e995) ^ (c >>> 15);
        }
        const state = fused3(points, words, r0, r1, lo, hi, a, c);
        a = state.a;
        c = state.c;
        if (!state.good) good = false;
        for (let i = 3 * r1; i < blockEnd; i++) {
          const w = words[i];
          a = Math.imul(a ^ w, 0x01000193);
          c = Math.imul(c ^ w, 0x5bd1e995) ^ (c >>> 15);
        }
        if (3 * r1 < blockEnd && !boundsInto(points, 3, r1, r1 + 1, lo, hi)) good = false;
      } else {
        // Pieces of HASH_PIECE words, each hashed, then the bounds of the rows that start in it read back from cache.
        for (let w0 = b * FINGERPRINT_BLOCK_WORDS; w0 < blockEnd; w0 += HASH_PIECE) {
          const w1 = Math.min(w0 + HASH_PIECE, blockEnd);
          for (let i = w0; i < w1; i++) {
            const w = words[i];
            a = Math.imul(a ^ w, 0x01000193);
            c = Math.imul(c ^ w, 0x5bd1e995) ^ (c >>> 15);
          }
          // (Each row once: the pieces partition the words.)
          const from = Math.ceil(w0 / dim);
          const to = Math.ceil(w1 / dim);
          if (from < to && !boundsInto(points, dim, from, to, lo, hi)) good = false;
        }
      }
      hashes[2 * (b - first)] = a;
      hashes[2 * (b - first) + 1] = c;
    }
    return { id: j.id, lo, hi, bad: !good, hashes };
  }
  return { id: j.id, lo, hi, bad: !good };
}

/**
 * Rows [start, end) of 3D points folded into `lo`/`hi` as boundsInto does, and their words into the block hash state
 * (a, c) as hashBlocks does: the new state, and whether every coordinate was finite and within ±MAX_COORDINATE.
 */
function fused3(
  points: Float32Array,
  words: Uint32Array,
  start: number,
  end: number,
  lo: Float32Array,
  hi: Float32Array,
  a: number,
  c: number,
): { a: number; c: number; good: boolean } {
  let finite = 0;
  let m0 = lo[0];
  let m1 = lo[1];
  let m2 = lo[2];
  let x0 = hi[0];
  let x1 = hi[1];
  let x2 = hi[2];
  for (let o = 3 * start; o < 3 * end; o += 3) {
    const u = words[o];
    const v = words[o + 1];
    const w = words[o + 2];
    a = Math.imul(a ^ u, 0x01000193);
    c = Math.imul(c ^ u, 0x5bd1e995) ^ (c >>> 15);
    a = Math.imul(a ^ v, 0x01000193);
    c = Math.imul(c ^ v, 0x5bd1e995) ^ (c >>> 15);
    a = Math.imul(a ^ w, 0x01000193);
    c = Math.imul(c ^ w, 0x5bd1e995) ^ (c >>> 15);
    const x = points[o];
    const y = points[o + 1];
    const z = points[o + 2];
    finite += x - x + (y - y) + (z - z);
    if (x <= m0) m0 = minF(m0, x);
    if (x >= x0) x0 = maxF(x0, x);
    if (y <= m1) m1 = minF(m1, y);
    if (y >= x1) x1 = maxF(x1, y);
    if (z <= m2) m2 = minF(m2, z);
    if (z >= x2) x2 = maxF(x2, z);
  }
  lo[0] = m0;
  lo[1] = m1;
  lo[2] = m2;
  hi[0] = x0;
  hi[1] = x1;
  hi[2] = x2;
  let good = finite === 0;
  for (let d = 0; d < 3; d++) if (lo[d] < -MAX_COORDINATE || hi[d] > MAX_COORDINATE) good = false;
  return { a, c, good };
}

/** Words a piece of the fused bounds-and-hash pass (bounds above): 192 KiB, read back from L2. */
const HASH_PIECE = 3 << 14;

/**
 * Folds rows [start, end) into the per-axis minima `lo` and maxima `hi` (minF/maxF: −0 below +0); false when a
 * coordinate is not finite or beyond ±MAX_COORDINATE (the caller then runs checkCoordinates for its error).
 * A new minimum or maximum is rare after the first rows, so each coordinate costs two compares that fail (minF/maxF
 * only where one holds, in the same call order as folding every row: the same values), and finiteness is one sum of
 * x − x (0 for a finite x, NaN for NaN and ±∞) checked once. On the 2-core development machine (10^7 3D rows, one
 * thread, the least of 12 runs): 15–20 ns a row with minF, maxF and the |x| test on every coordinate, 4–6 ns so.
 */
function boundsInto(
  points: Float32Array,
  dim: number,
  start: number,
  end: number,
  lo: Float32Array,
  hi: Float32Array,
): boolean {
  let finite = 0;
  if (dim === 3) {
    // One pass over the rows (per-axis passes read every row dim times: 0.6–0.8 s at 2·10^8 on 16 threads of the
    // H100 x2 hosts, session 15).
    let m0 = lo[0];
    let m1 = lo[1];
    let m2 = lo[2];
    let x0 = hi[0];
    let x1 = hi[1];
    let x2 = hi[2];
    for (let o = 3 * start; o < 3 * end; o += 3) {
      const a = points[o];
      const b = points[o + 1];
      const c = points[o + 2];
      finite += a - a + (b - b) + (c - c);
      if (a <= m0) m0 = minF(m0, a);
      if (a >= x0) x0 = maxF(x0, a);
      if (b <= m1) m1 = minF(m1, b);
      if (b >= x1) x1 = maxF(x1, b);
      if (c <= m2) m2 = minF(m2, c);
      if (c >= x2) x2 = maxF(x2, c);
    }
    lo[0] = m0;
    lo[1] = m1;
    lo[2] = m2;
    hi[0] = x0;
    hi[1] = x1;
    hi[2] = x2;
  } else {
    for (let a = 0; a < dim; a++) {
      let mn = lo[a];
      let mx = hi[a];
      for (let o = start * dim + a; o < end * dim; o += dim) {
        const x = points[o];
        finite += x - x;
        if (x <= mn) mn = minF(mn, x);
        if (x >= mx) mx = maxF(mx, x);
      }
      lo[a] = mn;
      hi[a] = mx;
    }
  }
  if (finite !== 0) return false;
  for (let a = 0; a < dim; a++) if (lo[a] < -MAX_COORDINATE || hi[a] > MAX_COORDINATE) return false;
  return true;
}

function digitsOf(j: DigitsJob): DigitsReply {
  const { points, dim, start, end, frame, digits } = j;
  const counts = new Uint32Array(65536);
  // 2D and 3D: the top 16 bits straight from the cells' top bits (~1.3–1.8 s of the 63-bit codes at 2·10^8 on 16
  // threads of the H100 x2 hosts, session 15); the same digits as the codes below.
  if (mortonDigitsCpu(points, start, end, dim, frame, digits, counts)) return { id: j.id, counts };
  const shift = digitShift(codeBits(dim));
  // One codes array for the range's pieces (a fresh 512 KiB one a piece was an allocation per 65,536 points on every
  // thread at once).
  const into = new Uint32Array(2 * Math.min(PIECE, end - start));
  for (let a = start; a < end; a += PIECE) {
    const b = Math.min(a + PIECE, end);
    const codes = mortonCodesCpu(points.subarray(a * dim, b * dim), b - a, dim, frame, into);
    for (let i = 0; i < b - a; i++) {
      const d = codeDigit(codes, i, shift);
      digits[a + i] = d;
      counts[d]++;
    }
  }
  return { id: j.id, counts };
}

/** The range's points whose bucket a cut falls in, ascending. */
function membersOf(j: MembersJob): MembersReply {
  const { start, end, digits, whole } = j;
  let m = 0;
  for (let i = start; i < end; i++) if (whole[digits[i]] < 0) m++;
  const members = new Uint32Array(m);
  m = 0;
  for (let i = start; i < end; i++) if (whole[digits[i]] < 0) members[m++] = i;
  return { id: j.id, members };
}

/** The first split point at or after the range's start (splitAt ascends). */
function firstSplit(j: Omit<CountJob, 'kind' | 'id'>): number {
  const { start, splitAt } = j;
  let s = 0;
  let t = splitAt.length;
  while (s < t) {
    const mid = (s + t) >>> 1;
    if (splitAt[mid] < start) s = mid + 1;
    else t = mid;
  }
  return s;
}

const unranked = (i: number) => new Error(`partitionPoints: point ${i} lies in a split bucket but was not ranked`);

// count and scatter each walk the range with the partition of every point inline (one callback for both was a call a
// point that V8 could not inline: two closures at one call site).

function count(j: CountJob): CountReply {
  const { start, end, digits, whole, splitAt, splitPart } = j;
  const counts = new Uint32Array(j.k);
  let s = firstSplit(j);
  for (let i = start; i < end; i++) {
    let p = whole[digits[i]];
    if (p < 0) {
      if (splitAt[s] !== i) throw unranked(i);
      p = splitPart[s++];
    }
    counts[p]++;
  }
  return { id: j.id, counts };
}

function scatter(j: ScatterJob): ScatterReply {
  const { start, end, digits, whole, splitAt, splitPart, points, dim, out, ids, k } = j;
  const at = Float64Array.from(j.at);
  // The boxes by strict < and > in index order, as partitionInfo's boundingBox (its first of −0 and +0 stays).
  const lo = new Float32Array(k * dim).fill(Infinity);
  const hi = new Float32Array(k * dim).fill(-Infinity);
  let s = firstSplit(j);
  for (let i = start; i < end; i++) {
    let p = whole[digits[i]];
    if (p < 0) {
      if (splitAt[s] !== i) throw unranked(i);
      p = splitPart[s++];
    }
    const r = at[p]++;
    ids[r] = i;
    if (dim === 3) {
      const x = points[3 * i];
      const y = points[3 * i + 1];
      const z = points[3 * i + 2];
      out[3 * r] = x;
      out[3 * r + 1] = y;
      out[3 * r + 2] = z;
      const b = 3 * p;
      if (x < lo[b]) lo[b] = x;
      if (x > hi[b]) hi[b] = x;
      if (y < lo[b + 1]) lo[b + 1] = y;
      if (y > hi[b + 1]) hi[b + 1] = y;
      if (z < lo[b + 2]) lo[b + 2] = z;
      if (z > hi[b + 2]) hi[b + 2] = z;
    } else {
      for (let d = 0; d < dim; d++) {
        const x = points[i * dim + d];
        out[r * dim + d] = x;
        if (x < lo[p * dim + d]) lo[p * dim + d] = x;
        if (x > hi[p * dim + d]) hi[p * dim + d] = x;
      }
    }
  }
  return { id: j.id, lo, hi };
}

/**
 * Words per block of the input's fingerprint (16 MiB): the coordinator's fingerprint of its points (coordinator.ts)
 * is a hash of its blocks' hashes, so threads may hash blocks apart — one thread's FNV pass over 2·10^8 3D points was
 * ~2 s of the coordinator's time before any task (session 12: ~10 ns a point on this machine).
 */
export const FINGERPRINT_BLOCK_WORDS = 1 << 22;

type HashJob = { id: number; kind: 'partition-hash'; words: Uint32Array; first: number; last: number };
type HashReply = WorkerReply & { hashes: Uint32Array };

/** Blocks first … last − 1 of `words`, two 32-bit FNV-1a style hashes each (contentId's mix, per block). */
function hashBlocks(j: HashJob): HashReply {
  const { words, first, last } = j;
  const hashes = new Uint32Array(2 * (last - first));
  for (let b = first; b < last; b++) {
    let a = 0x811c9dc5;
    let c = 0x01000193 ^ 0x5bd1e995;
    const end = Math.min((b + 1) * FINGERPRINT_BLOCK_WORDS, words.length);
    for (let i = b * FINGERPRINT_BLOCK_WORDS; i < end; i++) {
      const w = words[i];
      a = Math.imul(a ^ w, 0x01000193);
      c = Math.imul(c ^ w, 0x5bd1e995) ^ (c >>> 15);
    }
    hashes[2 * (b - first)] = a;
    hashes[2 * (b - first) + 1] = c;
  }
  return { id: j.id, hashes };
}

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
  'partition-bounds': (m: BoundsJob) => bounds(m),
  'partition-digits': (m: DigitsJob) => digitsOf(m),
  'partition-members': (m: MembersJob) => membersOf(m),
  'partition-count': (m: CountJob) => count(m),
  'partition-scatter': (m: ScatterJob) => scatter(m),
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
  const rangeOf = (j: number) => ({ start: Math.floor((j * n) / parts), end: Math.floor(((j + 1) * n) / parts) });
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
    const b = await passWithCaller(pass, job1, bounds);
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
    const counts = await passWithCaller(pass, job3, count);
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
    const boxes = await passWithCaller(pass, job4, scatter);
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
