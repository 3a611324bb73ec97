/**
 * Borůvka on the coordinator over the union of the local trees and the cross-partition edges (issue 20 §2), from
 * singletons: every round each component takes its lightest outgoing edge in the canonical order, which is
 *
 *   the lighter of  its lightest local-tree edge leaving it  (an in-partition edge that is any component's lightest
 *                                                             is a global MST edge, so in its partition's tree)
 *              and  its lightest cross-partition edge        (asked of the partitions' owners: 'nearest').
 *
 * Who asks (each exact because components only grow, so a point's cross-partition candidates only shrink):
 *   - a point whose last answer (j, key) still lies in another component offers it again without asking: it was its
 *     best over the partitions it asked, and every partition it did not ask lay beyond the bound that answer met;
 *   - otherwise a point asks when its lower bound — its key to the nearest other partition's cells, its core², and
 *     the key of its last answer or the bound it last asked with and found nothing (nothing lighter remains) — is at
 *     most its component's best so far; and asks only the partitions whose cells lie within that best;
 *   - a component with no local-tree edge out (whole partitions) first sends one asker, the point nearest to another
 *     partition, with no bound, so that the others ask within a bound.
 * Then merge along the chosen edges (an edge chosen by both its components is added once).
 *
 * Important! Offers compare (key, min global id, max global id), as do the owners' searches: any other tie-break
 * can close a cycle among equal keys.
 *
 * Per round: O(n) passes over the slots (find, cached answers, askers) and over the tree edges still between
 * components; one 'rows' batch for first-time askers, one 'nearest' batch carrying the asked partitions' labels
 * (coded: 1 byte a point while fewer than 255 asking components have points there; none in the first round).
 */
