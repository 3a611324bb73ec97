/**
 * CPU twin of the GPU dendrogram (dendrogram.ts, shaders/cluster/linkage_*.wgsl): the same passes in the same order,
 * each kernel a loop (atomics become plain min / sequential union-find; every result is independent of the order
 * in which a kernel's threads run, so the twin's arrays equal the GPU's word for word). The independent oracle is
 * linkage.ts's singleLinkage (sequential Kruskal); the tests hold both to it.
 *
 * The algorithm (ours, after the "sided parents" of PANDORA — Sao, Prokopenko, Lebrun-Grandié, ICPP 2024 — as
 * ArborX fuses them into Borůvka, ArborX_BoruvkaHelpers.hpp updateSidedParents / computeParentsAndReorderEdges):
 * edge ranks are the canonical positions, so no two edges tie.
 *   1. Borůvka on the MST itself, ⌈log2 n⌉ + 1 rounds. Round r: every component finds its smallest outgoing edge
 *      α (`best`). Each edge e added in round r − 1 now lies inside one component K with α = α(K):
 *        e < α → e's sided parent is (α, the side of α that K is on): e hangs in the chain below that child of α;
 *        e > α → FOLLOW α: e's sided parent is decided by α's (step 2); no α (K is everything) → the root chain.
 *      In round 0 every point is a component: its α is its smallest incident edge, its parent in the dendrogram.
 *      Then the α edges are added (union-find) and the labels flattened.
 *   2. FOLLOW resolves by walking: from α's sided parent (p, s), if e < p that is e's; else continue from p's.
 *   3. Edges sorted by (sided parent, rank): each chain (the edges sharing a sided parent) ascends to its parent;
 *      an edge's dendrogram parent is the next edge of its chain, or the chain's sided parent for its last.
 *   4. Children: a point is the left (right) child of its parent when it is that edge's source (target); a chain's
 *      last edge is its parent's child on the recorded side; the chain's predecessor fills the remaining side.
 *   5. Sizes: an Euler tour of the dendrogram (enter and exit tokens per merge, one token per point), ranked with a
 *      sparse ruling set (a ruler per ~32 tokens walks its sublist; pointer jumping ranks the rulers, ⌈log2(R + 2)⌉
 *      passes): size = points between a merge's enter and exit tokens.
 * Passes: O(log n) in all, none per tree level.
 */

/** Marks: no edge / no parent. */
export const NONE = 0xffffffff;
/** A sided-parent code with this bit set means "FOLLOW the edge in the low bits". */
export const FOLLOW = 0x80000000;

/** The GPU dendrogram's arrays (dendrogram.ts's buffers, read back). */
export interface DendrogramArrays {
  /** m = n − 1 node ids: row i's child on its source's side (points < n, merges n + j). */
  left: Uint32Array;
  /** m node ids: row i's child on its target's side. */
  right: Uint32Array;
  /** m sizes: points under merge n + i. */
  size: Uint32Array;
  /** 2n − 1 node ids: each node's parent (points 0 … n − 1, merges n … 2n − 2); the root's is 0xffffffff. */
  parent: Uint32Array;
}

/** Borůvka rounds the GPU encodes for n points: ⌈log2 n⌉ merging rounds and one that finds nothing left. */
export function dendrogramRounds(n: number): number {
  return n < 2 ? 0 : 32 - Math.clz32(n - 1) + 1;
}

