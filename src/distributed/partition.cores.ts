/**
 * Mutual reachability's core distances across partitions (issue 20 §2, "halos"): core²(i) is the key of i's m-th
 * nearest neighbour over ALL points, i excluded by index, m = min(minSamples, n − 1) — the CPU backend's definition
 * (src/knn/neighbours.cpu.ts, boruvka.cpu.ts), so the same float32 value.
 *
 *   1. 'coreBound' on every partition: core² among its own points only — an upper bound (+∞ with fewer than m others)
 *      — and each point's lower bound on its key to any other partition (its cells);
 *   2. a point whose lower bound is strictly below its upper bound asks every partition whose cells are strictly
 *      nearer ('knn': that partition's m smallest keys to it; a key equal to the m-th cannot change the m-th);
 *   3. the coordinator keeps each asker's m smallest answers, and the asker's owner takes the m-th smallest of its
 *      own list and those ('core').
 * Points far from every other partition (most of them) never ask: their own bound is already the core.
 */
import type { PartitionRun } from './partition.run.js';

/** Fills run.core2 (and run.lower) for every slot. */
export async function coreDistances(run: PartitionRun): Promise<void> {
  const { m, core2, lower, offsets, infos } = run;
  const meta = { exponent: run.exponent, m };
  const live = run.live();
  const bounds = await run.call(
    live.map((p) => ({ partition: p, kind: 'coreBound', msg: { meta, arrays: run.cellArrays() } })),
  );
  live.forEach((p, t) => {
    core2.set(run.reply(bounds[t], 'core2', Float32Array, infos[p].count), offsets[p]);
    lower.set(run.reply(bounds[t], 'lower', Float32Array, infos[p].count), offsets[p]);
  });
  const askers: number[] = [];
  for (let i = 0; i < run.n; i++) if (lower[i] < core2[i]) askers.push(i);
  await run.fetchRows(askers);
  const queries = infos.map(() => [] as number[]);
  const x = new Float64Array(run.dim);
  for (const i of askers) {
    run.coordinates(i, x);
    for (let b = 0; b < run.k; b++) {
      if (b === run.partOf[i] || infos[b].count === 0) continue;
      if (run.cellKey(x, b) < core2[i]) queries[b].push(i);
    }
  }
  // Each asker's m smallest keys over the partitions it asked.
  const haloAt = new Map<number, number>();
  askers.forEach((i, a) => haloAt.set(i, a * m));
  const halo = new Float32Array(askers.length * m).fill(Infinity);
  const asked = infos.map((_, b) => b).filter((b) => queries[b].length > 0);
  const replies = await run.call(
    asked.map((b) => ({ partition: b, kind: 'knn', msg: { meta, arrays: { points: run.rowsOf(queries[b]) } } })),
  );
  asked.forEach((b, t) => {
    const keys = run.reply(replies[t], 'keys', Float32Array, queries[b].length * m);
    queries[b].forEach((i, q) => {
      const at = haloAt.get(i)!;
      for (let r = 0; r < m; r++) insertSorted(halo, at, m, keys[q * m + r]);
    });
    run.stats.queries += queries[b].length;
  });
  // The askers' owners merge.
  const byOwner = infos.map(() => [] as number[]);
  for (const i of askers) byOwner[run.partOf[i]].push(i);
  const owners = infos.map((_, p) => p).filter((p) => byOwner[p].length > 0);
  const finals = await run.call(
    owners.map((p) => {
      const rows = Uint32Array.from(byOwner[p], (i) => i - offsets[p]);
      const keys = new Float32Array(rows.length * m);
      byOwner[p].forEach((i, q) => keys.set(halo.subarray(haloAt.get(i)!, haloAt.get(i)! + m), q * m));
      return { partition: p, kind: 'core', msg: { meta, arrays: { rows, keys } } };
    }),
  );
  owners.forEach((p, t) => core2.set(run.reply(finals[t], 'core2', Float32Array, infos[p].count), offsets[p]));
}

/** Inserts `key` into the ascending list out[at … at + m) (its last value dropped) when smaller than that value. */
function insertSorted(out: Float32Array, at: number, m: number, key: number): void {
  if (!(key < out[at + m - 1])) return;
  let t = m - 1;
  while (t > 0 && out[at + t - 1] > key) {
    out[at + t] = out[at + t - 1];
    t--;
  }
  out[at + t] = key;
}
