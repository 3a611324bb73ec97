// The clustering runs here, off the page's main thread: generate a seeded 2D dataset with the package's own
// generator (or take the points of the user's file, params.source === 'file'), cluster it with hdbscan() on WebGPU
// when navigator.gpu gives an adapter (else the CPU backend), and post back what the page draws: the labels, the MST,
// the condensed tree as SVG (condensedTreeSvg, the selected clusters ringed) and each label's colour (labelColour,
// the colours of the tree's rings). Imports the package's browser bundle (`npm run build` makes it); an installed
// package offers the same file as `import … from 'treeline/browser'`.
import { blobs, condensedTreeSvg, createGpuContext, hdbscan, labelColour } from '../../dist/browser/treeline.js';

self.onmessage = async ({ data: params }) => {
  const { n, clusters, seed, minClusterSize, minSamples, backend } = params;
  try {
    const t0 = performance.now();
    const dim = params.source === 'file' ? params.dim : 2;
    const points = params.source === 'file' ? params.points : blobs({ n, dim: 2, clusters, seed });

    // Create the GPU context ourselves (rather than backend 'auto') to report which adapter ran, or why none did.
    // 'auto' takes a hardware adapter only, as the library's 'auto' does (a software one is slower than the CPU).
    let gpu = null;
    let gpuNote = null;
    if (backend !== 'cpu') {
      try {
        gpu = await createGpuContext({ hardwareOnly: backend === 'auto' });
      } catch (e) {
        if (backend === 'gpu') throw e;
        gpuNote = `no WebGPU: ${e.message}`;
      }
    }

    let result;
    try {
      const onProgress = (fraction, phase) => self.postMessage({ type: 'progress', fraction, phase });
      const options = { dim, minClusterSize, minSamples, onProgress, keep: { mst: true } };
      if (gpu) {
        try {
          result = await hdbscan(points, { ...options, backend: 'gpu', gpu });
        } catch (e) {
          if (backend === 'gpu') throw e;
          gpuNote = `WebGPU failed, fell back to the CPU: ${e.name}: ${e.message}`;
        }
      }
      result ??= await hdbscan(points, { ...options, backend: 'cpu' });
    } finally {
      gpu?.destroy();
    }

    const { labels, probabilities, mst, selectedClusters } = result;
    const tree = condensedTreeSvg(result.condensedTree, { selectedClusters, title: 'condensed tree' });
    self.postMessage(
      {
        type: 'done',
        points,
        dim,
        tree,
        colours: Array.from(selectedClusters, (_, label) => labelColour(label)),
        noiseColour: labelColour(-1),
        labels,
        probabilities,
        sources: mst.sources,
        targets: mst.targets,
        clusters: selectedClusters.length,
        backend: result.backend,
        adapter: result.backend === 'gpu' ? gpu.adapter : null,
        gpuNote,
        ms: performance.now() - t0,
        timings: result.timings,
      },
      [points.buffer, labels.buffer, probabilities.buffer],
    );
  } catch (e) {
    self.postMessage({ type: 'error', message: `${e.name}: ${e.message}` });
  }
};
