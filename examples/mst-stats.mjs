// mstStats(): the four MST statistics cosmologists compare between catalogues (Naidoo et al. 2020, MNRAS 491,
// 1709; MiSTree) — degree d, edge length l, branch length b and branch shape s — on the exact EMST of a periodic box.
// Run after `npm run build`:  node examples/mst-stats.mjs
//
// MiSTree correspondence: `mist.GetMST(x=…, y=…, z=…)` + `get_stats()` → mstStats(points, { dim: 3 }) (d, l, b, s
// as `degree`, `edgeLengths`, `branchLengths`, `branchShapes`); `mist.HistMST().get_hist(d, l, b, s)` →
// `result.histograms` (MiSTree's default bins); `scale_cut_length` → `minEdgeLength`; `GetMST(ra=…, dec=…)`
// (degrees) → `coords: 'radec'`. The periodic box (`box`) is treeline's own: MiSTree has none, so its
// edges would not cross the faces. The same from the command line:
//   treeline generate cosmology -n 20000 -d 3 -o halos.npy && treeline stats halos.npy --periodic 1000 --plot mst.svg
import { binsOf, cosmology, mstStats, uniform } from 'treeline';

const n = 20000;
const L = 1000; // cosmology() fills the periodic box [0, 1000)^3
const box = [L, L, L];
const halos = cosmology({ n, dim: 3, seed: 1 }); // clustered: haloes and filaments
const random = uniform({ n, dim: 3, seed: 2 }).map((x) => x * L); // the same number of points, unclustered

const catalogue = await mstStats(halos, { dim: 3, box });
// Measure the random catalogue on the catalogue's bins, so that the histograms compare bin by bin.
const reference = await mstStats(random, { dim: 3, box, bins: binsOf(catalogue.histograms) });

function summary(values) {
  let count = 0,
    sum = 0,
    sq = 0,
    min = Infinity,
    max = -Infinity;
  for (const v of values) {
    if (Number.isNaN(v)) continue; // a branch of duplicate points has shape NaN (0/0), as in MiSTree
    (count++, (sum += v), (sq += v * v), (min = Math.min(min, v)), (max = Math.max(max, v)));
  }
  const mean = sum / count;
  return { count, mean, std: Math.sqrt(Math.max(0, sq / count - mean * mean)), min, max };
}
const fmt = (s) =>
  `n=${String(s.count).padStart(6)}  mean ${s.mean.toFixed(4).padStart(9)}  std ${s.std.toFixed(4).padStart(9)}  ` +
  `min ${s.min.toFixed(4).padStart(9)}  max ${s.max.toFixed(4).padStart(9)}`;

for (const [name, r] of [
  ['clustered (cosmology)', catalogue],
  ['uniform random', reference],
]) {
  console.log(`${name}: ${r.edgeLengths.length} edges, ${r.branchLengths.length} branches (${r.backend} backend)`);
  console.log(`  degree d        ${fmt(summary(r.degree))}`);
  console.log(`  edge length l   ${fmt(summary(r.edgeLengths))}`);
  console.log(`  branch length b ${fmt(summary(r.branchLengths))}`);
  console.log(`  branch shape s  ${fmt(summary(r.branchShapes))}`);
  const perDegree = [1, 2, 3, 4].map(
    (d) => `${d}: ${((100 * r.degree.filter((x) => x === d).length) / r.n).toFixed(1)}%`,
  );
  console.log(`  nodes by degree ${perDegree.join(', ')}`);
}

// The l histogram, unit area (numpy's density=True): where the clustered catalogue has more short edges.
const h = catalogue.histograms.edgeLength;
const hr = reference.histograms.edgeLength;
const peak = (y) => y.indexOf(Math.max(...y));
console.log(
  `l histogram peaks at ${h.x[peak(Array.from(h.y))].toFixed(2)} (clustered) vs ${hr.x[peak(Array.from(hr.y))].toFixed(2)} (random)`,
);
