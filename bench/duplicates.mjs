// Issue 19's note: exact duplicates made the GPU EMST quadratic in the copies (emst/traverse.wgsl equal_leaf fixes
// it). Times emst() with backend 'gpu' on inputs made of copies, after one warm-up call, and checks each result
// (n − 1 edges, no cycle; the total weight against a float64 sum over the edges' own coordinates — all-equal: 0).
//   node bench/duplicates.mjs [N] [DIM] [SHAPE...]      SHAPE: equal | places:K (copies of K random places) |
//                                                         mixed:K (half distinct uniform points, half copies of K
//                                                         of them) | uniform (no copies: the reference)
// Environment: DIST (default dist: the built package, DIST/index.js), REPS (default 3), MS (minSamples, default 1).
// On the H100 host: bash .gpu/run.sh env DIST=dist-h100 node bench/duplicates.mjs 10000000 3 equal places:1000 uniform
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [n = 1e6, dim = 3] = process.argv.slice(2, 4).map(Number);
const shapes = process.argv.slice(4).length > 0 ? process.argv.slice(4) : ['equal', 'places:1000', 'uniform'];
const reps = Number(process.env.REPS ?? 3);
const minSamples = Number(process.env.MS ?? 1);
const { emst } = await import(pathToFileURL(resolve(process.env.DIST ?? 'dist', 'index.js')).href);

/** mulberry32 (test/helpers/random.ts). */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function points(shape) {
  const [kind, k = '1'] = shape.split(':');
  const r = random(7);
  const p = new Float32Array(n * dim);
  if (kind === 'uniform' || kind === 'mixed') for (let i = 0; i < p.length; i++) p[i] = r();
  if (kind === 'uniform') return p;
  const places = kind === 'equal' ? 1 : Number(k);
  const at = kind === 'mixed' ? null : Float32Array.from({ length: places * dim }, () => (kind === 'equal' ? 0.5 : r()));
  for (let i = kind === 'mixed' ? n >> 1 : 0; i < n; i++) {
    const g = Math.floor(r() * places);
    for (let a = 0; a < dim; a++) p[i * dim + a] = at ? at[g * dim + a] : p[g * dim + a];
  }
  return p;
}

function check(p, e) {
  if (e.sources.length !== n - 1) throw new Error(`${e.sources.length} edges, expected ${n - 1}`);
  const parent = new Uint32Array(n).map((_, i) => i);
  const find = (x) => {
    while (parent[x] !== x) x = parent[x] = parent[parent[x]];
    return x;
  };
  let total = 0;
  let own = 0;
  for (let i = 0; i < e.sources.length; i++) {
    const a = find(e.sources[i]);
    const b = find(e.targets[i]);
    if (a === b) throw new Error(`edge ${i} closes a cycle`);
    parent[a] = b;
    total += e.weights[i];
    let s = 0;
    for (let k = 0; k < dim; k++) s += (p[e.sources[i] * dim + k] - p[e.targets[i] * dim + k]) ** 2;
    own += Math.sqrt(s);
  }
  if (minSamples === 1 && Math.abs(total - own) > 1e-6 * Math.max(own, 1)) throw new Error(`weight ${total} vs ${own}`);
  return total;
}

for (const shape of shapes) {
  const p = points(shape);
  const times = [];
  let total = 0;
  for (let rep = 0; rep <= reps; rep++) {
    const t0 = performance.now();
    const e = await emst(p, { dim, minSamples, backend: 'gpu' });
    const t = performance.now() - t0;
    if (rep === 0) total = check(p, e);
    else times.push(t);
  }
  times.sort((a, b) => a - b);
  console.log(
    `duplicates ${shape} n=${n} d=${dim} minSamples=${minSamples}: emst() wall ${times.map((t) => t.toFixed(1)).join(' / ')} ms (warm), total weight ${total}, checked`,
  );
}
process.exit(0);
