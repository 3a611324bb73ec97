/**
 * The finer cover the coordinator prunes cross-partition queries with (partition.rounds.ts): each partition's 255
 * BVH subtrees ('tree' replies: cellBoxes, cell per row), which of them lie wholly inside one component, and the
 * box-to-box and point-to-box bounds to the cells outside a component.
 *
 * Cell g of partition p is global cell base[p] + g; its slots are slots[start[c] …]. cursor[c]: the slots before it
 * are known to share the first slot's component — for good, since components only grow; comp[c]: that component once
 * all do, else NONE (this round). So update() scans every slot O(1) times over the whole run.
 */
import { NONE } from '../bvh/layout.js';
import { boxKey } from '../knn/keys.cpu.js';
import type { PartitionRun } from './partition.run.js';

const f32 = Math.fround;

export class CellCover {
  readonly base: number[] = [0];
  readonly start: Uint32Array;
  readonly slots: Uint32Array;
  private readonly cursor: Uint32Array;
  readonly comp: Uint32Array;
  /** Per cell: the stamp of the last ask that needs its points listed (walk). */
  readonly needed: Uint32Array;
  private tick = 0;
  /** neighbours()' cache, by own global cell. */
  private readonly near: ({ order: Uint8Array[]; keys: Float32Array[] } | undefined)[] = [];

  constructor(
    private readonly run: PartitionRun,
    private readonly find: (slot: number) => number,
  ) {
    const n = run.n;
    for (let p = 0; p < run.k; p++) {
      this.base.push(this.base[p] + (run.cutBoxes[p] ? run.cutBoxes[p].length / (2 * run.dim) : 0));
    }
    const cells = this.base[run.k];
    this.start = new Uint32Array(cells + 1);
    for (let i = 0; i < n; i++) this.start[this.cellOf(i) + 1]++;
    for (let c = 0; c < cells; c++) this.start[c + 1] += this.start[c];
    this.cursor = this.start.slice(0, cells);
    this.slots = new Uint32Array(n);
    for (let i = 0; i < n; i++) this.slots[this.cursor[this.cellOf(i)]++] = i;
    this.cursor.set(this.start.subarray(0, cells));
    this.comp = new Uint32Array(cells).fill(NONE);
    this.needed = new Uint32Array(cells);
    this.near = new Array(cells).fill(undefined);
  }

  /** Slot i's global cell. */
  cellOf(i: number): number {
    return this.base[this.run.partOf[i]] + this.run.cutOf[i];
  }

  /** A fresh stamp for `needed`. */
  stamp(): number {
    return ++this.tick;
  }

  /** The box-to-box bound from own cell G to partition b's nearest cell outside comp (no coordinates needed). */
  boxLower(G: number, b: number, comp: number): number {
    return this.cutKey(undefined, G, b, comp);
  }

  /** comp for this round: a cell's component once all its points share one (cursor scans, O(n) per run). */
  update(): void {
    const { start: cellStart, slots: cellSlots, cursor, comp: cellComp } = this;
    for (let c = 0; c < cellComp.length; c++) {
      const first = cellStart[c];
      const end = cellStart[c + 1];
      const rep = this.find(cellSlots[first]);
      let at = cursor[c];
      while (at < end && this.find(cellSlots[at]) === rep) at++;
      cursor[c] = at;
      cellComp[c] = at === end ? rep : NONE;
    }
  }

