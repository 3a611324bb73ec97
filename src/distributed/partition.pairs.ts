/**
 * The partitioned EMST's cross-partition phase by pairs (issue 20 §2; partitionedEmst's methods 'pairs' and
 * 'pairs-kruskal', opt-in: exact in every test, not yet timed on GPUs — the default stays 'rounds'): every pair of
 * partitions' MST on one owner ('pair' tasks, partition.tasks.ts), then one Kruskal on the coordinator.
 *
 * Exact by the cycle property under the strict order (key, min global id, max global id): an edge of the global MST
 * with both ends in P ∪ Q is in MST(P ∪ Q) — were it not, it would be the heaviest edge of a cycle inside P ∪ Q, a
 * cycle of the whole graph too. Likewise a global MST edge within P is in MST(P). So the global MST lies in
 *
 *   C = every pair's edges between its two partitions  ∪  for each partition P, an MST of P's points
 *
 * and the Kruskal over C in the strict order is the global MST itself (the MST of a subgraph that holds the MST).
 *
 *   'pairs-kruskal'  P's edges come from one pair holding P (its "keeper": the pair with the next live partition, the
 *                    last with the one before; within edges of MST(P ∪ Q) hold the global ones too), and the
 *                    coordinator merges every list (each owner sends its edges as global ids already in the canonical
 *                    order, canonicalById) and runs a union-find over all ~n of them;
 *   'pairs'          the pairs send their crossing edges only; then each partition's owner computes MST(P) ('forest')
 *                    and, told each of its points' lightest crossing key, proves most of its edges global MST edges
 *                    (contractForest: cut property) and labels the rest by the proven components; the coordinator
 *                    runs Kruskal over the open and crossing edges only (the borders') and merges the proven lists,
 *                    most of the merge while later replies compute. Contracting known MST edges leaves the MST of the
 *                    rest unchanged.
 *
 * Cost: k(k − 1)/2 pair tasks of two partitions' points (+ k forests), independent — they spread over the workers with
 * no round trips, each one emst() on the owner's backend (the GPU) — against Borůvka rounds (partition.rounds.ts),
 * whose coordinator work over the border points did not spread (2·10^7 points on two H100s: 0.87× one worker's time).
 * But it is k/2 times the local trees' EMST work: with CPU workers 'rounds' is faster (2·10^5 points, k = 8, two CPU
 * workers on the development machine: 12 s against 40 s). The edges come out in canonical key order, so emst()'s
 * order needs only the equal-weight runs sorted: 'pairs' merges its lists straight into that order (mergeToTree, on
 * the coordinator's threads: merge.threads.ts), 'pairs-kruskal' leaves it to partitionedEmst (orderFromKeyOrder).
 *
 * Host costs on the H100 (session 11, bench/nats-tasks.mjs, 5·10^7 normal 3D, k = 4, one worker in process, batch
 * 09:50 at ef3ba67), ns per pair point / per partition point: pair union 36.8, mst 20.8 (GPU and transfers), keep
 * 4.7; forest mst 35.8, keys 14.0, sort 12.6, contract 194.2, reply 10.6; coordinator partition 67.2, merge 94.8 (then
 * on one thread), kruskal 8.7 — edges identical to emst(). Session 10's NATS run at 2·10^7 (k = 8) had contract ~600,
 * keys ~170, reply ~100, keep ~54 ns.
 */
import type { PartitionRun } from './partition.run.js';
import type { EdgeSink, TaskMessage } from './types.js';
import type { EdgeList } from '../emst/edges.cpu.js';
import { firstUnsorted, firstUnsortedThreaded, mergeRange, mergeToTreeThreaded } from './merge.threads.js';
import { COORDINATOR_THREADS, resolveThreads } from '../host/threads.js';
import { touchOnWorkers } from '../host/buffers.js';
import { shared, taskThreading } from './tasks.threads.js';
import {
  complementThreaded,
  contractComplement,
  PEELED,
  steinerEdgesThreaded,
  steinerRank,
} from './contract.threads.js';
import { turn } from '../host/lanes.js';
import type { Task } from './partition.run.js';

/**
 * The MST edges as (min global id, max global id, key) in canonical (key, min id, max id) order. `contract` (method
 * 'pairs'): the pairs return their crossing edges only, then each partition's owner splits its own MST into proven
 * MST edges and the rest ('forest', contractForest), and this Kruskal runs over the rest and the crossing edges only;
 * without (method 'pairs-kruskal'): one pair per partition also returns the edges within it, and this Kruskal runs
 * over every candidate.
 */