import { NONE } from '../bvh/layout.js';
import { roundsFraction } from '../progress.js';
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
  /** Per slot: its component (root slot) this round. */
  private readonly label: Uint32Array;
  /** Per component root: its best edge so far (key, ids, slots). */
  private readonly bestKey: Float32Array;
  private readonly bestLo: Uint32Array;
  private readonly bestHi: Uint32Array;
  private readonly bestU: Uint32Array;
  private readonly bestV: Uint32Array;
  /** Per slot: its last answer's far end (NONE: none standing) and key. */
  private readonly answer: Uint32Array;
  private readonly answerKey: Float32Array;
  /** Per slot: no cross-partition edge of it has a smaller key (from its answers; in the run's key space). */
  private readonly floor: Float32Array;
  /** Per partition: the component holding all of it, or NONE. */
  private readonly whole: Uint32Array;
  private readonly x: Float64Array;
  private alive: number;
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
    this.label = new Uint32Array(n);
    this.bestKey = new Float32Array(n);
    this.bestLo = new Uint32Array(n);
    this.bestHi = new Uint32Array(n);
    this.bestU = new Uint32Array(n);
    this.bestV = new Uint32Array(n);
    this.answer = new Uint32Array(n).fill(NONE);
    this.answerKey = new Float32Array(n);
    this.floor = new Float32Array(n);
    // A point's lower bound on its cross-partition keys: its cells bound, and for mutual reachability its core.
    for (let i = 0; i < n; i++) {
      let l = run.lower[i];
      if (run.mr) {
        if (run.ia2 !== 1) l = f32(l * run.ia2);
        if (run.core2[i] > l) l = run.core2[i];
      }
      this.floor[i] = l;
    }
    this.whole = new Uint32Array(run.k);
    this.x = new Float64Array(run.dim);
    this.alive = tree.keys.length;
    this.mark = new Uint32Array(n);
    this.code = new Uint32Array(n);
  }

  async solve() {
    const { n, run, bestKey, bestLo, bestHi, label } = this;
    const outU = new Uint32Array(n - 1);
    const outV = new Uint32Array(n - 1);
    const outKey = new Float32Array(n - 1);
    let edges = 0;
    while (edges < n - 1) {
      const round = ++run.stats.rounds;
      const roots = this.labels();
      this.offerTreeEdges();
      this.offerAnswers();
      this.findWhole();
      // Components of whole partitions: one asker each, without a bound.
      const open = roots.filter((c) => bestKey[c] === Infinity);
      if (open.length > 0) await this.ask(this.probes(), () => Infinity);
      const askers: number[] = [];
      for (let i = 0; i < n; i++) {
        if (this.answer[i] === NONE && this.floor[i] <= bestKey[label[i]]) askers.push(i);
      }
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
      run.options.onProgress?.(0.5 + 0.45 * roundsFraction(n, n - edges), `round ${round + 1}`);
      if (edges < n - 1) run.checkAbort(`after Borůvka round ${round} (${edges} of ${n - 1} edges)`);
    }
    return { sources: outU, targets: outV, keys: outKey };
  }

  private find(i: number): number {
    const parent = this.parent;
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  }

  /** Labels every slot with its component's root; resets the roots' best edges; returns the roots. */
  private labels(): number[] {
    const roots: number[] = [];
    for (let i = 0; i < this.n; i++) {
      const c = this.find(i);
      this.label[i] = c;
      if (c === i) {
        roots.push(i);
        this.bestKey[i] = Infinity;
        this.bestLo[i] = NONE;
        this.bestHi[i] = NONE;
      }
    }
    return roots;
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
    const label = this.label;
    let kept = 0;
    for (let e = 0; e < this.alive; e++) {
      const cu = label[u[e]];
      const cv = label[v[e]];
      if (cu === cv) continue;
      u[kept] = u[e];
      v[kept] = v[e];
      keys[kept++] = keys[e];
      this.offer(cu, keys[e], u[e], v[e]);
      this.offer(cv, keys[e], u[e], v[e]);
    }
    this.alive = kept;
  }

  /** Standing answers offered again; an answer now inside its component becomes the point's floor. */
  private offerAnswers(): void {
    const { answer, answerKey, label, floor } = this;
    for (let i = 0; i < this.n; i++) {
      const j = answer[i];
      if (j === NONE) continue;
      if (label[j] !== label[i]) {
        this.offer(label[i], answerKey[i], i, j);
        this.offer(label[j], answerKey[i], i, j);
      } else {
        if (answerKey[i] > floor[i]) floor[i] = answerKey[i];
        answer[i] = NONE;
      }
    }
  }

  /**
   * The components of partition [from, to)'s points as its owner needs them for queries `qs`: only whether a point
   * shares a query's component. The queries' components with points there get codes 1 … Q, every other point 0, a
   * query whose component has no point there a code no point carries. `labels` is a Uint8Array while Q < 255, and is
   * left out (all 0) when Q = 0 — as in the first round, when every component is one point.
   */
  private codedLabels(
    qs: number[],
    from: number,
    to: number,
  ): { comp: Uint32Array; labels?: Uint8Array | Uint32Array } {
    const { label, mark, code } = this;
    const tick = ++this.tick;
    for (const i of qs) mark[label[i]] = tick;
    let q = 0;
    for (let j = from; j < to; j++) {
      const c = label[j];
      if (mark[c] === tick) {
        mark[c] = tick + 1;
        code[c] = ++q;
      }
    }
    this.tick++;
    // Now mark[c] = tick + 1 exactly for the query components with points here, coded code[c].
    const absent = q < 255 ? 255 : NONE;
    const comp = Uint32Array.from(qs, (i) => (mark[label[i]] === tick + 1 ? code[label[i]] : absent));
    if (q === 0) return { comp };
    const labels = q < 255 ? new Uint8Array(to - from) : new Uint32Array(to - from);
    for (let j = from; j < to; j++) labels[j - from] = mark[label[j]] === tick + 1 ? code[label[j]] : 0;
    return { comp, labels };
  }

  /** whole[p]: the component holding all of partition p, or NONE. */
  private findWhole(): void {
    const { offsets } = this.run;
    for (let p = 0; p < this.run.k; p++) {
      const a = offsets[p];
      const b = offsets[p + 1];
      let c = a < b ? this.label[a] : NONE;
      for (let i = a + 1; i < b && c !== NONE; i++) if (this.label[i] !== c) c = NONE;
      this.whole[p] = c;
    }
  }

  /** Per component with no edge yet, its point with the smallest floor. */
  private probes(): number[] {
    const probe = new Map<number, number>();
    for (let i = 0; i < this.n; i++) {
      const c = this.label[i];
      if (this.bestKey[c] !== Infinity) continue;
      const at = probe.get(c);
      if (at === undefined || this.floor[i] < this.floor[at]) probe.set(c, i);
    }
    return [...probe.values()];
  }

  /**
   * Asks, for every slot in `askers`, the partitions within `boundOf(its component)` of it (not its own, not those
   * inside its component) for its lightest edge to another component; offers the answers to both components and
   * keeps each asker's best as its answer (or, with none, raises its floor to the bound).
   */
  private async ask(askers: number[], boundOf: (c: number) => number): Promise<void> {
    const { run, label, x, answer, answerKey, floor } = this;
    if (askers.length === 0) return;
    await run.fetchRows(askers);
    const queries = run.infos.map(() => [] as number[]);
    for (const i of askers) {
      const c = label[i];
      const bound = boundOf(c);
      run.coordinates(i, x);
      for (let b = 0; b < run.k; b++) {
        if (b === run.partOf[i] || run.infos[b].count === 0 || this.whole[b] === c) continue;
        let lb = run.cellKey(x, b);
        if (run.mr) {
          if (run.ia2 !== 1) lb = f32(lb * run.ia2);
          if (run.core2[i] > lb) lb = run.core2[i];
        }
        if (lb <= bound) queries[b].push(i);
      }
      answer[i] = NONE;
    }
    const asked = run.infos.map((_, b) => b).filter((b) => queries[b].length > 0);
    const meta = { exponent: run.exponent, alpha: run.alpha, mr: run.mr };
    const replies = await run.call(
      asked.map((b) => {
        const qs = queries[b];
        const from = run.offsets[b];
        const to = run.offsets[b + 1];
        const arrays: TaskMessage['arrays'] = {
          points: run.rowsOf(qs),
          gid: Uint32Array.from(qs, (i) => run.gid[i]),
          bound: Float32Array.from(qs, (i) => boundOf(label[i])),
          ...this.codedLabels(qs, from, to),
        };
        if (run.mr) {
          arrays.core2 = Float32Array.from(qs, (i) => run.core2[i]);
          arrays.ownCore2 = run.core2.slice(from, to);
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
        if (row[q] === NONE) return;
        if (row[q] >= run.infos[b].count) {
          throw new Error(`partitionedEmst: partition ${b} answered row ${row[q]} of ${run.infos[b].count}`);
        }
        const j = run.offsets[b] + row[q];
        this.offer(label[i], key[q], i, j);
        this.offer(label[j], key[q], i, j);
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
          answer[i] = j;
          answerKey[i] = key[q];
        }
      });
    });
    // An asker with no answer has no cross-partition edge at or below the bound it asked with.
    for (const i of askers) {
      const bound = boundOf(label[i]);
      if (answer[i] === NONE && bound > floor[i]) floor[i] = bound;
    }
  }
}
