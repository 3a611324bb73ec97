/**
 * Condensing's level sweep (condense.ts, `sweep`) by parts of the slot range, so that it runs on several threads
 * (issue 5). Same rows, per-cluster facts and stabilities (bit for bit) as `sweep`, which stays the reference.
 *
 * The sweep writes, level by level, the alive clusters' slots in slot order (preorder lays each level out left to
 * right), and numbers the clusters at the splits in that order. Given each slot's level (the layout's depths):
 * - a slot's first row = the rows of all earlier levels + the rows of the earlier slots of its level, a counting
 *   sort by level that is stable in slot order;
 * - a cluster's rows are its chain's slots (consecutive slots, from the split that made it down to the slot where it
 *   splits or ends), so each cluster's stability is summed in its own rows' order when one thread takes whole
 *   chains;
 * - split number r (in sweep order) makes clusters 1 + 2r and 2 + 2r.
 * So: parts of whole chains (threads at once) count their rows per level and list their splits; on one thread, the
 * levels' first rows per part, the splits' ranks (a counting sort by level) and the new clusters' births; the parts
 * then write their rows and clusters (threads at once).
 *
 * Scratch: the per-part row counts in a buffer of their own (one word per level a part spans; the caller refuses
 * parts that span too many); each chain head's cluster over the layout's parents (free after it).
 */
import type { DeferredRunts } from './condense.js';
import type { SingleLinkageTree } from './types.js';

const SPLIT = 0xffffffff;
const ONE_RUNT = 0xfffffffe;

/** Everything the parts read and write (all shared when they run on threads). */
export interface SweepArrays {
  n: number;
  size: Uint32Array;
  slotLambda: Float64Array;
  slotWord: Uint32Array;
  splitTable: Uint32Array;
  /** Each slot's level (the layout's depths). */
  depth: Int32Array;
  /** Each chain head's cluster, by slot (other slots unset). */
  headCluster: Int32Array;
  parent: Uint32Array;
  child: Uint32Array;
  lambda: Float64Array;
  childSize: Uint32Array;
  deferred: Uint32Array;
  cParent: Int32Array;
  birth: Float64Array;
  cSize: Uint32Array;
  firstChild: Int32Array;
  maxLambda: Float64Array;
  stability: Float64Array;
  /** Per part: row counts per level from its least level on, then (step 2) its levels' next rows. */
  levelRows: Int32Array;
}

/** What a part is: its slots, and where its per-level words and deferred runts go. */
export interface SweepPart {
  s0: number;
  s1: number;
  /** Its least and greatest level (step 0). */
  minLevel: number;
  maxLevel: number;
  /** Its first word in levelRows, and its first deferred runt. */
  offset: number;
  firstDeferred: number;
}

/** A chain ends at a split or where both children are runts; the next slot starts a chain. */
export function chainStart(slotWord: Uint32Array, s: number): boolean {
  return s === 0 || slotWord[4 * (s - 1) + 3] !== ONE_RUNT;
}

/** Step 0 for a part: its least and greatest level. */
export function partLevels(a: SweepArrays, s0: number, s1: number): [number, number] {
  const { depth } = a;
  let lo = 0x7fffffff;
  let hi = -1;
  for (let s = s0; s < s1; s++) {
    const d = depth[s];
    if (d < lo) lo = d;
    if (d > hi) hi = d;
  }
  return [lo, hi];
}

const runtRows = (a: SweepArrays, top: number) => (top < a.n ? 1 : a.size[top - a.n]);

/**
 * Step 1 for a part: its rows per level into levelRows (from `offset`, zeros), its deferred runts (runts of ≥ 2
 * points) and its split slots (ascending).
 */
export function countPart(a: SweepArrays, p: SweepPart): { deferred: number; splits: Int32Array } {
  const { n, slotWord, depth, levelRows } = a;
  const base = p.offset - p.minLevel;
  let deferred = 0;
  const splits: number[] = [];
  for (let s = p.s0; s < p.s1; s++) {
    const x = slotWord[4 * s + 2];
    const y = slotWord[4 * s + 3];
    let rows: number;
    if (y === ONE_RUNT) {
      rows = runtRows(a, x);
      if (x >= n) deferred++;
    } else if (y === SPLIT) {
      rows = 2;
      splits.push(s);
    } else {
      rows = runtRows(a, x) + runtRows(a, y);
      if (x >= n) deferred++;
      if (y >= n) deferred++;
    }
    levelRows[base + depth[s]] += rows;
  }
  return { deferred, splits: Int32Array.from(splits) };
}