export async function pairsEmst(
  run: PartitionRun,
  contract = true,
): Promise<{ sources: Uint32Array; targets: Uint32Array; keys: Float32Array } | EdgeList> {
  const { n, offsets } = run;
  const live = run.live();
  const base = { exponent: run.exponent, minSamples: run.minSamples, alpha: run.alpha };
  // The pairs, and (without contract) per partition its keeper: the pair that keeps its inner edges.
  const pairs: [number, number, boolean, boolean][] = [];
  if (live.length === 1 && !contract) pairs.push([live[0], live[0], true, false]);
  for (let i = 0; i < live.length; i++) {
    for (let j = i + 1; j < live.length; j++) {
      const keepP = !contract && j === i + 1;
      const keepQ = !contract && j === live.length - 1 && i === live.length - 2;
      pairs.push([live[i], live[j], keepP, keepQ]);
    }
  }
  const tasks: Task[] = pairs.map(([p, q, keepP, keepQ]) => {
    const arrays: Record<string, Float32Array> = {};
    if (run.mr) {
      arrays.core2 = run.core2.slice(offsets[p], offsets[p + 1]);
      if (q !== p) arrays.core2q = run.core2.slice(offsets[q], offsets[q + 1]);
    }
    return { partition: p, kind: 'pair', msg: { meta: { ...base, partner: q, within: [keepP, keepQ] }, arrays } };
  });
  // The owners' step times: the largest over the tasks, and under distributed::pairs.work their sum (the work the
  // workers share: what more workers divide).
  let work = 0;
  const ownTimes = (reply: TaskMessage, total: string): void => {
    const own = reply.meta.timings;
    if (own === null || typeof own !== 'object' || Array.isArray(own)) return;
    for (const [label, ms] of Object.entries(own)) {
      if (typeof ms === 'number') run.timings[label] = Math.max(run.timings[label] ?? 0, ms);
    }
    const ms = (own as Record<string, unknown>)[total];
    if (typeof ms === 'number') work += ms;
  };
  // A forest's proven list in shared memory (the one the threaded merge takes) is checked on the host's threads, its
  // check awaited before the merge (take() reads no more of it than its length); every other list at once.
  const checks: Promise<void>[] = [];
  const checkLater = async (list: SortedEdges, what: string): Promise<void> => {
    const threads = await resolveThreads(undefined, list.keys.length, COORDINATOR_THREADS);
    const bad = await firstUnsortedThreaded(list, n, threads);
    if (bad !== -1) checkSorted(list, n, what); // throws the one-thread error (or checks there: no threads)
  };
  const listOf = (reply: TaskMessage, what: string, prefix = '', later = false): SortedEdges => {
    const name = (x: string): string => (prefix === '' ? x : prefix + x[0].toUpperCase() + x.slice(1));
    const given = reply.arrays[name('keys')];
    const m = given instanceof Float32Array ? given.length : 0;
    const list: SortedEdges = {
      lo: run.reply(reply, name('lo'), Uint32Array, m),
      hi: run.reply(reply, name('hi'), Uint32Array, m),
      keys: run.reply(reply, name('keys'), Float32Array, m),
    };
    if (later && list.keys.length >= mergeThreading.minEdges && sharedList(list)) {
      const check = checkLater(list, what);
      check.catch(() => undefined); // awaited below, before the merge
      checks.push(check);
    } else checkSorted(list, n, what);
    return list;
  };
  const lists: SortedEdges[] = new Array(pairs.length);
  let total = 0;
  if (!contract) {
    await run.lap('distributed::pairs.cross', () =>
      run.call(tasks, (t, reply) => {
        ownTimes(reply, 'pair::total');
        lists[t] = listOf(reply, `pair (${pairs[t][0]}, ${pairs[t][1]})`);
        total += lists[t].keys.length;
      }),
    );
    run.stats.pairs = pairs.length;
    run.timings['distributed::pairs.work'] = work;
    run.stats.candidates = total;
    const t0 = performance.now();
    const merged = mergeAll(lists);
    const t1 = performance.now();
    const tree = kruskalSorted(n, merged);
    run.timings['distributed::merge'] = t1 - t0;
    run.timings['distributed::kruskal'] = performance.now() - t1;
    return tree;
  }
  // Per point: its lightest crossing key (+∞: no crossing edge) — typed arrays over the global ids, not Maps (V8 caps
  // a Map at 2^24 entries; 2·10^8 points have more terminals than that). A partition's forest task is sent as soon
  // as every pair holding it has answered (its floors are final then), while the other pairs still compute: workers
  // left without a pair at the end take forests instead of waiting for the last pairs.
  // floorOf[g]: 1 + the key's bits (keys ≥ 0: their bits order as the keys do), 0 for none (+∞). Zero means empty in
  // floorOf, labelOf and dense.ids below, so none is filled: a fresh array's pages are mapped only where written
  // (filling three arrays of n words was ~2–3 s of the coordinator's own time at 2·10^8 on the H100 host).
  const floorOf = new Uint32Array(n);
  const keyBits = (keys: Float32Array): Uint32Array => new Uint32Array(keys.buffer, keys.byteOffset, keys.length);
  const listed = new Uint8Array(Math.ceil(n / 8));
  const pairsOf: number[][] = run.infos.map(() => []);
  pairs.forEach(([p, q], t) => {
    pairsOf[p].push(t);
    pairsOf[q].push(t);
  });
  const waiting = pairsOf.map((list) => list.length);
  const forests: Promise<TaskMessage[]>[] = [];
  const startForest = (p: number): void => {
    // Its terminals: the ends in p of its pairs' crossing edges, each once, ascending.
    const ends: number[] = [];
    for (const t of pairsOf[p]) {
      const { lo, hi, side } = lists[t];
      const first = pairs[t][0] === p;
      for (let e = 0; e < lo.length; e++) {
        const g = (side![e] === SIDE_LO_P) === first ? lo[e] : hi[e];
        if (listed[g >>> 3] & (1 << (g & 7))) continue;
        listed[g >>> 3] |= 1 << (g & 7);
        ends.push(g);
      }
    }
    const terminals = Uint32Array.from(ends).sort();
    const floor = new Float32Array(terminals.length);
    const floorBits = keyBits(floor);
    for (let i = 0; i < terminals.length; i++) floorBits[i] = floorOf[terminals[i]] - 1;
    const arrays: TaskMessage['arrays'] = { terminals, floor };
    if (run.mr) arrays.core2 = run.core2.slice(offsets[p], offsets[p + 1]);
    const call = run.call([{ partition: p, kind: 'forest', msg: { meta: { ...base }, arrays } }], (_, reply) =>
      take(p, terminals, reply),
    );
    call.catch(() => undefined); // awaited below, with the others
    forests.push(call);
  };
  const takePair = (t: number, reply: TaskMessage): void => {
    const [p, q] = pairs[t];
    ownTimes(reply, 'pair::total');
    const list = listOf(reply, `pair (${p}, ${q})`);
    const { lo, hi, keys } = list;
    const side = (list.side = run.reply(reply, 'side', Uint8Array, keys.length));
    for (let e = 0; e < keys.length; e++) {
      if (side[e] !== SIDE_LO_P && side[e] !== SIDE_LO_Q) {
        throw new Error(
          `partitionedEmst: pair (${p}, ${q}) answered an edge within one partition (${lo[e]}, ${hi[e]})`,
        );
      }
    }
    const bits = keyBits(keys);
    for (let e = 0; e < keys.length; e++) {
      const b = bits[e] + 1;
      const fl = floorOf[lo[e]];
      if (fl === 0 || b < fl) floorOf[lo[e]] = b;
      const fh = floorOf[hi[e]];
      if (fh === 0 || b < fh) floorOf[hi[e]] = b;
    }
    lists[t] = list;
    total += keys.length;
    if (--waiting[p] === 0) startForest(p);
    if (--waiting[q] === 0) startForest(q);
  };
  // The contracted label (a global id) of every end of an open or crossing edge: the terminals' from their owners'
  // replies, the open edges' with them. Each reply is taken as it arrives, and the proven lists merged meanwhile
  // (all but the last one: the merge with it waits for the Kruskal's few edges, below).
  // labelOf[g]: 1 + the label's dense id (DenseLabels: numbered as they arrive), 0 for none (as floorOf). Numbered
  // here, the tail's Kruskal reads one n-word array at random and finds roots in an array of the labels seen (~10^6
  // at 2·10^8 points), where its union-find over the labels themselves chased parents through n words.
  const labelOf = new Uint32Array(n);
  const dense = new DenseLabels(n);
  const safeLists: SortedEdges[] = [];
  const rest: SortedEdges[] = [];
  let safeCount = 0;
  let arrived = 0;
  let merging = 0;
  const take = (p: number, terminals: Uint32Array, reply: TaskMessage): void => {
    const tTake = performance.now();
    ownTimes(reply, 'forest::total');
    const safe = listOf(reply, `partition ${p}'s forest`, '', true);
    safeCount += safe.keys.length;
    const open = listOf(reply, `partition ${p}'s open edges`, 'open');
    const la = run.reply(reply, 'openLa', Uint32Array, open.keys.length);
    const lb = run.reply(reply, 'openLb', Uint32Array, open.keys.length);
    const what = `partition ${p}'s forest`;
    for (let e = 0; e < open.keys.length; e++) {
      labelOf[open.lo[e]] = dense.of(la[e], what);
      labelOf[open.hi[e]] = dense.of(lb[e], what);
    }
    rest.push(open);
    const labels = run.reply(reply, 'label', Uint32Array, terminals.length);
    for (let i = 0; i < terminals.length; i++) labelOf[terminals[i]] = dense.of(labels[i], what);
    safeLists.push(safe);
    // Lists in shared memory (read so from NATS) are merged at the end on threads (mergeLists), not here.
    if (++arrived < live.length && !sharedList(safe)) {
      // Like a binary counter: the newest list merges with the one before while it is about as long, so each edge
      // moves O(log k) times (merging every arrival into one growing list moved ~k/2 times: 9·10^8 moves at 2·10^8).
      const s0 = performance.now();
      while (
        safeLists.length > 1 &&
        safeLists[safeLists.length - 1].keys.length >= 0.75 * safeLists[safeLists.length - 2].keys.length
      ) {
        const b = safeLists.pop()!;
        const a = safeLists.pop()!;
        safeLists.push(merge2(a, b));
      }
      merging += performance.now() - s0;
    }
    // The last reply's intake is the coordinator's own time after the last forest (the run's tail).
    run.timings['distributed::pairs.take'] = performance.now() - tTake;
  };
  for (const p of live) if (waiting[p] === 0) startForest(p); // a lone live partition: its forest alone
  await run.lap('distributed::pairs.cross', () => run.call(tasks, takePair));
  run.stats.pairs = pairs.length;
  // The result's arrays (the threaded merge's, below), mapped now, while the forests compute (a fresh array takes its
  // pages at ~1 GB/s on one thread of the H100 hosts: 2.4 GB at 2·10^8 would otherwise be the coordinator's own time
  // after the last forest).
  // TREELINE_MERGE_TOUCH=0: none of it (the pages taken in the last step instead), for A/B runs.
  const touch = (typeof process !== 'undefined' ? process.env.TREELINE_MERGE_TOUCH : undefined) !== '0';
  const t00 = performance.now();
  // The labels' dense ids (above): their pages mapped now, where the forests' intake has not yet (at 2·10^8 the
  // Kruskal over ~10^6 candidate edges took 1.2–1.4 s in the run's last step when its parents, n words touched at
  // random, were fresh pages). (`|= 0`: an id already given stays.)
  if (touch) for (let i = 0; i < n; i += 1024) dense.ids[i] |= 0;
  // And the threaded merge's shared arrays (mergeLists), their pages taken by the host's threads meanwhile.
  const temp = touch && n - 1 >= mergeThreading.minEdges ? mergeTemp(n - 1) : undefined;
  temp?.ready.catch(() => undefined); // awaited in mergeLists
  run.timings['distributed::merge.touch'] = performance.now() - t00;
  await run.lap('distributed::pairs.forests', () => Promise.all(forests));
  run.timings['distributed::merge.early'] = merging;
  const tCheck = performance.now();
  await Promise.all(checks);
  run.timings['distributed::pairs.check'] = performance.now() - tCheck;
  const t0 = performance.now();
  for (const list of lists) rest.push({ lo: list.lo, hi: list.hi, keys: list.keys });
  const candidates = mergeAll(rest);
  run.timings['distributed::pairs.work'] = work;
  run.stats.candidates = candidates.keys.length;
  // Kruskal over the open and crossing edges (in the canonical order) on the contracted labels' dense ids.
  const tEnds = performance.now();
  const ends = denseEnds(candidates, labelOf);
  const tUnion = performance.now();
  const chosen = kruskalDense(ends, dense.count);
  const count = chosen.length;
  if (safeCount + count !== n - 1) {
    throw new Error(
      `partitionedEmst: ${safeCount} proven and ${count} chosen edges for ${n - 1} MST edges (a reply is missing)`,
    );
  }
  const t1 = performance.now();
  // The picked edges in shared memory too (the threaded merge wants every list there).
  const pickedList = {
    lo: new Uint32Array(new SharedArrayBuffer(4 * count)),
    hi: new Uint32Array(new SharedArrayBuffer(4 * count)),
    keys: new Float32Array(new SharedArrayBuffer(4 * count)),
  };
  for (let i = 0; i < count; i++) {
    const e = chosen[i];
    pickedList.lo[i] = candidates.lo[e];
    pickedList.hi[i] = candidates.hi[e];
    pickedList.keys[i] = candidates.keys[e];
  }
  safeLists.push(pickedList);
  // (The sink takes the weights as merged: not where partitionedEmst rescales them afterwards.)
  const sink = run.exponent === 0 ? run.options.sink : undefined;
  const tree = await mergeLists(safeLists, Math.max(n - 1, 0), temp, run.timings, sink);
  run.timings['distributed::kruskal'] = t1 - t0;
  run.timings['distributed::kruskal.candidates'] = tEnds - t0;
  run.timings['distributed::kruskal.ends'] = tUnion - tEnds;
  run.timings['distributed::kruskal.union'] = t1 - tUnion;
  run.timings['distributed::merge'] = performance.now() - t1;
  run.stats.contracted = safeCount;
  return tree;
}

