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
 * Each query climbs from its leaf and searches sibling subtrees top-down with a bounded max-heap (topk.cpu.ts),
 * pruning a subtree once the heap is full and the subtree's box bound (and smallest original index, at equal keys)
 * cannot beat the heap's top; the climb stops once everything outside the ancestor's subtree is provably farther
 * than the top (keys.cpu.ts, escapeKey). (Processing the points of a small subtree together, with one traversal for
 * the group and a scan of its candidates per point, was measured slower here: the heap work per candidate costs
 * more than the traversal it saves.)
 */
import type { BvhCpu } from '../bvh/lbvh.cpu.js';
import { STACK_SIZE } from '../bvh/layout.js';
import { boxKey, escapeKey, pointKey } from './keys.cpu.js';
import { LEAF_RANGE } from './nearest.cpu.js';
import { TopK } from './topk.cpu.js';

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

/** One k-NN query at a time; the heap and stack are reused. */
class KnnSearch {
  readonly best: TopK;
  private readonly stackNode = new Int32Array(2 * STACK_SIZE + 4);
  private readonly stackBound = new Float32Array(2 * STACK_SIZE + 4);
  private readonly stackMin = new Uint32Array(2 * STACK_SIZE + 4);
  private readonly query: Float64Array;

  constructor(
    private readonly bvh: BvhCpu,
    readonly k: number,
    /** Periodic side lengths (keys.cpu.ts), or null. */
    private readonly period: Float32Array | null,
  ) {
    this.best = new TopK(k);
    this.query = new Float64Array(bvh.dim);
  }

  /** Writes the k nearest neighbours of Morton position q into `lists`. */
  run(q: number, lists: NeighbourLists): void {
    const { n, dim, sortedPoints: xs, order, links, boxes, ranges, parents } = this.bvh;
    const { k, best, stackNode, stackBound, stackMin, query, period } = this;
    const leaves = n - 1;
    const w = 4 * dim;
    for (let c = 0; c < dim; c++) query[c] = xs[q * dim + c];
    const x0 = query[0];
    const x1 = dim > 1 ? query[1] : 0;
    const x2 = dim > 2 ? query[2] : 0;
    best.reset();
    let sp = 0;
    let climb = leaves + q;
    for (;;) {
      const up = parents[climb];
      const rec = up >>> 1;
      if (rec === leaves) break;
      const side = 1 - (up & 1);
      stackNode[sp] = links[4 * rec + side];
      stackBound[sp] = boxKey(boxes, rec * w + side * 2 * dim, dim, query, x0, x1, x2, period);
      stackMin[sp++] = links[4 * rec + 2 + side];
      while (sp > 0) {
        const node = stackNode[--sp];
        const bound = stackBound[sp];
        if (bound > best.topKey || (bound === best.topKey && stackMin[sp] >= best.topIdx)) continue;
        if (node >= leaves) {
          best.offer(bound, stackMin[sp], node - leaves); // a leaf's box is its point: its bound is its key
          continue;
        }
        const first = ranges[2 * node];
        const last = ranges[2 * node + 1];
        if (last - first < LEAF_RANGE) {
          for (let p = first; p <= last; p++) {
            const key = pointKey(xs, p, dim, query, x0, x1, x2, period);
            if (key <= best.topKey) best.offer(key, order[p], p);
          }
          continue;
        }
        const bl = boxKey(boxes, node * w, dim, query, x0, x1, x2, period);
        const br = boxKey(boxes, node * w + 2 * dim, dim, query, x0, x1, x2, period);
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
      if (best.size === k && escapeKey(this.bvh, climb, query) > best.topKey) break;
    }
    best.drain(lists.keys, lists.points, q * k);
  }
}
