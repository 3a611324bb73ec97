/**
 * The canonical edge order for point clouds (DESIGN.md): (weight, min(u, v), max(u, v)) ascending, with
 * sources < targets. It fixes the single-linkage rows, hence the condensed-tree ids and the cluster numbering,
 * even where weights tie exactly.
 *
 * An MST from treeline's EMST already comes in this order: `canonicalMst` checks that in one pass and returns the
 * input's own arrays. Otherwise it sorts a permutation: an LSD radix sort on the weight's bits (non-negative
 * IEEE floats order like their bit patterns once the sign bit of −0 is dropped), 11-bit digits, digits that are
 * the same for every edge skipped; then each run of equal weights is sorted by (min, max). O(m) plus the runs.
 */
import type { MstEdges } from './types.js';

const DIGIT_BITS = 11;
const DIGIT_MASK = (1 << DIGIT_BITS) - 1;

function edgeLess(
  w: Float32Array | Float64Array,
  s: Uint32Array,
  t: Uint32Array,
  i: number,
  j: number,
): boolean {
  const wi = w[i];
  const wj = w[j];
  if (wi !== wj) return wi < wj;
  const si = Math.min(s[i], t[i]);
  const sj = Math.min(s[j], t[j]);
  if (si !== sj) return si < sj;
  return Math.max(s[i], t[i]) < Math.max(s[j], t[j]);
}

/** Whether the edges are already in canonical order with sources < targets. */
export function isCanonicalOrder(mst: MstEdges): boolean {
  const { sources: s, targets: t, weights: w } = mst;
  const m = w.length;
  for (let i = 0; i < m; i++) {
    if (s[i] >= t[i]) return false;
    if (i > 0 && !edgeLess(w, s, t, i - 1, i)) return false;
  }
  return true;
}

/** One LSD pass: stable scatter of `perm` into `out` by the digit of `key` at `shift`. */
function scatterPass(
  key: Uint32Array,
  stride: number,
  offset: number,
  keyMask: number,
  shift: number,
  counts: Uint32Array,
  perm: Uint32Array,
  out: Uint32Array,
): void {
  let sum = 0;
  for (let d = 0; d <= DIGIT_MASK; d++) {
    const c = counts[d];
    counts[d] = sum;
    sum += c;
  }
  for (let i = 0; i < perm.length; i++) {
    const e = perm[i];
    const d = (((key[e * stride + offset] & keyMask) >>> shift) & DIGIT_MASK);
    out[counts[d]++] = e;
  }
}

/** Sorts `perm` (stable) by the 31 low bits of one 32-bit word of each edge's weight. */
function radixByWord(
  key: Uint32Array,
  stride: number,
  offset: number,
  keyMask: number,
  perm: Uint32Array,
  scratch: Uint32Array,
): { perm: Uint32Array; scratch: Uint32Array } {
  const m = perm.length;
  const shifts = [0, DIGIT_BITS, 2 * DIGIT_BITS];
  const hist = shifts.map(() => new Uint32Array(DIGIT_MASK + 1));
  for (let e = 0; e < m; e++) {
    const k = (key[e * stride + offset] & keyMask) >>> 0;
    hist[0][k & DIGIT_MASK]++;
    hist[1][(k >>> DIGIT_BITS) & DIGIT_MASK]++;
    hist[2][(k >>> (2 * DIGIT_BITS)) & DIGIT_MASK]++;
  }
  for (let p = 0; p < shifts.length; p++) {
    // A digit shared by every edge leaves the order as it is.
    if (hist[p].some((c) => c === m)) continue;
    scatterPass(key, stride, offset, keyMask, shifts[p], hist[p], perm, scratch);
    const tmp = perm;
    perm = scratch;
    scratch = tmp;
  }
  return { perm, scratch };
}

/** Sorts perm[from, to) — edges of one weight — by (min endpoint, max endpoint). */
function sortTies(perm: Uint32Array, from: number, to: number, lo: Uint32Array, hi: Uint32Array): void {
  if (to - from <= 16) {
    for (let i = from + 1; i < to; i++) {
      const e = perm[i];
      let j = i - 1;
      while (j >= from && (lo[perm[j]] > lo[e] || (lo[perm[j]] === lo[e] && hi[perm[j]] > hi[e]))) {
        perm[j + 1] = perm[j];
        j--;
      }
      perm[j + 1] = e;
    }
    return;
  }
  perm.subarray(from, to).sort((a, b) => lo[a] - lo[b] || hi[a] - hi[b]);
}

/** The permutation that puts the edges in canonical order. */
export function canonicalPermutation(mst: MstEdges): Uint32Array {
  const { sources, targets, weights } = mst;
  const m = weights.length;
  const lo = new Uint32Array(m);
  const hi = new Uint32Array(m);
  for (let i = 0; i < m; i++) {
    const a = sources[i];
    const b = targets[i];
    lo[i] = a < b ? a : b;
    hi[i] = a < b ? b : a;
  }
  let perm: Uint32Array = new Uint32Array(m);
  for (let i = 0; i < m; i++) perm[i] = i;
  let scratch: Uint32Array = new Uint32Array(m);
  const bits = new Uint32Array(weights.buffer, weights.byteOffset, weights.length * (weights.BYTES_PER_ELEMENT / 4));
  // Important! mask the sign bit: −0 must sort with +0 (weights are validated ≥ 0, so no other sign bit is set).
  if (weights instanceof Float32Array) {
    ({ perm, scratch } = radixByWord(bits, 1, 0, 0x7fffffff, perm, scratch));
  } else {
    // Little-endian float64: the low word first, then the high word (LSD).
    ({ perm, scratch } = radixByWord(bits, 2, 0, 0xffffffff, perm, scratch));
    ({ perm, scratch } = radixByWord(bits, 2, 1, 0x7fffffff, perm, scratch));
    // −0 has a zero low word and only the sign bit in the high word: masked above, it sorts as +0.
  }
  let i = 0;
  while (i < m) {
    const w = weights[perm[i]];
    let j = i + 1;
    while (j < m && weights[perm[j]] === w) j++;
    if (j - i > 1) sortTies(perm, i, j, lo, hi);
    i = j;
  }
  return perm;
}

/**
 * The MST in canonical order with sources < targets. Returns `mst` itself when it already is; otherwise new
 * arrays (weights keep their type).
 */
export function canonicalMst(mst: MstEdges): MstEdges {
  if (isCanonicalOrder(mst)) return mst;
  const perm = canonicalPermutation(mst);
  const m = perm.length;
  const sources = new Uint32Array(m);
  const targets = new Uint32Array(m);
  const weights = mst.weights instanceof Float32Array ? new Float32Array(m) : new Float64Array(m);
  for (let i = 0; i < m; i++) {
    const e = perm[i];
    const a = mst.sources[e];
    const b = mst.targets[e];
    sources[i] = a < b ? a : b;
    targets[i] = a < b ? b : a;
    weights[i] = mst.weights[e];
  }
  return { sources, targets, weights };
}