/**
 * Labels (global ids < n) numbered 0, 1, … in the order first seen, so that a union-find over them needs an array of
 * the labels seen, not of n words. bench/kruskal-dense.mjs on the H200 x2 host (32 cores), n = 2·10^8, 10^6 candidate
 * edges over ~8.6·10^5 labels: the Kruskal over the labels themselves 221–409 ms; the labels ranked in the tail (two
 * n-word arrays at random an end) 231–425 ms, no better; numbered at intake, the tail 121–139 ms, and the numbering of
 * every forest's labels 147–203 ms (the labelOf writes the intake made anyway included), off the tail but for the
 * last forests'.
 */
export class DenseLabels {
  /** ids[l]: 1 + label l's id, 0 for a label not seen (n words: its pages are mapped as labels arrive). */
  readonly ids: Uint32Array;
  /** Labels seen. */
  count = 0;

  constructor(readonly n: number) {
    this.ids = new Uint32Array(n);
  }

  /** 1 + label l's id (a new one where l is new); `what` names the reply in the error for a label ≥ n. */
  of(l: number, what: string): number {
    if (!(l < this.n)) throw new Error(`partitionedEmst: ${what} answered label ${l} (n = ${this.n})`);
    let d = this.ids[l];
    if (d === 0) this.ids[l] = d = ++this.count;
    return d;
  }
}

