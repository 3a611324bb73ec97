/**
 * The k nearest neighbours of every point on the CPU, by traversal of the linear BVH (src/bvh/layout.ts): the
 * squared core distances of mutual reachability (core²(i) = key of i's minSamples-th neighbour, i excluded by
 * index, a duplicate being a neighbour at key 0; DESIGN.md, HDBSCAN* semantics) and the candidate lists that let
 * Borůvka settle most points without a traversal (boruvka.cpu.ts).
 *
 * Important! Neighbours are ranked by (key, original index): for a fixed query that is exactly the canonical
 * (key, min, max) order of its edges, so the first neighbour in another component is the query's exact best edge,
 * ties included. Keys are computed as in distance.cpu.ts.
 *
 * Each query climbs from its leaf and searches sibling subtrees top-down with a bounded max-heap, pruning a subtree
 * once the heap is full and the subtree's box bound (and smallest original index, at equal keys) cannot beat the
 * heap's top; the climb stops once everything outside the ancestor's subtree is provably farther than the top
 * (keys.cpu.ts, escapeKey).
 */
import type { BvhCpu } from '../bvh/lbvh.cpu.js';
import { STACK_SIZE } from '../bvh/layout.js';
import { boxKey, escapeKey, pointKey } from './keys.cpu.js';
import { LEAF_RANGE } from './nearest.cpu.js';

/** n lists of k neighbours, ascending by (key, original index). */
export interface NeighbourLists {
  k: number;
  /** keys[i·k + r]: key (float32 squared distance) of the r-th neighbour of Morton position i. */
  keys: Float32Array;
  /** points[i·k + r]: Morton position of that neighbour. */
  points: Uint32Array;
}

/** The k nearest neighbours (1 ≤ k ≤ n − 1) of every point of `bvh`. */
export function nearestNeighbours(bvh: BvhCpu, k: number): NeighbourLists {
  const { n, dim, sortedPoints: xs } = bvh;
  const keys = new Float32Array(n * k);
  const points = new Uint32Array(n * k);
  const search = new KnnSearch(bvh, k);
  for (let q = 0; q < n; q++) {
    search.run(q);
    search.drain(keys, points, q * k);
  }
  void xs;
  void dim;
  return { k, keys, points };
}

/** One k-NN query at a time; the heap and stack are reused. */
class KnnSearch {
  // Max-heap on (key, original index) of the best k so far.
  private readonly heapKey: Float32Array;
  private readonly heapIdx: Uint32Array;
  private readonly heapPos: Uint32Array;
  private readonly stackNode = new Int32Array(2 * STACK_SIZE + 4);
  private readonly stackBound = new Float32Array(2 * STACK_SIZE + 4);
  private readonly stackMin = new Uint32Array(2 * STACK_SIZE + 4);
  private readonly query: Float64Array;
  private size = 0;

  constructor(
    private readonly bvh: BvhCpu,
    private readonly k: number,
  ) {
    this.heapKey = new Float32Array(k);
    this.heapIdx = new Uint32Array(k);
    this.heapPos = new Uint32Array(k);
    this.query = new Float64Array(bvh.dim);
  }

