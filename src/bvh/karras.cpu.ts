/**
 * Karras 2012, "Maximizing Parallelism in the Construction of BVHs, Octrees, and k-d Trees" (HPG'12, §3–4,
 * Fig. 4), cited by seed 002 §2 ("ArborX"): every internal node of the binary radix tree over the sorted codes is
 * found independently — its direction, the far end of its range, and its split — from the longest common prefix
 * δ of neighbouring keys. Duplicate codes are separated by augmenting each key with its position (§4: δ falls
 * back to 64 + clz(i ⊕ j)). CPU twin of `shaders/bvh/karras.wgsl`; layout in `layout.ts`.
 */
import { NONE } from './layout.js';

export interface Hierarchy {
  /** n records × 4 u32: left child, right child, minIndex(left), minIndex(right) (the last two set by the refit). */
  links: Uint32Array;
  /** (n − 1) × 2 u32: first and last leaf (Morton positions) of internal node i. */
  ranges: Uint32Array;
  /** 2n − 1 u32 per unified index: (parent record << 1) | side. */
  parents: Uint32Array;
}

/** δ(i, j): common prefix length of (code_i, i) and (code_j, j); −1 when j is outside [0, n). */
function delta(codes: Uint32Array, n: number, i: number, j: number): number {
  if (j < 0 || j >= n) return -1;
  const hi = (codes[2 * i + 1] ^ codes[2 * j + 1]) >>> 0;
  if (hi !== 0) return Math.clz32(hi);
  const lo = (codes[2 * i] ^ codes[2 * j]) >>> 0;
  if (lo !== 0) return 32 + Math.clz32(lo);
  return 64 + Math.clz32(i ^ j);
}

/** Builds the hierarchy of n sorted codes ((low, high) pairs, ties already in index order). */
export function karrasCpu(codes: Uint32Array, n: number): Hierarchy {
  const links = new Uint32Array(4 * Math.max(n, 1));
  const ranges = new Uint32Array(2 * Math.max(n - 1, 0));
  const parents = new Uint32Array(Math.max(2 * n - 1, 0));
  if (n === 0) return { links, ranges, parents };
  const h = { links, ranges, parents };
  linkHeader(h, n);
  for (let i = 0; i < n - 1; i++) {
    const [first, last, split] = determineRange(codes, n, i);
    linkNode(h, n, i, first, last, split);
  }
  return h;
}

/** Writes the header record (n − 1): its left child is the root (unified index 0), its right child NONE. */
function linkHeader(h: Hierarchy, n: number): void {
  h.links[4 * (n - 1)] = 0;
  h.links[4 * (n - 1) + 1] = NONE;
  h.parents[0] = (n - 1) << 1;
}

/**
 * Writes internal node i covering leaves [first, last] and split after leaf `split`: its children (a child whose
 * range is one leaf is that leaf, unified index n − 1 + leaf), its range, and the children's parent words.
 */
function linkNode(h: Hierarchy, n: number, i: number, first: number, last: number, split: number): void {
  const left = first === split ? n - 1 + split : split;
  const right = last === split + 1 ? n + split : split + 1;
  h.links[4 * i] = left;
  h.links[4 * i + 1] = right;
  h.ranges[2 * i] = first;
  h.ranges[2 * i + 1] = last;
  h.parents[left] = i << 1;
  h.parents[right] = (i << 1) | 1;
}

/** Karras Fig. 4 for internal node i: [first, last] of its range and its split γ (left child ends at γ). */
function determineRange(codes: Uint32Array, n: number, i: number): [number, number, number] {
  const d = delta(codes, n, i, i + 1) - delta(codes, n, i, i - 1) > 0 ? 1 : -1;
  const dMin = delta(codes, n, i, i - d);
  let lMax = 2;
  while (delta(codes, n, i, i + lMax * d) > dMin) lMax *= 2;
  let l = 0;
  for (let t = lMax >>> 1; t >= 1; t >>>= 1) {
    if (delta(codes, n, i, i + (l + t) * d) > dMin) l += t;
  }
  const j = i + l * d;
  const dNode = delta(codes, n, i, j);
  let s = 0;
  let t = l;
  do {
    t = (t + 1) >>> 1;
    if (delta(codes, n, i, i + (s + t) * d) > dNode) s += t;
  } while (t > 1);
  const split = i + s * d + Math.min(d, 0);
  return [Math.min(i, j), Math.max(i, j), split];
}

/**
 * karrasCpu's hierarchy, bit for bit, built sequentially in O(n) without a search per node (faster than
 * karrasCpu: bench/RESULTS.md): the binary radix tree is the Cartesian tree of δ_j = δ(j, j + 1) over the n − 1 splits. The node split
 * at j spans the leaves between the nearest splits on either side with a smaller δ (one monotonic stack finds
 * both); no δ inside a node equals its own (bit δ_j flips once in a sorted range). Karras numbers a node by the
 * end of its range that touches its parent's split: its last leaf when it is a left child, its first when a right
 * child — and the parent's split is the neighbouring split with the larger δ (the longer shared prefix). The root
 * (all leaves) is node 0. `buffer` allocates the outputs (a SharedArrayBuffer for worker threads).
 */
export function karrasSequentialCpu(
  codes: Uint32Array,
  n: number,
  buffer: (bytes: number) => ArrayBufferLike = (bytes) => new ArrayBuffer(bytes),
): Hierarchy {
  const links = new Uint32Array(buffer(16 * Math.max(n, 1)));
  const ranges = new Uint32Array(buffer(8 * Math.max(n - 1, 0)));
  const parents = new Uint32Array(buffer(4 * Math.max(2 * n - 1, 0)));
  if (n === 0) return { links, ranges, parents };
  const m = n - 1;
  const h = { links, ranges, parents };
  linkHeader(h, n);
  const d = new Int32Array(m);
  for (let j = 0; j < m; j++) d[j] = delta(codes, n, j, j + 1);
  // first[j], last[j]: the leaves of split j's node (after the previous smaller δ, up to the next smaller δ).
  const first = new Int32Array(m);
  const last = new Int32Array(m);
  const stack = new Int32Array(m);
  let sp = 0;
  for (let j = 0; j < m; j++) {
    const dj = d[j];
    while (sp > 0 && d[stack[sp - 1]] > dj) last[stack[--sp]] = j;
    first[j] = sp > 0 ? stack[sp - 1] + 1 : 0;
    stack[sp++] = j;
  }
  while (sp > 0) last[stack[--sp]] = m;
  for (let j = 0; j < m; j++) {
    const f = first[j];
    const l = last[j];
    // The node's index: 0 for the root, else the end of its range at its parent's split.
    const i = f === 0 ? (l === m ? 0 : l) : l === m ? f : d[f - 1] > d[l] ? f : l;
    linkNode(h, n, i, f, l, j);
  }
  return h;
}