/**
 * The candidates' ends as dense ids (DenseLabels): ends[2e], ends[2e + 1] for edge e's lo and hi, from labelOf[g] = 1 +
 * point g's label's id (0: none, an error naming the point).
 */
export function denseEnds(candidates: SortedEdges, labelOf: Uint32Array): Uint32Array {
  const { lo, hi } = candidates;
  const m = lo.length;
  const ends = new Uint32Array(2 * m);
  for (let e = 0; e < 2 * m; e++) {
    const g = (e & 1) === 0 ? lo[e >>> 1] : hi[e >>> 1];
    const d = labelOf[g];
    if (d === 0) throw new Error(`partitionedEmst: point ${g}, an end of a crossing or open edge, has no label`);
    ends[e] = d - 1;
  }
  return ends;
}

/**
 * Kruskal over edges given as dense end ids (denseEnds: edge e joins ends[2e] and ends[2e + 1], in the candidates'
 * canonical order): the numbers of the edges that join two components, in order. The union-find lives in an array of
 * `labels` words (~10^6 at 2·10^8 points: 4 MB). Which root becomes the parent does not change which edges are chosen.
 */
export function kruskalDense(ends: Uint32Array, labels: number): Uint32Array {
  const m = ends.length >>> 1;
  // up[i]: 1 + the parent of id i, 0 for a root.
  const up = new Uint32Array(labels);
  const root = (i: number): number => {
    for (;;) {
      const p = up[i];
      if (p === 0) return i;
      const above = up[p - 1];
      if (above === 0) return p - 1;
      up[i] = above; // path halving
      i = above - 1;
    }
  };
  const chosen = new Uint32Array(m);
  let count = 0;
  for (let e = 0; e < m; e++) {
    const a = root(ends[2 * e]);
    const b = root(ends[2 * e + 1]);
    if (a === b) continue;
    if (a < b) up[b] = a + 1;
    else up[a] = b + 1;
    chosen[count++] = e;
  }
  return chosen.subarray(0, count);
}

/** Edges as global ids (lo < hi) with keys, in the canonical (key, lo, hi) order. */
export interface SortedEdges {
  lo: Uint32Array;
  hi: Uint32Array;
  keys: Float32Array;
  /** 'pair' replies: which of the pair's partitions holds each end (SIDE_*). */
  side?: Uint8Array;
}

/** A 'pair' edge's side: both ends in the asking partition p, both in its partner q, lo in p and hi in q, or lo in q. */
export const SIDE_P = 0;
export const SIDE_Q = 1;
export const SIDE_LO_P = 2;
export const SIDE_LO_Q = 3;

/**
 * The 'forest' task's split of a partition's MST (edges in canonical order, ends as rows < n) given each row's floor
 * (+∞, or the key of its lightest edge to another partition among the candidates): Kruskal over the tree in that
 * order, each component keeping its smallest floor. Edge e joining components A and B is the lightest tree edge
 * leaving A; when every floor in A is strictly above e's key, every crossing edge leaving A is heavier too, so e is
 * the lightest candidate edge leaving A — a global MST edge (cut property; strict, as an equal key could win the tie
 * on ids): `safe`. The rest are `open`. label(r): row r's component under the safe edges alone (its smallest row), for
 * the coordinator's Kruskal over the open and crossing edges: contracting edges known to be in the MST leaves the MST
 * of the rest unchanged.
 *
 * The state lives in `records` (forestRecords), 16 bytes a row: | Kruskal parent | least floor (f32 bits) | parent
 * under the safe edges | unused |. Consecutive edges touch rows at random (key order is not space order), so each
 * row costs cache misses, not instructions: one record a row holds them to one line a row (three arrays took three),
 * and each block of 64 edges first touches its ends' records, their parents' and grandparents' (loads the CPU
 * overlaps across the block's edges) before the dependent finds — 1.6× the three-array loop at 4·10^6 rows with the
 * ends' records, 1.4× more with the parents' (session 11; 194 ns an edge on the H100 host at 1.25·10^7 rows before the
 * parents'; the grandparents': contractEdges below). `floor` null: the floors are in `records` already (the 'forest'
 * task writes them there). `split`: where the edge numbers go (m words; the returned lists are views of it).
 */