/** Sided-parent codes (steps 1–2): 2p + side (side 0: p's source side), 2m for the root chain. */
export function sidedParentsCpu(
  sources: Uint32Array,
  targets: Uint32Array,
  n: number,
): {
  codes: Uint32Array;
  pointParent: Uint32Array;
} {
  const m = sources.length;
  const ROOT = 2 * m;
  const label = Uint32Array.from({ length: n }, (_, i) => i);
  const best = new Uint32Array(n).fill(NONE); // init
  const added = new Uint32Array(m).fill(NONE);
  const sp = new Uint32Array(m).fill(NONE);
  const pointParent = new Uint32Array(n).fill(NONE);
  const find = (x: number) => {
    while (label[x] !== x) x = label[x];
    return x;
  };
  const rounds = dendrogramRounds(n);
  for (let r = 0; r < rounds; r++) {
    for (let e = 0; e < m; e++) {
      // min
      if (added[e] !== NONE) continue;
      const cu = label[sources[e]];
      const cv = label[targets[e]];
      best[cu] = Math.min(best[cu], e);
      best[cv] = Math.min(best[cv], e);
    }
    for (let e = 0; e < m; e++) {
      // sided
      if (r === 0 || added[e] !== r - 1) continue;
      const k = label[sources[e]];
      const a = best[k];
      if (a === NONE) sp[e] = ROOT;
      else if (e < a) sp[e] = 2 * a + (label[sources[a]] === k ? 0 : 1);
      else sp[e] = (FOLLOW | a) >>> 0;
    }
    for (let x = 0; x < n; x++) {
      // hook: only component labels have a best edge
      const a = best[x];
      if (a === NONE) continue;
      best[x] = NONE; // cleared for the next round
      if (r === 0) pointParent[x] = a;
      added[a] = r;
      const ra = find(sources[a]);
      const rb = find(targets[a]);
      if (ra !== rb) label[Math.max(ra, rb)] = Math.min(ra, rb);
    }
    for (let x = 0; x < n; x++) label[x] = find(x); // flatten
  }
  // resolve
  const codes = new Uint32Array(m);
  for (let e = 0; e < m; e++) codes[e] = resolveCode(sp, e, ROOT);
  return { codes, pointParent };
}

/** Step 2 for edge e (linkage_rounds.wgsl resolve). */
function resolveCode(sp: Uint32Array, e: number, root: number): number {
  let key = sp[e];
  if (key < FOLLOW) return key;
  let next = key & ~FOLLOW;
  for (;;) {
    key = sp[next];
    if (key >= FOLLOW) {
      next = key & ~FOLLOW;
      continue;
    }
    if (key === root) return key;
    const p = key >>> 1;
    if (e < p) return key;
    next = p;
  }
}

/** The whole dendrogram of n points from their MST in canonical order (sources < targets). */
export function dendrogramCpu(sources: Uint32Array, targets: Uint32Array, n: number): DendrogramArrays {
  const m = sources.length;
  const left = new Uint32Array(m).fill(NONE);
  const right = new Uint32Array(m).fill(NONE);
  const parent = new Uint32Array(Math.max(0, 2 * n - 1)).fill(NONE);
  if (m === 0) return { left, right, size: new Uint32Array(0), parent };
  const ROOT = 2 * m;
  const { codes, pointParent } = sidedParentsCpu(sources, targets, n);
  // Step 3: sort (code, rank); GPU: a stable radix sort of the codes, written in rank order.
  const order = Uint32Array.from({ length: m }, (_, i) => i).sort((a, b) => codes[a] - codes[b] || a - b);
  const pred = new Uint32Array(m).fill(NONE);
  for (let j = 0; j < m; j++) {
    // chains
    const e = order[j];
    const code = codes[e];
    if (j + 1 < m && codes[order[j + 1]] === code) {
      parent[n + e] = n + order[j + 1];
      pred[order[j + 1]] = e;
    } else if (code !== ROOT) {
      const p = code >>> 1;
      parent[n + e] = n + p;
      if (code & 1) right[p] = n + e;
      else left[p] = n + e;
    }
  }
  for (let x = 0; x < n; x++) {
    // points
    const a = pointParent[x];
    parent[x] = n + a;
    if (sources[a] === x) left[a] = x;
    else right[a] = x;
  }
  for (let e = 0; e < m; e++) {
    // children
    if (left[e] === NONE) left[e] = n + pred[e];
    if (right[e] === NONE) right[e] = n + pred[e];
  }
  return { left, right, size: eulerSizesCpu(left, right, n), parent };
}

/** Tokens per ruler on average in step 5's list ranking (linkage_sizes.wgsl). */
export const RULE = 32;

/**
 * Step 5's shape for n points: T = 2m + n tokens (the end is T), k = bits of T (2^k ≥ T), R = ⌈T / RULE⌉ rulers of
 * the permutation (+ the head's slot R and END = R + 1), and the ⌈log2(R + 2)⌉ pointer-jumping passes over them.
 */
export function rulingShape(n: number): { tokens: number; bits: number; rulers: number; passes: number } {
  const m = Math.max(0, n - 1);
  const tokens = 2 * m + n;
  const bits = tokens < 2 ? 0 : 32 - Math.clz32(tokens - 1);
  const rulers = Math.ceil(tokens / RULE);
  return { tokens, bits, rulers, passes: 32 - Math.clz32(rulers + 1) };
}

