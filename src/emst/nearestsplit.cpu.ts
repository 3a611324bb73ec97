/**
 * CPU twin of Borůvka's subtree-window traversal (issue 19; src/emst/nearestsplit.ts, shaders/emst/subtree_roots.wgsl
 * and nearest_split.wgsl): the roots of every tree window, and one round's candidates searched window by window
 * with the state the GPU keeps between its dispatches. Tests hold both against the GPU kernels and against brute
 * force; the CPU backend's own rounds are emst/rounds.cpu.ts (a different traversal, the same edges).
 *
 * subtreeRootsCpu states the roots by their definition (a node whose range lies in one window and whose parent's
 * does not, found by descending from the root and reading every child's own range), not by the GPU pass's split
 * arithmetic; nearestSplitCpu mirrors the kernel step for step (key bits, the box test's SLACK, the stack order).
 */
import type { BvhCpu } from '../bvh/lbvh.cpu.js';
import { NONE } from '../bvh/layout.js';
import { boxKey, squaredDistance } from '../knn/keys.cpu.js';
import type { Window } from '../gpu/bigarray.js';

const f32 = Math.fround;
const bitsView = new Uint32Array(1);
const floatView = new Float32Array(bitsView.buffer);
/** The u32 bit pattern of a float32 (keys compare as these). */
export function keyBits(x: number): number {
  floatView[0] = x;
  return bitsView[0];
}

/** The leaves [first, last] of unified node c (bvh/layout.ts): an internal node's range, or a leaf's position. */
function rangeOf(n: number, ranges: Uint32Array, c: number): [number, number] {
  if (c >= n - 1) return [c - (n - 1), c - (n - 1)];
  return [ranges[2 * c], ranges[2 * c + 1]];
}

/**
 * The roots of tree windows of `step` leaves over n ≥ 2 leaves, window by window, each list sorted: the maximal
 * subtrees whose leaves lie in one window.
 */
export function subtreeRootsCpu(n: number, links: Uint32Array, ranges: Uint32Array, step: number): number[][] {
  const out: number[][] = Array.from({ length: Math.ceil(n / step) }, () => []);
  const stack = [0];
  while (stack.length > 0) {
    const c = stack.pop()!;
    const [a, b] = rangeOf(n, ranges, c);
    if (Math.floor(a / step) === Math.floor(b / step)) {
      out[Math.floor(a / step)].push(c);
      continue;
    }
    stack.push(links[4 * c], links[4 * c + 1]);
  }
  for (const list of out) list.sort((x, y) => x - y);
  return out;
}

/**
 * For every record, the label its two children's leaves all share, NONE where they differ (emst/nodelabels.wgsl's
 * result): 2 words per record, n records (the header's right child NONE).
 */
export function childLabelsCpu(bvh: BvhCpu, label: Uint32Array): Uint32Array {
  const { n, links, ranges } = bvh;
  const out = new Uint32Array(2 * n).fill(NONE);
  const uniform = (c: number): number => {
    if (c === NONE) return NONE;
    const [a, b] = rangeOf(n, ranges, c);
    for (let p = a + 1; p <= b; p++) if (label[p] !== label[a]) return NONE;
    return label[a];
  };
  for (let r = 0; r < n; r++) {
    out[2 * r] = uniform(links[4 * r]);
    out[2 * r + 1] = uniform(links[4 * r + 1]);
  }
  return out;
}

/** A round's state, in Morton positions (as the GPU round kernels hold it). */
export interface SplitRoundState {
  /** Component label per Morton position. */
  label: Uint32Array;
  /** Upper bound per component label, key bits. */
  ub: Uint32Array;
  /** childLabelsCpu of the labels. */
  childLabel: Uint32Array;
  /** The scale cut, key bits (0: none). */
  cut: number;
  /** Mutual reachability: squared core distances, per-record child minima (2 per record) and fround(1 / alpha²). */
  mr?: { core2: Float32Array; minCore2: Float32Array; ia2: number };
  period?: Float32Array;
}

/** The candidates of one round: key bits and the other end's Morton position (NONE, NONE for none). */
export interface SplitCandidates {
  key: Uint32Array;
  other: Uint32Array;
}

/** Work counted by nearestSplitCpu: leaf keys computed (candidates tested), subtrees of copies taken as one leaf. */
export interface SplitTraversalStats {
  leaves: number;
  equalSubtrees: number;
}

/** Whether internal node c's box is one point (emst/traverse.wgsl box_d2's `flat`: lo = hi on every axis). */
function flatBox(boxes: Float32Array, c: number, dim: number): boolean {
  const o = c * 2 * dim;
  for (let k = 0; k < dim; k++) if (boxes[o + k] !== boxes[o + dim + k]) return false;
  return true;
}

/**
 * emst/traverse.wgsl's equal_leaf (and nearest_split.wgsl's): for an internal node whose points are all one point,
 * the Morton position of its least-index leaf outside the query's component (its leftmost leaf, else the next), or
 * NONE to descend — also under mutual reachability unless that leaf's core is the subtree's least (`mc`) and no
 * scale cut applies.
 */
