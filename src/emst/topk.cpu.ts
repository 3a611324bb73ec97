/**
 * The k best neighbours of one query so far, by (key, original index): an array kept sorted ascending, whose last
 * entry is the one a candidate must beat once the array is full (neighbours.cpu.ts).
 *
 * A sorted array rather than a heap: k is small (≤ 64, usually 8–16) and the traversal offers nearer candidates
 * first, so most insertions land at or near the end, and draining is a copy (measured: k-NN of 10^5 2D points with
 * k = 15 spent 45 % of its time in the heap's sift-downs and drain).
 */
export class TopK {
  /** Entries in ascending (key, idx) order: key (float32), original index, Morton position. */
  readonly key: Float32Array;
  readonly idx: Uint32Array;
  readonly pos: Uint32Array;
  size = 0;
  /** The last entry's key and index once full (+∞ and 2^32 − 1 before): nothing at or after them can enter. */
  topKey = Infinity;
  topIdx = 0xffffffff;

  constructor(readonly k: number) {
    this.key = new Float32Array(k);
    this.idx = new Uint32Array(k);
    this.pos = new Uint32Array(k);
  }

  reset(): void {
    this.size = 0;
    this.topKey = Infinity;
    this.topIdx = 0xffffffff;
  }

  /** Offers (key, idx, pos); ignored unless it precedes the last entry of a full array. */
  offer(key: number, idx: number, pos: number): void {
    if (key > this.topKey || (key === this.topKey && idx >= this.topIdx)) return;
    const { k, key: hk, idx: hi, pos: hp } = this;
    // The hole starts at the end (the last entry drops out when full) and moves down past every later entry.
    let i = this.size < k ? this.size++ : k - 1;
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
    if (this.size === k) {
      this.topKey = hk[k - 1];
      this.topIdx = hi[k - 1];
    }
  }

  /** Writes the entries in ascending order to keys/points[out …]; empties the array. */
  drain(keys: Float32Array, points: Uint32Array, out: number): void {
    const { key: hk, pos: hp, size } = this;
    for (let r = 0; r < size; r++) {
      keys[out + r] = hk[r];
      points[out + r] = hp[r];
    }
    this.reset();
  }
}
