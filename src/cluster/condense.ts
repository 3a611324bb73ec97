/**
 * The condensed tree: hdbscan's `condense_tree` (scikit-learn-contrib/hdbscan `_hdbscan_tree.pyx`), after Campello,
 * Moulavi & Sander 2013, "Density-based clustering based on hierarchical density estimates" (PAKDD), section 3.2
 * (runt pruning after Stuetzle). Walking the dendrogram breadth-first from the root, a merge whose two sides both
 * hold ≥ minClusterSize points is a true split (two new clusters); a side with fewer points is a runt: its points
 * leave the current cluster at that merge's λ = 1/distance (+∞ at distance 0) and the other side carries on as the
 * same cluster.
 *
 * Rows come out in exactly hdbscan's order — the global breadth-first order of the merges, a runt's points in the
 * breadth-first order of its own subtree — because that order numbers the clusters.
 *
 * How we get that order without a breadth-first walk over the dendrogram (whose reads are a chain of dependent
 * cache misses: most levels hold a few nodes; 2D blobs of 10^6 points give ~1.8·10^5 levels):
 * - The walked ("queued") merges are exactly those holding ≥ minClusterSize points, plus the root: sizes shrink
 *   downwards, so such a merge's ancestors are all queued, and a smaller one is a runt or inside one.
 * - A queued merge has two queued children (a split), one (the cluster goes on), or none (the cluster ends), so
 *   each cluster's queued merges form a chain, one merge per level, from the split that made it down to the merge
 *   where it splits or ends. Two clusters alive at the same level are never ancestor and descendant, so a level
 *   of the walk is the alive clusters in left-to-right order, one merge each.
 * - Two sequential passes over the merges (bottom-up: queued merges per subtree; top-down: each queued merge's
 *   preorder rank among the queued ones) lay the queued merges out in preorder, where every chain is contiguous.
 *   Their random accesses are independent of each other, so the CPU overlaps the misses.
 * - A level-by-level sweep over the alive clusters then reads each chain as a sequential stream and writes the rows
 *   in order. Runts of one point (most of them) are written directly; larger runts get their rows reserved, and
 *   their points are found at the end, breadth-first, many runts level by level together (`fillRunts`).
 * The sweep also gathers what selection and labelling need (per-cluster facts and the stability sums, added in
 * row order as hdbscan's `compute_stability` does), so no later pass re-reads the rows for them. O(n).
 *
 * `test/cpu/cluster.condense.test.ts` checks this against a top-down oracle written from the definition
 * (test/helpers/clusterOracle.ts), itself checked against the golden files.
 */
import type { ClusterBuffers } from './buffers.js';
import type { ClusterTreeInfo } from './clusterTree.js';
import type { QueuedCounts } from './linkage.js';
import type { CondensedTree, SingleLinkageTree } from './types.js';

/** The condensed tree with the per-cluster facts and stabilities gathered while it was written. */
export interface Condensed {
  tree: CondensedTree;
  /** Equal to `clusterTreeInfo(tree)`. */
  info: ClusterTreeInfo;
  /**
   * Every cluster's stability (excess of mass, Campello, Moulavi & Sander 2013, eq. 3, as hdbscan's
   * `compute_stability`): S(C) = Σ over the rows leaving C of (λ_row − λ_birth(C)) · childSize, the root born at 0,
   * summed in row order in float64 so that sums agree with hdbscan's bit for bit; index id − n.
   */
  stability: Float64Array;
  /** The time the layout took here (ms; absent when it came made). */
  layoutMs?: number;
}

// Payload word b of a queued merge (node ids are < 2^31, so these never clash with one):
const SPLIT = 0xffffffff; // a split: a = its index in the split table
const ONE_RUNT = 0xfffffffe; // one runt: a = the runt's node; the cluster goes on in the next slot
// anything else: both children are runts, a = left node, b = right node (the cluster ends)

/** Condenses the dendrogram of n points (see the file comment). */
export function condenseTree(tree: SingleLinkageTree, n: number, minClusterSize: number): CondensedTree {
  return condense(tree, n, minClusterSize).tree;
}

/** How `condense` runs (all optional). */
export interface CondenseOptions {
  /** The rows' arrays lie in SharedArrayBuffers (for the threaded labelling, pointResults.threads.ts). */
  shared?: boolean;
  /** The rows and the scratch come from there (buffers.ts: zeros, allocated for these n and minClusterSize). */
  buffers?: ClusterBuffers;
  /**
   * The queued counts singleLinkage gathered for this minClusterSize: the bottom-up pass is skipped and the
   * top-down one reads the children's counts as streams. Its q is overwritten.
   */
  counts?: QueuedCounts;
  /**
   * Leave the points of runts with ≥ 2 points unwritten in `child` and hand their list over (`Condensed.runts`),
   * for the caller to fill with `fillRunts` (on several threads: condense.threads.ts).
   */
  deferRunts?: boolean;
  /** The layout, already made (condense.layout.ts, on threads: condense.threads.ts); `counts` must be given too. */
  layout?: Layout;
}

