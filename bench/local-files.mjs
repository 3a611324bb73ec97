// The coordinator's partition files in the same-host folder (issue 20, nats.local.ts): k partition messages of the
// pairs layout (points f32 × 3 + ids u32: 16 bytes a point, each array a view of one of two SharedArrayBuffers, as
// partitionPointsThreaded makes them) written into /dev/shm three ways, interleaved, several repetitions:
//
//   libuv, one by one     no worker threads: each file in 64 MiB pieces, 4 in flight on libuv's pool, partitions one
//                         after another (the coordinator before this bench's commit)
//   threads, one by one   each file's shared arrays on a worker thread, partitions one after another
//   threads, filesAtOnce  the coordinator now: filesAtOnce(k) files at once (2), partition p after p − lanes
//   threads, all at once  every partition at once, each on its own worker
//
// Reported per way: when partitions 0 and 1 are both written (what the first pair task waits for) and when all are
// (distributed::upload), median and min in ms, and GB/s of the whole. Then why files and not threads divide the
// time: 4000 rewrites of the same 512 KiB (pages already there, the source in cache) on writeFileOnWorker's path by
// one worker, by two into one file, by two into two files — a file's writes run one at a time under its inode lock
// whichever thread issues them (nats.local.threads.ts).
//
//   npm run build && node bench/local-files.mjs [--mb 200] [--k 4] [--reps 7] [--dir /dev/shm]
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { filesAtOnce, partitionFile, writeMessageFile } from '../dist/distributed/nats.local.js';
import { writeFileOnWorker } from '../dist/distributed/nats.local.threads.js';
import { closeIdleWorkers, setWorkerScript, workerScript } from '../dist/host/threads.js';

const { values } = parseArgs({
  options: {
    mb: { type: 'string', default: '200' },
    k: { type: 'string', default: '4' },
    reps: { type: 'string', default: '7' },
    dir: { type: 'string', default: '/dev/shm' },
  },
});
const k = Number(values.k);
const reps = Number(values.reps);
const n = Math.floor((Number(values.mb) * 1e6) / 16); // points a partition
const dim = 3;

// The partitions: views of two shared buffers, every page written (the split's scatter did that).
const points = new Float32Array(new SharedArrayBuffer(k * n * dim * 4));
const ids = new Uint32Array(new SharedArrayBuffer(k * n * 4));
for (let i = 0; i < points.length; i++) points[i] = (i % 1000) * 0.5;
for (let i = 0; i < ids.length; i++) ids[i] = i;
const messages = Array.from({ length: k }, (_, p) => ({
  meta: { id: p, dim },
  arrays: { points: points.subarray(p * n * dim, (p + 1) * n * dim), ids: ids.subarray(p * n, (p + 1) * n) },
}));

const dir = `${values.dir.replace(/\/+$/, '')}/treeline-bench-${process.pid}`;
const script = workerScript();

/** Writes every partition, `lanes` files at once (p after p − lanes); ms until 0 and 1 are written, and all. */
async function writeAll(lanes) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { mode: 0o700 });
  const t0 = performance.now();
  const done = [];
  for (let p = 0; p < k; p++) {
    const after = p >= lanes ? done[p - lanes] : Promise.resolve();
    done.push(after.then(() => writeMessageFile(dir, partitionFile(p), messages[p]).then(() => performance.now() - t0)));
  }
  const ends = await Promise.all(done);
  return { pair: Math.max(ends[0], ends[Math.min(1, k - 1)]), all: Math.max(...ends) };
}

const ways = {
  'libuv, one by one': async () => {
    setWorkerScript(null);
    try {
      return await writeAll(1);
    } finally {
      setWorkerScript(script);
    }
  },
  'threads, one by one': () => writeAll(1),
  'threads, filesAtOnce': async () => writeAll(await filesAtOnce(k)),
  'threads, all at once': () => writeAll(k),
};

await writeAll(await filesAtOnce(k)); // warm-up: workers started, the folder's pages once allocated
const results = Object.fromEntries(Object.keys(ways).map((w) => [w, { pair: [], all: [] }]));
for (let r = 0; r < reps; r++) {
  for (const [name, way] of Object.entries(ways)) {
    const { pair, all } = await way();
    results[name].pair.push(pair);
    results[name].all.push(all);
  }
}

/** ms for `files.length` workers each rewriting 512 KiB of its file 4000 times (files may repeat). */
async function rewrites(files) {
  const fds = new Map([...new Set(files)].map((f) => [f, openSync(`${dir}/lock.${f}`, 'w')]));
  const buffer = new SharedArrayBuffer(1 << 19);
  new Uint8Array(buffer).fill(7);
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const t0 = performance.now();
  await Promise.all(
    files.map((f, j) => {
      const pieces = Array.from({ length: 4000 }, () => ({ buffer, from: 0, length: buffer.byteLength, at: j << 19 }));
      return writeFileOnWorker(fds.get(f), pieces, 1 << 19, stop, `${dir}/lock.${f}`);
    }),
  );
  const ms = performance.now() - t0;
  for (const fd of fds.values()) closeSync(fd);
  return ms;
}
const lock = { 'one worker, one file': [0], 'two workers, one file': [0, 0], 'two workers, two files': [0, 1] };
const lockMs = Object.fromEntries(Object.keys(lock).map((w) => [w, []]));
await rewrites([0, 1]); // warm-up
for (let r = 0; r < reps; r++) for (const [name, files] of Object.entries(lock)) lockMs[name].push(await rewrites(files));
rmSync(dir, { recursive: true, force: true });
await closeIdleWorkers();

const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const min = (a) => Math.min(...a);
let commit = '?';
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
} catch {
  // (not a checkout)
}
const bytes = k * n * 16;
console.log(
  `local-files: ${k} partitions × ${((n * 16) / 1e6).toFixed(0)} MB into ${values.dir}, ${reps} reps, ` +
    `filesAtOnce ${await filesAtOnce(k)}, ${availableParallelism()} cores, node ${process.version}, ${commit}, ` +
    new Date().toISOString().slice(0, 10),
);
for (const [name, { pair, all }] of Object.entries(results)) {
  console.log(
    `  ${name.padEnd(21)} partitions 0+1: median ${median(pair).toFixed(0)} ms (min ${min(pair).toFixed(0)})   ` +
      `all: median ${median(all).toFixed(0)} ms (min ${min(all).toFixed(0)}), ${(bytes / 1e6 / median(all)).toFixed(2)} GB/s`,
  );
}
console.log('  4000 rewrites of 512 KiB per worker (the inode lock):');
for (const [name, ms] of Object.entries(lockMs)) {
  console.log(`  ${name.padEnd(23)} median ${median(ms).toFixed(0)} ms (min ${min(ms).toFixed(0)})`);
}
