/**
 * Borůvka on the coordinator over the union of the local trees and the cross-partition edges (issue 20 §2), from
 * the components left after contract() (the local-tree edges provably in the global MST, merged before any round:
 * 75 % of the edges at 10^6 normal 3D, k = 8): every round each component takes its lightest outgoing edge in the
 * canonical order, which is
 *
 *   the lighter of  its lightest local-tree edge leaving it  (an in-partition edge that is any component's lightest
 *                                                             is a global MST edge, so in its partition's tree)
 *              and  its lightest cross-partition edge        (asked of the partitions' owners: 'nearest').
 *
 * Who asks (each exact because components only grow, so a point's cross-partition candidates only shrink):
 *   - a point whose last answer (j, key) still lies in another component offers it again without asking: it was its
 *     best over the partitions it asked, and every partition it did not ask lay beyond the bound that answer met;
 *   - otherwise a point asks when its floor — its key to the nearest other partition's cells and its core² (floor0),
 *     raised to the key of its last answer, or after an ask that found nothing to the smallest of what the owners
 *     discarded and the bounds of the partitions not asked — is at most its component's best so far; and asks only
 *     the partitions whose cells lie within that best — cells of the finer cover (each partition's 255 BVH subtrees)
 *     not wholly inside its own component;
 *   - a component with no local-tree edge out (whole partitions) first sends one asker with no bound, so that the
 *     others ask within one.
 * An owner is told the components of only those of its points that can answer: floor0 ≤ the largest bound asked of
 * it (a point's key to any query from another partition is at least its floor0); the others are left out.
 * Then merge along the chosen edges (an edge chosen by both its components is added once).
 *
 * Important! Offers compare (key, min global id, max global id), as do the owners' searches: any other tie-break
 * can close a cycle among equal keys.
 *
 * Per round the work is proportional to what is active, not to n: the components (their best edges), the local-tree
 * edges still between components, the standing answers, and the prefixes of each partition's points sorted by floor0
 * up to the round's largest bound (askers, and the points an owner is told about). Union-find `find` is called on
 * those only. Messages: one 'rows' batch for first-time askers, one 'nearest' batch per round (plus one for probes).
 */
import { NONE } from '../bvh/layout.js';
import { sortCodesCpu } from '../bvh/sort.cpu.js';
import { roundsFraction } from '../progress.js';
import { CellCover } from './partition.cover.js';
import type { PartitionRun } from './partition.run.js';
import type { TaskMessage } from './types.js';

const f32 = Math.fround;

/** The local trees' edges in slots (u, v) with their keys. */
export interface SlotEdges {
  u: Uint32Array;
  v: Uint32Array;
  keys: Float32Array;
}

/** The n − 1 MST edges as (min global id, max global id, key), in the order found. */
export async function boruvkaRounds(run: PartitionRun, tree: SlotEdges) {
  return new Rounds(run, tree).solve();
}

class Rounds {
  private readonly n: number;
  private readonly parent: Uint32Array;
  /** The current components' roots: the first `components` entries. */
  private readonly roots: Uint32Array;
  private components: number;
  /** Per component root: its best edge so far (key, ids, slots). */
  private readonly bestKey: Float32Array;
  private readonly bestLo: Uint32Array;
  private readonly bestHi: Uint32Array;
  private readonly bestU: Uint32Array;
  private readonly bestV: Uint32Array;
  /** Per slot: its last answer's far end (NONE: none standing) and key; `answering` lists the slots with one. */
  private readonly answer: Uint32Array;
  private readonly answerKey: Float32Array;
  private answering: number[] = [];
  /** Per slot: no cross-partition edge of it has a smaller key; floor0 its first value. */
  private readonly floor: Float32Array;
  private readonly floor0: Float32Array;
  /** Per partition: its slots sorted by floor0 (ascending), as one array in partition order. */
  private readonly byFloor: Uint32Array;
  /** Per partition: the local-tree edges still between components, and whether all of it is one component. */
  private readonly aliveIn: Uint32Array;
  private readonly whole: Uint32Array;
  private readonly x: Float64Array;
  private alive: number;
  /** The finer cover's cells and their components (partition.cover.ts). */
  private readonly cover: CellCover;
  /** codedLabels' scratch: per component a stamp and a code. */
  private readonly mark: Uint32Array;
  private readonly code: Uint32Array;
  private tick = 0;

