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
 *   5. Sizes: an Euler tour of the dendrogram (enter and exit tokens per merge, one token per point), ranked by
 *      pointer jumping (Wyllie): size = points between a merge's enter and exit tokens. ⌈log2(2m + n + 1)⌉ passes.
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

/** Euler-tour ranking passes for n points: ⌈log2(tokens)⌉, tokens = 2(n − 1) + n + 1 (the end sentinel). */
export function eulerPasses(n: number): number {
  const tokens = 2 * Math.max(0, n - 1) + n + 1;
  return 32 - Math.clz32(tokens - 1);
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

/**
 * Step 5: merge sizes by ranking an Euler tour. Tokens: enter(i) = i, exit(i) = m + i, point x = 2m + x, the end
 * sentinel T = 2m + n. succ: enter(i) → first(left(i)); last(left(i)) → first(right(i)); last(right(i)) → exit(i);
 * exit(root) → T. Ranked by pointer jumping, double-buffered as on the GPU.
 */
export function eulerSizesCpu(left: Uint32Array, right: Uint32Array, n: number): Uint32Array {
  const m = left.length;
  const T = 2 * m + n;
  const first = (c: number) => (c < n ? 2 * m + c : c - n);
  const last = (c: number) => (c < n ? 2 * m + c : m + c - n);
  let succ = new Uint32Array(T + 1);
  let sum = new Uint32Array(T + 1);
  succ[T] = T;
  succ[m + m - 1] = T; // the root's exit
  for (let i = 0; i < m; i++) {
    // tour
    succ[i] = first(left[i]);
    succ[last(left[i])] = first(right[i]);
    succ[last(right[i])] = m + i;
  }
  for (let t = 2 * m; t < T; t++) sum[t] = 1;
  let succ2 = new Uint32Array(T + 1);
  let sum2 = new Uint32Array(T + 1);
  const passes = eulerPasses(n);
  for (let k = 0; k < passes; k++) {
    // jump
    for (let t = 0; t <= T; t++) {
      const s = succ[t];
      sum2[t] = sum[t] + (s === t ? 0 : sum[s]);
      succ2[t] = succ[s];
    }
    [succ, succ2] = [succ2, succ];
    [sum, sum2] = [sum2, sum];
  }
  return Uint32Array.from({ length: m }, (_, i) => sum[i] - sum[m + i]);
}
