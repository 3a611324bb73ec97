/**
 * A partition owner's searches for points that are not its own (issue 20 §2): the query arrives with its
 * coordinates, so the search descends the partition's linear BVH (src/bvh/lbvh.cpu.ts) from the root, where the
 * single-process searches (src/emst/nearest.cpu.ts, src/knn/neighbours.cpu.ts) climb from the query's own leaf.
 * Keys, box bounds and the tie rule are theirs, from the same functions (src/knn/keys.cpu.ts), so a key computed here
 * is bit for bit the key the single-process emst() computes for the same pair:
 *
 *   nearest    the query's lightest edge (key, min id, max id) to a point of another component, at or below a bound
 *              (nearest.cpu.ts's pruning: `<=` at the bound, then the subtree's smallest id decides);
 *   knnKeys    the m smallest keys from the query to the partition's points (mutual reachability's halos);
 *   lowerBounds per own point, a lower bound on its key to every point of the other partitions (their cell boxes).
 *
 * Coordinates are multiplied by the run's power of two 2^exponent first (exact: src/emst/scale.ts), as emst() scales
 * the whole point set, so keys live in the single-process run's key space.
 */
import { buildBvhCpu, type BvhCpu } from '../bvh/lbvh.cpu.js';
import { NONE } from '../bvh/layout.js';
import { boxKey, pointKey } from '../knn/keys.cpu.js';
import { nearestNeighbours } from '../knn/neighbours.cpu.js';
import { subtreeMinCore2 } from '../emst/nearest.cpu.js';
import type { PartitionData } from './types.js';

const f32 = Math.fround;

/** Subtrees of fewer points are scanned point by point. */
const SCAN_RANGE = 16;

/** Subtrees in the cover the 'tree' task returns (PartitionIndex.cut): a row's subtree fits a byte. */
export const CUT_CELLS = 255;

/** The label of a row left out of a 'nearest' request: never a candidate (no query's component code). */
export const EXCLUDED = 0xfffffffe;

/** lowerBounds packs a cell index below the key's bits: fewer cells than this (2^32 · PACK < 2^53). */
const PACK = 2 ** 20;

/** Groups of own points (BVH subtrees) that share one ordering of the other partitions' cells in lowerBounds. */
const GROUPS = 256;

/** A partition's points scaled by 2^exponent and their BVH (n ≥ 2), built once per partition and exponent. */
export class PartitionIndex {
  readonly n: number;
  readonly dim: number;
  /** n × dim scaled coordinates, rows in the partition's order (ascending global id). */
  readonly points: Float32Array;
  readonly ids: Uint32Array;
  /** The BVH of `points` (built on first use), or null for fewer than 2 points. */
  get bvh(): BvhCpu | null {
    if (this.built === undefined) this.built = this.n >= 2 ? buildBvhCpu(this.points, this.dim) : null;
    return this.built;
  }
  private built: BvhCpu | null | undefined;
  private stackNode = new Int32Array(256);
  private stackBound = new Float64Array(256);
  private stackMin = new Uint32Array(256);
  private readonly query: Float64Array;

  private constructor(
    data: PartitionData,
    readonly exponent: number,
  ) {
    this.dim = data.dim;
    this.n = data.ids.length;
    this.ids = data.ids;
    this.points = scaleRows(data.points, exponent);
    this.query = new Float64Array(this.dim);
  }

  /** The index of `data` at `exponent`, from a per-partition cache (the points never change; messages are not cached). */
  static of(data: PartitionData, exponent: number): PartitionIndex {
    const cached = CACHE.get(data);
    if (cached !== undefined && cached.exponent === exponent) return cached;
    const index = new PartitionIndex(data, exponent);
    CACHE.set(data, index);
    return index;
  }

