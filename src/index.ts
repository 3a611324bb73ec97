/**
 * treeline's public API: the short list. Everything else is an implementation detail.
 */
export {
  TreelineError,
  InputError,
  GpuUnavailableError,
  GpuError,
  GpuDeviceLostError,
  AbortError,
} from './errors.js';
export {
  createGpuContext,
  GpuContext,
  Timer,
  type GpuContextOptions,
  type GpuFeatures,
  type AdapterDescription,
  type MemoryStats,
} from './gpu/index.js';
export { emst, type EmstOptions, type EmstResult, type EmstBackend, type EdgeList } from './emst/emst.js';
export { hdbscan, hdbscanModel, type HdbscanOptions, type HdbscanResult } from './hdbscan.js';
export {
  clusterFromMst,
  clusterFromSingleLinkage,
  canonicalMst,
  singleLinkage,
  exemplars,
  approximatePredict,
  relativeValidity,
  createModel,
  saveModel,
  loadModel,
  type HdbscanModel,
  type ApproximatePrediction,
  type MstEdges,
  type SingleLinkageTree,
  type CondensedTree,
  type ClusterOptions,
  type ClusterResult,
} from './cluster/index.js';
export {
  graphMst,
  type Graph,
  type EdgeListGraph,
  type CsrGraph,
  type GraphMstResult,
  type GraphMstOptions,
} from './graph/index.js';
export { buildBvh, buildBvhCpu, type GpuBvh, type BvhCpu } from './bvh/index.js';
export { knn, coreDistances, type KnnResult } from './knn/index.js';
export { createUnionFind, unionFindLabels, type GpuUnionFind } from './unionfind/unionfind.js';
export { UnionFind, unionFindLabelsCpu } from './unionfind/unionfind.cpu.js';
export * from './primitives/index.js';
export { createRadixSorter, sortPairs, type RadixSorter, type RadixSorterOptions } from './primitives/radixsort.js';
export { sortPairsCpu } from './primitives/radixsort.cpu.js';
export {
  generate,
  GENERATORS,
  uniform,
  normal,
  blobs,
  moons,
  visualVar,
  cosmology,
  type GeneratorName,
  type GenerateOptions,
} from './datasets/generate.js';
export {
  mstStats,
  type MstStats,
  type MstStatsOptions,
  type StatsCoords,
} from './stats/mstStats.js';
export { mstHistograms, binsOf, type BinSpec, type MstBins } from './stats/histogram.js';
export { STAT_NAMES, type Histogram, type MstHistograms, type StatName } from './stats/types.js';
export { compareStats, compareCatalogues } from './stats/compare.js';
export type {
  CompareOptions,
  StatsComparison,
  StatComparison,
  Chi2,
  StatChi2,
  JointChi2,
  CatalogueRatio,
  CatalogueComparison,
} from './stats/compare.js';
export { subsample, jitter } from './stats/resample.js';
export type { SubsampleOptions, Subsample, JitterOptions } from './stats/resample.js';
export { mstPlotSvg } from './stats/plot.js';
export type { MstPlotInput } from './stats/plot.js';