/**
 * Step 2, on one thread: each part's levels' first rows (in place of its counts), the splits' ranks in sweep order
 * (levels, then slots), each chain head's cluster and the new clusters' births. `splits` are the parts' split
 * slots, parts in slot order.
 */
export function planRows(a: SweepArrays, parts: SweepPart[], splits: Int32Array[]): void {
  const { levelRows, depth, splitTable, slotWord, slotLambda, headCluster, birth } = a;
  let levels = 0;
  for (const p of parts) if (p.s1 > p.s0) levels = Math.max(levels, p.maxLevel + 1);
  // Rows per level over all parts, then each level's first row.
  const next = new Float64Array(levels);
  for (const p of parts) {
    for (let L = p.minLevel; p.s1 > p.s0 && L <= p.maxLevel; L++) next[L] += levelRows[p.offset + L - p.minLevel];
  }
  let total = 0;
  for (let L = 0; L < levels; L++) {
    const rows = next[L];
    next[L] = total;
    total += rows;
  }
  for (const p of parts) {
    for (let L = p.minLevel; p.s1 > p.s0 && L <= p.maxLevel; L++) {
      const w = p.offset + L - p.minLevel;
      const rows = levelRows[w];
      levelRows[w] = next[L];
      next[L] += rows;
    }
  }
  // Splits by level, stable in slot order (the parts' lists are ascending, parts in order).
  const perLevel = new Int32Array(levels + 1);
  for (const list of splits) for (const s of list) perLevel[depth[s] + 1]++;
  for (let L = 0; L < levels; L++) perLevel[L + 1] += perLevel[L];
  headCluster[0] = 0;
  for (const list of splits) {
    for (const s of list) {
      const r = perLevel[depth[s]]++;
      const ql = splitTable[3 * slotWord[4 * s + 2]];
      headCluster[s + 1] = 1 + 2 * r;
      headCluster[s + 1 + ql] = 2 + 2 * r;
      birth[1 + 2 * r] = slotLambda[2 * s];
      birth[2 + 2 * r] = slotLambda[2 * s];
    }
  }
}

/** Step 3 for a part: its rows, deferred runts and its clusters' facts and stabilities (the sweep's own sums). */
export function writePart(a: SweepArrays, p: SweepPart): void {
  const { n, size, slotLambda, slotWord, splitTable, depth, headCluster, levelRows } = a;
  const { parent, child, lambda, childSize, deferred, cParent, birth, cSize, firstChild, maxLambda, stability } = a;
  const base = p.offset - p.minLevel;
  let nextDeferred = p.firstDeferred;
  let c = -1;
  const emitRunt = (top: number, row: number, lam: number): number => {
    const term = lam - birth[c];
    if (lam > maxLambda[c]) maxLambda[c] = lam;
    if (top < n) {
      parent[row] = n + c;
      child[row] = top;
      lambda[row] = lam;
      childSize[row] = 1;
      stability[c] += term;
      return row + 1;
    }
    const end = row + size[top - n];
    deferred[2 * nextDeferred] = top;
    deferred[2 * nextDeferred + 1] = row;
    nextDeferred++;
    let st = stability[c];
    for (; row < end; row++) {
      parent[row] = n + c;
      lambda[row] = lam;
      childSize[row] = 1;
      st += term; // one addition per row, in row order, as hdbscan sums
    }
    stability[c] = st;
    return row;
  };
  for (let s = p.s0; s < p.s1; s++) {
    if (chainStart(slotWord, s)) c = headCluster[s];
    const w = base + depth[s];
    let row = levelRows[w];
    const lam = slotLambda[2 * s];
    const x = slotWord[4 * s + 2];
    const y = slotWord[4 * s + 3];
    if (y === ONE_RUNT) {
      row = emitRunt(x, row, lam);
    } else if (y === SPLIT) {
      const ql = splitTable[3 * x];
      const lc = splitTable[3 * x + 1];
      const rc = splitTable[3 * x + 2];
      const cl = headCluster[s + 1];
      const cr = headCluster[s + 1 + ql];
      const term = lam - birth[c];
      if (lam > maxLambda[c]) maxLambda[c] = lam;
      parent[row] = n + c;
      child[row] = n + cl;
      lambda[row] = lam;
      childSize[row] = lc;
      row++;
      stability[c] += term * lc;
      parent[row] = n + c;
      child[row] = n + cr;
      lambda[row] = lam;
      childSize[row] = rc;
      row++;
      stability[c] += term * rc;
      cParent[cl] = c;
      cParent[cr] = c;
      cSize[cl] = lc;
      cSize[cr] = rc;
      firstChild[c] = cl;
    } else {
      row = emitRunt(x, row, lam);
      row = emitRunt(y, row, lam);
    }
    levelRows[w] = row;
  }
}

