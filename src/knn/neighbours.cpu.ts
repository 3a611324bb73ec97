/**
 * The k nearest neighbours of every point on the CPU, by traversal of the linear BVH (src/bvh/layout.ts) — the one
 * CPU k-NN: the public knnCpu / kthSquaredDistancesCpu / coreDistances (knn.cpu.ts, core.ts) and the EMST's k-NN
 * phase (src/emst/boruvka.cpu.ts, on threads in src/emst/neighbours.threads.ts) all run this search. For the EMST: the
 * squared core distances of mutual reachability (core²(i) = key of i's minSamples-th neighbour, i excluded by
 * index, a duplicate being a neighbour at key 0; DESIGN.md, HDBSCAN* semantics) and the candidate lists that let
 * Borůvka settle most points without a traversal (boruvka.cpu.ts).
 *
 * Important! Neighbours are ranked by (key, original index): for a fixed query that is exactly the canonical
 * (key, min, max) order of its edges, so the first neighbour in another component is the query's exact best edge,
 * ties included. Keys are computed as in distance.cpu.ts.
 *
 * Each query climbs from its leaf and searches sibling subtrees top-down with a bounded sorted list (topk.cpu.ts),
 * pruning a subtree once the list is full and the subtree's box bound (and smallest original index, at equal keys)
 * cannot beat its last entry; the climb stops once everything outside the ancestor's subtree is provably farther
 * than that entry (keys.cpu.ts, escapeKey). (Processing the points of a small subtree together, with one traversal
 * for the group and a scan of its candidates per point, was measured slower here: the heap work per candidate costs
 * more than the traversal it saves. Starting from the exact k-th key as the radius saved little (bench/RESULTS.md):
 * the climb and its pruning tests, not the list, are the cost.)
 */
import type { BvhCpu } from '../bvh/lbvh.cpu.js';
import { NONE, STACK_SIZE } from '../bvh/layout.js';
import { boxKey, boxKey2, escapeKey, escapeKey2, pointKey, pointKey2 } from './keys.cpu.js';
import { createSortedK, insertSorted, type SortedK } from './topk.cpu.js';

/**
 * Subtrees with fewer than this many points are scanned point by point (32 beat 8: bench/RESULTS.md): the scan
 * reads Morton-ordered rows sequentially and most of its points fail one comparison, where a descent pays a box key
 * and a stack entry per node.
 */
const SCAN_RANGE = 32;

/** n lists of k neighbours, ascending by (key, original index). */
export interface NeighbourLists {
  k: number;
  /** keys[i·k + r]: key (float32 squared distance) of the r-th neighbour of Morton position i. */
  keys: Float32Array;
  /** points[i·k + r]: Morton position of that neighbour. */
  points: Uint32Array;
}

/** The k nearest neighbours (1 ≤ k ≤ n − 1) of every point of `bvh`. */
export function nearestNeighbours(bvh: BvhCpu, k: number, period: Float32Array | null = null): NeighbourLists {
  const n = bvh.n;
  const lists: NeighbourLists = { k, keys: new Float32Array(n * k), points: new Uint32Array(n * k) };
  const search = new KnnSearch(bvh, k, period);
  for (let q = 0; q < n; q++) search.run(q, lists);
  return lists;
}

/**
 * One k-NN query at a time; the sorted list and the stack are reused. Queries are independent: worker threads
 * (src/worker.ts, neighbours.threads.ts) each run one over their ranges of Morton positions, into shared lists.
 */
export class KnnSearch {
  /** The last query's neighbours, ascending by (key, original index): `search` returns how many. */
  readonly best: SortedK;
  private readonly stackNode = new Int32Array(2 * STACK_SIZE + 4);
  private readonly stackBound = new Float64Array(2 * STACK_SIZE + 4);
  private readonly stackMin = new Uint32Array(2 * STACK_SIZE + 4);
  private readonly query: Float64Array;

  constructor(
    private readonly bvh: BvhCpu,
    readonly k: number,
    /** Periodic side lengths (keys.cpu.ts), or null. */
    private readonly period: Float32Array | null,
  ) {
    this.best = createSortedK(k);
    this.query = new Float64Array(bvh.dim);
  }

  /** Writes the k nearest neighbours of Morton position q into `lists`. */
  run(q: number, lists: NeighbourLists): void {
    const size = this.search(q);
    const best = this.best;
    const out = q * this.k;
    for (let r = 0; r < size; r++) {
      lists.keys[out + r] = best.key[r];
      lists.points[out + r] = best.pos[r];
    }
  }