  /** Fills the heap with the k nearest neighbours of Morton position q. */
  run(q: number): void {
    const { n, dim, sortedPoints: xs, order, links, boxes, ranges, parents } = this.bvh;
    const { k, heapKey, heapIdx, stackNode, stackBound, stackMin, query } = this;
    const leaves = n - 1;
    const w = 4 * dim;
    for (let c = 0; c < dim; c++) query[c] = xs[q * dim + c];
    const x0 = query[0];
    const x1 = dim > 1 ? query[1] : 0;
    const x2 = dim > 2 ? query[2] : 0;
    this.size = 0;
    // (topKey, topIdx): the heap's maximum once it is full; nothing at or after it can enter.
    let topKey = Infinity;
    let topIdx = 0xffffffff;
    let sp = 0;
    let climb = leaves + q;
    for (;;) {
      const up = parents[climb];
      const rec = up >>> 1;
      if (rec === leaves) break;
      const side = 1 - (up & 1);
      stackNode[sp] = links[4 * rec + side];
      stackBound[sp] = boxKey(boxes, rec * w + side * 2 * dim, dim, query, x0, x1, x2);
      stackMin[sp++] = links[4 * rec + 2 + side];
      while (sp > 0) {
        const node = stackNode[--sp];
        const bound = stackBound[sp];
        if (bound > topKey || (bound === topKey && stackMin[sp] >= topIdx)) continue;
        if (node >= leaves) {
          // A leaf's box is its point: its bound is its key.
          this.push(bound, stackMin[sp], node - leaves);
          if (this.size === k) {
            topKey = heapKey[0];
            topIdx = heapIdx[0];
          }
          continue;
        }
        const first = ranges[2 * node];
        const last = ranges[2 * node + 1];
        if (last - first < LEAF_RANGE) {
          for (let p = first; p <= last; p++) {
            const key = pointKey(xs, p, dim, query, x0, x1, x2);
            if (key > topKey) continue;
            const o = order[p];
            if (key === topKey && o >= topIdx) continue;
            this.push(key, o, p);
            if (this.size === k) {
              topKey = heapKey[0];
              topIdx = heapIdx[0];
            }
          }
          continue;
        }
        const bl = boxKey(boxes, node * w, dim, query, x0, x1, x2);
        const br = boxKey(boxes, node * w + 2 * dim, dim, query, x0, x1, x2);
        const nearLeft = bl <= br;
        stackNode[sp] = links[4 * node + (nearLeft ? 1 : 0)];
        stackBound[sp] = nearLeft ? br : bl;
        stackMin[sp++] = links[4 * node + (nearLeft ? 3 : 2)];
        stackNode[sp] = links[4 * node + (nearLeft ? 0 : 1)];
        stackBound[sp] = nearLeft ? bl : br;
        stackMin[sp++] = links[4 * node + (nearLeft ? 2 : 3)];
      }
      climb = rec;
      // Stop when every point outside `climb`'s subtree is provably after the heap's top.
      if (this.size === k && escapeKey(this.bvh, climb, query) > topKey) break;
    }
  }

  /** Inserts (key, idx, pos) into the heap (the caller checked that it belongs there). */
  private push(key: number, idx: number, pos: number): void {
    const { k, heapKey, heapIdx, heapPos } = this;
    let i: number;
    if (this.size < k) {
      i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        const pk = heapKey[parent];
        if (pk > key || (pk === key && heapIdx[parent] > idx)) break;
        heapKey[i] = pk;
        heapIdx[i] = heapIdx[parent];
        heapPos[i] = heapPos[parent];
        i = parent;
      }
    } else {
      i = siftDown(heapKey, heapIdx, heapPos, k, key, idx);
    }
    heapKey[i] = key;
    heapIdx[i] = idx;
    heapPos[i] = pos;
  }

  /** Writes the heap in ascending order to keys/points[out …]; empties the heap. */
  drain(keys: Float32Array, points: Uint32Array, out: number): void {
    const { heapKey, heapIdx, heapPos } = this;
    for (let r = this.size - 1; r >= 0; r--) {
      keys[out + r] = heapKey[0];
      points[out + r] = heapPos[0];
      // Move the last element to the root of the heap of size r and sift it down.
      const key = heapKey[r];
      const idx = heapIdx[r];
      const pos = heapPos[r];
      const i = siftDown(heapKey, heapIdx, heapPos, r, key, idx);
      heapKey[i] = key;
      heapIdx[i] = idx;
      heapPos[i] = pos;
    }
    this.size = 0;
  }
}

/** Sifts a hole down from the root of a max-heap of `size` until (key, idx) fits; returns the hole. */
function siftDown(
  heapKey: Float32Array,
  heapIdx: Uint32Array,
  heapPos: Uint32Array,
  size: number,
  key: number,
  idx: number,
): number {
  let i = 0;
  for (;;) {
    const a = 2 * i + 1;
    if (a >= size) return i;
    const b = a + 1;
    let m = a;
    if (b < size && (heapKey[b] > heapKey[a] || (heapKey[b] === heapKey[a] && heapIdx[b] > heapIdx[a]))) m = b;
    if (heapKey[m] < key || (heapKey[m] === key && heapIdx[m] < idx)) return i;
    heapKey[i] = heapKey[m];
    heapIdx[i] = heapIdx[m];
    heapPos[i] = heapPos[m];
    i = m;
  }
}