  /**
   * For own cell G (global index) and every other partition b: b's cells sorted by their box-to-box key from G's
   * box (each axis' gap rounded and summed as keys.cpu.ts sums a point's: monotone steps, so a lower bound on the key
   * of any point of G to any point of the cell). Static; built the first time G's points ask.
   */
  private neighbours(G: number): { order: Uint8Array[]; keys: Float32Array[] } {
    const cached = this.near[G];
    if (cached !== undefined) return cached;
    const { dim, k, cutBoxes } = this.run;
    let p = 0;
    while (this.base[p + 1] <= G) p++;
    const own = cutBoxes[p].subarray(2 * dim * (G - this.base[p]), 2 * dim * (G - this.base[p] + 1));
    const order: Uint8Array[] = [];
    const keys: Float32Array[] = [];
    for (let b = 0; b < k; b++) {
      const boxes = cutBoxes[b];
      const count = b === p || boxes === undefined ? 0 : boxes.length / (2 * dim);
      const key = new Float32Array(count);
      for (let h = 0; h < count; h++) {
        let sum = 0;
        for (let d = 0; d < dim; d++) {
          const lo = boxes[2 * dim * h + d];
          const hi = boxes[2 * dim * h + dim + d];
          const t = own[dim + d] < lo ? f32(lo - own[dim + d]) : own[d] > hi ? f32(own[d] - hi) : 0;
          sum = f32(sum + f32(t * t));
        }
        key[h] = sum;
      }
      // Sorted by (key, cell) natively: a non-negative float32 orders as its bits, packed above the cell's byte
      // (exact in a float64: below 2^40). The comparator sort it replaces cost ~0.2 s more per run at 10^6 points,
      // k = 8 (2040 own cells × 8 partitions).
      const bits = new Uint32Array(key.buffer);
      const packed = new Float64Array(count);
      for (let h = 0; h < count; h++) packed[h] = bits[h] * 256 + h;
      packed.sort();
      const o = new Uint8Array(count);
      const sorted = new Uint32Array(count);
      for (let t = 0; t < count; t++) {
        const high = Math.floor(packed[t] / 256);
        o[t] = packed[t] - high * 256;
        sorted[t] = high;
      }
      order.push(o);
      keys.push(new Float32Array(sorted.buffer));
    }
    const out = { order, keys };
    this.near[G] = out;
    return out;
  }

  /**
   * A lower bound on the key from scaled point x (of own cell G, in component comp) to every point of partition b
   * outside comp: the key to the nearest of b's cells not wholly inside comp (+∞ when there is none). With x
   * undefined, the box-to-box bound of the nearest such cell (no coordinates needed). Euclidean keys.
   */
  private cutKey(x: Float64Array | undefined, G: number, b: number, comp: number): number {
    const { dim } = this.run;
    const { order, keys } = this.neighbours(G);
    const boxes = this.run.cutBoxes[b];
    const base = this.base[b];
    const o = order[b];
    const kk = keys[b];
    let best = Infinity;
    for (let t = 0; t < o.length; t++) {
      if (kk[t] >= best) break;
      const h = o[t];
      if (this.comp[base + h] === comp) continue;
      if (x === undefined) return kk[t];
      const key = boxKey(boxes, 2 * dim * h, dim, x, x[0], dim > 1 ? x[1] : 0, dim > 2 ? x[2] : 0, null);
      if (key < best) best = key;
    }
    return best;
  }

  /**
   * The point-level walk of partition b's cells from scaled point x (own cell G, component comp, core² `core`, bound
   * `bound`), nearest box first, skipping cells wholly inside comp; keys in the run's key space (mutual reachability:
   * max(core², key · ia2)). Marks every cell within the bound (`needed`, with `stamp`) and leaves in walkLower a lower
   * bound on the key to every point of b outside comp, in walkOver one on every point of b outside comp and outside
   * the cells marked for this point.
   */
  walk(x: Float64Array, G: number, b: number, comp: number, core: number, bound: number, stamp: number): void {
    const { dim, mr, ia2 } = this.run;
    const { order, keys } = this.neighbours(G);
    const boxes = this.run.cutBoxes[b];
    const base = this.base[b];
    const o = order[b];
    const kk = keys[b];
    const tr = (key: number): number => {
      if (!mr) return key;
      const k2 = ia2 === 1 ? key : f32(key * ia2);
      return k2 > core ? k2 : core;
    };
    let lower = Infinity;
    let over = Infinity;
    for (let t = 0; t < o.length; t++) {
      const h = o[t];
      if (this.comp[base + h] === comp) continue;
      const box = tr(kk[t]);
      if (box > bound) {
        if (box < lower) lower = box;
        if (box < over) over = box;
        break;
      }
      const key = tr(boxKey(boxes, 2 * dim * h, dim, x, x[0], dim > 1 ? x[1] : 0, dim > 2 ? x[2] : 0, null));
      if (key < lower) lower = key;
      if (key <= bound) this.needed[base + h] = stamp;
      else if (key < over) over = key;
    }
    this.walkLower = lower;
    this.walkOver = over;
  }

  /** walk()'s results. */
  walkLower = Infinity;
  walkOver = Infinity;
}
