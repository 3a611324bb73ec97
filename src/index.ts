/**
 * treeline's public API: what users call (README "API" lists each name; test/cpu/exports.test.ts holds the list, so
 * it cannot grow silently). Building blocks (BVH, union-find, scan/reduce/compact, radix sort, the GPU timer) are in
 * `treeline/kernels` (src/kernels.ts); everything else is an implementation detail.
 */
export { TreelineError, InputError, GpuUnavailableError, GpuError, GpuDeviceLostError, AbortError } from './errors.js';
export {
  createGpuContext,
  GpuContext,
  type GpuContextOptions,
  type GpuFeatures,
  type AdapterDescription,
  type MemoryStats,
} from './gpu/index.js';
export { emst, type EmstOptions, type EmstResult, type EmstBackend, type EdgeList } from './emst/emst.js';
export {
  hdbscan,
  hdbscanModel,
  hdbscanSweep,
  type HdbscanOptions,
  type HdbscanResult,
  type SweepClustering,
} from './hdbscan.js';
export {
  clusterFromMst,
  clusterFromSingleLinkage,
  canonicalMst,
  singleLinkage,
  exemplars,
  approximatePredict,
  membershipVector,
  allPointsMembershipVectors,
  relativeValidity,
  dbscanClustering,
  clusterCenters,
  createModel,
  saveModel,
  loadModel,
  type HdbscanModel,
  type ApproximatePrediction,
  type DbscanOptions,
  type CenterKind,
  type ClusterCenters,
  type ClusterCentersInput,
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
export { knn, coreDistances, type KnnResult, type KnnOptions, type CoreDistanceOptions } from './knn/index.js';
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
export { mstStats, type MstStats, type MstStatsOptions, type StatsCoords } from './stats/mstStats.js';
export { binsOf, type BinSpec, type MstBins } from './stats/histogram.js';
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
export { realisationStats, realisationPoints } from './stats/realisations.js';
export type {
  RealisationStatsOptions,
  RealisationStats,
  RealisationMoments,
  RealisationTask,
  RunRealisation,
} from './stats/realisations.js';
export { mstPlotSvg } from './stats/plot.js';
export type { MstPlotInput, MstTreePanel } from './stats/plot.js';
export {
  condensedTreeSvg,
  dendrogramSvg,
  type CondensedTreePlotOptions,
  type DendrogramPlotOptions,
} from './cluster/plot.js';
export { scatterSvg, spanningTreeSvg, type PointsPlotOptions, type PlotEdges } from './plot/points.js';
export { labelColour } from './plot/svg.js';
