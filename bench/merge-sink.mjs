// The 'pairs' method's tail (issue 20, partition.pairs.ts mergeLists → merge.threads.ts mergeToTreeThreaded, then the
// CLI's .npy write): m edges in `lists` sorted lists (shared memory, as the forests' results arrive) merged on the
// host's threads into emst()'s order and written as sources.npy, targets.npy, weights.npy with fsync, two ways,
// interleaved, several repetitions:
//
//   merge, then write   the merge into shared arrays, then writeNpyDir (the three files at once, each one write then
//                       fsync) — the coordinator and CLI before the sink
//   sink                NpyEdgeSink (io/write.sink.ts): the merging threads write their ranges to the files as they
//                       go while the sink's writeback loop fdatasyncs them; then the fsyncs
//
// Reported per way: the merge (with the sink: the merge and its writes) and the time after it until the files are
// durable (renamed into place), median and min in ms. The files of both ways are compared byte for byte once.
//
//   npm run build && node bench/merge-sink.mjs [--m 20000000] [--lists 5] [--reps 3] [--dir /tmp/merge-sink]
//     [--threads t]
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { mergeToTreeThreaded } from '../dist/distributed/merge.threads.js';
import { closeIdleWorkers } from '../dist/host/threads.js';
import { AtomicOutputs, writeNpyDir } from '../dist/io/write.js';
import { NpyEdgeSink } from '../dist/io/write.sink.js';

const { values } = parseArgs({
  options: {
    m: { type: 'string', default: '20000000' },
    lists: { type: 'string', default: '5' },
    reps: { type: 'string', default: '3' },
    dir: { type: 'string', default: '/tmp/merge-sink' },
    threads: { type: 'string' },
  },
});
const m = Number(values.m);
const L = Number(values.lists);
const reps = Number(values.reps);
const threads = Number(values.threads ?? Math.min(availableParallelism(), 64));

// Edges e = 0 … m − 1 in canonical order: key fround(e / 4) (equal keys, and runs of equal weight), lo = e (so equal
// keys are in (lo, hi) order), hi above it; dealt into the lists at random (each list keeps the order).
const shared = (C, k) => new C(new SharedArrayBuffer(4 * k));
let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const listOf = new Uint8Array(m);
const sizes = new Array(L).fill(0);
for (let e = 0; e < m; e++) sizes[(listOf[e] = Math.floor(rand() * L))]++;
const lists = sizes.map((k) => ({ lo: shared(Uint32Array, k), hi: shared(Uint32Array, k), keys: shared(Float32Array, k) }));
const at = new Array(L).fill(0);
for (let e = 0; e < m; e++) {
  const l = lists[listOf[e]];
  const i = at[listOf[e]]++;
  l.lo[i] = e;
  l.hi[i] = e + 1 + Math.floor(rand() * 1000);
  l.keys[i] = Math.fround(e / 4);
}
const edgeLists = { lo: lists.map((l) => l.lo), hi: lists.map((l) => l.hi), keys: lists.map((l) => l.keys) };
const freshOut = () => {
  const out = { sources: shared(Uint32Array, m), targets: shared(Uint32Array, m), weights: shared(Float32Array, m) };
  // Pages taken beforehand, as mergeTemp's are while the forests compute.
  for (const a of Object.values(out)) a.fill(0);
  return out;
};

const sync = () => execFileSync('sync');
const clean = () => {
  rmSync(values.dir, { recursive: true, force: true });
  sync();
};

async function mergeThenWrite(dir) {
  const out = freshOut();
  const t0 = performance.now();
  if (!(await mergeToTreeThreaded(edgeLists, out, threads))) throw new Error('no threaded merge here');
  const t1 = performance.now();
  await writeNpyDir(dir, out);
  return [t1 - t0, performance.now() - t1];
}

async function withSink(dir) {
  const out = freshOut();
  const outputs = new AtomicOutputs();
  const sink = new NpyEdgeSink(outputs, dir);
  const t0 = performance.now();
  const files = await sink.open(m);
  if (!(await mergeToTreeThreaded(edgeLists, out, threads, undefined, files))) throw new Error('no threaded merge here');
  const t1 = performance.now();
  await sink.finish();
  await outputs.commit();
  return [t1 - t0, performance.now() - t1, sink.counts.datasyncs];
}

const ways = { 'merge, then write': [], sink: [] };
for (let r = 0; r < reps; r++) {
  // (Each way's files stay until the next repetition: the first one's are compared with the second's.)
  clean();
  for (const [name, run] of r % 2 === 0
    ? [
        ['merge, then write', mergeThenWrite],
        ['sink', withSink],
      ]
    : [
        ['sink', withSink],
        ['merge, then write', mergeThenWrite],
      ]) {
    sync();
    ways[name].push(await run(join(values.dir, name === 'sink' ? 'b' : 'a')));
    if (r === 0 && name === 'sink') {
      // (Written second in the first repetition: both ways' files are there.)
      for (const f of ['sources.npy', 'targets.npy', 'weights.npy']) {
        const [a, b] = ['a', 'b'].map((d) => readFileSync(join(values.dir, d, f)));
        if (!a.equals(b)) throw new Error(`${f}: the sink's bytes differ from writeNpyDir's`);
      }
    }
  }
}
clean();
const stat = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return `median ${s[Math.floor(s.length / 2)].toFixed(0)}, min ${s[0].toFixed(0)}`;
};
console.log(`m = ${m} edges in ${L} lists, ${threads} threads, ${reps} repetitions, ${values.dir}`);
for (const [name, runs] of Object.entries(ways)) {
  const syncs = runs[0][2] !== undefined ? `; writeback rounds ${runs.map((x) => x[2]).join('/')}` : '';
  console.log(
    `${name.padEnd(18)} merge ${stat(runs.map((x) => x[0]))} ms; after it ${stat(runs.map((x) => x[1]))} ms; ` +
      `total ${stat(runs.map((x) => x[0] + x[1]))} ms${syncs}`,
  );
}
await closeIdleWorkers();