export function contractForest(
  sorted: SortedEdges,
  floor: Float32Array | null,
  n: number,
  records: Uint32Array = forestRecords(n),
  split: Uint32Array = new Uint32Array(sorted.keys.length),
): Contracted {
  const st = contractState(sorted, floor, n, records, split);
  contractEdges(st, 0, sorted.keys.length);
  return contracted(st);
}

/**
 * contractForest, giving the event loop a turn every `sliceMs` (between blocks of CONTRACT_BLOCK edges): 10–17 s of
 * one synchronous loop a partition of 5·10^7 points on the H100 hosts, longer than a worker's presence expiry (15 s,
 * worker.host.ts: the other workers on its host then counted it gone and took its share of threads) and a sixth of
 * its ack wait (the task's `working` heartbeats). The same result.
 */
export async function contractForestAsync(
  sorted: SortedEdges,
  n: number,
  records: Uint32Array,
  split: Uint32Array,
  sliceMs = CONTRACT_SLICE_MS,
): Promise<Contracted> {
  const st = contractState(sorted, null, n, records, split);
  const m = sorted.keys.length;
  let since = performance.now();
  for (let e = 0; e < m; e += CONTRACT_BLOCK) {
    contractEdges(st, e, Math.min(m, e + CONTRACT_BLOCK));
    if (performance.now() - since >= sliceMs) {
      await turn();
      since = performance.now();
    }
  }
  return contracted(st);
}

/**
 * contractForest on the host's threads (session 18; its one-thread loop was 10–17 s a partition of 5·10^7 points on
 * the H100 hosts, a random walk over 800 MB of records, and the step two workers sharing a host slowed most): the
 * same split, and labels that group the rows asked about (the ends of open edges, the `terminals`) alike, by a
 * Kruskal over the Steiner tree of the terminals only. Preconditions: the terminals are exactly the rows with a floor
 * in `records` (each with a finite one: else null), and the edges are a spanning tree (m = n − 1; a cycle throws).
 * No terminals: every edge is safe.
 *
 * Exact: an edge off that Steiner tree has a side with no terminal, so every floor on that side is +∞ and the edge is
 * safe; for an edge on it, the terminals of its sides' components (under the lighter edges) are those reached over
 * lighter Steiner edges (the path between two of its rows stays in it), so the Kruskal restricted to the Steiner
 * edges, in the same order, sees the same least floors. Labels are needed for Steiner rows only (an open edge's ends
 * and the terminals are on it), and two of them are joined by safe edges iff they are by safe Steiner edges: the
 * label is the least Steiner row of the component, not its least row (the coordinator's Kruskal only compares them).
 *
 * The Steiner tree by peeling leaves without a floor on the threads (contract.threads.ts), its edges gathered in
 * order, their Kruskal on this thread (contractForest, ~3–5 % of the edges) over the Steiner rows numbered densely in
 * row order (their own records: the same unions, and each root still its component's least Steiner row), the safe
 * list the complement of the open one. `records` serve the passes only: the labels come from the Steiner rows'
 * records. Null (the records untouched) where it cannot run here: fewer than 2 threads, not a spanning tree
 * (m ≠ n − 1), arrays not in shared memory, no worker threads — the caller then runs contractForestAsync.
 */
export async function contractForestThreaded(
  threads: number,
  sorted: SortedEdges,
  n: number,
  records: Uint32Array,
  split: Uint32Array,
  terminals: Uint32Array,
  stats?: ContractStats,
): Promise<Contracted | null> {
  const m = sorted.keys.length;
  if (threads < 2 || m !== n - 1 || n < 2 * threads || n > PEELED) return null;
  if (!shared(records, sorted.lo, sorted.hi, split)) return null;
  // The rows with a floor are the terminals (they stay on the Steiner tree): a row the caller will ask the label of
  // without a floor could be peeled off it and keep its own label, so such input stays on the one-thread loop.
  const f32 = new Float32Array(records.buffer, records.byteOffset, 4 * n);
  for (let t = 0; t < terminals.length; t++) if (!(f32[4 * terminals[t] + 1] < Infinity)) return null;
  if (terminals.length === 0) {
    for (let e = 0; e < m; e++) split[e] = e;
    return { safe: split.subarray(0, m), open: new Uint32Array(0), label: (row) => safeRoot(records, row) };
  }
  const bits = new Uint32Array(new SharedArrayBuffer(4 * Math.max(1, (m + 31) >>> 5)));
  // (The passes' times straight into `stats`; `split` is free until the safe list: the scatter's near entries go there.)
  const ends = { records, lo: sorted.lo, hi: sorted.hi, keys: sorted.keys, bits, near: split };
  const tree = await steinerEdgesThreaded(threads, ends, n, stats);
  if (tree === null) return null;
  taskThreading.runs++;
  const t2 = performance.now();
  // The Kruskal over the Steiner edges with their ends numbered densely (their records take 16 bytes a Steiner row,
  // where the partition's took 16 a row: 800 MB at 5·10^7 rows for ~2·10^6 Steiner rows on the H200 host). With turns
  // of the event loop: the Steiner share grows with k and the dimension, up to the whole tree. Dense rows ascend with
  // rows, so each component's root is its least Steiner row, as the label below needs.
  const { steiner, wordRank, dense, rowOf, numbers } = tree;
  const count = numbers.length;
  const { open: openSub } = await contractForestAsync(tree.edges, tree.rows, dense, new Uint32Array(count));
  const open = new Uint32Array(new SharedArrayBuffer(4 * Math.max(1, openSub.length)), 0, openSub.length);
  for (let i = 0; i < open.length; i++) open[i] = numbers[openSub[i]];
  const t3 = performance.now();
  if (!(await complementThreaded(threads, open, split, m))) contractComplement({ open, split, start: 0, end: m });
  const s = m - open.length;
  if (stats) {
    stats.steinerEdges = count;
    stats.kruskal = t3 - t2;
    stats.complement = performance.now() - t3;
  }
  // (A row off the Steiner tree is its own label: only Steiner rows are asked about, above.)
  const label = (row: number) =>
    ((steiner[row >>> 5] >>> (row & 31)) & 1) === 0 ? row : rowOf[safeRoot(dense, steinerRank(steiner, wordRank, row))];
  return { safe: split.subarray(0, s), open, label };
}

