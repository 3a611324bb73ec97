/**
 * The k best neighbours of one query so far, by (key, original index): arrays kept sorted ascending, whose last
 * entry is the one a candidate must beat once they are full (neighbours.cpu.ts).
 *
 * A sorted array rather than a heap: k is small (≤ 64, usually 8–16) and the traversal offers nearer candidates
 * first, so most insertions land at or near the end, and draining is a copy (a heap's sift-downs and drain
 * dominated the k-NN: bench/RESULTS.md).
 *
 * The traversal keeps the size and the bound (last key and index) in local variables and calls `insertSorted`, a
 * function small enough for V8 to inline, which is faster than the same insertion as a method updating the
 * object's own size and bound (bench/RESULTS.md).
 */

/** Sorted entries: key (a float32 value, held exactly as a double), original index, Morton position. */
export interface SortedK {
  readonly key: Float64Array;
  readonly idx: Uint32Array;
  readonly pos: Uint32Array;
}

export function createSortedK(k: number): SortedK {
  return { key: new Float64Array(k), idx: new Uint32Array(k), pos: new Uint32Array(k) };
}

/**
 * Inserts (key, idx, pos) into the first `size` sorted entries of `s` (capacity k), dropping the last entry when
 * full; returns the new size. The caller has checked that the entry precedes the last one of a full array.
 */
export function insertSorted(s: SortedK, size: number, k: number, key: number, idx: number, pos: number): number {
  const { key: hk, idx: hi, pos: hp } = s;
  // The hole starts at the end and moves down past every later entry.
  let i = size < k ? size++ : k - 1;
  while (i > 0) {
    const pk = hk[i - 1];
    if (pk < key || (pk === key && hi[i - 1] < idx)) break;
    hk[i] = pk;
    hi[i] = hi[i - 1];
    hp[i] = hp[i - 1];
    i--;
  }
  hk[i] = key;
  hi[i] = idx;
  hp[i] = pos;
  return size;
}
