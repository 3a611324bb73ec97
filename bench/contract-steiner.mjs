// The 'forest' task's contraction (issue 20, session 18) on this machine: the one-thread Kruskal with floors
// (contractForest) against contractForestThreaded (the terminals' Steiner tree on threads), step by step, on the
// EMST of n uniform 3D points (the CPU backend) whose rows near the plane x = 0.5 carry floors (a partition's border:
// ~0.3–0.5 % terminals, as the H100 runs' partitions of 5·10^7 points had). After `npm run build`:
//   node bench/contract-steiner.mjs [n = 2e6] [threads = 2] [rounds = 3] [band = 0.0015] [order = random|morton]
// (TREE_CACHE=<folder>: the EMST kept there between runs.) `morton`: the rows in Morton order, as a real partition's
// are (the coordinator sorts the points by their Morton codes, partition.threads.ts): the tree's edges then mostly join
// rows close in index, though they still come in key order. The same EMST relabelled (rows sorted by their codes) —
// the EMST of the sorted points, which have no tied distances to break otherwise. Each round: the one-thread loop,
// then the threaded passes with the cross-range peel one chain and 16 chains at a time (TREELINE_CONTRACT_TOUCH).
import { emst } from '../dist/emst/emst.js';
import { canonicalById, contractForest, contractForestThreaded, forestRecords } from '../dist/distributed/partition.pairs.js';
import { squaredDistance } from '../dist/knn/keys.cpu.js';
import { closeIdleWorkers } from '../dist/host/threads.js';
import { contractThreading } from '../dist/distributed/contract.threads.js';
import { mortonCodesCpu, sceneFrameCpu } from '../dist/bvh/morton.cpu.js';
import { sortCodesCpu } from '../dist/bvh/sort.cpu.js';
import { codeBits } from '../dist/bvh/layout.js';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const n = Math.round(Number(process.argv[2] ?? 2e6));
const threads = Number(process.argv[3] ?? 2);
const rounds = Number(process.argv[4] ?? 3);
const band = Number(process.argv[5] ?? 0.0015);
const order = process.argv[6] ?? 'random';
if (order !== 'random' && order !== 'morton') throw new Error(`order: random or morton, got ${order}`);
let seed = 1818;
// (Math.imul: a product in doubles would lose the low bits past 2^53, and the points with them.)
const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), seed / 2 ** 32);
const points = Float32Array.from({ length: 3 * n }, rand);
let t = performance.now();
// The tree cached under TREE_CACHE (a folder), as the EMST of 10^7 points takes a minute on 2 cores.
const cache = process.env.TREE_CACHE ? `${process.env.TREE_CACHE}/tree2-${n}.bin` : null;
let tree;
if (cache && existsSync(cache)) {
  const raw = new Uint32Array(readFileSync(cache).buffer.slice(0));
  tree = { sources: raw.subarray(0, n - 1), targets: raw.subarray(n - 1) };
} else {
  tree = await emst(points, { dim: 3, backend: 'cpu' });
  if (cache) {
    const raw = new Uint32Array(2 * (n - 1));
    raw.set(tree.sources);
    raw.set(tree.targets, n - 1);
    writeFileSync(cache, raw);
  }
}
console.log(`emst of ${n} points: ${(performance.now() - t).toFixed(0)} ms`);
if (order === 'morton') {
  const { order: byCode } = sortCodesCpu(mortonCodesCpu(points, n, 3, sceneFrameCpu(points, n, 3)), n, codeBits(3));
  const rank = new Uint32Array(n);
  const moved = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) {
    rank[byCode[i]] = i;
    moved.set(points.subarray(3 * byCode[i], 3 * byCode[i] + 3), 3 * i);
  }
  points.set(moved);
  tree = { sources: tree.sources.map((r) => rank[r]), targets: tree.targets.map((r) => rank[r]) };
}
console.log(`rows in ${order} order`);
const m = tree.sources.length;
const shared = (C, len) => new C(new SharedArrayBuffer(C.BYTES_PER_ELEMENT * len));
const lo = shared(Uint32Array, m);
const hi = shared(Uint32Array, m);
const keys = shared(Float32Array, m);
for (let e = 0; e < m; e++) {
  lo[e] = Math.min(tree.sources[e], tree.targets[e]);
  hi[e] = Math.max(tree.sources[e], tree.targets[e]);
  keys[e] = squaredDistance(points, 3, lo[e], hi[e]);
}
const sorted = canonicalById(lo, hi, keys, undefined, true);
const floor = new Float32Array(n).fill(Infinity);
let terminals = 0;
for (let r = 0; r < n; r++) {
  const d = Math.abs(points[3 * r] - 0.5);
  if (d < band) {
    floor[r] = Math.fround(d * d + 1e-7);
    terminals++;
  }
}
console.log(`terminals ${terminals} (${((100 * terminals) / n).toFixed(2)} %)`);
const terms = Uint32Array.from(Array.from(floor.keys()).filter((r) => floor[r] !== Infinity));
const records = forestRecords(n, shared(Uint32Array, 4 * n));
const fresh = () => {
  forestRecords(n, records);
  const f32 = new Float32Array(records.buffer);
  for (let r = 0; r < n; r++) f32[4 * r + 1] = floor[r];
};
for (let round = 0; round < rounds; round++) {
  t = performance.now();
  const one = contractForest(sorted, floor, n);
  const oneMs = performance.now() - t;
  console.log(`round ${round}: one thread ${oneMs.toFixed(0)} ms`);
  // Both forms of the threaded passes (contract.threads.ts contractThreading.touch).
  for (const touch of [false, true]) {
    contractThreading.touch = touch;
    fresh();
    const stats = {};
    t = performance.now();
    const many = await contractForestThreaded(threads, sorted, n, records, shared(Uint32Array, m), terms, stats);
    const manyMs = performance.now() - t;
    const same = many.open.length === one.open.length && many.open.every((e, i) => e === one.open[i]);
    const steps = Object.entries(stats)
      .map(([k, v]) => `${k} ${k === 'steinerEdges' ? v : v.toFixed(0)}`)
      .join(', ');
    console.log(`  touch ${touch}: ${threads} threads ${manyMs.toFixed(0)} ms (${steps}); open ${many.open.length}, same ${same}`);
  }
}
await closeIdleWorkers();
