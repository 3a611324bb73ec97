/**
 * Exemplars, as hdbscan's `PredictionData` builds them (`prediction.py`): for each selected cluster, its leaf
 * clusters in depth-first order (first child first), and in each leaf the points that leave it at its largest λ —
 * the cluster's densest core — in condensed-tree row order. hdbscan's own run lists the same points per cluster,
 * but within a leaf in its tree's row order, which follows its MST's endpoint order rather than the canonical
 * one; compare exemplars as sets. O(rows): two sequential passes over the rows (each cluster's largest λ and
 * first child; then the point rows of the wanted leaves at that λ), instead of hdbscan's boolean mask over the
 * whole tree per leaf.
 */
import type { CondensedTree } from './types.js';

/** Exemplar point indices of each selected cluster (`selectedClusters[k]`: condensed-tree ids), in label order. */
export function exemplars(tree: CondensedTree, selectedClusters: Uint32Array): Uint32Array[] {
  const n = tree.numPoints;
  const k = tree.numClusters;
  const { parent, child, lambda } = tree;
  const rows = parent.length;
  // Pass 1: each cluster's largest λ over its own rows (hdbscan's max_lambdas) and its first child cluster.
  const maxLambda = new Float64Array(k);
  const firstChild = new Int32Array(k).fill(-1);
  for (let r = 0; r < rows; r++) {
    const p = parent[r] - n;
    const lam = lambda[r];
    if (lam > maxLambda[p]) maxLambda[p] = lam;
    const c = child[r] - n;
    if (c >= 0 && (firstChild[p] < 0 || c < firstChild[p])) firstChild[p] = c;
  }
  // Pass 2: the point rows of the wanted leaves at their largest λ.
  const collector = new ExemplarCollector(
    firstChild,
    maxLambda,
    Int32Array.from(selectedClusters, (id) => id - n),
    n,
  );
  for (let r = 0; r < rows; r++) {
    const x = child[r];
    if (x < n) collector.offer(parent[r] - n, x, lambda[r]);
  }
  return collector.result();
}

/**
 * Gathers exemplars from point rows offered in row order (by `exemplars` above, or by the labelling pass, which
 * reads every point row anyway). Knows the leaves under each selected cluster, depth-first, first child first; a
 * leaf gets a rank the first time it is met (selected clusters may nest after epsilon, so a leaf can belong to
 * several). The hit arrays grow by doubling: at 10^6 points n-sized ones cost the labelling more in allocation
 * and collection than the hits themselves (blobs: 1.3·10^5 hits; bench/RESULTS.md issue 17, ninth session).
 */
export class ExemplarCollector {
  /** Rank of each wanted leaf (cluster index), −1 for other clusters. */
  readonly rankOf: Int32Array;
  private readonly maxLambda: Float64Array;
  private readonly leavesOfLabel: number[][] = [];
  private readonly start: Uint32Array;
  private hitPoint: Uint32Array;
  private hitRank: Uint32Array;
  private hits = 0;

  /** `selected`: cluster indices (id − n) in label order; `firstChild`, `maxLambda` per cluster index. */
  constructor(firstChild: Int32Array, maxLambda: Float64Array, selected: Int32Array, n: number) {
    this.maxLambda = maxLambda;
    const rankOf = new Int32Array(firstChild.length).fill(-1);
    let ranks = 0;
    const stack: number[] = [];
    for (const top of selected) {
      const leaves: number[] = [];
      stack.push(top);
      while (stack.length > 0) {
        const c = stack.pop()!;
        const f = firstChild[c];
        if (f >= 0) {
          stack.push(f + 1, f); // first child popped first: depth-first, left to right
          continue;
        }
        if (rankOf[c] < 0) rankOf[c] = ranks++;
        leaves.push(rankOf[c]);
      }
      this.leavesOfLabel.push(leaves);
    }
    this.rankOf = rankOf;
    this.start = new Uint32Array(ranks + 1);
    this.hitPoint = new Uint32Array(Math.min(n, 1024));
    this.hitRank = new Uint32Array(this.hitPoint.length);
  }

  /** Room for `more` hits beyond the current ones (capacity doubled as often as needed). */
  private reserve(more: number): void {
    const need = this.hits + more;
    if (need <= this.hitPoint.length) return;
    let size = Math.max(this.hitPoint.length, 1024);
    while (size < need) size *= 2;
    const point = new Uint32Array(size);
    const rank = new Uint32Array(size);
    point.set(this.hitPoint.subarray(0, this.hits));
    rank.set(this.hitRank.subarray(0, this.hits));
    this.hitPoint = point;
    this.hitRank = rank;
  }

  /** Point x leaves cluster index c at λ; rows must come in row order. */
  offer(c: number, x: number, lam: number): void {
    const rank = this.rankOf[c];
    if (rank >= 0 && lam === this.maxLambda[c]) {
      if (this.hits === this.hitPoint.length) this.reserve(1);
      this.hitPoint[this.hits] = x;
      this.hitRank[this.hits++] = rank;
      this.start[rank + 1]++;
    }
  }

  /**
   * Hits already tested (pointResults.ts candidateHits: wanted leaf, at its largest λ) as points and leaf ranks, in
   * row order after every earlier offer — a worker's range at once.
   */
  addHits(points: Uint32Array, ranks: Uint32Array): void {
    this.reserve(points.length);
    const at = this.hits;
    this.hitPoint.set(points, at);
    this.hitRank.set(ranks, at);
    const start = this.start;
    for (let h = 0; h < ranks.length; h++) start[ranks[h] + 1]++;
    this.hits = at + points.length;
  }

  /**
   * Exemplars per label: its leaves' hits, leaf by leaf, each in row order. A label whose leaves hold consecutive
   * ranks (every label unless selected clusters nest) gets a view into one array of all hits, not a copy: one
   * allocation instead of one per label (blobs at 10^6: 6,792 labels).
   */
  result(): Uint32Array[] {
    const { start, hitPoint, hitRank, hits } = this;
    const ranks = start.length - 1;
    for (let j = 0; j < ranks; j++) start[j + 1] += start[j];
    const fill = start.slice(0, ranks);
    const byLeaf = new Uint32Array(hits);
    for (let h = 0; h < hits; h++) byLeaf[fill[hitRank[h]]++] = hitPoint[h];
    return this.leavesOfLabel.map((leaves) => {
      if (leaves.length === 0) return new Uint32Array(0);
      let consecutive = true;
      for (let i = 1; i < leaves.length && consecutive; i++) consecutive = leaves[i] === leaves[0] + i;
      if (consecutive) return byLeaf.subarray(start[leaves[0]], start[leaves[0] + leaves.length]);
      let count = 0;
      for (const rank of leaves) count += start[rank + 1] - start[rank];
      const found = new Uint32Array(count);
      let j = 0;
      for (const rank of leaves) {
        found.set(byLeaf.subarray(start[rank], start[rank + 1]), j);
        j += start[rank + 1] - start[rank];
      }
      return found;
    });
  }
}