  constructor(
    private readonly run: PartitionRun,
    private readonly tree: SlotEdges,
  ) {
    const n = (this.n = run.n);
    this.parent = new Uint32Array(n);
    for (let i = 0; i < n; i++) this.parent[i] = i;
    this.roots = new Uint32Array(n);
    for (let i = 0; i < n; i++) this.roots[i] = i;
    this.components = n;
    this.bestKey = new Float32Array(n);
    this.bestLo = new Uint32Array(n);
    this.bestHi = new Uint32Array(n);
    this.bestU = new Uint32Array(n);
    this.bestV = new Uint32Array(n);
    this.answer = new Uint32Array(n).fill(NONE);
    this.answerKey = new Float32Array(n);
    this.floor = new Float32Array(n);
    // A point's first floor: its key bound to the other partitions' cells, and for mutual reachability its core.
    for (let i = 0; i < n; i++) {
      let l = run.lower[i];
      if (run.mr) {
        if (run.ia2 !== 1) l = f32(l * run.ia2);
        if (run.core2[i] > l) l = run.core2[i];
      }
      this.floor[i] = l;
    }
    this.floor0 = this.floor.slice();
    this.byFloor = new Uint32Array(n);
    for (let p = 0; p < run.k; p++) {
      const from = run.offsets[p];
      const count = run.offsets[p + 1] - from;
      // Non-negative float32 keys order as their bits: a radix sort of (bits, 0) pairs.
      const codes = new Uint32Array(2 * count);
      const bits = new Uint32Array(this.floor0.buffer, 4 * from, count);
      for (let r = 0; r < count; r++) codes[2 * r] = bits[r];
      const { order } = sortCodesCpu(codes, count, 32);
      for (let r = 0; r < count; r++) this.byFloor[from + r] = from + order[r];
    }
    this.aliveIn = new Uint32Array(run.k);
    this.whole = new Uint32Array(run.k);
    this.x = new Float64Array(run.dim);
    this.alive = tree.keys.length;
    this.mark = new Uint32Array(n);
    this.code = new Uint32Array(n);
    this.cover = new CellCover(run, (i) => this.find(i));
  }

  async solve() {
    const { n, run, bestKey, bestLo, bestHi } = this;
    const outU = new Uint32Array(n - 1);
    const outV = new Uint32Array(n - 1);
    const outKey = new Float32Array(n - 1);
    let edges = this.contract(outU, outV, outKey);
    run.stats.contracted = edges;
    while (edges < n - 1) {
      const round = ++run.stats.rounds;
      const roots = this.roots.subarray(0, this.components);
      for (const c of roots) {
        bestKey[c] = Infinity;
        bestLo[c] = NONE;
        bestHi[c] = NONE;
      }
      this.offerTreeEdges();
      this.offerAnswers();
      this.findWhole();
      this.cover.update();
      // Components of whole partitions: one asker each, without a bound.
      const open: number[] = [];
      for (const c of roots) if (bestKey[c] === Infinity) open.push(c);
      if (open.length > 0) await this.ask(this.probes(open), () => Infinity);
      let top = 0;
      for (const c of roots) if (bestKey[c] > top) top = bestKey[c];
      const askers: number[] = [];
      this.prefixes(top, (i) => {
        if (this.answer[i] === NONE && this.floor[i] <= bestKey[this.find(i)]) askers.push(i);
      });
      await this.ask(askers, (c) => bestKey[c]);
      // Merge along every component's best edge.
      const before = edges;
      for (const c of roots) {
        if (bestKey[c] === Infinity) continue;
        const ru = this.find(this.bestU[c]);
        const rv = this.find(this.bestV[c]);
        if (ru === rv) continue;
        if (ru < rv) this.parent[rv] = ru;
        else this.parent[ru] = rv;
        outU[edges] = bestLo[c];
        outV[edges] = bestHi[c];
        outKey[edges++] = bestKey[c];
      }
      if (edges === before) throw new Error(`partitionedEmst: round ${round} added no edge (${edges} of ${n - 1})`);
      let kept = 0;
      for (const c of roots) if (this.parent[c] === c) this.roots[kept++] = c;
      this.components = kept;
      run.options.onProgress?.(0.5 + 0.45 * roundsFraction(n, n - edges), `round ${round + 1}`);
      if (edges < n - 1) run.checkAbort(`after Borůvka round ${round} (${edges} of ${n - 1} edges)`);
    }
    return { sources: outU, targets: outV, keys: outKey };
  }

