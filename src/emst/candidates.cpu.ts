/**
 * Settling a point's best outgoing edge from its k-nearest-neighbour list, without a traversal: the CPU backend's
 * addition to seed 002's single-tree Borůvka (boruvka.cpu.ts). A point's candidates only shrink as components
 * merge, so a list computed once stays valid in every round.
 *
 * Euclidean keys: the list is ascending in (key, original index), which for a fixed query is the canonical edge
 * order, and every point outside the list comes after its last entry. So the first entry in another component is
 * the exact best edge; entries before it stay in the query's component for good (a cursor skips them); and with
 * no such entry, the last key bounds every remaining edge from below.
 * Mutual reachability: the list is ordered by Euclidean key, so the best entry in another component is found by
 * scanning; a point outside the list has a key >= B = max(core²(q), fround(lastKey · ia2)), so the best entry is
 * exact when its key is below B, or (alpha = 1, so B = lastKey) equal to B with an original index up to the last
 * entry's, and min(best, B) bounds the point's edges from below otherwise.
 */
import type { NeighbourLists } from '../knn/neighbours.cpu.js';
import type { Reachability } from './nearest.cpu.js';

const f32 = Math.fround;

/** One list cursor per point, in shared memory when `shared` (boruvka.threads.ts). */
export function createCursors(n: number, k: number, shared: boolean): Uint16Array | Uint32Array {
  const bytes = k < 65536 ? 2 : 4;
  const buffer = shared ? new SharedArrayBuffer(n * bytes) : new ArrayBuffer(n * bytes);
  return bytes === 2 ? new Uint16Array(buffer) : new Uint32Array(buffer);
}

export class CandidateLists {
  /** After settle(): Morton position of the exact best other-component point, or −1 when the list cannot tell. */
  foundAt = -1;
  /** After settle(): its key, or else a lower bound on every edge from the query to another component. */
  foundKey = 0;
  /** cursor[q]: entries of q's list before it are in q's component (Euclidean); k when the list is used up. */
  private readonly cursor: Uint16Array | Uint32Array;

  constructor(
    private readonly lists: NeighbourLists,
    /** Original index per Morton position. */
    private readonly order: Uint32Array,
    /** Component label per Morton position. */
    private readonly label: Uint32Array,
    private readonly mr: Reachability | null,
    /** The scale cut: keys below it are not edges (Euclidean only; 0 for none). */
    private readonly cut = 0,
    /** The cursors, zeroed (createCursors), where threads share them; else allocated here. */
    cursor?: Uint16Array | Uint32Array,
  ) {
    const n = lists.keys.length / Math.max(1, lists.k);
    this.cursor = cursor ?? createCursors(n, lists.k, false);
  }

  /** False once q's list holds nothing outside q's component: settle() would always return false. */
  open(q: number): boolean {
    return this.cursor[q] < this.lists.k;
  }

  /** Tries to settle q (in component c) from its list; true when foundAt is q's exact best. */
  settle(q: number, c: number): boolean {
    const { k, keys, points } = this.lists;
    const { label, cursor } = this;
    const base = q * k;
    let r = cursor[q];
    // Entries in q's component, or below the scale cut, are skipped for good.
    while (r < k && (label[points[base + r]] === c || keys[base + r] < this.cut)) r++;
    cursor[q] = r;
    this.foundAt = -1;
    if (r === k) {
      this.foundKey = keys[base + k - 1];
      if (this.mr !== null) this.foundKey = this.reachBound(q, this.foundKey);
      return false;
    }
    if (this.mr === null) {
      this.foundAt = points[base + r];
      this.foundKey = keys[base + r];
      return true;
    }
    // Mutual reachability: the best entry by (reachability key, original index), from the cursor on.
    const { core2, ia2 } = this.mr;
    const order = this.order;
    const coreQ = core2[q];
    let bestKey = Infinity;
    let bestIdx = 0xffffffff;
    let bestAt = -1;
    for (; r < k; r++) {
      const p = points[base + r];
      if (label[p] === c) continue;
      let key = ia2 === 1 ? keys[base + r] : f32(keys[base + r] * ia2);
      if (coreQ > key) key = coreQ;
      if (core2[p] > key) key = core2[p];
      const o = order[p];
      if (key < bestKey || (key === bestKey && o < bestIdx)) {
        bestKey = key;
        bestIdx = o;
        bestAt = p;
      }
    }
    const outside = this.reachBound(q, keys[base + k - 1]);
    // With alpha = 1, outside = lastKey (core²(q) is a key of the list): a point outside the list with the key
    // `outside` lies at exactly lastKey with an original index after the last entry's, so it loses the tie-break
    // to an entry of the list at that key and an index up to the last entry's.
    if (bestKey < outside || (bestKey === outside && ia2 === 1 && bestIdx <= order[points[base + k - 1]])) {
      this.foundAt = bestAt;
      this.foundKey = bestKey;
      return true;
    }
    this.foundKey = bestKey < outside ? bestKey : outside;
    return false;
  }

  /** Lower bound on the reachability key of q to any point outside its list, whose last Euclidean key is `last`. */
  private reachBound(q: number, last: number): number {
    const { core2, ia2 } = this.mr!;
    const scaled = ia2 === 1 ? last : f32(last * ia2);
    return scaled > core2[q] ? scaled : core2[q];
  }
}
