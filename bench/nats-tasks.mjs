// Issue 20 (session 11, M1): the partitioned EMST's method 'pairs' in one process, without NATS — what one worker's
// tasks and the coordinator's own steps cost on this host, step by step, at sizes where a NATS run would not fit a
// device call. The tasks run one at a time (as one `treeline worker` runs them) on one GPU context (or the CPU), in
// the order partitionedEmst sends them; each step's time is summed over the tasks (pair::union, pair::mst, pair::keep,
// forest::keys, forest::contract, …) and printed in ms and ns per point (pairs: per pair point; forests: per
// partition point). The coordinator's steps (partition, merge, kruskal, sort) are its own labels. Last, the
// single-process emst() of the same points and an edge-for-edge comparison.
//   node bench/nats-tasks.mjs [n] [k] [dist] [backend]     defaults 10^7, 4, dist, gpu
// On the H100: bash .gpu/run.sh node bench/nats-tasks.mjs 100000000 4 dist-h100
const n = Number(process.argv[2] ?? 1e7);
const k = Number(process.argv[3] ?? 4);
const dist = process.argv[4] ?? 'dist';
const backend = process.argv[5] ?? 'gpu';
const at = (m) => new URL(`../${dist}/${m}`, import.meta.url).href;
const { generate } = await import(at('datasets/generate.js'));
const { partitionInfo } = await import(at('distributed/partition.js'));
const { partitionPointsThreaded } = await import(at('distributed/partition.threads.js'));
const { partitionedEmst } = await import(at('distributed/partition.emst.js'));
const { PARTITION_TASKS } = await import(at('distributed/partition.tasks.js'));
const { emst } = await import(at('emst/emst.js'));
const gpu = backend === 'gpu' ? await (await import(at('gpu/context.js'))).createGpuContext() : undefined;
const env = { backend, ...(gpu ? { gpu } : {}) };

let t = performance.now();
const points = generate('normal', { n, dim: 3, seed: 20 });
console.log(`generate: ${n} normal 3D points in ${(performance.now() - t).toFixed(0)} ms`);
t = performance.now();
const { resolveThreads } = await import(at('host/threads.js'));
// As the coordinator splits (coordinator.ts: up to 16 threads).
const data = await partitionPointsThreaded(points, 3, k, { threads: await resolveThreads(undefined, n, 16) });
const infos = data.map((d) => partitionInfo(d, { cells: false }));
const partitionMs = performance.now() - t;

/** One task at a time, in the order sent (one worker); each task's step times summed by label. */
const sums = {};
const counts = { pair: 0, forest: 0 };
const pointsOf = { pair: 0, forest: 0 };
let chain = Promise.resolve();
const executor = {
  partitions: () => infos.map((info) => ({ ...info })),
  run(p, kind, msg) {
    const go = async () => {
      const reply = await PARTITION_TASKS[kind](data[p], msg, env, async (q) => data[q]);
      counts[kind] = (counts[kind] ?? 0) + 1;
      const partner = msg.meta.partner;
      pointsOf[kind] = (pointsOf[kind] ?? 0) + data[p].ids.length + (kind === 'pair' ? data[partner].ids.length : 0);
      for (const [label, ms] of Object.entries(reply.meta.timings ?? {})) sums[label] = (sums[label] ?? 0) + ms;
      return reply;
    };
    const r = chain.then(go);
    chain = r.catch(() => undefined);
    return r;
  },
};
t = performance.now();
const parted = await partitionedEmst(executor, { dim: 3, method: 'pairs' });
const wall = performance.now() - t;
console.log(`pairs: n = ${n}, k = ${k}, backend ${backend}: ${(wall / 1000).toFixed(2)} s after the partition ` +
  `(${(partitionMs / 1000).toFixed(2)} s); ${counts.pair} pair tasks (${pointsOf.pair} points), ${counts.forest} forests`);
console.log(`  coordinator::partition ${partitionMs.toFixed(0).padStart(10)} ms ${(partitionMs * 1e6 / n).toFixed(1)} ns/pt`);
for (const [label, ms] of Object.entries(parted.timings)) {
  if (label.startsWith('distributed::')) console.log(`  ${label.padEnd(32)} ${ms.toFixed(0).padStart(8)} ms ${(ms * 1e6 / n).toFixed(1)} ns/pt`);
}
for (const [label, ms] of Object.entries(sums)) {
  const per = pointsOf[label.split('::')[0]] || n;
  console.log(`  sum ${label.padEnd(28)} ${ms.toFixed(0).padStart(8)} ms ${(ms * 1e6 / per).toFixed(1)} ns/pt`);
}
t = performance.now();
const ref = await emst(points, { dim: 3, backend, ...(gpu ? { gpu } : {}) });
console.log(`single-process emst(): ${(performance.now() - t).toFixed(0)} ms`);
const same = ['sources', 'targets', 'weights'].every((f) => {
  const a = parted[f];
  const b = ref[f];
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
});
console.log(same ? `edges identical to emst() (${ref.weights.length})` : 'EDGES DIFFER from emst()');
await gpu?.destroy();
process.exit(same ? 0 : 1);