  /**
   * Before any round: every local-tree edge that is provably a global MST edge, merged and written to out* (returns
   * their number). Kruskal over each partition's tree in the canonical order, every edge merged (a separate
   * union-find), each forest component keeping the smallest floor0 of its points. Edge e joining forest components A
   * and B is the lightest edge within the partition leaving A (an in-partition edge lighter than e either is a tree
   * edge already merged, or closes a cycle of lighter tree edges: both ends already in one component); when every
   * point of A has floor0 > key(e), every cross-partition edge leaving A is heavier too, so e is the lightest edge
   * across the cut (A, rest) under the strict order: a global MST edge (cut property). Likewise for B. Strict `>`:
   * a cross-partition edge at an equal key might win the tie on ids. Interior points have large floor0, so the rounds
   * start from components that touch partition borders instead of from n single points.
   */
  private contract(outU: Uint32Array, outV: Uint32Array, outKey: Float32Array): number {
    const { run, tree, floor0, parent } = this;
    const { u, v, keys } = tree;
    const gid = run.gid;
    const { offsets, k } = run;
    // The Kruskal forest's union-find (by slot) and each root's smallest floor0.
    const forest = new Uint32Array(this.n);
    for (let i = 0; i < this.n; i++) forest[i] = i;
    const least = floor0.slice();
    const root = (i: number): number => {
      while (forest[i] !== i) {
        forest[i] = forest[forest[i]];
        i = forest[i];
      }
      return i;
    };
    let edges = 0;
    // Partition p's tree is edges at … at + count − 2 (localTrees); each partition's Kruskal on its own.
    let at = 0;
    for (let p = 0; p < k; p++) {
      const count = offsets[p + 1] - offsets[p];
      if (count < 2) continue;
      const order = canonicalOrder(u, v, keys, gid, at, at + count - 1);
      at += count - 1;
      for (let t = 0; t < order.length; t++) {
        const e = order[t];
        const a = root(u[e]);
        const b = root(v[e]);
        if (a === b)
          throw new Error(`partitionedEmst: the local trees close a cycle at edge ${e} (slots ${u[e]}, ${v[e]})`);
        const key = keys[e];
        if (least[a] > key || least[b] > key) {
          // Merged in the rounds' union-find too: the two ends lie in different components there (a forest of a
          // subset of the same edges).
          const ru = this.find(u[e]);
          const rv = this.find(v[e]);
          if (ru < rv) parent[rv] = ru;
          else parent[ru] = rv;
          const gu = gid[u[e]];
          const gv = gid[v[e]];
          outU[edges] = gu < gv ? gu : gv;
          outV[edges] = gu < gv ? gv : gu;
          outKey[edges++] = key;
        }
        const l = least[a] < least[b] ? least[a] : least[b];
        if (a < b) {
          forest[b] = a;
          least[a] = l;
        } else {
          forest[a] = b;
          least[b] = l;
        }
      }
    }
    if (at !== keys.length) throw new Error(`partitionedEmst: ${keys.length} local-tree edges, expected ${at}`);
    let kept = 0;
    for (let c = 0; c < this.components; c++)
      if (parent[this.roots[c]] === this.roots[c]) this.roots[kept++] = this.roots[c];
    this.components = kept;
    return edges;
  }

