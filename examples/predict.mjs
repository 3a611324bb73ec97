// approximatePredict(): labels and probabilities of new points under a fitted model, which saves to JSON.
// Run after `npm run build`:  node examples/predict.mjs
import { approximatePredict, blobs, hdbscan, hdbscanModel, loadModel, saveModel, uniform } from 'treeline';

const points = blobs({ n: 2000, dim: 2, clusters: 4, seed: 1 });
const fit = await hdbscan(points, { dim: 2, minClusterSize: 15 });
const model = await hdbscanModel(points, 2, fit);

const json = saveModel(model); // a string: write it to a file (`treeline hdbscan --save-model` does)
console.log(`model: ${fit.selectedClusters.length} clusters, ${(json.length / 1024).toFixed(0)} KiB of JSON`);

// New points: a few training points jittered, and uniform points over the whole box.
const jittered = points.slice(0, 10 * 2).map((x, i) => x + 0.05 * Math.sin(i));
const fresh = new Float32Array([...jittered, ...uniform({ n: 10, dim: 2, seed: 2 }).map((x) => 20 * x - 10)]);
const { labels, probabilities } = approximatePredict(loadModel(json), fresh);
for (let i = 0; i < labels.length; i++) {
  const kind = i < 10 ? `near training point ${i} (label ${fit.labels[i]})` : 'uniform';
  console.log(
    `  ${kind.padEnd(36)} → label ${String(labels[i]).padStart(2)}, probability ${probabilities[i].toFixed(3)}`,
  );
}