/** contractForestThreaded's account: the Steiner tree's edges, and its steps' times (ms). */
export interface ContractStats {
  steinerEdges: number;
  /**
   * The threaded passes (contract.threads.ts): `degree` contract-tally, -scatter and -degree (which peels within each
   * thread's rows since session 19), `peel` contract-peel (the chains that cross the threads' ranges), `count`
   * contract-mark and -count, `gather` contract-gather (on this thread before session 19).
   */
  degree: number;
  peel: number;
  count: number;
  gather: number;
  kruskal: number;
  complement: number;
}

/** Edges between contractForestAsync's looks at the clock (a multiple of the 64-edge touching blocks), its slice. */
const CONTRACT_BLOCK = 1 << 16;
const CONTRACT_SLICE_MS = 250;

/** contractForest's split: the safe and the open edges' numbers (in order), and each row's label under the safe ones. */
export interface Contracted {
  safe: Uint32Array;
  open: Uint32Array;
  label: (row: number) => number;
}

interface ContractState {
  lo: Uint32Array;
  hi: Uint32Array;
  keys: Float32Array;
  u32: Uint32Array;
  f32: Float32Array;
  split: Uint32Array;
  safeCount: number;
  openAt: number;
  touched: number;
}

function contractState(
  sorted: SortedEdges,
  floor: Float32Array | null,
  n: number,
  records: Uint32Array,
  split: Uint32Array,
): ContractState {
  const f32 = new Float32Array(records.buffer, records.byteOffset, 4 * n);
  if (floor !== null) for (let i = 0; i < n; i++) f32[4 * i + 1] = floor[i];
  const { lo, hi, keys } = sorted;
  // Edge numbers, safe ones from the front, open ones from the back (typed: 10^8 edges do not fit JS arrays well).
  return { lo, hi, keys, u32: records, f32, split, safeCount: 0, openAt: keys.length, touched: 0 };
}

/** contractForest's loop over edges [from, to) (`from` a multiple of 64). */
function contractEdges(st: ContractState, from: number, to: number): void {
  const { lo, hi, keys, u32, f32, split } = st;
  let { safeCount, openAt, touched } = st;
  for (let e = from; e < to; e++) {
    if ((e & 63) === 0) {
      const end = e + 64 < to ? e + 64 : to;
      // The ends' records, their parents' and grandparents' (each load waits for the one before, but the edges'
      // chains overlap; the grandparents': 5–20 % faster on the development machine at 10^7–5·10^7 rows, session 17).
      for (let j = e; j < end; j++) touched ^= u32[4 * u32[4 * u32[4 * lo[j]]]] ^ u32[4 * u32[4 * u32[4 * hi[j]]]];
    }
    const u = lo[e];
    const v = hi[e];
    let a = u;
    while (u32[4 * a] !== a) {
      const g = u32[4 * u32[4 * a]];
      u32[4 * a] = g;
      a = g;
    }
    let b = v;
    while (u32[4 * b] !== b) {
      const g = u32[4 * u32[4 * b]];
      u32[4 * b] = g;
      b = g;
    }
    if (a === b) throw new Error(`partitionedEmst: a partition's tree closes a cycle at rows ${u}, ${v}`);
    const key = keys[e];
    const la = f32[4 * a + 1];
    const lb = f32[4 * b + 1];
    if (la > key || lb > key) {
      split[safeCount++] = e;
      const x = safeRoot(u32, u);
      const y = safeRoot(u32, v);
      if (x < y) u32[4 * y + 2] = x;
      else u32[4 * x + 2] = y;
    } else split[--openAt] = e;
    const l = la < lb ? la : lb;
    if (a < b) {
      u32[4 * b] = a;
      f32[4 * a + 1] = l;
    } else {
      u32[4 * a] = b;
      f32[4 * b + 1] = l;
    }
  }
  st.safeCount = safeCount;
  st.openAt = openAt;
  st.touched = touched;
}

function contracted(st: ContractState): Contracted {
  const { u32, split, safeCount, openAt } = st;
  // (touched only keeps the touching loads from being optimised away.)
  if (st.touched === -1) throw new Error('unreachable');
  return {
    safe: split.subarray(0, safeCount),
    open: split.subarray(openAt).reverse(),
    label: (row) => safeRoot(u32, row),
  };
}

/** contractForest's records for n rows (into `into`, 4n words): each row its own root twice, its floor +∞. */
export function forestRecords(n: number, into: Uint32Array = new Uint32Array(4 * n)): Uint32Array {
  const f32 = new Float32Array(into.buffer, into.byteOffset, 4 * n);
  for (let i = 0, o = 0; i < n; i++, o += 4) {
    into[o] = i;
    f32[o + 1] = Infinity;
    into[o + 2] = i;
    into[o + 3] = 0;
  }
  return into;
}

