// Soft clustering (hdbscan's all_points_membership_vectors and membership_vector): how strongly each point belongs
// to every cluster, noise included. Run after `npm run build`:  node examples/soft-clustering.mjs
import { allPointsMembershipVectors, blobs, hdbscan, hdbscanModel, membershipVector } from 'treeline';

const points = blobs({ n: 2000, dim: 2, clusters: 4, seed: 1, noise: 0.1 });
const fit = await hdbscan(points, { dim: 2, minClusterSize: 15 });
const model = await hdbscanModel(points, 2, fit);
const k = fit.selectedClusters.length;

// n × k, row-major: row i is point i's membership in each cluster; it sums to the probability of being in some
// cluster (≤ 1), so noise points get small rows rather than nothing.
const soft = allPointsMembershipVectors(model);
const row = (v, i) => Array.from(v.subarray(i * k, (i + 1) * k));
const argmax = (r) => r.indexOf(Math.max(...r));
const inSome = { clustered: [0, 0], noise: [0, 0] }; // [sum, count]
for (let i = 0; i < fit.labels.length; i++) {
  const acc = inSome[fit.labels[i] >= 0 ? 'clustered' : 'noise'];
  acc[0] += row(soft, i).reduce((s, p) => s + p, 0);
  acc[1]++;
}
const mean = ([sum, count]) => (sum / count).toFixed(3);
console.log(
  `${k} clusters; mean probability of being in some cluster: ${mean(inSome.clustered)} for the ` +
    `${inSome.clustered[1]} clustered points, ${mean(inSome.noise)} for the ${inSome.noise[1]} noise points`,
);
for (const i of [0, 1, 2, fit.labels.indexOf(-1)]) {
  const r = row(soft, i);
  console.log(
    `  point ${String(i).padStart(4)} (label ${String(fit.labels[i]).padStart(2)}): ` +
      `[${r.map((p) => p.toFixed(3)).join(', ')}] → most likely cluster ${argmax(r)}`,
  );
}

// New points: halfway between the centres of clusters 0 and 1 belongs to both, a little.
const centre = (label) => {
  const c = [0, 0];
  let m = 0;
  fit.labels.forEach((l, i) => l === label && (m++, (c[0] += points[2 * i]), (c[1] += points[2 * i + 1])));
  return c.map((x) => x / m);
};
const [a, b] = [centre(0), centre(1)];
const fresh = new Float32Array([...a, ...b, (a[0] + b[0]) / 2, (a[1] + b[1]) / 2]);
const v = membershipVector(model, fresh);
['centre of cluster 0', 'centre of cluster 1', 'halfway between them'].forEach((name, q) =>
  console.log(
    `  ${name.padEnd(22)}: [${row(v, q)
      .map((p) => p.toFixed(3))
      .join(', ')}]`,
  ),
);
