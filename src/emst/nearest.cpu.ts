/**
 * The nearest point in a different component, by traversal of the linear BVH (src/bvh/layout.ts): seed 002
 * (Prokopenko, Sao, Lebrun-Grandié, ../shared/seeds/002), §3, Algorithm 2, with its two optimizations —
 *  1. subtree skipping: a subtree whose points all carry the query's label is never entered (uniformity is the
 *     prefix-sum test of DESIGN.md: changes[first] === changes[last] along the Morton order);
 *  2. radius pruning by an upper bound on the component's shortest outgoing edge —
 * and the CPU twin of shaders/emst/nearest.wgsl. What the sequential CPU adds:
 *  - the radius is the component's best edge found so far (seed 002 mentions this "extreme case" of
 *    optimization 2), so one boundary point's find prunes every later point of its component;
 *  - a subtree of at most LEAF_RANGE points is scanned in a tight loop over the Morton-ordered coordinates
 *    instead of being descended (same candidates, fewer stack operations).
 * For mutual reachability a subtree's lower bound is max(box key · ia2, own core², smallest core² in the subtree),
 * as fast_hdbscan prunes.
 *
 * Important! Pruning keeps `<=`: a subtree whose lower bound equals the radius is still entered unless its
 * smallest original index proves that no edge in it can win the (key, min, max) tie-break. Without `<=` equal
 * candidates never reach the tie-break; without the index test all-duplicate inputs are quadratic.
 */
import type { BvhCpu } from '../bvh/lbvh.cpu.js';
import { STACK_SIZE } from '../bvh/layout.js';
import { boxKey, boxKey2, escapeKey, escapeKey2, pointKey, pointKey2 } from '../knn/keys.cpu.js';

const f32 = Math.fround;

/** Subtrees with at most this many points are scanned point by point (4 to 32 measured within noise). */
const LEAF_RANGE = 8;

/** The per-component best outgoing edge, indexed by component label (the component's smallest Morton position). */
export interface ComponentBest {
  /** Key of the best edge (float32 squared weight), +∞ when none is known. */
  key: Float32Array;
  /** Smaller original endpoint index. */
  lo: Uint32Array;
  /** Larger original endpoint index. */
  hi: Uint32Array;
  /** Morton position of the endpoint inside the component. */
  inside: Uint32Array;
  /** Morton position of the endpoint outside the component. */
  outside: Uint32Array;
}

/** Mutual reachability inputs, all in Morton order. */
export interface Reachability {
  /** Squared core distance per Morton position. */
  core2: Float32Array;
  /** Smallest squared core distance per internal node. */
  minCore2: Float32Array;
  /** fround(1 / alpha²). */
  ia2: number;
}

/** Traversal state reused for every query of every round (no per-query allocation). */
export class NearestOtherComponent {
  /** After search(): Morton position of the query's own best candidate if it beat the starting bound, else −1. */
  foundAt = -1;
  /**
   * After search(): that candidate's key; else the smallest bound of what was discarded, which no edge from the
   * query to another component undercuts now or in any later round (components only grow).
   */
  foundKey = 0;

  // The stack holds at most one pending sibling per level plus the node being expanded.
  private readonly stackNode = new Int32Array(2 * STACK_SIZE + 4);
  private readonly stackBound = new Float32Array(2 * STACK_SIZE + 4);
  private readonly stackMin = new Uint32Array(2 * STACK_SIZE + 4);
  private readonly query: Float64Array;

  constructor(
    private readonly bvh: BvhCpu,
    /** Component label per Morton position. */
    private readonly label: Uint32Array,
    /** Prefix count of label changes along the Morton order. */
    private readonly changes: Uint32Array,
    private readonly best: ComponentBest,
    /** Mutual reachability, or null for the Euclidean MST. */
    private readonly mr: Reachability | null,
    /** Periodic side lengths (src/knn/keys.cpu.ts), or null for an open box. */
    private readonly period: Float32Array | null = null,
    /** The scale cut: keys below it are not edges (0 for none). */
    private readonly cut = 0,
  ) {
    this.query = new Float64Array(bvh.dim);
  }

