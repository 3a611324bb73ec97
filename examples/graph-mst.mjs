// graphMst(): the minimum spanning forest of an explicit graph (ECL-MST on the GPU, Kruskal on the CPU).
// Run after `npm run build`:  node examples/graph-mst.mjs
import { graphMst } from 'treeline';

// A 100 × 100 grid with seeded pseudo-random integer weights, as an edge list, plus 5 isolated vertices.
const side = 100;
const sources = [];
const targets = [];
const weights = [];
let seed = 7;
const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
for (let y = 0; y < side; y++) {
  for (let x = 0; x < side; x++) {
    const v = y * side + x;
    if (x + 1 < side) (sources.push(v), targets.push(v + 1), weights.push(Math.floor(random() * 1000)));
    if (y + 1 < side) (sources.push(v), targets.push(v + side), weights.push(Math.floor(random() * 1000)));
  }
}
const graph = {
  numVertices: side * side + 5,
  sources: Uint32Array.from(sources),
  targets: Uint32Array.from(targets),
  weights: Int32Array.from(weights), // Float32Array, Int32Array or Uint32Array
};

const forest = await graphMst(graph, { labels: true }); // backend 'auto': the GPU for large graphs when one exists
console.log(
  `${forest.edgeIds.length} forest edges of ${sources.length}, total weight ${forest.totalWeight}, ${forest.components} components`,
);
console.log(`first forest edges (edge id: source–target weight):`);
for (let i = 0; i < 3; i++)
  console.log(`  ${forest.edgeIds[i]}: ${forest.sources[i]}–${forest.targets[i]} ${forest.weights[i]}`);
console.log(`component of the last vertex: ${forest.componentLabels[graph.numVertices - 1]}`);
