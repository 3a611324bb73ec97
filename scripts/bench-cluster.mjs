#!/usr/bin/env node
/**
 * Times everything after the MST (`clusterFromMst` and the exemplars, as `hdbscan()` runs them; issue 5) on large
 * canonical MSTs built without a GPU, phase by phase, and prints a fingerprint of every result array so that two
 * versions of src/cluster can be compared for identical output at 10^6–10^7 points.
 *
 *   node scripts/bench-cluster.mjs [--n 1e6,1e7] [--tree random,path,blobs] [--reps 5] [--mcs 15]
 *                                   [--module bundle.mjs] [--cache /tmp/e-work] [--threads N [--buffers]]
 *                                   [--linkage-min points] [--linkage-chunks K]
 *
 * Trees (seeded, cached as binary files under --cache):
 * - random: a random recursive tree (vertex i hangs off a uniform vertex below i) with uniform float32 weights;
 * - path:   the MST of n points on a line with exponential gaps, point ids shuffled (1D single linkage);
 * - path-ordered: the same with point ids in line order (how much locality of the ids is worth);
 * - blobs:  the mutual-reachability MST (minSamples 15) of the hdbscan bench's 2D blobs with 10 % noise, from the CPU
 *           EMST (slow to build once: ~10 s per 10^6 points; then cached);
 * - normal3d: the same for the hdbscan bench's 3D normal cloud (its `hdbscan-normal3d` suite).
 * Without --module the current src/ is bundled with esbuild into the cache folder and timed. --threads N times
 * `hdbscan()`'s threaded path (the labelling pass on N threads); it needs the built worker script, so it runs the
 * build in dist/ (`npm run build` first) instead of a bundle. --buffers gives it shared buffers as hdbscan() does
 * (the MST copied into them; single linkage then runs on the threads too, from 2^19 points or --linkage-min).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const sizes = opt('n', '1e6').split(',').map(Number);
const trees = opt('tree', 'random').split(',');
const reps = Number(opt('reps', '5'));
const minClusterSize = Number(opt('mcs', '15'));
const cache = opt('cache', '/tmp/e-work');
const threads = Number(opt('threads', '0'));
const withBuffers = args.includes('--buffers');
const linkageMin = opt('linkage-min', null);
const linkageChunks = opt('linkage-chunks', null);
mkdirSync(cache, { recursive: true });
// Bundles import their dependencies from the checkout's node_modules.
if (!existsSync(join(cache, 'node_modules'))) symlinkSync(join(root, 'node_modules'), join(cache, 'node_modules'));

async function bundle(entry, out, extra = '') {
  const esbuild = await import('esbuild');
  await esbuild.build({
    stdin: { contents: `export * from './${entry}';\n${extra}`, resolveDir: root, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile: out,
    external: ['webgpu', 'h5wasm', 'apache-arrow', 'hyparquet', 'commander', 'ml-matrix'],
    logLevel: 'warning',
  });
  return out;
}

const modulePath =
  opt('module', null) ??
  (threads > 0 ? join(root, 'scripts', 'dist-cluster.mjs') : null) ??
  (await bundle(
    'src/cluster/index.ts',
    join(cache, `cluster-${process.pid}.mjs`),
    "export { clusterFromMstWithExemplars } from './src/cluster/clusterFromMst.ts';",
  ));
const cluster = await import(pathToFileURL(resolve(modulePath)).href);

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomTree(n, rand) {
  const sources = new Uint32Array(n - 1);
  const targets = new Uint32Array(n - 1);
  const weights = new Float32Array(n - 1);
  for (let i = 1; i < n; i++) {
    const j = Math.floor(rand() * i);
    sources[i - 1] = j;
    targets[i - 1] = i;
    weights[i - 1] = rand();
  }
  return { sources, targets, weights };
}

function pathTree(n, rand, shuffle = true) {
  const ids = new Uint32Array(n);
  for (let i = 0; i < n; i++) ids[i] = i;
  for (let i = shuffle ? n - 1 : 0; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    const t = ids[i];
    ids[i] = ids[j];
    ids[j] = t;
  }
  const sources = new Uint32Array(n - 1);
  const targets = new Uint32Array(n - 1);
  const weights = new Float32Array(n - 1);
  for (let i = 0; i + 1 < n; i++) {
    sources[i] = ids[i];
    targets[i] = ids[i + 1];
    weights[i] = -Math.log(1 - rand());
  }
  return { sources, targets, weights };
}

async function benchTree(n, generator, dim) {
  const index = await import(pathToFileURL(await bundle('src/index.ts', join(cache, `index-${process.pid}.mjs`))).href);
  const points = index.generate(generator, { n, dim, seed: 1, clusters: 10, noise: 0.1 });
  const t0 = performance.now();
  const mst = await index.emst(points, { dim, minSamples: 15, backend: 'cpu' });
  console.error(`${generator} ${dim}D ${n}: CPU EMST ${(performance.now() - t0).toFixed(0)} ms`);
  return { sources: mst.sources, targets: mst.targets, weights: mst.weights };
}

async function loadTree(kind, n) {
  const file = join(cache, `tree-${kind}-${n}.bin`);
  const m = n - 1;
  if (existsSync(file)) {
    const buf = readFileSync(file);
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    return {
      sources: new Uint32Array(ab, 0, m),
      targets: new Uint32Array(ab, 4 * m, m),
      weights: new Float32Array(ab, 8 * m, m),
    };
  }
  const rand = mulberry32(n ^ 0x5eed);
  let mst;
  if (kind === 'random') mst = randomTree(n, rand);
  else if (kind === 'path') mst = pathTree(n, rand);
  else if (kind === 'path-ordered') mst = pathTree(n, rand, false);
  else if (kind === 'blobs') mst = await benchTree(n, 'blobs', 2);
  else if (kind === 'normal3d') mst = await benchTree(n, 'normal', 3);
  else throw new Error(`unknown tree ${kind}`);
  const sorted = cluster.canonicalMst(mst);
  const out = new Uint8Array(12 * m);
  out.set(new Uint8Array(sorted.sources.buffer, sorted.sources.byteOffset, 4 * m), 0);
  out.set(new Uint8Array(sorted.targets.buffer, sorted.targets.byteOffset, 4 * m), 4 * m);
  out.set(new Uint8Array(new Float32Array(sorted.weights).buffer), 8 * m);
  writeFileSync(file, out);
  return loadTree(kind, n);
}

function fingerprint(result, found) {
  const h = createHash('sha256');
  const add = (a) => h.update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  const { singleLinkage: s, condensedTree: c } = result;
  for (const a of [s.left, s.right, s.distance, s.size, c.parent, c.child, c.lambda, c.childSize]) add(a);
  for (const a of [result.labels, result.probabilities, result.outlierScores, result.selectedClusters]) add(a);
  for (const a of [result.clusterPersistence, result.stability, ...found]) add(a);
  return h.digest('hex').slice(0, 16);
}

const phases = ['sort', 'linkage', 'condense', 'select', 'label', 'total'];
for (const kind of trees) {
  for (const n of sizes) {
    const mst = await loadTree(kind, n);
    const best = {};
    let print = '';
    let clusters = 0;
    for (let r = 0; r < reps; r++) {
      // As hdbscan() does: exemplars gathered while labelling where this version has that, else exemplars().
      const t0 = performance.now();
      let result;
      let found;
      let exemplarsMs;
      if (threads > 0) {
        let buffers;
        let edges = mst;
        if (withBuffers) {
          buffers = cluster.allocateClusterBuffers(n, minClusterSize);
          buffers.mst.sources.set(mst.sources);
          buffers.mst.targets.set(mst.targets);
          buffers.mst.weights.set(mst.weights);
          edges = buffers.mst;
        }
        // hdbscan()'s host: these threads, the buffers, and the thresholds the options lower (src/host/thresholds.ts).
        const lowered = {};
        if (linkageMin !== null) lowered.linkageMinPoints = Number(linkageMin);
        if (linkageChunks !== null) lowered.linkageChunks = Number(linkageChunks);
        const host = { ...cluster.createHost(threads, lowered), buffers, fromEmst: withBuffers };
        ({ result, exemplars: found, exemplarsMs } = await cluster.clusterOnHost(edges, n, { minClusterSize }, host));
      } else if (cluster.clusterFromMstWithExemplars) {
        ({ result, exemplars: found, exemplarsMs } = cluster.clusterFromMstWithExemplars(mst, n, { minClusterSize }));
      } else {
        result = cluster.clusterFromMst(mst, n, { minClusterSize });
        const t1 = performance.now();
        found = cluster.exemplars(result.condensedTree, result.selectedClusters);
        exemplarsMs = performance.now() - t1;
      }
      const t2 = performance.now();
      const times = { ...result.timings, exemplars: exemplarsMs, wall: t2 - t0 };
      for (const [k, v] of Object.entries(times)) best[k] = Math.min(best[k] ?? Infinity, v);
      if (r === 0) {
        print = fingerprint(result, found);
        clusters = result.selectedClusters.length;
      }
    }
    const cols = [...phases, 'exemplars', 'wall'].map((k) => `${k} ${best[k].toFixed(0)}`).join(', ');
    console.log(`${kind} n=${n} mcs=${minClusterSize} clusters=${clusters} min of ${reps} (ms): ${cols}  [${print}]`);
  }
}