/** Runts whose points are still to be written: (top node, first row) pairs. */
export interface DeferredRunts {
  deferred: Uint32Array;
  count: number;
}

/** Condenses the dendrogram of n points and gathers the per-cluster facts and stabilities on the way. */
export function condense(
  tree: SingleLinkageTree,
  n: number,
  minClusterSize: number,
  options: CondenseOptions = {},
): Condensed & { runts?: DeferredRunts } {
  const { shared = false, buffers, counts, deferRunts = false } = options;
  if (n < 2) return trivial(n);
  if (counts && counts.minClusterSize !== minClusterSize) {
    throw new Error(`cluster::condense: counts for minClusterSize ${counts.minClusterSize}, not ${minClusterSize}.`);
  }
  if (options.layout && !counts) throw new Error('cluster::condense: a layout given without its counts.');
  // One function per pass.
  const q = counts?.q ?? buffers?.queued ?? new Int32Array(n - 1);
  const splits = counts ? counts.splits : countQueued(tree, n, minClusterSize, q);
  const t0 = globalThis.performance.now();
  const layout = options.layout ?? layOut(tree, n, minClusterSize, q, splits, buffers?.payload, counts);
  const layoutMs = options.layout ? undefined : globalThis.performance.now() - t0;
  return { ...sweep(tree, n, minClusterSize, layout, splits, shared, buffers, deferRunts), layoutMs };
}

/**
 * Bottom-up: q[i] = queued merges in merge i's subtree (0 when merge i holds < minClusterSize points). Returns the
 * number of splits.
 */
function countQueued(tree: SingleLinkageTree, n: number, mcs: number, q: Int32Array): number {
  const { left, right, size } = tree;
  const root = n - 2;
  let splits = 0;
  for (let i = 0; i <= root; i++) {
    if (size[i] < mcs && i !== root) continue;
    const l = left[i] - n;
    const r = right[i] - n;
    const ql = l >= 0 ? q[l] : 0;
    const qr = r >= 0 ? q[r] : 0;
    if (ql > 0 && qr > 0) splits++;
    q[i] = 1 + ql + qr;
  }
  return splits;
}

/** The queued merges laid out in preorder: each slot's payload and the split table. */
export interface Layout {
  /** Slot s: λ at [2s]. */
  slotLambda: Float64Array;
  /** Slot s: a at [4s + 2], b at [4s + 3] (see SPLIT, ONE_RUNT above). */
  slotWord: Uint32Array;
  /** Per split: | queued merges under its left child | left child's points | right child's points |. */
  splitTable: Uint32Array;
}

/**
 * Top-down: each queued merge's preorder rank among the queued merges (its slot), written over q as the walk goes
 * (a child's count is read just before its slot replaces it), and the slot's payload, 16 bytes:
 * | f64 λ | u32 a | u32 b |.
 */
function layOut(
  tree: SingleLinkageTree,
  n: number,
  mcs: number,
  q: Int32Array,
  splits: number,
  room?: SharedArrayBuffer,
  counts?: QueuedCounts,
): Layout {
  const { left, right, distance, size } = tree;
  const root = n - 2;
  const slots = q[root];
  const payload = room ?? new ArrayBuffer(16 * slots);
  const slotLambda = new Float64Array(payload, 0, 2 * slots);
  const slotWord = new Uint32Array(payload, 0, 4 * slots);
  const splitTable = new Uint32Array(3 * splits);
  let nextSplit = 0;
  q[root] = 0;
  const given = counts !== undefined;
  const qLeft = counts?.ql ?? q;
  const qRight = counts?.qr ?? q;
  for (let i = root; i >= 0; i--) {
    if (size[i] < mcs && i !== root) continue;
    const s = q[i];
    const lNode = left[i];
    const rNode = right[i];
    const l = lNode - n;
    const r = rNode - n;
    // The children's counts, before their slots replace them: streams when singleLinkage gathered them.
    const ql = given ? qLeft[i] : l >= 0 ? q[l] : 0;
    const qr = given ? qRight[i] : r >= 0 ? q[r] : 0;
    const d = distance[i];
    // Important! λ = ∞ for duplicates (d = 0), explicitly: hdbscan writes INFTY there.
    slotLambda[2 * s] = d > 0 ? 1 / d : Infinity;
    if (ql > 0 && qr > 0) {
      splitTable[3 * nextSplit] = ql;
      splitTable[3 * nextSplit + 1] = size[l];
      splitTable[3 * nextSplit + 2] = size[r];
      slotWord[4 * s + 2] = nextSplit++;
      slotWord[4 * s + 3] = SPLIT;
      q[l] = s + 1;
      q[r] = s + 1 + ql;
    } else if (ql > 0) {
      slotWord[4 * s + 2] = rNode;
      slotWord[4 * s + 3] = ONE_RUNT;
      q[l] = s + 1;
    } else if (qr > 0) {
      slotWord[4 * s + 2] = lNode;
      slotWord[4 * s + 3] = ONE_RUNT;
      q[r] = s + 1;
    } else {
      slotWord[4 * s + 2] = lNode;
      slotWord[4 * s + 3] = rNode;
    }
  }
  return { slotLambda, slotWord, splitTable };
}