/** linkage_sizes.wgsl's mix: a bijection of [0, 2^k). */
function mix(x0: number, k: number): number {
  const mask = k >= 32 ? 0xffffffff : 2 ** k - 1;
  const sh = (k + 1) >>> 1;
  let x = (Math.imul(x0, 0x9e3779b1) & mask) >>> 0;
  x = (x ^ (x >>> sh)) >>> 0;
  x = (Math.imul(x, 0x85ebca77) & mask) >>> 0;
  x = (x ^ (x >>> sh)) >>> 0;
  return x;
}

/** mix's inverse (linkage_sizes.wgsl unmix). */
function unmix(x0: number, k: number): number {
  const mask = k >= 32 ? 0xffffffff : 2 ** k - 1;
  const sh = (k + 1) >>> 1;
  let x = (x0 ^ (x0 >>> sh)) >>> 0;
  x = (Math.imul(x, 0xb6c92f47) & mask) >>> 0;
  x = (x ^ (x >>> sh)) >>> 0;
  x = (Math.imul(x, 0x0e8b2f51) & mask) >>> 0;
  return x;
}

/** perm's inverse: the token of ruler index p (linkage_sizes.wgsl unperm). */
export function rulingUnperm(p: number, tokens: number, k: number): number {
  let y = unmix(p, k);
  while (y >= tokens) y = unmix(y, k);
  return y;
}

/** linkage_sizes.wgsl's perm: a bijection of [0, T) by cycle walking. */
export function rulingPerm(t: number, tokens: number, k: number): number {
  let y = mix(t, k);
  while (y >= tokens) y = mix(y, k);
  return y;
}

/**
 * Step 5: merge sizes by ranking an Euler tour. Tokens: enter(i) = i, exit(i) = m + i, point x = 2m + x, the end
 * T = 2m + n. succ: enter(i) → first(left(i)); last(left(i)) → first(right(i)); last(right(i)) → exit(i);
 * exit(root) → T. Ranked with a sparse ruling set as on the GPU (linkage_sizes.wgsl: rulers, walks, pointer jumping
 * over the rulers double-buffered, offsets).
 */
export function eulerSizesCpu(left: Uint32Array, right: Uint32Array, n: number): Uint32Array {
  const m = left.length;
  const { tokens: T, bits: k, rulers: R, passes } = rulingShape(n);
  const first = (c: number) => (c < n ? 2 * m + c : c - n);
  const last = (c: number) => (c < n ? 2 * m + c : m + c - n);
  const weight = (t: number) => (t >= 2 * m ? 1 : 0);
  const rulerOf = (t: number) => {
    const p = rulingPerm(t, T, k);
    if (p < R) return p;
    return t === m - 1 ? R : NONE;
  };
  const succ = new Uint32Array(T);
  for (let i = 0; i < m; i++) {
    // tour
    succ[i] = first(left[i]);
    succ[last(left[i])] = first(right[i]);
    succ[last(right[i])] = m + i;
  }
  succ[2 * m - 1] = T;
  const ownRuler = new Uint32Array(T);
  const ownOffset = new Uint32Array(T);
  let rNext = new Uint32Array(R + 2);
  let rSum = new Uint32Array(R + 2);
  rNext[R + 1] = R + 1;
  if (rulerOf(m - 1) !== R) rNext[R] = R + 1;
  for (let r = 0; r <= R; r++) {
    // walk: one thread per ruler index
    if (r === R && rulerOf(m - 1) !== R) continue;
    const t = r < R ? rulingUnperm(r, T, k) : m - 1;
    ownRuler[t] = r;
    let acc = weight(t);
    let s = succ[t];
    for (;;) {
      if (s === T) {
        rNext[r] = R + 1;
        break;
      }
      const q = rulerOf(s);
      if (q !== NONE) {
        rNext[r] = q;
        break;
      }
      ownRuler[s] = r;
      ownOffset[s] = acc;
      acc += weight(s);
      s = succ[s];
    }
    rSum[r] = acc;
  }
  let rNext2 = new Uint32Array(R + 2);
  let rSum2 = new Uint32Array(R + 2);
  for (let p = 0; p < passes; p++) {
    // rjump
    for (let i = 0; i < R + 2; i++) {
      const a = rNext[i];
      rNext2[i] = rNext[a];
      rSum2[i] = rSum[i] + rSum[a];
    }
    [rNext, rNext2] = [rNext2, rNext];
    [rSum, rSum2] = [rSum2, rSum];
  }
  const S = (t: number) => rSum[ownRuler[t]] - ownOffset[t];
  return Uint32Array.from({ length: m }, (_, i) => S(i) - S(m + i));
}