  /** Finds the k nearest neighbours of Morton position q (itself excluded) into `best`; returns their number. */
  search(q: number): number {
    const { n, dim, sortedPoints: xs, order, links, boxes, ranges, parents } = this.bvh;
    const { k, best, stackNode, stackBound, stackMin, query, period } = this;
    const leaves = n - 1;
    const w = 2 * dim;
    for (let c = 0; c < dim; c++) query[c] = xs[q * dim + c];
    const x0 = query[0];
    const x1 = dim > 1 ? query[1] : 0;
    const x2 = dim > 2 ? query[2] : 0;
    // Important! Open 2D calls its kernels directly: V8 then inlines all of them (the dispatchers exceed its budget).
    const flat2 = dim === 2 && period === null;
    // The sorted list's size and its last entry once full, the (key, index) a candidate must precede.
    let size = 0;
    let topKey = Infinity;
    let topIdx = NONE;
    let sp = 0;
    let climb = leaves + q;
    for (;;) {
      const up = parents[climb];
      const rec = up >>> 1;
      if (rec === leaves) break;
      const side = 1 - (up & 1);
      const sib = links[4 * rec + side];
      stackNode[sp] = sib;
      // The sibling's box, or its point when it is a leaf (layout.ts: bit for bit the key to lo = hi = the point).
      if (sib >= leaves) {
        stackBound[sp] = flat2
          ? pointKey2(xs, sib - leaves, x0, x1)
          : pointKey(xs, sib - leaves, dim, query, x0, x1, x2, period);
      } else {
        const o = sib * w;
        stackBound[sp] = flat2 ? boxKey2(boxes, o, x0, x1) : boxKey(boxes, o, dim, query, x0, x1, x2, period);
      }
      stackMin[sp++] = links[4 * rec + 2 + side];
      while (sp > 0) {
        const node = stackNode[--sp];
        const bound = stackBound[sp];
        if (bound > topKey || (bound === topKey && stackMin[sp] >= topIdx)) continue;
        // A leaf is scanned as a range of one point (its bound is its key).
        const first = node >= leaves ? node - leaves : ranges[2 * node];
        const last = node >= leaves ? node - leaves : ranges[2 * node + 1];
        if (last - first < SCAN_RANGE) {
          for (let p = first; p <= last; p++) {
            const key = flat2 ? pointKey2(xs, p, x0, x1) : pointKey(xs, p, dim, query, x0, x1, x2, period);
            if (key > topKey) continue;
            const idx = order[p];
            if (key === topKey && idx >= topIdx) continue;
            size = insertSorted(best, size, k, key, idx, p);
            if (size === k) {
              topKey = best.key[k - 1];
              topIdx = best.idx[k - 1];
            }
          }
          continue;
        }
        // The children's boxes (adjacent records when both are internal), or a leaf child's point.
        const l = links[4 * node];
        const r = links[4 * node + 1];
        let bl: number;
        let br: number;
        if (l >= leaves)
          bl = flat2 ? pointKey2(xs, l - leaves, x0, x1) : pointKey(xs, l - leaves, dim, query, x0, x1, x2, period);
        else bl = flat2 ? boxKey2(boxes, l * w, x0, x1) : boxKey(boxes, l * w, dim, query, x0, x1, x2, period);
        if (r >= leaves)
          br = flat2 ? pointKey2(xs, r - leaves, x0, x1) : pointKey(xs, r - leaves, dim, query, x0, x1, x2, period);
        else br = flat2 ? boxKey2(boxes, r * w, x0, x1) : boxKey(boxes, r * w, dim, query, x0, x1, x2, period);
        // Push the farther child first, so that the nearer is searched first.
        const near = bl <= br ? 0 : 1;
        stackNode[sp] = links[4 * node + 1 - near];
        stackBound[sp] = near === 0 ? br : bl;
        stackMin[sp++] = links[4 * node + 3 - near];
        stackNode[sp] = links[4 * node + near];
        stackBound[sp] = near === 0 ? bl : br;
        stackMin[sp++] = links[4 * node + 2 + near];
      }
      climb = rec;
      // Stop when every point outside `climb`'s subtree is provably after the list's last entry.
      if (size < k) continue;
      if ((flat2 ? escapeKey2(this.bvh, climb, x0, x1) : escapeKey(this.bvh, climb, query)) > topKey) break;
    }
    return size;
  }
}