/** The sweep over the alive clusters, level by level, writing the rows and the per-cluster facts. */
function sweep(
  tree: SingleLinkageTree,
  n: number,
  mcs: number,
  layout: Layout,
  splits: number,
  shared: boolean,
  buffers: ClusterBuffers | undefined,
  deferRunts: boolean,
): Condensed & { runts?: DeferredRunts } {
  const { left, right, size } = tree;
  const { slotLambda, slotWord, splitTable } = layout;
  // The rows: n points plus two per split, allocated once at their final size.
  const rows = n + 2 * splits;
  const bytes = (size: number) => (shared ? new SharedArrayBuffer(size * rows) : new ArrayBuffer(size * rows));
  if (buffers && rows > buffers.rowCapacity) {
    throw new Error(`cluster::condense: ${rows} rows exceed the buffers' room for ${buffers.rowCapacity}.`);
  }
  const parent = buffers ? buffers.rows.parent.subarray(0, rows) : new Uint32Array(bytes(4));
  const child = buffers ? buffers.rows.child.subarray(0, rows) : new Uint32Array(bytes(4));
  const lambda = buffers ? buffers.rows.lambda.subarray(0, rows) : new Float64Array(bytes(8));
  const childSize = buffers ? buffers.rows.childSize.subarray(0, rows) : new Uint32Array(bytes(4));
  const k = 1 + 2 * splits;
  const cParent = new Int32Array(k).fill(-1);
  const birth = new Float64Array(k);
  const cSize = new Uint32Array(k);
  const firstChild = new Int32Array(k).fill(-1);
  const maxLambda = new Float64Array(k);
  const stability = new Float64Array(k);
  cSize[0] = n;
  let row = 0;

  // A runt of one point is written at once. A larger runt's rows are written too, all but their points (child):
  // those are found later for many runts together (see fillRunts), which overlaps the runts' cache misses instead
  // of walking one runt at a time. Its (top node, first row) pairs wait here; at most n / 2 runts have ≥ 2 points,
  // and only the pages written are ever touched.
  const deferred = buffers?.deferred ?? new Uint32Array(n - (n & 1));
  let numDeferred = 0;
  const emitRunt = (top: number, c: number, lam: number): void => {
    const term = lam - birth[c];
    if (lam > maxLambda[c]) maxLambda[c] = lam;
    if (top < n) {
      parent[row] = n + c;
      child[row] = top;
      lambda[row] = lam;
      childSize[row] = 1;
      row++;
      stability[c] += term;
      return;
    }
    const end = row + size[top - n];
    deferred[numDeferred++] = top;
    deferred[numDeferred++] = row;
    let st = stability[c];
    for (; row < end; row++) {
      parent[row] = n + c;
      lambda[row] = lam;
      childSize[row] = 1;
      st += term; // one addition per row, in row order, as hdbscan sums
    }
    stability[c] = st;
  };

  // The sweep: level by level, the alive clusters in left-to-right order as (slot, cluster index) pairs.
  let cur = new Int32Array(2 * (splits + 1));
  let next = new Int32Array(2 * (splits + 1));
  cur[0] = 0;
  cur[1] = 0;
  let curLen = 1;
  let nextLabel = 1;
  while (curLen > 0) {
    let nextLen = 0;
    for (let j = 0; j < curLen; j++) {
      const s = cur[2 * j];
      const c = cur[2 * j + 1];
      const lam = slotLambda[2 * s];
      const a = slotWord[4 * s + 2];
      const b = slotWord[4 * s + 3];
      if (b === ONE_RUNT) {
        emitRunt(a, c, lam);
        next[2 * nextLen] = s + 1;
        next[2 * nextLen++ + 1] = c;
      } else if (b === SPLIT) {
        const ql = splitTable[3 * a];
        const lc = splitTable[3 * a + 1];
        const rc = splitTable[3 * a + 2];
        const cl = nextLabel++;
        const cr = nextLabel++;
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
        birth[cl] = lam;
        birth[cr] = lam;
        cSize[cl] = lc;
        cSize[cr] = rc;
        firstChild[c] = cl;
        next[2 * nextLen] = s + 1;
        next[2 * nextLen++ + 1] = cl;
        next[2 * nextLen] = s + 1 + ql;
        next[2 * nextLen++ + 1] = cr;
      } else {
        emitRunt(a, c, lam);
        emitRunt(b, c, lam);
      }
    }
    const swap = cur;
    cur = next;
    next = swap;
    curLen = nextLen;
  }
  const runts = { deferred, count: numDeferred / 2 };
  if (!deferRunts) fillRunts(child, runts, 0, runts.count, left, right, n, mcs);
  return {
    tree: { parent, child, lambda, childSize, numPoints: n, numClusters: k },
    info: { numPoints: n, numClusters: k, parent: cParent, birth, size: cSize, firstChild, maxLambda },
    stability,
    runts: deferRunts ? runts : undefined,
  };
}

