// hdbscan() called repeatedly on one context, with and without a forced full collection (gc()) and a sleep before
// each call: the A/B that showed, in issue 17's ninth session, that the calling thread's once-per-call loops run at
// interpreter speed after a collection while the workers' stay optimised (bench/RESULTS.md). From the repository
// root on the GPU machine, with a build in dist-h100/ (or DIST=<folder>):
//   bash .gpu/run.sh node bench/hdbscan-gc.mjs blobs 1000000 2 8 300 gc     (kind n dim reps sleep-ms gc|nogc)
// Prints the wall time of every call after the first two.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const dist = process.env.DIST ?? 'dist-h100';
const root = new URL(`../${dist}/`, import.meta.url);
const { hdbscan } = await import(new URL('hdbscan.js', root));
const { generate } = await import(new URL('datasets/generate.js', root));
const { createGpuContext } = await import(new URL('gpu/context.js', root));
const [kind = 'blobs', nText = '1000000', dimText = '2', repsText = '8', sleepText = '0', gcText = 'nogc'] =
  process.argv.slice(2);
const [n, dim, reps, sleep] = [nText, dimText, repsText, sleepText].map(Number);
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
const points = generate(kind, { n, dim, seed: 1, clusters: 10, noise: 0.1 });
const gpu = await createGpuContext();
const walls = [];
for (let i = 0; i < reps; i++) {
  if (gcText === 'gc') gc();
  if (sleep > 0) await new Promise((resolve) => setTimeout(resolve, sleep));
  const t0 = performance.now();
  await hdbscan(points, { dim, minClusterSize: 15, backend: 'gpu', gpu });
  walls.push(performance.now() - t0);
}
console.log(`sleep ${sleep} ${gcText}: walls ${walls.slice(2).map((w) => w.toFixed(0)).join(' ')} ms`);
await gpu.destroy();
