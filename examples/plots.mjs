// hdbscan's pictures as SVG: the labelled scatter, the MST over the points, the condensed tree with the selected
// clusters ringed, and the single-linkage dendrogram (the same functions run in browsers). PNGs through resvg, as the
// CLI's --plot does. Run after `npm run build`:  node examples/plots.mjs [folder]   (default: the system's temp folder)
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import { condensedTreeSvg, dendrogramSvg, hdbscan, moons, scatterSvg, spanningTreeSvg } from 'treeline';

const folder = process.argv[2] ?? join(tmpdir(), 'treeline-plots');
mkdirSync(folder, { recursive: true });
const points = moons({ n: 1000, dim: 2, seed: 1 }); // datasets/moons-1000.csv
const fit = await hdbscan(points, { dim: 2, minClusterSize: 10, keep: { mst: true, singleLinkage: true } });

const figures = {
  'scatter.svg': scatterSvg(points, { dim: 2, labels: fit.labels, title: 'HDBSCAN* of two moons' }),
  'mst.svg': spanningTreeSvg(points, { dim: 2, edges: fit.mst, edgeLabel: 'mutual reachability distance' }),
  'condensed-tree.svg': condensedTreeSvg(fit.condensedTree, { selectedClusters: fit.selectedClusters }),
  'dendrogram.svg': dendrogramSvg(fit.singleLinkage, { p: 20, distanceLabel: 'mutual reachability distance' }),
};
for (const [name, svg] of Object.entries(figures)) {
  writeFileSync(join(folder, name), svg);
  const png = new Resvg(svg, { font: { loadSystemFonts: true } }).render();
  writeFileSync(join(folder, name.replace('.svg', '.png')), png.asPng());
  console.log(`${name.padEnd(19)} ${String(svg.length).padStart(7)} bytes of SVG, PNG ${png.width} × ${png.height}`);
}
console.log(`${fit.selectedClusters.length} clusters; figures in ${folder}`);