  /**
   * Searches for an edge from Morton position q to another component that precedes its component's current best,
   * and records the best one found there. Sets foundAt / foundKey.
   *
   * The traversal climbs from q's leaf towards the root and searches each sibling subtree top-down (nearer child
   * first); it stops climbing once everything outside the ancestor's subtree is provably farther than the radius
   * (src/knn/keys.cpu.ts, escapeKey: the ancestor must be a whole Morton cell). Most queries never come near the root.
   */
  search(q: number): void {
    const { n, dim, sortedPoints: xs, order, links, boxes, ranges, parents } = this.bvh;
    const { label, changes, stackNode, stackBound, stackMin, query, best } = this;
    const core2 = this.mr === null ? null : this.mr.core2;
    const ia2 = this.mr === null ? 1 : this.mr.ia2;
    const leaves = n - 1;
    const c = label[q];
    const oq = order[q];
    const K = best.key[c];
    // The query's own radius and best candidate: its exact nearest other-component point, once one is found
    // at or below the component's best key K.
    let R = K;
    let BL = 0xffffffff;
    let BH = 0xffffffff;
    let found = -1;
    // The smallest lower bound of anything discarded: with nothing found, no candidate of q has a smaller key.
    let pruned = Infinity;
    const coreQ = core2 === null ? 0 : core2[q];
    this.foundAt = -1;
    if (coreQ > R) {
      this.foundKey = coreQ;
      return;
    }
    for (let k = 0; k < dim; k++) query[k] = xs[q * dim + k];
    const x0 = query[0];
    const x1 = dim > 1 ? query[1] : 0;
    const x2 = dim > 2 ? query[2] : 0;
    // Important! Open 2D calls its kernels directly: V8 then inlines all of them (the dispatchers exceed its budget).
    const flat2 = dim === 2 && this.period === null;

    let sp = 0;
    let climb = leaves + q;
    for (;;) {
      // Climb one level: queue the sibling of `climb`, then search everything queued.
      const up = parents[climb];
      const rec = up >>> 1;
      if (rec === leaves) break; // `climb` is the root
      const sib = links[4 * rec + 1 - (up & 1)];
      stackNode[sp] = sib;
      stackBound[sp] = this.childBound(sib, c, coreQ, x0, x1, x2);
      stackMin[sp++] = links[4 * rec + 3 - (up & 1)];
      while (sp > 0) {
        const node = stackNode[--sp];
        const bound = stackBound[sp];
        if (bound >= R) {
          if (bound > R) {
            if (bound < pruned) pruned = bound;
            continue;
          }
          // Every candidate here has key >= R: only a smaller (min, max) index pair can win.
          const m = stackMin[sp];
          const a = m < oq ? m : oq;
          const b = m < oq ? oq : m;
          if (!(a < BL || (a === BL && b < BH))) {
            if (bound < pruned) pruned = bound;
            continue;
          }
        }
        if (node >= leaves) {
          // A leaf's bound is the candidate's key (childBound: its point's key; and R >= bound here).
          if (bound < this.cut) continue; // below the scale cut: not an edge
          const m = stackMin[sp];
          R = bound;
          BL = m < oq ? m : oq;
          BH = m < oq ? oq : m;
          found = node - leaves;
          continue;
        }
        const first = ranges[2 * node];
        const last = ranges[2 * node + 1];
        if (last - first < LEAF_RANGE) {
          for (let p = first; p <= last; p++) {
            if (label[p] === c) continue;
            let key = flat2 ? pointKey2(xs, p, x0, x1) : pointKey(xs, p, dim, query, x0, x1, x2, this.period);
            if (key < this.cut) continue; // below the scale cut: not an edge
            if (core2 !== null) {
              if (ia2 !== 1) key = f32(key * ia2);
              if (coreQ > key) key = coreQ;
              if (core2[p] > key) key = core2[p];
            }
            if (key > R) {
              if (key < pruned) pruned = key;
              continue;
            }
            const o = order[p];
            const a = o < oq ? o : oq;
            const b = o < oq ? oq : o;
            if (key < R || a < BL || (a === BL && b < BH)) {
              R = key;
              BL = a;
              BH = b;
              found = p;
            } else if (key < pruned) pruned = key;
          }
          continue;
        }
        // Push the farther child first.
        const l = links[4 * node];
        const r = links[4 * node + 1];
        const bl = this.childBound(l, c, coreQ, x0, x1, x2);
        const br = this.childBound(r, c, coreQ, x0, x1, x2);
        const nearLeft = bl <= br;
        stackNode[sp] = nearLeft ? r : l;
        stackBound[sp] = nearLeft ? br : bl;
        stackMin[sp++] = links[4 * node + (nearLeft ? 3 : 2)];
        stackNode[sp] = nearLeft ? l : r;
        stackBound[sp] = nearLeft ? bl : br;
        stackMin[sp++] = links[4 * node + (nearLeft ? 2 : 3)];
      }
      climb = rec;
      // Stop when every point outside `climb`'s subtree is provably farther than R.
      let outside = flat2 ? escapeKey2(this.bvh, climb, x0, x1) : escapeKey(this.bvh, climb, query);
      if (core2 !== null) {
        if (ia2 !== 1) outside = f32(outside * ia2);
        if (coreQ > outside) outside = coreQ;
      }
      if (outside > R) {
        if (outside < pruned) pruned = outside;
        break;
      }
    }
    if (found >= 0) {
      if (R < K || (R === K && (BL < best.lo[c] || (BL === best.lo[c] && BH < best.hi[c])))) {
        best.key[c] = R;
        best.lo[c] = BL;
        best.hi[c] = BH;
        best.inside[c] = q;
        best.outside[c] = found;
      }
      this.foundAt = found;
      this.foundKey = R;
    } else {
      this.foundKey = pruned;
    }
  }