/** Row r's root under the safe edges in contractForest's records (path halving). */
export function safeRoot(records: Uint32Array, r: number): number {
  while (records[4 * r + 2] !== r) {
    const g = records[4 * records[4 * r + 2] + 2];
    records[4 * r + 2] = g;
    r = g;
  }
  return r;
}

/**
 * Edges (lo, hi, keys) put in the canonical (key, lo, hi) order, as new arrays (`inPlace`: in the given ones): an
 * insertion sort, O(m) for emst()'s output (ordered by weight = fround(√key), then by ids: only equal weights with
 * unequal keys move), which past 4m moves gives way to a comparison sort.
 */
export function canonicalById(
  lo: Uint32Array,
  hi: Uint32Array,
  keys: Float32Array,
  side?: Uint8Array,
  inPlace = false,
): SortedEdges {
  const m = keys.length;
  const L = inPlace ? lo : lo.slice(0, m);
  const H = inPlace ? hi : hi.slice(0, m);
  const K = inPlace ? keys : keys.slice(0, m);
  const S = side ? (inPlace ? side : side.slice(0, m)) : null;
  let moves = 0;
  for (let t = 1; t < m && moves <= 4 * m; t++) {
    const k = K[t];
    const a = L[t];
    const b = H[t];
    const kp = K[t - 1];
    if (kp < k || (kp === k && (L[t - 1] < a || (L[t - 1] === a && H[t - 1] < b)))) continue;
    const c = S === null ? 0 : S[t];
    let s = t;
    while (s > 0) {
      const kq = K[s - 1];
      if (!(kq > k || (kq === k && (L[s - 1] > a || (L[s - 1] === a && H[s - 1] > b))))) break;
      K[s] = kq;
      L[s] = L[s - 1];
      H[s] = H[s - 1];
      if (S !== null) S[s] = S[s - 1];
      s--;
      moves++;
    }
    K[s] = k;
    L[s] = a;
    H[s] = b;
    if (S !== null) S[s] = c;
  }
  if (moves > 4 * m) {
    // From a copy of the half-sorted arrays (a permutation of the input: the same sorted result).
    const [l0, h0, k0, s0] = [L.slice(), H.slice(), K.slice(), S?.slice()];
    const less = (x: number, y: number): boolean =>
      k0[x] < k0[y] || (k0[x] === k0[y] && (l0[x] < l0[y] || (l0[x] === l0[y] && h0[x] < h0[y])));
    const order = new Uint32Array(m);
    for (let t = 0; t < m; t++) order[t] = t;
    order.sort((x, y) => (less(x, y) ? -1 : less(y, x) ? 1 : 0));
    for (let t = 0; t < m; t++) {
      const e = order[t];
      L[t] = l0[e];
      H[t] = h0[e];
      K[t] = k0[e];
      if (S !== null) S[t] = s0![e];
    }
  }
  const out: SortedEdges = { lo: L, hi: H, keys: K };
  if (S !== null) out.side = S;
  return out;
}

/** Throws unless `list` is in strict canonical order with ids lo < hi < n. */
function checkSorted(list: SortedEdges, n: number, what: string): void {
  const { lo, hi, keys } = list;
  const e = firstUnsorted(lo, hi, keys, n, 0, keys.length);
  if (e < 0) return;
  if (!(lo[e] < hi[e] && hi[e] < n) || !(keys[e] >= 0)) {
    throw new Error(`partitionedEmst: ${what} answered edge (${lo[e]}, ${hi[e]}) with key ${keys[e]} (n = ${n})`);
  }
  throw new Error(`partitionedEmst: ${what}'s edges are not in the canonical order at edge ${e}`);
}

/** Two sorted lists merged in the canonical order (no two edges equal: each edge comes from one pair). */
function merge2(a: SortedEdges, b: SortedEdges): SortedEdges {
  const ma = a.keys.length;
  const mb = b.keys.length;
  const out = { lo: new Uint32Array(ma + mb), hi: new Uint32Array(ma + mb), keys: new Float32Array(ma + mb) };
  let i = 0;
  let j = 0;
  let t = 0;
  while (i < ma && j < mb) {
    const ka = a.keys[i];
    const kb = b.keys[j];
    const takeA = ka < kb || (ka === kb && (a.lo[i] < b.lo[j] || (a.lo[i] === b.lo[j] && a.hi[i] < b.hi[j])));
    if (takeA) {
      out.lo[t] = a.lo[i];
      out.hi[t] = a.hi[i];
      out.keys[t++] = ka;
      i++;
    } else {
      out.lo[t] = b.lo[j];
      out.hi[t] = b.hi[j];
      out.keys[t++] = kb;
      j++;
    }
  }
  for (; i < ma; i++, t++) {
    out.lo[t] = a.lo[i];
    out.hi[t] = a.hi[i];
    out.keys[t] = a.keys[i];
  }
  for (; j < mb; j++, t++) {
    out.lo[t] = b.lo[j];
    out.hi[t] = b.hi[j];
    out.keys[t] = b.keys[j];
  }
  return out;
}

/** Every list merged into one, the two shortest first (each edge moves O(log k) times). */
export function mergeAll(lists: SortedEdges[]): SortedEdges {
  const queue = lists.filter((l) => l.keys.length > 0);
  if (queue.length === 0) return { lo: new Uint32Array(0), hi: new Uint32Array(0), keys: new Float32Array(0) };
  while (queue.length > 1) {
    queue.sort((x, y) => x.keys.length - y.keys.length);
    const a = queue.shift()!;
    const b = queue.shift()!;
    queue.push(merge2(a, b));
  }
  return queue[0];
}

/**
 * Sorted lists (canonical (key, lo, hi) order, no edge twice) merged in one pass into emst()'s output: sources, targets
 * and weights fround(√key) in (weight, source, target) order — the merge, the weights and orderFromKeyOrder's run
 * sorting fused ('pairs' method's last step; mergeAll then the weights then orderFromKeyOrder made four passes over
 * the n − 1 edges: ~110 ns an edge on the development machine at 2·10^7, this one ~30). The lists' heads are compared
 * in turn (a handful of lists: a tournament tree would not pay). `into`: arrays of the merged length to write (their
 * pages already mapped: pairsEmst touches them while the forests compute).
 */
