/**
 * The passes of the coordinator's threaded split (partition.threads.ts) after its bounds (partition.bounds.ts), each
 * over ranges of the points in index order, by the points' 16-bit buckets (the top 16 bits of their Morton codes):
 *
 *   partition-digits   the Morton codes (mortonCodesCpu on pieces, the frame of the whole set), each point's top 16
 *                      bits into a shared Uint16Array, and the range's histogram of them
 *   partition-members  its points in buckets a cut falls in (few), which the calling thread ranks by code, then index
 *   partition-count    its points per partition — a bucket's partition (wholeBuckets), or for the few points of
 *                      buckets a cut falls in, the partition the calling thread ranked them into (by code, then index)
 *   partition-scatter  its points and ids into the partitions' shared arrays, at the range's offsets (ranges in index
 *                      order, and in index order within a range: ids ascend in every partition, as partitionPoints'),
 *                      and per partition the bounding box of the range's points (partitionInfo's box without a pass
 *                      of its own: `box` on each partition)
 */
import { codeBits } from '../bvh/layout.js';
import { mortonCodesCpu, mortonDigitsCpu, type SceneFrame } from '../bvh/morton.cpu.js';
import type { WorkerReply } from '../host/threads.js';
import { codeDigit, digitShift } from './partition.js';
import type { Range } from './partition.bounds.js';

/** Points per mortonCodesCpu call within a range (its codes array: 16 bytes a point). */
const PIECE = 1 << 16;

export type DigitsJob = Range & { kind: 'partition-digits'; frame: SceneFrame; digits: Uint16Array };
export type DigitsReply = WorkerReply & { counts: Uint32Array };
export type MembersJob = Range & { kind: 'partition-members'; digits: Uint16Array; whole: Int32Array };
export type MembersReply = WorkerReply & { members: Uint32Array };
export type CountJob = Range & {
  kind: 'partition-count';
  k: number;
  digits: Uint16Array;
  whole: Int32Array;
  /** The points of split buckets, ascending, and each one's partition. */
  splitAt: Uint32Array;
  splitPart: Uint32Array;
};
export type CountReply = WorkerReply & { counts: Uint32Array };
/** Per partition p, its points' per-axis minima at p·dim … (+∞ where the range has none) and maxima (−∞). */
export type ScatterReply = WorkerReply & { lo: Float32Array; hi: Float32Array };
export type ScatterJob = Omit<CountJob, 'kind'> & {
  kind: 'partition-scatter';
  /** Per partition: where this range's points go in `out` / `ids` (rows). */
  at: Float64Array;
  out: Float32Array;
  ids: Uint32Array;
};

export function digitsOf(j: DigitsJob): DigitsReply {
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
export function membersOf(j: MembersJob): MembersReply {
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

export function countOf(j: CountJob): CountReply {
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

export function scatterOf(j: ScatterJob): ScatterReply {
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
