// hdbscan(): labels, membership probabilities and GLOSH outlier scores of every point.
// Run after `npm run build`:  node examples/hdbscan.mjs
import { blobs, hdbscan } from 'treeline';

// The points of datasets/blobs2d-2000.csv: 4 Gaussian blobs plus 5 % uniform noise, seed 1.
const points = blobs({ n: 2000, dim: 2, clusters: 4, seed: 1 });

const result = await hdbscan(points, { dim: 2, minClusterSize: 15 }); // minSamples defaults to minClusterSize
const sizes = new Map();
for (const label of result.labels) sizes.set(label, (sizes.get(label) ?? 0) + 1);
console.log(
  `${result.selectedClusters.length} clusters (${result.backend} backend, ${result.timings['hdbscan::total'].toFixed(0)} ms)`,
);
for (const [label, size] of [...sizes].sort((a, b) => a[0] - b[0])) {
  console.log(
    label < 0
      ? `  noise: ${size} points`
      : `  cluster ${label}: ${size} points, persistence ${result.clusterPersistence[label].toFixed(3)}, ${result.exemplars[label].length} exemplars`,
  );
}
const outlier = result.outlierScores.indexOf(Math.max(...result.outlierScores));
console.log(`strongest outlier: point ${outlier} (GLOSH ${result.outlierScores[outlier].toFixed(3)})`);
// Also there: result.condensedTree { parent, child, lambda, childSize }, result.probabilities; with
// keep: { singleLinkage: true, mst: true } also result.singleLinkage (scipy's Z as { left, right, distance, size })
// and result.mst { sources, targets, weights }.
