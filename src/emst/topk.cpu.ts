/**
 * The k best neighbours of one query so far, by (key, original index): a max-heap of k entries whose top is the
 * entry a candidate must beat once the heap is full (neighbours.cpu.ts).
 */
export class TopK {
  /** Entries: key (float32), original index, Morton position. */
  readonly key: Float32Array;
  readonly idx: Uint32Array;
  readonly pos: Uint32Array;
  size = 0;
  /** The top's key and index once full (+∞ and 2^32 − 1 before): nothing at or after them can enter. */
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

  /** Offers (key, idx, pos); ignored unless it precedes the top of a full heap. */
  offer(key: number, idx: number, pos: number): void {
    if (key > this.topKey || (key === this.topKey && idx >= this.topIdx)) return;
    const { k, key: hk, idx: hi, pos: hp } = this;
    let i: number;
    if (this.size < k) {
      i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        const pk = hk[parent];
        if (pk > key || (pk === key && hi[parent] > idx)) break;
        hk[i] = pk;
        hi[i] = hi[parent];
        hp[i] = hp[parent];
        i = parent;
      }
    } else {
      i = siftDown(hk, hi, hp, k, key, idx);
    }
    hk[i] = key;
    hi[i] = idx;
    hp[i] = pos;
    if (this.size === k) {
      this.topKey = hk[0];
      this.topIdx = hi[0];
    }
  }

  /** Writes the entries in ascending order to keys/points[out …]; empties the heap. */
  drain(keys: Float32Array, points: Uint32Array, out: number): void {
    const { key: hk, idx: hi, pos: hp } = this;
    for (let r = this.size - 1; r >= 0; r--) {
      keys[out + r] = hk[0];
      points[out + r] = hp[0];
      // Move the last entry to the root of the heap of size r and sift it down.
      const key = hk[r];
      const idx = hi[r];
      const pos = hp[r];
      const i = siftDown(hk, hi, hp, r, key, idx);
      hk[i] = key;
      hi[i] = idx;
      hp[i] = pos;
    }
    this.reset();
  }
}

/** Sifts a hole down from the root of a max-heap of `size` until (key, idx) fits; returns the hole. */
function siftDown(hk: Float32Array, hi: Uint32Array, hp: Uint32Array, size: number, key: number, idx: number): number {
  let i = 0;
  for (;;) {
    const a = 2 * i + 1;
    if (a >= size) return i;
    const b = a + 1;
    let m = a;
    if (b < size && (hk[b] > hk[a] || (hk[b] === hk[a] && hi[b] > hi[a]))) m = b;
    if (hk[m] < key || (hk[m] === key && hi[m] < idx)) return i;
    hk[i] = hk[m];
    hi[i] = hi[m];
    hp[i] = hp[m];
    i = m;
  }
}