  /**
   * Squared core distance bound per own row: the key of its m-th nearest other point of this partition (the point
   * itself excluded by index, duplicates at key 0, as the CPU backend's k-NN: src/knn/neighbours.cpu.ts), +∞ when
   * the partition has fewer than m other points. With `halo` (rows, and per row m ascending keys to other
   * partitions), the m-th smallest of both lists: the true core over all points.
   */
  cores(m: number, halo?: { rows: Uint32Array; keys: Float32Array }): Float32Array {
    const { n } = this;
    const out = new Float32Array(n).fill(Infinity);
    const k = Math.min(m, n - 1);
    // Each row's own k smallest keys, ascending (rows in partition order).
    const own = new Float32Array(n * Math.max(k, 0));
    if (k > 0) {
      const bvh = this.bvh!;
      const lists = nearestNeighbours(bvh, k);
      for (let j = 0; j < n; j++) own.set(lists.keys.subarray(j * k, j * k + k), bvh.order[j] * k);
      if (k === m) for (let r = 0; r < n; r++) out[r] = own[r * k + k - 1];
    }
    if (halo === undefined) return out;
    for (let q = 0; q < halo.rows.length; q++) {
      const r = halo.rows[q];
      // The m-th smallest of two ascending lists: merge until m values are taken.
      let a = 0;
      let b = 0;
      let v = Infinity;
      for (let t = 0; t < m; t++) {
        const x = a < k ? own[r * k + a] : Infinity;
        const y = halo.keys[q * m + b];
        if (x <= y) {
          v = x;
          a++;
        } else {
          v = y;
          b++;
        }
      }
      out[r] = v;
    }
    return out;
  }

  /**
   * Per own row, a lower bound on its key to every point of the other partitions: the smallest key to their cell
   * boxes (`cells`: boxes lo, hi of 2·dim unscaled values; `owner[c]` the partition of box c; own boxes skipped).
   * +∞ when there is no other partition. Own points are grouped by BVH subtrees (bvhCells), and a group visits
   * the other boxes nearest first, stopping at the first whose box-to-box bound cannot improve the point's minimum.
   */
  lowerBounds(cells: Float32Array, owner: Uint32Array, self: number): Float32Array {
    const { n, dim } = this;
    const out = new Float32Array(n).fill(Infinity);
    const w = 2 * dim;
    const f = 2 ** this.exponent;
    const other: number[] = [];
    for (let c = 0; c < owner.length; c++) if (owner[c] !== self) other.push(c);
    if (other.length === 0 || n === 0) return out;
    const boxes = new Float32Array(other.length * w);
    other.forEach((c, i) => {
      for (let t = 0; t < w; t++) boxes[i * w + t] = cells[c * w + t] * f;
    });
    const order = this.bvh === null ? Uint32Array.of(0) : this.bvh.order;
    const groups =
      this.bvh === null
        ? {
            first: Uint32Array.of(0),
            last: Uint32Array.of(0),
            boxes: Float32Array.from([...this.points, ...this.points]),
          }
        : bvhCells(this.bvh, GROUPS);
    const between = new Float64Array(other.length);
    const visit = new Uint32Array(other.length);
    // visit sorted by (between, index) natively: a non-negative float32 orders as its bits, packed above the index
    // (exact in a float64 while below 2^53). A comparator sort here was most of the 'tree' task's lowerBounds.
    const packed = new Float64Array(other.length);
    const wide = other.length >= PACK;
    const bits = new Uint32Array(1);
    const word = new Float32Array(bits.buffer);
    const q = this.query;
    for (let g = 0; g < groups.first.length; g++) {
      const a = groups.first[g];
      const b = groups.last[g] + 1;
      const glo = groups.boxes.subarray(g * w, g * w + dim);
      const ghi = groups.boxes.subarray(g * w + dim, g * w + w);
      // Box-to-box: per axis the gap between the group's box and the cell's, rounded and summed as keys.cpu.ts
      // sums a point's gaps; every step is monotone, so it bounds the key of every point of the group.
      for (let i = 0; i < other.length; i++) {
        let key = 0;
        for (let d = 0; d < dim; d++) {
          const lo = boxes[i * w + d];
          const hi = boxes[i * w + dim + d];
          const t = ghi[d] < lo ? f32(lo - ghi[d]) : glo[d] > hi ? f32(glo[d] - hi) : 0;
          key = f32(key + f32(t * t));
        }
        between[i] = key;
        visit[i] = i;
        word[0] = key;
        packed[i] = bits[0] * PACK + i;
      }
      if (wide) visit.sort((x, y) => between[x] - between[y] || x - y);
      else {
        packed.sort();
        for (let i = 0; i < other.length; i++) visit[i] = packed[i] - Math.floor(packed[i] / PACK) * PACK;
      }
      for (let j = a; j < b; j++) {
        const r = order[j];
        for (let d = 0; d < dim; d++) q[d] = this.points[r * dim + d];
        let best = Infinity;
        for (let v = 0; v < visit.length; v++) {
          const i = visit[v];
          if (between[i] >= best) break;
          const key = boxKey(boxes, i * w, dim, q, q[0], dim > 1 ? q[1] : 0, dim > 2 ? q[2] : 0, null);
          if (key < best) best = key;
        }
        out[r] = best;
      }
    }
    return out;
  }