  private find(i: number): number {
    const parent = this.parent;
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  }

  /** Calls `visit` for every slot whose floor0 is at most `top`, partition by partition. */
  private prefixes(top: number, visit: (i: number) => void, only?: number): void {
    const { offsets, k } = this.run;
    for (let p = only ?? 0; p < (only === undefined ? k : only + 1); p++) {
      for (let r = offsets[p]; r < offsets[p + 1]; r++) {
        const i = this.byFloor[r];
        if (this.floor0[i] > top) break;
        visit(i);
      }
    }
  }

  /** Offers edge (u, v) with `key` to component c in the canonical (key, min id, max id) order. */
  private offer(c: number, key: number, u: number, v: number): void {
    const gid = this.run.gid;
    const a = gid[u] < gid[v] ? gid[u] : gid[v];
    const b = gid[u] < gid[v] ? gid[v] : gid[u];
    const k = this.bestKey[c];
    if (key < k || (key === k && (a < this.bestLo[c] || (a === this.bestLo[c] && b < this.bestHi[c])))) {
      this.bestKey[c] = key;
      this.bestLo[c] = a;
      this.bestHi[c] = b;
      this.bestU[c] = u;
      this.bestV[c] = v;
    }
  }

  /** The local trees' edges between components, offered to both; those inside a component are dropped for good. */
  private offerTreeEdges(): void {
    const { u, v, keys } = this.tree;
    const partOf = this.run.partOf;
    this.aliveIn.fill(0);
    let kept = 0;
    for (let e = 0; e < this.alive; e++) {
      const cu = this.find(u[e]);
      const cv = this.find(v[e]);
      if (cu === cv) continue;
      u[kept] = u[e];
      v[kept] = v[e];
      keys[kept++] = keys[e];
      this.aliveIn[partOf[u[e]]]++;
      this.offer(cu, keys[e], u[e], v[e]);
      this.offer(cv, keys[e], u[e], v[e]);
    }
    this.alive = kept;
  }

  /** Standing answers offered again; an answer now inside its component becomes the point's floor. */
  private offerAnswers(): void {
    const { answer, answerKey, floor } = this;
    const still: number[] = [];
    for (const i of this.answering) {
      const j = answer[i];
      if (j === NONE) continue;
      const ci = this.find(i);
      const cj = this.find(j);
      if (ci !== cj) {
        this.offer(ci, answerKey[i], i, j);
        this.offer(cj, answerKey[i], i, j);
        still.push(i);
      } else {
        if (answerKey[i] > floor[i]) floor[i] = answerKey[i];
        answer[i] = NONE;
      }
    }
    this.answering = still;
  }

  /**
   * whole[p]: the component holding all of partition p, or NONE. Its local tree spans it, so it is one component
   * exactly when none of its tree edges is left between components.
   */
  private findWhole(): void {
    const { offsets, k } = this.run;
    for (let p = 0; p < k; p++) {
      const empty = offsets[p] === offsets[p + 1];
      this.whole[p] = !empty && this.aliveIn[p] === 0 ? this.find(offsets[p]) : NONE;
    }
  }

  /** One asker per component in `open` (whole partitions): a point of it nearest to another partition. */
  private probes(open: number[]): number[] {
    const wanted = new Set(open);
    const probe = new Map<number, number>();
    for (let p = 0; p < this.run.k; p++) {
      const c = this.whole[p];
      if (c === NONE || !wanted.has(c)) continue;
      const i = this.byFloor[this.run.offsets[p]];
      const at = probe.get(c);
      if (at === undefined || this.floor0[i] < this.floor0[at]) probe.set(c, i);
    }
    return [...probe.values()];
  }