export function mergeToTree(lists: SortedEdges[], into?: EdgeList): EdgeList {
  const ls = lists.filter((l) => l.keys.length > 0);
  let m = 0;
  for (const l of ls) m += l.keys.length;
  const fits = into !== undefined && into.weights.length === m;
  const out = fits ? into : { sources: new Uint32Array(m), targets: new Uint32Array(m), weights: new Float32Array(m) };
  const keys = ls.map((l) => l.keys);
  mergeRange(
    { lo: ls.map((l) => l.lo), hi: ls.map((l) => l.hi), keys },
    keys.map(() => 0),
    keys.map((k) => k.length),
    out,
    0,
  );
  return out;
}

/** Whether a list's arrays are views of SharedArrayBuffers. */
const sharedList = (list: SortedEdges): boolean => shared(list.lo, list.hi, list.keys);

/**
 * mergeToTree of `lists` (m edges in all), on the coordinator's host threads (merge.threads.ts) where every list is in
 * shared memory (the forests' results as they come: nats.ts getMessage and nats.local.ts `shared`) and there are 2^20
 * edges or more — into shared arrays (`made`'s, mapped while the forests computed), which are the result as they are:
 * views of SharedArrayBuffers, read, written and uploaded like any typed array (the GPU's uploads copy shared views:
 * src/gpu/buffers.ts unshared). Copying them into plain arrays was ~1 s of the run's last step at 2·10^8 and 2.4 GB
 * more at its peak (session 15). Else on this thread, into new plain arrays. `sink`: the threaded merge writes the tree
 * to its files as it merges (merge.threads.ts); where the merge runs on this thread the files are abandoned and the
 * caller writes the result as without a sink.
 */
async function mergeLists(
  lists: SortedEdges[],
  m: number,
  made?: { arrays: EdgeList; ready: Promise<void> },
  timings?: Record<string, number>,
  sink?: EdgeSink,
): Promise<EdgeList> {
  const ls = lists.filter((l) => l.keys.length > 0);
  let total = 0;
  for (const l of ls) total += l.keys.length;
  if (total >= mergeThreading.minEdges && total === m && ls.every(sharedList)) {
    const threads = mergeThreading.threads ?? (await resolveThreads(undefined, m, COORDINATOR_THREADS));
    if (made) await made.ready;
    const temp =
      made && made.arrays.weights.length === m
        ? made.arrays
        : {
            sources: new Uint32Array(new SharedArrayBuffer(4 * m)),
            targets: new Uint32Array(new SharedArrayBuffer(4 * m)),
            weights: new Float32Array(new SharedArrayBuffer(4 * m)),
          };
    const lo = ls.map((l) => l.lo);
    const hi = ls.map((l) => l.hi);
    const keys = ls.map((l) => l.keys);
    const files = sink ? await sink.open(m) : null;
    if (await mergeToTreeThreaded({ lo, hi, keys }, temp, threads, timings, files ?? undefined)) return temp;
    await files?.abandon();
  }
  return mergeToTree(lists);
}

/**
 * From `minEdges` edges mergeLists merges on the host's threads (where every list is in shared memory), on `threads`
 * where set (else resolveThreads' default, up to COORDINATOR_THREADS). Tests lower minEdges and fix the threads to run
 * the threaded merge, and the sink's writes, on small runs; the library never changes them.
 */
export const mergeThreading: { minEdges: number; threads?: number } = { minEdges: 1 << 20 };

/**
 * mergeLists' shared arrays for m edges (the result), made while the forests compute: their pages taken by the host's
 * threads (at 2·10^8 the merge, 2.3–2.5 s on the H100 x2 host, took 2.4 GB of fresh pages in the run's last step).
 */
function mergeTemp(m: number): { arrays: EdgeList; ready: Promise<void> } {
  const buffers = [0, 1, 2].map(() => new SharedArrayBuffer(4 * m));
  const ready = resolveThreads(undefined, m, COORDINATOR_THREADS).then((threads) =>
    touchOnWorkers(
      buffers.map((buffer) => ({ buffer, bytes: 4 * m })),
      threads,
      'the merge',
    ),
  );
  return {
    arrays: {
      sources: new Uint32Array(buffers[0]),
      targets: new Uint32Array(buffers[1]),
      weights: new Float32Array(buffers[2]),
    },
    ready,
  };
}

/**
 * Kruskal over candidate edges in the canonical order (global ids lo < hi < n): a union-find over the ids, stopping at
 * n − 1 edges. Throws when the candidates do not span.
 */
export function kruskalSorted(
  n: number,
  edges: SortedEdges,
): { sources: Uint32Array; targets: Uint32Array; keys: Float32Array } {
  const { lo, hi, keys: K } = edges;
  const m = K.length;
  const parent = new Uint32Array(n);
  for (let i = 0; i < n; i++) parent[i] = i;
  const sources = new Uint32Array(Math.max(n - 1, 0));
  const targets = new Uint32Array(Math.max(n - 1, 0));
  const keys = new Float32Array(Math.max(n - 1, 0));
  let count = 0;
  for (let e = 0; e < m && count < n - 1; e++) {
    let a = lo[e];
    while (parent[a] !== a) {
      parent[a] = parent[parent[a]];
      a = parent[a];
    }
    let b = hi[e];
    while (parent[b] !== b) {
      parent[b] = parent[parent[b]];
      b = parent[b];
    }
    if (a === b) continue;
    if (a < b) parent[b] = a;
    else parent[a] = b;
    sources[count] = lo[e];
    targets[count] = hi[e];
    keys[count++] = K[e];
  }
  if (count < n - 1) {
    throw new Error(`partitionedEmst: the pairs' edges span ${count} of ${n - 1} MST edges (a pair reply is missing)`);
  }
  return { sources, targets, keys };
}