/**
 * The parts' bounds: `count` even parts of the Q slots, each bound moved up to the next chain start. Parts may be
 * empty.
 */
export function sweepParts(slotWord: Uint32Array, slots: number, count: number): SweepPart[] {
  const bounds = [0];
  for (let j = 1; j < count; j++) {
    let b = Math.max(bounds[j - 1], Math.floor((slots * j) / count));
    while (b < slots && !chainStart(slotWord, b)) b++;
    bounds.push(b);
  }
  bounds.push(slots);
  return bounds.slice(0, -1).map((s0, j) => ({ s0, s1: bounds[j + 1], minLevel: 0, maxLevel: -1, offset: 0, firstDeferred: 0 }));
}

/** Words the parts' level counts take (Σ spans), after step 0 filled their levels; sets their offsets. */
export function placeParts(parts: SweepPart[]): number {
  let words = 0;
  for (const p of parts) {
    p.offset = words;
    if (p.s1 > p.s0) words += p.maxLevel - p.minLevel + 1;
  }
  return words;
}

/** Each part's first deferred runt, from step 1's counts; answers the total. */
export function placeDeferred(parts: SweepPart[], counts: number[]): number {
  let total = 0;
  parts.forEach((p, j) => {
    p.firstDeferred = total;
    total += counts[j];
  });
  return total;
}

/** The arrays for the sweep. */
export function sweepArrays(
  tree: SingleLinkageTree,
  n: number,
  layout: { slotLambda: Float64Array; slotWord: Uint32Array; splitTable: Uint32Array },
  depth: Int32Array,
  headCluster: Int32Array,
  rows: { parent: Uint32Array; child: Uint32Array; lambda: Float64Array; childSize: Uint32Array },
  deferred: Uint32Array,
  clusters: { cParent: Int32Array; birth: Float64Array; cSize: Uint32Array; firstChild: Int32Array; maxLambda: Float64Array; stability: Float64Array },
  levelRows: Int32Array,
): SweepArrays {
  return { n, size: tree.size, ...layout, depth, headCluster, ...rows, deferred, ...clusters, levelRows };
}

/** Fresh per-cluster arrays for k clusters of n points (shared when `shared`), as the sweep starts them. */
export function clusterArrays(k: number, n: number, shared: boolean) {
  const mem = (bytes: number) => (shared ? new SharedArrayBuffer(bytes * k) : new ArrayBuffer(bytes * k));
  const cParent = new Int32Array(mem(4)).fill(-1);
  const cSize = new Uint32Array(mem(4));
  cSize[0] = n;
  return {
    cParent,
    birth: new Float64Array(mem(8)),
    cSize,
    firstChild: new Int32Array(mem(4)).fill(-1),
    maxLambda: new Float64Array(mem(8)),
    stability: new Float64Array(mem(8)),
  };
}

/** The sweep by parts on this thread (tests; the threaded path's twin): parts' steps in reverse order. */
export function sweepByParts(a: SweepArrays, slots: number, partCount: number): DeferredRunts {
  const parts = sweepParts(a.slotWord, slots, partCount);
  for (let j = parts.length - 1; j >= 0; j--) {
    const p = parts[j];
    [p.minLevel, p.maxLevel] = p.s1 > p.s0 ? partLevels(a, p.s0, p.s1) : [0, -1];
  }
  const words = placeParts(parts);
  if (a.levelRows.length < words) throw new Error(`cluster::condense: ${words} level words, room for ${a.levelRows.length}.`);
  a.levelRows.fill(0, 0, words);
  const counted: { deferred: number; splits: Int32Array }[] = parts.map(() => ({ deferred: 0, splits: new Int32Array(0) }));
  for (let j = parts.length - 1; j >= 0; j--) counted[j] = countPart(a, parts[j]);
  const total = placeDeferred(parts, counted.map((c) => c.deferred));
  planRows(a, parts, counted.map((c) => c.splits));
  for (let j = parts.length - 1; j >= 0; j--) writePart(a, parts[j]);
  return { deferred: a.deferred, count: total };
}