  /**
   * The components of partition b's points that can answer queries `qs` with bounds up to `top`, coded: only whether
   * a point shares a query's component matters. Listed: the points with floor0 ≤ top (the others cannot answer) as
   * `rows`, or all of them (no `rows`) when that is fewer bytes. The queries' components with listed points get codes
   * 1 … Q, every other listed point 0, a query whose component has no listed point a code no point carries. `labels`
   * (per listed point) is a Uint8Array while Q < 255, left out (all 0) for Q = 0 — as in the first round, when every
   * component is one point.
   */
  private codedLabels(
    qs: number[],
    b: number,
    top: number,
    stamp: number,
  ): {
    comp: Uint32Array;
    rows?: Uint32Array;
    labels?: Uint8Array | Uint32Array;
    listed: ArrayLike<number>;
    past: number;
  } {
    const { mark, code, floor0, byFloor } = this;
    const { needed, slots: cellSlots, start: cellStart } = this.cover;
    const from = this.run.offsets[b];
    const to = this.run.offsets[b + 1];
    // The prefix of b's points by floor0 up to top (binary search), and the points of its needed cells: list those
    // in both, enumerating the shorter.
    let lo = from;
    let hi = to;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (floor0[byFloor[mid]] <= top) lo = mid + 1;
      else hi = mid;
    }
    const past = lo < to ? floor0[byFloor[lo]] : Infinity;
    const base = this.cover.base[b];
    const cells = this.cover.base[b + 1] - base;
    let inCells = 0;
    for (let h = 0; h < cells; h++)
      if (needed[base + h] === stamp) inCells += cellStart[base + h + 1] - cellStart[base + h];
    let listed: number[] | Uint32Array = [];
    if (lo - from <= inCells) {
      const cutOf = this.run.cutOf;
      for (let r = from; r < lo; r++) if (needed[base + cutOf[byFloor[r]]] === stamp) listed.push(byFloor[r]);
    } else {
      for (let h = 0; h < cells; h++) {
        if (needed[base + h] !== stamp) continue;
        for (let t = cellStart[base + h]; t < cellStart[base + h + 1]; t++) {
          if (floor0[cellSlots[t]] <= top) listed.push(cellSlots[t]);
        }
      }
    }
    const tick = ++this.tick;
    for (const i of qs) mark[this.find(i)] = tick;
    // Codes 1 … q for the query components among `slots`, in order of first appearance.
    const codeOver = (slots: ArrayLike<number>): number => {
      let q = 0;
      for (let t = 0; t < slots.length; t++) {
        const c = this.find(slots[t]);
        if (mark[c] === tick) {
          mark[c] = tick + 1;
          code[c] = ++q;
        }
      }
      return q;
    };
    let q = codeOver(listed);
    const width = (codes: number) => (codes === 0 ? 0 : codes < 255 ? 1 : 4);
    if (2 * listed.length > to - from && (to - from) * width(q) < listed.length * (4 + width(q))) {
      // Dense: every point, no rows (recoded over all of them: their codes may be more). Only when most are listed
      // anyway: recoding costs a find per point.
      for (const i of qs) mark[this.find(i)] = tick;
      listed = new Uint32Array(to - from);
      for (let r = 0; r < to - from; r++) listed[r] = from + r;
      q = codeOver(listed);
    }
    this.tick++;
    // Now mark[c] = tick + 1 exactly for the query components with listed points, coded code[c].
    const absent = q < 255 ? 255 : NONE;
    const comp = Uint32Array.from(qs, (i) => (mark[this.find(i)] === tick + 1 ? code[this.find(i)] : absent));
    const dense = listed.length === to - from;
    const out: {
      comp: Uint32Array;
      rows?: Uint32Array;
      labels?: Uint8Array | Uint32Array;
      listed: ArrayLike<number>;
      past: number;
    } = { comp, listed, past };
    if (!dense) out.rows = Uint32Array.from(listed, (j) => j - from);
    if (q > 0) {
      const labels = q < 255 ? new Uint8Array(listed.length) : new Uint32Array(listed.length);
      for (let t = 0; t < listed.length; t++) {
        const c = this.find(listed[t]);
        labels[t] = mark[c] === tick + 1 ? code[c] : 0;
      }
      out.labels = labels;
    }
    return out;
  }

  /**
   * Asks, for every slot in `askers`, the partitions within `boundOf(its component)` of it (not its own, not those
   * inside its component) for its lightest edge to another component; offers the answers to both components and
   * keeps each asker's best as its answer (or, with none, raises its floor to the bound).
   */
  private async ask(candidates: number[], boundOf: (c: number) => number): Promise<void> {
    const { run, x, answer, answerKey, floor } = this;
    // First by the asker's own cell box (no coordinates needed): an asker none of whose partitions' cells outside its
    // component lies within its bound only raises its floor.
    const askers: number[] = [];
    for (const i of candidates) {
      const c = this.find(i);
      const p = run.partOf[i];
      const G = this.cover.cellOf(i);
      const bound = boundOf(c);
      const core = run.mr ? run.core2[i] : 0;
      let asks = false;
      let least = Infinity;
      for (let b = 0; b < run.k && !asks; b++) {
        if (b === p || run.infos[b].count === 0 || this.whole[b] === c) continue;
        let lb = this.cover.boxLower(G, b, c);
        if (run.mr && run.ia2 !== 1) lb = f32(lb * run.ia2);
        if (core > lb) lb = core;
        if (lb <= bound) asks = true;
        else if (lb < least) least = lb;
      }
      if (asks) askers.push(i);
      else if (least > floor[i]) floor[i] = least;
    }
    if (askers.length === 0) return;
    await run.fetchRows(askers);
    const queries = run.infos.map(() => [] as number[]);
    const tops = new Float64Array(run.k);
    // Per asker: the smallest lower bound over the partitions it does not ask (then those it asks), for its floor.
    const beyond = new Float32Array(askers.length).fill(Infinity);
    // Per query: a lower bound on its keys to the points of the asked partition in cells not listed for it.
    const overs = run.infos.map(() => [] as number[]);
    const stamp = this.cover.stamp();
    askers.forEach((i, a) => {
      const c = this.find(i);
      const bound = boundOf(c);
      const G = this.cover.cellOf(i);
      run.coordinates(i, x);
      for (let b = 0; b < run.k; b++) {
        if (b === run.partOf[i] || run.infos[b].count === 0 || this.whole[b] === c) continue;
        this.cover.walk(x, G, b, c, run.mr ? run.core2[i] : 0, bound, stamp);
        const lb = this.cover.walkLower;
        if (lb <= bound) {
          queries[b].push(i);
          overs[b].push(this.cover.walkOver);
          if (bound > tops[b]) tops[b] = bound;
        } else if (lb < beyond[a]) beyond[a] = lb;
      }
      answer[i] = NONE;
    });
    const at = new Map<number, number>();
    askers.forEach((i, a) => at.set(i, a));
    const asked = run.infos.map((_, b) => b).filter((b) => queries[b].length > 0);
    const meta = { exponent: run.exponent, alpha: run.alpha, mr: run.mr };
    // Per asked partition: the smallest floor0 of its points left out (their keys to any query are at least that).
    const next = new Float32Array(run.k).fill(Infinity);
    const replies = await run.call(
      asked.map((b) => {
        const qs = queries[b];
        const { listed, past, ...coded } = this.codedLabels(qs, b, tops[b], stamp);
        next[b] = past;
        const arrays: TaskMessage['arrays'] = {
          points: run.rowsOf(qs),
          gid: Uint32Array.from(qs, (i) => run.gid[i]),
          bound: Float32Array.from(qs, (i) => boundOf(this.find(i))),
          ...coded,
        };
        if (run.mr) {
          arrays.core2 = Float32Array.from(qs, (i) => run.core2[i]);
          arrays.ownCore2 = Float32Array.from(listed, (j) => run.core2[j]);
        }
        return { partition: b, kind: 'nearest', msg: { meta, arrays } };
      }),
    );
    const gid = run.gid;
    asked.forEach((b, t) => {
      const qs = queries[b];
      const key = run.reply(replies[t], 'key', Float32Array, qs.length);
      const row = run.reply(replies[t], 'row', Uint32Array, qs.length);
      run.stats.queries += qs.length;
      qs.forEach((i, q) => {
        if (row[q] === NONE) {
          const a = at.get(i)!;
          let lb = key[q] < next[b] ? key[q] : next[b];
          if (overs[b][q] < lb) lb = overs[b][q];
          if (lb < beyond[a]) beyond[a] = lb;
          return;
        }
        if (row[q] >= run.infos[b].count) {
          throw new Error(`partitionedEmst: partition ${b} answered row ${row[q]} of ${run.infos[b].count}`);
        }
        const j = run.offsets[b] + row[q];
        this.offer(this.find(i), key[q], i, j);
        this.offer(this.find(j), key[q], i, j);
        // The asker's best answer over the partitions it asked, in the canonical order.
        const a = answer[i];
        const lo = (g: number) => (g < gid[i] ? g : gid[i]);
        const hi = (g: number) => (g < gid[i] ? gid[i] : g);
        if (
          a === NONE ||
          key[q] < answerKey[i] ||
          (key[q] === answerKey[i] &&
            (lo(gid[j]) < lo(gid[a]) || (lo(gid[j]) === lo(gid[a]) && hi(gid[j]) < hi(gid[a]))))
        ) {
          if (a === NONE) this.answering.push(i);
          answer[i] = j;
          answerKey[i] = key[q];
        }
      });
    });
    // An asker with no answer has no cross-partition edge at or below the bound it asked with; more precisely,
    // none below the smallest of what the asked owners discarded, the points they were not told about, and the
    // partitions not asked.
    askers.forEach((i, a) => {
      if (answer[i] === NONE && beyond[a] > floor[i]) floor[i] = beyond[a];
    });
  }
}

