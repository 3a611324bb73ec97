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
 * time). The candidates are ~n − k edges within partitions plus the pairs' crossing edges (a partition's border),
 * put in the canonical order by a radix sort of their keys (kruskal) for the union-find, which stops at n − 1 edges.
 * The edges come out in canonical key order, so partitionedEmst's final order needs only its equal-weight runs
 * sorted (orderFromKeyOrder).
 */
import type { PartitionRun } from './partition.run.js';
import type { Task } from './partition.run.js';

/** The MST edges as (min global id, max global id, key) in canonical (key, min id, max id) order. */
export async function pairsEmst(
  run: PartitionRun,
): Promise<{ sources: Uint32Array; targets: Uint32Array; keys: Float32Array }> {
  const { n, offsets, infos } = run;
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
  // Global ids from the keepers' replies (each live partition is kept by exactly one pair).
  const seen = new Uint8Array(run.k);
  const takeIds = (p: number, ids: Uint32Array): void => {
    for (let r = 1; r < ids.length; r++) {
      if (ids[r] <= ids[r - 1]) throw new Error(`partitionedEmst: partition ${p}'s ids are not ascending at row ${r}`);
    }
    run.gid.set(ids, offsets[p]);
    seen[p] = 1;
  };
  // The owners' step times: the largest over the pairs, and under distributed::pairs.work their sum (the work the
  // workers share: what more workers divide).
  let work = 0;
  pairs.forEach(([p, q, keepP, keepQ], t) => {
    const reply = replies[t];
    const own = reply.meta.timings;
    if (own !== null && typeof own === 'object' && !Array.isArray(own)) {
      for (const [label, ms] of Object.entries(own)) {
        if (typeof ms === 'number') run.timings[label] = Math.max(run.timings[label] ?? 0, ms);
      }
      const total = (own as Record<string, unknown>)['pair::total'];
      if (typeof total === 'number') work += total;
    }
    if (keepP) takeIds(p, run.reply(reply, 'ids', Uint32Array, infos[p].count));
    if (keepQ) takeIds(q, run.reply(reply, 'idsq', Uint32Array, infos[q].count));
  });
  run.timings['distributed::pairs.work'] = work;
  for (const p of live) {
    if (!seen[p]) throw new Error(`partitionedEmst: no pair reply carried partition ${p}'s ids`);
  }
  // Every reply's kept edges, in slots, one range per pair.
  let total = 0;
  for (const reply of replies) {
    const keys = reply.arrays.keys;
    total += keys instanceof Float32Array ? keys.length : 0;
  }
  const U = new Uint32Array(total);
  const V = new Uint32Array(total);
  const K = new Float32Array(total);
  let at = 0;
  pairs.forEach(([p, q], t) => {
    const reply = replies[t];
    const keys = run.reply(reply, 'keys', Float32Array, (reply.arrays.keys as Float32Array | undefined)?.length ?? 0);
    const m = keys.length;
    const u = run.reply(reply, 'u', Uint32Array, m);
    const v = run.reply(reply, 'v', Uint32Array, m);
    const np = infos[p].count;
    const rows = np + (q === p ? 0 : infos[q].count);
    const slot = (r: number): number => {
      if (r >= rows) throw new Error(`partitionedEmst: pair (${p}, ${q}) answered pair row ${r} of ${rows}`);
      return r < np ? offsets[p] + r : offsets[q] + r - np;
    };
    for (let e = 0; e < m; e++) {
      U[at + e] = slot(u[e]);
      V[at + e] = slot(v[e]);
    }
    K.set(keys, at);
    at += m;
  });
  run.stats.candidates = total;
  const t0 = performance.now();
  const tree = kruskal(n, U, V, K, run.gid);
  run.timings['distributed::kruskal'] = performance.now() - t0;
  return tree;
}

/**
 * Kruskal over the candidate edges (slots U, V, keys K ≥ 0; `gid` per slot) in the canonical (key, min id, max id)
 * order: an LSD radix sort of the keys' bits (two 16-bit passes; non-negative float32 keys order as their bits), each
 * run of equal keys then sorted by (min id, max id) — runs are short but on lattices. Stops at n − 1 edges; throws
 * when the candidates do not span. (The pairs' lists arrive nearly sorted, but a k-way merge in JavaScript cost
 * ~1 µs an edge where these passes cost a fraction of that.)
 */
export function kruskal(
  n: number,
  U: Uint32Array,
  V: Uint32Array,
  K: Float32Array,
  gid: Uint32Array,
): { sources: Uint32Array; targets: Uint32Array; keys: Float32Array } {
  const m = K.length;
  const LO = new Uint32Array(m);
  const HI = new Uint32Array(m);
  for (let e = 0; e < m; e++) {
    const a = gid[U[e]];
    const b = gid[V[e]];
    LO[e] = a < b ? a : b;
    HI[e] = a < b ? b : a;
  }
  const bits = new Uint32Array(K.buffer, K.byteOffset, m);
  const order = new Uint32Array(m);
  const tmp = new Uint32Array(m);
  const count = new Uint32Array(65537);
  for (let e = 0; e < m; e++) count[(bits[e] & 0xffff) + 1]++;
  for (let d = 0; d < 65536; d++) count[d + 1] += count[d];
  for (let e = 0; e < m; e++) tmp[count[bits[e] & 0xffff]++] = e;
  count.fill(0);
  for (let e = 0; e < m; e++) count[(bits[e] >>> 16) + 1]++;
  for (let d = 0; d < 65536; d++) count[d + 1] += count[d];
  for (let t = 0; t < m; t++) {
    const e = tmp[t];
    order[count[bits[e] >>> 16]++] = e;
  }
  // Equal keys by (min id, max id).
  for (let a = 0; a < m;) {
    let b = a + 1;
    const key = bits[order[a]];
    while (b < m && bits[order[b]] === key) b++;
    if (b - a > 1) {
      const run = order.subarray(a, b);
      let sorted = true;
      for (let t = 1; t < run.length && sorted; t++) {
        const x = run[t - 1];
        const y = run[t];
        sorted = LO[x] < LO[y] || (LO[x] === LO[y] && HI[x] <= HI[y]);
      }
      if (!sorted) run.set(Array.from(run).sort((x, y) => LO[x] - LO[y] || HI[x] - HI[y]));
    }
    a = b;
  }
  const parent = new Uint32Array(n);
  for (let i = 0; i < n; i++) parent[i] = i;
  const sources = new Uint32Array(Math.max(n - 1, 0));
  const targets = new Uint32Array(Math.max(n - 1, 0));
  const keys = new Float32Array(Math.max(n - 1, 0));
  let edges = 0;
  for (let t = 0; t < m && edges < n - 1; t++) {
    const e = order[t];
    let a = U[e];
    while (parent[a] !== a) {
      parent[a] = parent[parent[a]];
      a = parent[a];
    }
    let b = V[e];
    while (parent[b] !== b) {
      parent[b] = parent[parent[b]];
      b = parent[b];
    }
    if (a === b) continue;
    if (a < b) parent[b] = a;
    else parent[a] = b;
    sources[edges] = LO[e];
    targets[edges] = HI[e];
    keys[edges++] = K[e];
  }
  if (edges < n - 1) {
    throw new Error(`partitionedEmst: the pairs' edges span ${edges} of ${n - 1} MST edges (a pair reply is missing)`);
  }
  return { sources, targets, keys };
}
