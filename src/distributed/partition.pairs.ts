/**
 * The partitioned EMST's cross-partition phase by pairs (issue 20 §2; partitionedEmst's default method): every pair
 * of partitions' MST on one owner ('pair' tasks, partition.tasks.ts), then ONE Kruskal over the edges they kept on
 * the coordinator.
 *
 * Exact by the cycle property under the strict order (key, min global id, max global id): an edge of the global MST
 * with both ends in P ∪ Q is in MST(P ∪ Q) — were it not, it would be the heaviest edge of a cycle inside P ∪ Q, a
 * cycle of the whole graph too. So the union over all pairs of their MSTs holds the global MST, and so does
 *
 *   candidates = every pair's edges between its two partitions  ∪  for each partition, the edges within it of ONE
 *                pair holding it (its "keeper": the pair with the next live partition, the last with the one before)
 *
 * (a global MST edge within P lies in MST(P ∪ Q) for every Q, its keeper's included). The Kruskal over the candidates
 * in the strict order is then the global MST itself (the MST of a subgraph that holds the MST). A single live
 * partition is its own pair ('pair' with itself: its MST, all kept).
 *
 * Cost: k(k − 1)/2 pair tasks of two partitions' points, independent — they spread over the workers with no round
 * trips, and each is one emst() on the owner's backend (the GPU) — against Borůvka rounds (partition.rounds.ts) whose
 * coordinator work over the border points did not spread at all (2·10^7 points on two H100s: 0.87× one worker's
 * time). The candidates are ~n − k edges within partitions plus the pairs' crossing edges (a partition's border).
 * Each owner returns its pair's edges as global ids, already in the canonical order (canonicalById: emst()'s order
 * by weight differs only among equal weights), so the coordinator only merges the sorted lists (shortest first) and
 * runs the union-find over global ids, stopping at n − 1 edges — no slots, no per-edge id look-ups, no sort. The
 * edges come out in canonical key order, so partitionedEmst's final order needs only its equal-weight runs sorted
 * (orderFromKeyOrder).
 */
import type { PartitionRun } from './partition.run.js';
import type { Task } from './partition.run.js';

/** The MST edges as (min global id, max global id, key) in canonical (key, min id, max id) order. */
export async function pairsEmst(
  run: PartitionRun,
): Promise<{ sources: Uint32Array; targets: Uint32Array; keys: Float32Array }> {
  const { n, offsets } = run;
  const live = run.live();
  const base = { exponent: run.exponent, minSamples: run.minSamples, alpha: run.alpha };
  // The pairs, and per partition its keeper (the pair that keeps its inner edges).
  const pairs: [number, number, boolean, boolean][] = [];
  if (live.length === 1) pairs.push([live[0], live[0], true, false]);
  for (let i = 0; i < live.length; i++) {
    for (let j = i + 1; j < live.length; j++) {
      const keepP = j === i + 1;
      const keepQ = j === live.length - 1 && i === live.length - 2;
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
  const replies = await run.call(tasks);
  run.stats.pairs = pairs.length;
  // The owners' step times: the largest over the pairs, and under distributed::pairs.work their sum (the work the
  // workers share: what more workers divide).
  let work = 0;
  const lists: SortedEdges[] = [];
  let total = 0;
  pairs.forEach(([p, q], t) => {
    const reply = replies[t];
    const own = reply.meta.timings;
    if (own !== null && typeof own === 'object' && !Array.isArray(own)) {
      for (const [label, ms] of Object.entries(own)) {
        if (typeof ms === 'number') run.timings[label] = Math.max(run.timings[label] ?? 0, ms);
      }
      const ms = (own as Record<string, unknown>)['pair::total'];
      if (typeof ms === 'number') work += ms;
    }
    const given = reply.arrays.keys;
    const m = given instanceof Float32Array ? given.length : 0;
    const list = {
      lo: run.reply(reply, 'lo', Uint32Array, m),
      hi: run.reply(reply, 'hi', Uint32Array, m),
      keys: run.reply(reply, 'keys', Float32Array, m),
    };
    checkSorted(list, n, `pair (${p}, ${q})`);
    lists.push(list);
    total += m;
  });
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

/** Edges as global ids (lo < hi) with keys, in the canonical (key, lo, hi) order. */
export interface SortedEdges {
  lo: Uint32Array;
  hi: Uint32Array;
  keys: Float32Array;
}

/**
 * Edges (lo, hi, keys) put in the canonical (key, lo, hi) order, as new arrays: an insertion sort, O(m) for emst()'s
 * output (ordered by weight = fround(√key), then by ids: only equal weights with unequal keys move), which past
 * 4m moves gives way to a comparison sort.
 */
export function canonicalById(lo: Uint32Array, hi: Uint32Array, keys: Float32Array): SortedEdges {
  const m = keys.length;
  const less = (a: number, b: number): boolean =>
    keys[a] < keys[b] || (keys[a] === keys[b] && (lo[a] < lo[b] || (lo[a] === lo[b] && hi[a] < hi[b])));
  let order = new Uint32Array(m);
  for (let t = 0; t < m; t++) order[t] = t;
  let moves = 0;
  for (let t = 1; t < m && moves <= 4 * m; t++) {
    const e = order[t];
    if (!less(e, order[t - 1])) continue;
    let s = t;
    while (s > 0 && less(e, order[s - 1])) {
      order[s] = order[s - 1];
      s--;
      moves++;
    }
    order[s] = e;
  }
  if (moves > 4 * m) order = order.sort((a, b) => (less(a, b) ? -1 : less(b, a) ? 1 : 0));
  return {
    lo: Uint32Array.from(order, (e) => lo[e]),
    hi: Uint32Array.from(order, (e) => hi[e]),
    keys: Float32Array.from(order, (e) => keys[e]),
  };
}

/** Throws unless `list` is in strict canonical order with ids lo < hi < n. */
function checkSorted(list: SortedEdges, n: number, what: string): void {
  const { lo, hi, keys } = list;
  for (let e = 0; e < keys.length; e++) {
    if (!(lo[e] < hi[e] && hi[e] < n) || !(keys[e] >= 0)) {
      throw new Error(`partitionedEmst: ${what} answered edge (${lo[e]}, ${hi[e]}) with key ${keys[e]} (n = ${n})`);
    }
    if (
      e > 0 &&
      !(
        keys[e - 1] < keys[e] ||
        (keys[e - 1] === keys[e] && (lo[e - 1] < lo[e] || (lo[e - 1] === lo[e] && hi[e - 1] < hi[e])))
      )
    ) {
      throw new Error(`partitionedEmst: ${what}'s edges are not in the canonical order at edge ${e}`);
    }
  }
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
