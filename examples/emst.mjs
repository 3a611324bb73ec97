// emst(): the exact Euclidean minimum spanning tree of a point cloud, and HDBSCAN*'s mutual-reachability MST.
// Run after `npm run build`:  node examples/emst.mjs
import { emst, uniform } from 'treeline';

const points = uniform({ n: 20000, dim: 3, seed: 1 }); // Float32Array, row-major n × 3

// backend 'auto' (default): the GPU when WebGPU finds an adapter, else the CPU — the same tree either way.
const tree = await emst(points, { dim: 3 });
let total = 0;
for (const w of tree.weights) total += w;
console.log(`EMST: ${tree.sources.length} edges, total weight ${total.toFixed(4)} (${tree.backend} backend)`);
console.log(`shortest edge: ${tree.sources[0]}–${tree.targets[0]} at ${tree.weights[0]}`); // canonical order: (weight, source, target)

// Mutual reachability: max(core(a), core(b), d(a, b)), core = distance to the 5th other point.
const mr = await emst(points, {
  dim: 3,
  minSamples: 5,
  onProgress: (f) => process.stderr.write(`\r${(100 * f).toFixed(0)}%`),
});
process.stderr.write('\n');
console.log(`mutual-reachability MST: longest edge ${mr.weights[mr.weights.length - 1]}, timings (ms):`, mr.timings);