  /** At most `max` (≤ 255) BVH subtrees covering the partition: their scaled boxes, and each row's subtree. */
  cut(max: number): { cell: Uint8Array; cellBoxes: Float32Array } {
    const cell = new Uint8Array(this.n);
    if (this.bvh === null) return { cell, cellBoxes: Float32Array.from([...this.points, ...this.points]) };
    const cells = bvhCells(this.bvh, Math.min(max, 255));
    const order = this.bvh.order;
    for (let g = 0; g < cells.first.length; g++) {
      for (let p = cells.first[g]; p <= cells.last[g]; p++) cell[order[p]] = g;
    }
    return { cell, cellBoxes: cells.boxes };
  }

  /** The m smallest keys from the scaled point `x` to this partition's points, ascending, +∞ beyond n; into out[at …]. */
  knnKeys(x: Float64Array, m: number, out: Float32Array, at: number): void {
    const { n, dim, points } = this;
    for (let t = 0; t < m; t++) out[at + t] = Infinity;
    if (n === 0) return;
    const [x0, x1, x2] = [x[0], dim > 1 ? x[1] : 0, dim > 2 ? x[2] : 0];
    const insert = (key: number): void => {
      if (!(key < out[at + m - 1])) return;
      let t = m - 1;
      while (t > 0 && out[at + t - 1] > key) {
        out[at + t] = out[at + t - 1];
        t--;
      }
      out[at + t] = key;
    };
    if (this.bvh === null) {
      insert(pointKey(points, 0, dim, x, x0, x1, x2, null));
      return;
    }
    const { sortedPoints: xs, links, boxes, ranges } = this.bvh;
    const leaves = n - 1;
    let sp = this.push(0, 0, boxKey(boxes, 0, dim, x, x0, x1, x2, null), 0);
    while (sp > 0) {
      const node = this.stackNode[--sp];
      if (this.stackBound[sp] >= out[at + m - 1]) continue;
      const first = node >= leaves ? node - leaves : ranges[2 * node];
      const last = node >= leaves ? node - leaves : ranges[2 * node + 1];
      if (last - first < SCAN_RANGE) {
        for (let p = first; p <= last; p++) insert(pointKey(xs, p, dim, x, x0, x1, x2, null));
        continue;
      }
      const l = links[4 * node];
      const r = links[4 * node + 1];
      const bl = this.childKey(l, x);
      const br = this.childKey(r, x);
      const nearLeft = bl <= br;
      sp = this.push(sp, nearLeft ? r : l, nearLeft ? br : bl, 0);
      sp = this.push(sp, nearLeft ? l : r, nearLeft ? bl : br, 0);
    }
  }