  /**
   * Lower bound on the key of any edge from the query into `child` (a unified index): the key to its box, or to its
   * point when it is a leaf (bit for bit the key to the box lo = hi = the point, keys.cpu.ts); +∞ when every point
   * under it is in component c.
   */
  private childBound(child: number, c: number, coreQ: number, x0: number, x1: number, x2: number): number {
    const { n, dim, sortedPoints: xs, boxes, ranges } = this.bvh;
    const { label, changes, query } = this;
    const leaves = n - 1;
    const flat2 = dim === 2 && this.period === null;
    let key: number;
    if (child >= leaves) {
      const p = child - leaves;
      if (label[p] === c) return Infinity;
      key = flat2 ? pointKey2(xs, p, x0, x1) : pointKey(xs, p, dim, query, x0, x1, x2, this.period);
    } else {
      const f = ranges[2 * child];
      if (changes[f] === changes[ranges[2 * child + 1]] && label[f] === c) return Infinity;
      const o = child * 2 * dim;
      key = flat2 ? boxKey2(boxes, o, x0, x1) : boxKey(boxes, o, dim, query, x0, x1, x2, this.period);
    }
    if (this.mr !== null) {
      const { core2, minCore2, ia2 } = this.mr;
      if (ia2 !== 1) key = f32(key * ia2);
      if (coreQ > key) key = coreQ;
      const mc = child >= leaves ? core2[child - leaves] : minCore2[child];
      if (mc > key) key = mc;
    }
    return key;
  }
}

/** The smallest core² under every internal node (children finished before parents, by a reverse preorder). */
export function subtreeMinCore2(bvh: BvhCpu, core2: Float32Array): Float32Array {
  const { n, links } = bvh;
  const leaves = n - 1;
  const out = new Float32Array(Math.max(leaves, 1));
  if (n < 2) return out;
  const pre = new Uint32Array(leaves);
  const stack = new Uint32Array(leaves);
  let count = 0;
  let sp = 0;
  stack[sp++] = 0;
  while (sp > 0) {
    const i = stack[--sp];
    pre[count++] = i;
    if (links[4 * i] < leaves) stack[sp++] = links[4 * i];
    if (links[4 * i + 1] < leaves) stack[sp++] = links[4 * i + 1];
  }
  for (let t = count - 1; t >= 0; t--) {
    const i = pre[t];
    const l = links[4 * i];
    const r = links[4 * i + 1];
    const a = l < leaves ? out[l] : core2[l - leaves];
    const b = r < leaves ? out[r] : core2[r - leaves];
    out[i] = a < b ? a : b;
  }
  return out;
}