function equalLeaf(bvh: BvhCpu, s: SplitRoundState, c: number, comp: number, mc: number): number {
  const leaf0 = bvh.n - 1;
  let node = c;
  while (node < leaf0) node = bvh.links[4 * node];
  let k = node - leaf0;
  if (s.label[k] === comp) {
    k++;
    if (s.label[k] === comp) return NONE;
  }
  if (s.mr && (s.mr.core2[k] !== mc || s.cut !== 0)) return NONE;
  return k;
}

/**
 * nearest_split.wgsl on the CPU: every point's least (key, min index, max index) candidate in another component within
 * its upper bound, searched tree window by tree window from their roots (query windows change nothing on the CPU:
 * each query's state is carried from one tree window to the next as the GPU carries it in cand and bestOrig).
 * `stats`, when given, counts the work (tests: exact duplicates must not make it quadratic).
 */
export function nearestSplitCpu(
  bvh: BvhCpu,
  s: SplitRoundState,
  trees: readonly Window[],
  stats?: SplitTraversalStats,
): SplitCandidates {
  const { n, dim, links, boxes, order, sortedPoints } = bvh;
  const key = new Uint32Array(n).fill(NONE);
  const other = new Uint32Array(n).fill(NONE);
  if (n < 2) return { key, other };
  const step = trees[0].count;
  const roots = subtreeRootsCpu(n, links, bvh.ranges, step);
  const slack = 4 * dim + 8;
  const leaf0 = n - 1;
  const period = s.period ?? null;
  const q = new Float64Array(dim);
  const stack: number[] = [];
  const stackBound: number[] = [];
  for (let j = 0; j < n; j++) {
    for (let k = 0; k < dim; k++) q[k] = sortedPoints[j * dim + k];
    const myCore = s.mr ? s.mr.core2[j] : 0;
    const comp = s.label[j];
    const me = order[j];
    let bestKey = NONE;
    let bestOther = NONE;
    let bestLo = NONE;
    let bestHi = NONE;
    let radius = s.ub[comp];
    const leafKey = (k: number): number => {
      let w = squaredDistance(sortedPoints, dim, j, k, period);
      if (s.mr) w = Math.max(Math.max(myCore, s.mr.core2[k]), f32(w * s.mr.ia2));
      return keyBits(w);
    };
    const boxBound = (c: number): number => {
      let lb = boxKey(boxes, c * 2 * dim, dim, q, q[0], q[1], q[2], period);
      if (s.mr) lb = Math.max(f32(lb * s.mr.ia2), myCore);
      return lb;
    };
    const tryLeaf = (k: number) => {
      if (stats) stats.leaves++;
      const kk = leafKey(k);
      const o = order[k];
      const lo = Math.min(me, o);
      const hi = Math.max(me, o);
      const less = kk !== bestKey ? kk < bestKey : lo !== bestLo ? lo < bestLo : hi < bestHi;
      if (kk >= s.cut && kk <= radius && less) {
        bestKey = kk;
        bestOther = k;
        bestLo = lo;
        bestHi = hi;
        radius = kk;
      }
    };
    for (let w = 0; w < trees.length; w++) {
      for (const root of roots[w]) {
        if (root >= leaf0) {
          if (s.label[root - leaf0] !== comp) tryLeaf(root - leaf0);
          continue;
        }
        if (keyBits(boxBound(root)) > radius + slack) continue;
        stack.length = 0;
        stackBound.length = 0;
        let rec = root;
        for (;;) {
          const lower = [NONE, NONE];
          for (let side = 0; side < 2; side++) {
            const c = links[4 * rec + side];
            if (c === NONE || s.childLabel[2 * rec + side] === comp) continue;
            if (c >= leaf0) {
              tryLeaf(c - leaf0);
              continue;
            }
            let lb = boxBound(c);
            const mc = s.mr ? s.mr.minCore2[2 * rec + side] : 0;
            if (s.mr) lb = Math.max(lb, mc);
            const bits = keyBits(lb);
            if (bits > radius + slack) continue;
            // A subtree of copies of one point: only its least-index leaf can win.
            if (flatBox(boxes, c, dim)) {
              const k = equalLeaf(bvh, s, c, comp, mc);
              if (k !== NONE) {
                if (stats) stats.equalSubtrees++;
                tryLeaf(k);
                continue;
              }
            }
            lower[side] = bits;
          }
          const [l0, l1] = lower;
          if (l0 !== NONE && l1 !== NONE) {
            if (l0 <= l1) {
              stack.push(links[4 * rec + 1], links[4 * rec]);
              stackBound.push(l1, l0);
            } else {
              stack.push(links[4 * rec], links[4 * rec + 1]);
              stackBound.push(l0, l1);
            }
          } else if (l0 !== NONE) {
            stack.push(links[4 * rec]);
            stackBound.push(l0);
          } else if (l1 !== NONE) {
            stack.push(links[4 * rec + 1]);
            stackBound.push(l1);
          }
          let next = NONE;
          while (stack.length > 0) {
            const c = stack.pop()!;
            if (stackBound.pop()! <= radius + slack) {
              next = c;
              break;
            }
          }
          if (next === NONE) break;
          rec = next;
        }
      }
    }
    key[j] = bestKey;
    other[j] = bestOther;
  }
  return { key, other };
}