  /**
   * The lightest edge in the canonical (key, min id, max id) order from the scaled query point `x` (global id `gid`,
   * component `comp`, squared core `core2q` or 0) to a point of this partition whose label differs from `comp` and is
   * not EXCLUDED, among edges with key ≤ `bound`. `state`: the labels and, for mutual reachability, the cores.
   * Returns the row, or NONE; the key (or the lower bound) is left in `foundKey`.
   */
  nearest(x: Float64Array, gid: number, comp: number, bound: number, core2q: number, state: NearestState): number {
    const { n, dim, points, ids } = this;
    const { label, changes, mr } = state;
    let R = bound;
    let BL = NONE;
    let BH = NONE;
    let found = -1;
    // With nothing found: the smallest key or bound of what was discarded, which no candidate here undercuts.
    let pruned = Infinity;
    if (n === 0 || core2q > R) {
      this.foundKey = n === 0 ? Infinity : core2q;
      return NONE;
    }
    const [x0, x1, x2] = [x[0], dim > 1 ? x[1] : 0, dim > 2 ? x[2] : 0];
    // One candidate (Morton position p; row = order[p]) folded into (R, BL, BH).
    const offer = (p: number, key: number, row: number): void => {
      if (mr !== null) {
        if (mr.ia2 !== 1) key = f32(key * mr.ia2);
        if (core2q > key) key = core2q;
        if (mr.core2[p] > key) key = mr.core2[p];
      }
      if (key > R) {
        if (key < pruned) pruned = key;
        return;
      }
      const g = ids[row];
      const a = g < gid ? g : gid;
      const b = g < gid ? gid : g;
      if (key < R || a < BL || (a === BL && b < BH)) {
        R = key;
        BL = a;
        BH = b;
        found = row;
      } else if (key < pruned) pruned = key;
    };
    if (this.bvh === null) {
      if (label[0] !== comp && label[0] !== EXCLUDED) offer(0, pointKey(points, 0, dim, x, x0, x1, x2, null), 0);
      this.foundKey = found < 0 ? pruned : R;
      return found < 0 ? NONE : found;
    }
    const { sortedPoints: xs, links, ranges, order } = this.bvh;
    const leaves = n - 1;
    // The header record (n − 1) holds the root's smallest original row.
    let sp = this.push(0, 0, this.nodeBound(0, x, comp, core2q, state), links[4 * leaves + 2]);
    while (sp > 0) {
      const node = this.stackNode[--sp];
      const lower = this.stackBound[sp];
      if (lower >= R) {
        if (lower < pruned) pruned = lower;
        if (lower > R) continue;
        // Every candidate here has key ≥ R: only a smaller (min, max) id pair can win (nearest.cpu.ts).
        const g = ids[this.stackMin[sp]];
        const a = g < gid ? g : gid;
        const b = g < gid ? gid : g;
        if (!(a < BL || (a === BL && b < BH))) continue;
      }
      const first = node >= leaves ? node - leaves : ranges[2 * node];
      const last = node >= leaves ? node - leaves : ranges[2 * node + 1];
      if (last - first < SCAN_RANGE) {
        for (let p = first; p <= last; p++) {
          const l = label[p];
          if (l !== comp && l !== EXCLUDED) offer(p, pointKey(xs, p, dim, x, x0, x1, x2, null), order[p]);
        }
        continue;
      }
      const l = links[4 * node];
      const r = links[4 * node + 1];
      const bl = this.nodeBound(l, x, comp, core2q, state);
      const br = this.nodeBound(r, x, comp, core2q, state);
      const nearLeft = bl <= br;
      sp = this.push(sp, nearLeft ? r : l, nearLeft ? br : bl, links[4 * node + (nearLeft ? 3 : 2)]);
      sp = this.push(sp, nearLeft ? l : r, nearLeft ? bl : br, links[4 * node + (nearLeft ? 2 : 3)]);
    }
    this.foundKey = found < 0 ? pruned : R;
    return found < 0 ? NONE : found;
  }

  /**
   * After nearest(): the key of the edge found, or with none a lower bound on the key from the query to every point
   * here outside its component and not EXCLUDED (≥ the bound; +∞ when there is none) — valid in later rounds too,
   * since components only grow.
   */
  foundKey = Infinity;

  /** Per-query state of nearest(): the labels (and cores) of this partition's points in Morton order. */
  nearestState(labels: Uint32Array, core2: Float32Array | null, ia2: number): NearestState {
    const { n } = this;
    const order = this.bvh === null ? Uint32Array.of(0) : this.bvh.order;
    const label = new Uint32Array(n);
    const changes = new Uint32Array(n);
    for (let p = 0; p < n; p++) label[p] = labels[order[p]];
    for (let p = 1; p < n; p++) changes[p] = changes[p - 1] + (label[p] !== label[p - 1] ? 1 : 0);
    let mr: NearestState['mr'] = null;
    if (core2 !== null) {
      const c2 = new Float32Array(n);
      for (let p = 0; p < n; p++) c2[p] = core2[order[p]];
      const minCore2 = this.bvh === null ? new Float32Array(1) : subtreeMinCore2(this.bvh, c2);
      mr = { core2: c2, minCore2, ia2 };
    }
    return { label, changes, mr };
  }

  /** The key from x to unified node `node`'s box, or its point for a leaf. */
  private childKey(node: number, x: Float64Array): number {
    const { dim } = this;
    const { sortedPoints: xs, boxes } = this.bvh!;
    const leaves = this.n - 1;
    const [x0, x1, x2] = [x[0], dim > 1 ? x[1] : 0, dim > 2 ? x[2] : 0];
    return node >= leaves
      ? pointKey(xs, node - leaves, dim, x, x0, x1, x2, null)
      : boxKey(boxes, node * 2 * dim, dim, x, x0, x1, x2, null);
  }

