/**
 * `partitionedEmst()`: the exact EMST (or mutual-reachability MST) of points spread over k spatial partitions whose
 * owners answer tasks (partition.tasks.ts) through any PartitionExecutor — issue 20 §2. The result is emst()'s edge
 * for edge: the MST under the strict order (key, min id, max id) is unique, and every key here is computed by the
 * single-process arithmetic on the single-process run's scaled coordinates (src/emst/scale.ts).
 *
 * The algorithm (after the partition-then-merge EMSTs of distributed HDBSCAN*, e.g. Santos et al. 2019's MR-HDBSCAN*
 * "local MSTs + inter-partition edges", made exact by Borůvka with cross-partition nearest-other-component queries):
 *
 *   cores       (mutual reachability) each owner: core² among its own points, an upper bound; a point whose bound
 *               exceeds its key lower bound to another partition's cells asks that partition for its m smallest
 *               keys (halo), and its owner takes the m-th smallest of both lists: core² over all points;
 *   pairs       (method 'pairs', opt-in until timed on GPUs; partition.pairs.ts) every pair of partitions' MST on one
 *               owner for the edges between the two, then each owner's own MST split into proven MST edges and the
 *               rest, then one Kruskal over the rest and the crossing edges here: exact by the cycle and cut
 *               properties, k(k − 1)/2 + k independent tasks and no rounds. The phases below are the default 'rounds'.
 *   local trees each owner: the MST of its points with those cores. Cycle property under the strict order: every
 *               global MST edge with both ends in one partition is in that partition's tree;
 *   Borůvka     on the coordinator, from the components of the local-tree edges proven global MST edges (a Kruskal
 *               component whose points all lie farther than the edge's key from every other partition), merged
 *               first: a component's lightest outgoing edge is the lighter of its lightest local-tree edge leaving
 *               it (the coordinator holds the union of the local trees) and its lightest cross-partition edge.
 *               Only points whose lower bound (key to another partition's cells; core²) is at most their
 *               component's current best ask, and only the partitions within that bound are asked: most interior
 *               points never ask. A component with no local-tree edge out (whole
 *               partitions) first asks with one point per component, the nearest to another partition, for a
 *               bound. Merge along the chosen edges; repeat until one component.
 *
 * Important! Offers, the merge and the owners' searches all order edges by (key, min global id, max global id):
 * any other tie-break can close a cycle among equal keys.
 *
 *   phase        file                     tasks
 *   cores        partition.cores.ts       coreBound, rows, knn, core
 *   pairs        partition.pairs.ts       pair, forest (then Kruskal; instead of the local trees and Borůvka)
 *   local trees  below                    tree
 *   Borůvka      partition.rounds.ts      rows, nearest (per round)
 *   the result   below                    weights fround(sqrt(key)) sorted canonically, scaled back (as emst())
 *
 * The coordinator's state (partition.run.ts) is flat typed arrays over "slots" (partition p's row r is slot
 * offsets[p] + r). Periodic boxes and the scale cut are not supported.
 */
import { sortEdgesCanonical, sortRunInPlace, type EdgeList } from '../emst/edges.cpu.js';
import { weightOfKey } from '../emst/distance.cpu.js';
import { unscaleWeights } from '../emst/scale.js';
import { InputError } from '../errors.js';
import { coreDistances } from './partition.cores.js';
import { pairsEmst } from './partition.pairs.js';
import { boruvkaRounds, type SlotEdges } from './partition.rounds.js';
import { PartitionRun } from './partition.run.js';
import type { PartitionedEmstOptions, PartitionedEmstResult, PartitionExecutor, TaskMessage } from './types.js';
import { PARTITIONED_METHODS } from './types.js';

/**
 * The exact EMST (minSamples 1, alpha 1) or mutual-reachability MST of the executor's partitions' points, in
 * canonical order with global ids, equal edge for edge to emst() on all the points with the same options.
 *
 * @throws InputError for bad options or partitions, AbortError when `signal` aborts, and whatever a task rejects with.
 */
