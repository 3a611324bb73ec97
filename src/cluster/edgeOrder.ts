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

function edgeLess(w: Float32Array | Float64Array, s: Uint32Array, t: Uint32Array, i: number, j: number): boolean {
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

/**
 * Stable LSD radix sort by the key words (least significant word first), 11-bit digits; a digit shared by every
 * edge is skipped. All `columns` travel with the keys, so every pass reads sequentially (no gather through a
 * permutation). Returns the sorted columns (key words first, in the same order as given).
 */
function radixSort(words: Uint32Array[], columns: Uint32Array[]): Uint32Array[] {
  const m = words.length > 0 ? words[0].length : 0;
  let cur: Uint32Array[] = [...words, ...columns];
  let next: Uint32Array[] = cur.map(() => new Uint32Array(m));
  const shifts = [0, DIGIT_BITS, 2 * DIGIT_BITS];
  for (let w = 0; w < words.length; w++) {
    // Histograms do not depend on the order: one pass for the word's three digits.
    const hist = shifts.map(() => new Uint32Array(DIGIT_MASK + 1));
    const key = cur[w];
    for (let i = 0; i < m; i++) {
      const k = key[i];
      hist[0][k & DIGIT_MASK]++;
      hist[1][(k >>> DIGIT_BITS) & DIGIT_MASK]++;
      hist[2][(k >>> (2 * DIGIT_BITS)) & DIGIT_MASK]++;
    }
    for (let d = 0; d < shifts.length; d++) {
      const counts = hist[d];
      if (counts.some((c) => c === m)) continue;
      let sum = 0;
      for (let b = 0; b <= DIGIT_MASK; b++) {
        const c = counts[b];
        counts[b] = sum;
        sum += c;
      }
      const shift = shifts[d];
      const k = cur[w];
      const dest = new Uint32Array(m);
      for (let i = 0; i < m; i++) dest[i] = counts[(k[i] >>> shift) & DIGIT_MASK]++;
      for (let v = 0; v < cur.length; v++) {
        const from = cur[v];
        const to = next[v];
        for (let i = 0; i < m; i++) to[dest[i]] = from[i];
      }
      [cur, next] = [next, cur];
    }
  }
  return cur;
}

/**
 * Orders the run [from, to) of equal weights by (min, max), permuting every column alike (`lo` and `hi` may be
 * among the columns: they are read only while sorting, before anything moves).
 */
function sortTies(columns: Uint32Array[], lo: Uint32Array, hi: Uint32Array, from: number, to: number): void {
  const idx = new Uint32Array(to - from);
  for (let j = 0; j < idx.length; j++) idx[j] = from + j;
  idx.sort((a, b) => lo[a] - lo[b] || hi[a] - hi[b]);
  const copy = new Uint32Array(idx.length);
  for (const col of columns) {
    for (let j = 0; j < idx.length; j++) copy[j] = col[idx[j]];
    col.set(copy, from);
  }
}

interface SortedEdges {
  /** Original index of each edge in canonical order. */
  perm: Uint32Array;
  lo: Uint32Array;
  hi: Uint32Array;
  /** The weights' key words (sign bit cleared), least significant first. */
  words: Uint32Array[];
}

function sortEdges(mst: MstEdges): SortedEdges {
  const { sources, targets, weights } = mst;
  const m = weights.length;
  const lo = new Uint32Array(m);
  const hi = new Uint32Array(m);
  const perm = new Uint32Array(m);
  for (let i = 0; i < m; i++) {
    const a = sources[i];
    const b = targets[i];
    lo[i] = a < b ? a : b;
    hi[i] = a < b ? b : a;
    perm[i] = i;
  }
  const bits = new Uint32Array(weights.buffer, weights.byteOffset, weights.length * (weights.BYTES_PER_ELEMENT / 4));
  // Key words, least significant first. Important! the sign bit is cleared: −0 must sort with +0 (weights are
  // validated ≥ 0, so no other value has it set). Float64 is little-endian: low word, then high word.
  const words: Uint32Array[] = [];
  if (weights instanceof Float32Array) {
    const k = new Uint32Array(m);
    for (let i = 0; i < m; i++) k[i] = bits[i] & 0x7fffffff;
    words.push(k);
  } else {
    const k0 = new Uint32Array(m);
    const k1 = new Uint32Array(m);
    for (let i = 0; i < m; i++) {
      k0[i] = bits[2 * i];
      k1[i] = bits[2 * i + 1] & 0x7fffffff;
    }
    words.push(k0, k1);
  }
  const sorted = radixSort(words, [perm, lo, hi]);
  const keys = sorted.slice(0, words.length);
  const [sPerm, sLo, sHi] = sorted.slice(words.length);
  // Runs of equal weight (equal key words) are ordered by (min, max).
  const sameKey = (a: number, b: number): boolean => {
    for (let w = 0; w < keys.length; w++) if (keys[w][a] !== keys[w][b]) return false;
    return true;
  };
  let i = 0;
  while (i < m) {
    let j = i + 1;
    while (j < m && sameKey(i, j)) j++;
    // Within a run the keys are equal, so only perm, lo and hi need permuting.
    if (j - i > 1) sortTies([sPerm, sLo, sHi], sLo, sHi, i, j);
    i = j;
  }
  return { perm: sPerm, lo: sLo, hi: sHi, words: keys };
}

/** The permutation that puts the edges in canonical order. */
export function canonicalPermutation(mst: MstEdges): Uint32Array {
  return sortEdges(mst).perm;
}

/**
 * The MST in canonical order with sources < targets. Returns `mst` itself when it already is; otherwise new
 * arrays (weights keep their type; −0 becomes +0). `knownCanonical`: `isCanonicalOrder(mst)` where the caller has
 * checked it already (`checkMstShape` does, in its pass).
 */
export function canonicalMst(mst: MstEdges, knownCanonical = isCanonicalOrder(mst)): MstEdges {
  if (knownCanonical) return mst;
  const { lo, hi, words } = sortEdges(mst);
  const m = lo.length;
  if (mst.weights instanceof Float32Array) {
    // The key is the weight's own bit pattern (sign cleared): no gather needed.
    return { sources: lo, targets: hi, weights: new Float32Array(words[0].buffer, 0, m) };
  }
  const weights = new Float64Array(m);
  const bits = new Uint32Array(weights.buffer);
  for (let i = 0; i < m; i++) {
    bits[2 * i] = words[0][i];
    bits[2 * i + 1] = words[1][i];
  }
  return { sources: lo, targets: hi, weights };
}
