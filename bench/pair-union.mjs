// The 'pair' task's union (issue 20; partition.tasks.ts pairTask, tasks.threads.ts unionRows / unionThreaded) at n rows,
// 3D, each row dealt to p or q at random (seeded): the one-thread loop as it was before it went on threads (a verbatim
// copy, in pieces of 2^21 rows with a turn of the event loop between them, as in the task), unionRows in the same
// pieces (the one-thread path now), and unionThreaded on each thread count given. All arrays in shared memory; one
// warm-up, then `reps` rounds of every variant in turn; min and median ms. Needs `npm run build` first.
//   node bench/pair-union.mjs [n = 2e7] [reps = 7] [threads = 2,4]
import { unionRows, unionThreaded } from '../dist/distributed/tasks.threads.js';
import { turn } from '../dist/host/lanes.js';

const n = Number(process.argv[2] ?? 2e7);
const reps = Number(process.argv[3] ?? 7);
const threadCounts = (process.argv[4] ?? '2,4').split(',').map(Number);
const dim = 3;
const PIECE = 1 << 21;

let seed = 12345;
const rand = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
const shared = (C, length) => new C(new SharedArrayBuffer(4 * length));
const side = new Uint8Array(n);
let np = 0;
for (let r = 0; r < n; r++) np += side[r] = rand() < 0.5 ? 1 : 0;
const nq = n - np;
const p = { ids: shared(Uint32Array, np), points: shared(Float32Array, np * dim) };
const q = { ids: shared(Uint32Array, nq), points: shared(Float32Array, nq * dim) };
for (let r = 0, a = 0, b = 0; r < n; r++) {
  if (side[r]) p.ids[a++] = r;
  else q.ids[b++] = r;
}
for (const x of [p, q]) for (let i = 0; i < x.points.length; i++) x.points[i] = rand();
const out = { ids: shared(Uint32Array, n), points: shared(Float32Array, n * dim), bits: shared(Uint32Array, (n + 31) >>> 5) };
for (const a of Object.values(out)) a.fill(1); // touched: no first-write page faults in the timings
const job = {
  pIds: p.ids,
  pPoints: p.points,
  qIds: q.ids,
  qPoints: q.points,
  dim,
  scale: 4,
  core2p: null,
  core2q: null,
  core2: null,
  ...out,
};

/** The task's loop before this change (f8594b2), core2 and its reads kept. */
async function oneThreadBefore(core2p = null, core2q = null) {
  const { bits: inP, ids: unionIds, points: scaled, core2 } = job;
  const f = job.scale;
  const pIds = p.ids;
  const qIds = q.ids;
  const pPts = p.points;
  const qPts = q.points;
  let a = 0;
  let b = 0;
  let word = 0;
  for (let start = 0; start < n; start += PIECE) {
    if (start > 0) await turn();
    const stop = Math.min(n, start + PIECE);
    for (let r = start, o = start * dim; r < stop; r++, o += dim) {
      if (b >= nq || (a < np && pIds[a] < qIds[b])) {
        word |= 1 << (r & 31);
        unionIds[r] = pIds[a];
        const i = a * dim;
        if (dim === 3) {
          scaled[o] = pPts[i] * f;
          scaled[o + 1] = pPts[i + 1] * f;
          scaled[o + 2] = pPts[i + 2] * f;
        } else for (let d = 0; d < dim; d++) scaled[o + d] = pPts[i + d] * f;
        if (core2 !== null) core2[r] = core2p[a];
        a++;
      } else {
        unionIds[r] = qIds[b];
        const i = b * dim;
        if (dim === 3) {
          scaled[o] = qPts[i] * f;
          scaled[o + 1] = qPts[i + 1] * f;
          scaled[o + 2] = qPts[i + 2] * f;
        } else for (let d = 0; d < dim; d++) scaled[o + d] = qPts[i + d] * f;
        if (core2 !== null) core2[r] = core2q[b];
        b++;
      }
      if ((r & 31) === 31) {
        inP[r >>> 5] = word;
        word = 0;
      }
    }
  }
  if ((n & 31) !== 0) inP[n >>> 5] = word;
}

async function oneThreadNow() {
  let at = { a: 0, b: 0 };
  for (let start = 0; start < n; start += PIECE) {
    if (start > 0) await turn();
    at = unionRows({ ...job, ...at, start, end: Math.min(n, start + PIECE) });
  }
}

const variants = { 'loop before, 1 thread': oneThreadBefore, 'unionRows, 1 thread': oneThreadNow };
for (const t of threadCounts) {
  variants[`unionThreaded, ${t} threads`] = async () => {
    if (!(await unionThreaded(t, job, n))) throw new Error('unionThreaded did not run (no dist/worker.js?)');
  };
}
const times = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (let rep = 0; rep <= reps; rep++) {
  for (const [name, run] of Object.entries(variants)) {
    const t0 = performance.now();
    await run();
    if (rep > 0) times[name].push(performance.now() - t0);
  }
}
console.log(`pair union: n=${n} dim=${dim} reps=${reps} (after one warm-up)`);
for (const [name, ms] of Object.entries(times)) {
  ms.sort((x, y) => x - y);
  console.log(`${name.padEnd(28)} min ${ms[0].toFixed(0).padStart(6)} ms   median ${ms[ms.length >> 1].toFixed(0).padStart(6)} ms`);
}
process.exit(0);
