// Cheap re-clustering: one MST and single linkage, then clusterFromSingleLinkage per minClusterSize / method / ε.
// Run after `npm run build`:  node examples/recluster.mjs
import { clusterFromSingleLinkage, hdbscan, moons, relativeValidity } from 'treeline';

const points = moons({ n: 1000, dim: 2, seed: 1 }); // datasets/moons-1000.csv
const n = points.length / 2;
const fit = await hdbscan(points, {
  dim: 2,
  minClusterSize: 5,
  minSamples: 5,
  keep: { mst: true, singleLinkage: true },
});
console.log(`MST + first clustering: ${fit.timings['hdbscan::total'].toFixed(1)} ms`);

for (const minClusterSize of [5, 10, 20, 50, 100]) {
  for (const clusterSelectionMethod of ['eom', 'leaf']) {
    const t = performance.now();
    const r = clusterFromSingleLinkage(fit.singleLinkage, n, { minClusterSize, clusterSelectionMethod }, fit.mst);
    const noise = r.labels.filter((l) => l < 0).length;
    const score = relativeValidity(fit.mst, r.labels); // hdbscan's relative_validity_ (MST-based DBCV)
    console.log(
      `minClusterSize ${String(minClusterSize).padStart(3)} ${clusterSelectionMethod.padEnd(4)}: ` +
        `${r.selectedClusters.length} clusters, ${noise} noise, validity ${score.toFixed(3)} (${(performance.now() - t).toFixed(2)} ms)`,
    );
  }
}