/**
 * The indices from .. to − 1 of the edges in the canonical (key, min global id, max global id) order, for any input
 * order: an insertion sort, which past 4·(to − from) moves gives way to a comparison sort. A local tree arrives as
 * emst() returns it — by (weight, min row, max row), rows ascending in global id, weight = fround(√key) monotone in
 * key — so only equal weights with unequal keys move: O(to − from).
 */
export function canonicalOrder(
  u: Uint32Array,
  v: Uint32Array,
  keys: Float32Array,
  gid: Uint32Array,
  from = 0,
  to = keys.length,
): Uint32Array {
  const m = to - from;
  const lo = (e: number) => (gid[u[e]] < gid[v[e]] ? gid[u[e]] : gid[v[e]]);
  const hi = (e: number) => (gid[u[e]] < gid[v[e]] ? gid[v[e]] : gid[u[e]]);
  const less = (a: number, b: number): boolean =>
    keys[a] < keys[b] || (keys[a] === keys[b] && (lo(a) < lo(b) || (lo(a) === lo(b) && hi(a) < hi(b))));
  const order = new Uint32Array(m);
  for (let t = 0; t < m; t++) order[t] = from + t;
  let moves = 0;
  for (let t = 1; t < m; t++) {
    const e = order[t];
    if (keys[order[t - 1]] < keys[e]) continue;
    let s = t;
    while (s > 0 && less(e, order[s - 1])) {
      order[s] = order[s - 1];
      s--;
      moves++;
    }
    order[s] = e;
    if (moves > 4 * m) return order.sort((a, b) => (less(a, b) ? -1 : less(b, a) ? 1 : 0));
  }
  return order;
}