  /** Lower bound on any edge from the query into `node` (+∞ when all its points carry the query's label or EXCLUDED). */
  private nodeBound(node: number, x: Float64Array, comp: number, core2q: number, state: NearestState): number {
    const leaves = this.n - 1;
    const { label, changes, mr } = state;
    if (node >= leaves) {
      const l = label[node - leaves];
      if (l === comp || l === EXCLUDED) return Infinity;
    } else {
      const { ranges } = this.bvh!;
      const f = ranges[2 * node];
      if (changes[f] === changes[ranges[2 * node + 1]] && (label[f] === comp || label[f] === EXCLUDED)) return Infinity;
    }
    let key = this.childKey(node, x);
    if (mr !== null) {
      if (mr.ia2 !== 1) key = f32(key * mr.ia2);
      if (core2q > key) key = core2q;
      const mc = node >= leaves ? mr.core2[node - leaves] : mr.minCore2[node];
      if (mc > key) key = mc;
    }
    return key;
  }

  /** Pushes (node, bound, smallest row) on the stack, growing it; returns the new depth. */
  private push(sp: number, node: number, bound: number, min: number): number {
    if (sp === this.stackNode.length) {
      const grow = <T extends Int32Array | Float64Array | Uint32Array>(a: T, make: (len: number) => T): T => {
        const b = make(2 * a.length);
        b.set(a);
        return b;
      };
      this.stackNode = grow(this.stackNode, (len) => new Int32Array(len));
      this.stackBound = grow(this.stackBound, (len) => new Float64Array(len));
      this.stackMin = grow(this.stackMin, (len) => new Uint32Array(len));
    }
    this.stackNode[sp] = node;
    this.stackBound[sp] = bound;
    this.stackMin[sp] = min;
    return sp + 1;
  }
}

/** nearest()'s per-round inputs in Morton order: labels, their prefix change count, and mutual reachability. */
export interface NearestState {
  label: Uint32Array;
  changes: Uint32Array;
  mr: { core2: Float32Array; minCore2: Float32Array; ia2: number } | null;
}

const CACHE = new WeakMap<PartitionData, PartitionIndex>();

/** Rows multiplied by 2^exponent (exact); the array itself for exponent 0. */
export function scaleRows(points: Float32Array, exponent: number): Float32Array {
  if (exponent === 0) return points;
  const f = 2 ** exponent;
  const out = new Float32Array(points.length);
  for (let i = 0; i < points.length; i++) out[i] = points[i] * f;
  return out;
}

/**
 * A cut through the top of `bvh` into at most `max` subtrees, each a contiguous run of the Morton order with its
 * tight box: the subtree with the longest box edge is split into its two children until there are `max` (or only
 * leaves). The BVH splits at the highest differing Morton bit (Karras), so the runs are octree-aligned and their boxes
 * do not straddle a high octree boundary, as runs cut at equal counts can. `first`/`last`: Morton positions;
 * `boxes`: lo, hi per subtree.
 */
export function bvhCells(bvh: BvhCpu, max: number): { first: Uint32Array; last: Uint32Array; boxes: Float32Array } {
  const { n, dim, boxes, ranges, links, sortedPoints } = bvh;
  const leaves = n - 1;
  const w = 2 * dim;
  const pointBox = (p: number): Float32Array => {
    const b = new Float32Array(w);
    for (let d = 0; d < dim; d++) b[d] = b[dim + d] = sortedPoints[p * dim + d];
    return b;
  };
  const frontier: number[] = [n >= 2 ? 0 : leaves];
  const extent = (node: number): number => {
    if (node >= leaves) return -1;
    let e = 0;
    for (let d = 0; d < dim; d++) e = Math.max(e, boxes[node * w + dim + d] - boxes[node * w + d]);
    return e;
  };
  while (frontier.length < max) {
    let at = -1;
    for (let i = 0; i < frontier.length; i++) {
      if (frontier[i] < leaves && (at < 0 || extent(frontier[i]) > extent(frontier[at]))) at = i;
    }
    if (at < 0) break;
    const node = frontier[at];
    frontier.splice(at, 1, links[4 * node], links[4 * node + 1]);
  }
  const c = frontier.length;
  const out = { first: new Uint32Array(c), last: new Uint32Array(c), boxes: new Float32Array(c * w) };
  frontier.forEach((node, i) => {
    const leaf = node >= leaves;
    out.first[i] = leaf ? node - leaves : ranges[2 * node];
    out.last[i] = leaf ? node - leaves : ranges[2 * node + 1];
    out.boxes.set(leaf ? pointBox(node - leaves) : boxes.subarray(node * w, node * w + w), i * w);
  });
  return out;
}