export async function partitionedEmst(
  executor: PartitionExecutor,
  options: PartitionedEmstOptions,
): Promise<PartitionedEmstResult> {
  const t0 = performance.now();
  const run = new PartitionRun(executor, options);
  const progress = options.onProgress;
  let edges: EdgeList = { sources: new Uint32Array(0), targets: new Uint32Array(0), weights: new Float32Array(0) };
  if (run.n >= 2) {
    run.checkAbort('before it started');
    if (run.mr) {
      progress?.(0, 'core distances');
      await run.lap('distributed::core', () => coreDistances(run));
      run.checkAbort('after the core distances');
    }
    const method = options.method ?? 'rounds';
    if (!(PARTITIONED_METHODS as readonly string[]).includes(method)) {
      throw new InputError(`Expected method to be 'pairs', 'pairs-kruskal' or 'rounds', got ${String(method)}.`);
    }
    let tree: { sources: Uint32Array; targets: Uint32Array; keys: Float32Array } | EdgeList;
    if (method !== 'rounds') {
      progress?.(0.2, 'pairs');
      tree = await run.lap('distributed::pairs', () => pairsEmst(run, method === 'pairs'));
      run.checkAbort('after the pairs');
    } else {
      progress?.(0.2, 'local trees');
      const trees = await run.lap('distributed::trees', () => localTrees(run));
      run.checkAbort('after the local trees');
      progress?.(0.5, 'round 1');
      tree = await run.lap('distributed::rounds', () => boruvkaRounds(run, trees));
    }
    edges = await run.lap('distributed::sort', async () => {
      if (!('keys' in tree)) {
        // 'pairs' put the edges in emst()'s order with their weights already (mergeToTree).
        unscaleWeights(tree, run.exponent);
        return tree;
      }
      const m = tree.keys.length;
      const weights = new Float32Array(m);
      for (let e = 0; e < m; e++) weights[e] = weightOfKey(tree.keys[e]);
      const edgeList = { sources: tree.sources, targets: tree.targets, weights };
      const sorted = method === 'rounds' ? sortEdgesCanonical(edgeList) : orderFromKeyOrder(edgeList);
      unscaleWeights(sorted, run.exponent);
      return sorted;
    });
  }
  progress?.(1);
  run.timings['distributed::total'] = performance.now() - t0;
  return { ...edges, timings: run.timings, stats: run.stats };
}

/**
 * Edges in canonical key order (key, min id, max id) put in emst()'s order (weight, min id, max id), in place: the
 * weight fround(√key) never decreases along the key order, so only runs of equal weight holding unequal keys can be out
 * of order — each such run is sorted by (min id, max id). O(m) besides those runs.
 */
export function orderFromKeyOrder(edges: EdgeList): EdgeList {
  const { sources, targets, weights } = edges;
  const m = weights.length;
  const before = (i: number, j: number): boolean =>
    sources[i] < sources[j] || (sources[i] === sources[j] && targets[i] < targets[j]);
  for (let a = 0; a < m;) {
    let b = a + 1;
    while (b < m && weights[b] === weights[a]) b++;
    let sorted = true;
    for (let e = a + 1; e < b && sorted; e++) sorted = before(e - 1, e);
    if (!sorted) sortRunInPlace(sources, targets, a, b);
    a = b;
  }
  return edges;
}

/** Every partition's local tree, in slots; also fills the global ids and the lower bounds per slot. */
async function localTrees(run: PartitionRun): Promise<SlotEdges> {
  const { infos, offsets } = run;
  const live = run.live();
  const meta = { exponent: run.exponent, minSamples: run.minSamples, alpha: run.alpha };
  const replies = await run.call(
    live.map((p) => {
      const arrays: TaskMessage['arrays'] = run.cellArrays();
      if (run.mr) arrays.core2 = run.core2.slice(offsets[p], offsets[p + 1]);
      return { partition: p, kind: 'tree', msg: { meta, arrays } };
    }),
  );
  const total = live.reduce((s, p) => s + infos[p].count - 1, 0);
  const u = new Uint32Array(total);
  const v = new Uint32Array(total);
  const keys = new Float32Array(total);
  let at = 0;
  live.forEach((p, t) => {
    const count = infos[p].count;
    const reply = replies[t];
    // The owners' own step times: the largest over the partitions (they run side by side on a cluster).
    const own = reply.meta.timings;
    if (own !== null && typeof own === 'object' && !Array.isArray(own)) {
      for (const [label, ms] of Object.entries(own)) {
        if (typeof ms === 'number') run.timings[label] = Math.max(run.timings[label] ?? 0, ms);
      }
    }
    const ids = run.reply(reply, 'ids', Uint32Array, count);
    for (let r = 1; r < count; r++) {
      if (ids[r] <= ids[r - 1]) throw new Error(`partitionedEmst: partition ${p}'s ids are not ascending at row ${r}`);
    }
    run.gid.set(ids, offsets[p]);
    run.lower.set(run.reply(reply, 'lower', Float32Array, count), offsets[p]);
    const boxes = reply.arrays.cellBoxes;
    const cells = boxes instanceof Float32Array ? boxes.length / (2 * run.dim) : 0;
    if (!Number.isInteger(cells) || cells < 1 || cells > 255) {
      throw new Error(`partitionedEmst: partition ${p}'s reply has no valid cellBoxes (${cells} boxes)`);
    }
    run.cutBoxes[p] = boxes as Float32Array;
    const cell = run.reply(reply, 'cell', Uint8Array, count);
    for (let r = 0; r < count; r++) {
      if (cell[r] >= cells) throw new Error(`partitionedEmst: partition ${p}'s row ${r} names cell ${cell[r]}`);
    }
    run.cutOf.set(cell, offsets[p]);
    const s = run.reply(reply, 'sources', Uint32Array, count - 1);
    const d = run.reply(reply, 'targets', Uint32Array, count - 1);
    keys.set(run.reply(reply, 'keys', Float32Array, count - 1), at);
    for (let e = 0; e < count - 1; e++) {
      if (s[e] >= count || d[e] >= count) throw new Error(`partitionedEmst: partition ${p}'s tree names row ${s[e]}`);
      u[at + e] = offsets[p] + s[e];
      v[at + e] = offsets[p] + d[e];
    }
    at += count - 1;
  });
  return { u, v, keys };
}