/** Runts filled per batch: their breadth-first frontiers advance together, one level per round. */
const RUNT_BATCH = 256;
let runtSink = 0;

/**
 * Writes the points of deferred runts j0 … j1 − 1 (pairs of top node, first row) into `child`, in breadth-first
 * order of each runt's subtree (hdbscan's order). A batch of runts is walked level-synchronously: the frontier holds
 * (node, runt) pairs, runts in order and each runt's nodes in breadth-first order, so a runt's points at one depth
 * come out left to right after those of the depth above; the reads of one round do not depend on each other.
 * Runts write disjoint rows, so ranges of them can be filled on several threads.
 */
export function fillRunts(
  child: Uint32Array,
  runts: DeferredRunts,
  j0: number,
  j1: number,
  left: Uint32Array,
  right: Uint32Array,
  n: number,
  minClusterSize: number,
): void {
  const { deferred } = runts;
  // A level of a runt holds at most its points (< minClusterSize), so a frontier holds < RUNT_BATCH · that.
  const cap = RUNT_BATCH * Math.min(minClusterSize, n);
  let frontier = new Uint32Array(2 * cap);
  let nextFrontier = new Uint32Array(2 * cap);
  const cursor = new Uint32Array(RUNT_BATCH);
  let touched = 0;
  for (let b0 = j0; b0 < j1; b0 += RUNT_BATCH) {
    const b1 = Math.min(j1, b0 + RUNT_BATCH);
    let len = 0;
    for (let j = b0; j < b1; j++) {
      frontier[2 * len] = deferred[2 * j];
      frontier[2 * len++ + 1] = j - b0;
      cursor[j - b0] = deferred[2 * j + 1];
    }
    while (len > 0) {
      // Touch the round's merges first, in a loop without branches, so their misses overlap.
      for (let f = 0; f < len; f++) {
        const x = frontier[2 * f];
        const i = x >= n ? x - n : 0;
        touched ^= left[i] ^ right[i];
      }
      let nextLen = 0;
      for (let f = 0; f < len; f++) {
        const x = frontier[2 * f];
        const j = frontier[2 * f + 1];
        if (x < n) {
          child[cursor[j]++] = x;
        } else {
          nextFrontier[2 * nextLen] = left[x - n];
          nextFrontier[2 * nextLen++ + 1] = j;
          nextFrontier[2 * nextLen] = right[x - n];
          nextFrontier[2 * nextLen++ + 1] = j;
        }
      }
      const swap = frontier;
      frontier = nextFrontier;
      nextFrontier = swap;
      len = nextLen;
    }
  }
  runtSink ^= touched; // keeps the touching loads from being optimised away
}

/** Fewer than two points: no rows; one point is the root cluster alone. */
function trivial(n: number): Condensed {
  const k = n === 1 ? 1 : 0;
  const size = new Uint32Array(k);
  if (k > 0) size[0] = n;
  return {
    tree: {
      parent: new Uint32Array(0),
      child: new Uint32Array(0),
      lambda: new Float64Array(0),
      childSize: new Uint32Array(0),
      numPoints: n,
      numClusters: k,
    },
    info: {
      numPoints: n,
      numClusters: k,
      parent: new Int32Array(k).fill(-1),
      birth: new Float64Array(k),
      size,
      firstChild: new Int32Array(k).fill(-1),
      maxLambda: new Float64Array(k),
    },
    stability: new Float64Array(k),
  };
}
