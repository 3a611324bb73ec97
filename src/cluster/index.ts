/**
 * The clustering layer: everything of HDBSCAN* after the MST, on the CPU over typed arrays.
 */
export { clusterFromMst, clusterFromSingleLinkage } from './clusterFromMst.js';
export { canonicalMst, isCanonicalOrder } from './edgeOrder.js';
export { singleLinkage } from './linkage.js';
export { condenseTree } from './condense.js';
export { exemplars } from './exemplars.js';
export { approximatePredict, type ApproximatePrediction, type ApproximatePredictOptions } from './predict.js';
export { bruteForceKnn, predictionCoreDistances, type KnnQueryResult, type KnnSearch } from '../knn/brute.cpu.js';
export { relativeValidity } from './validity.js';
export { membershipVector, allPointsMembershipVectors, type MembershipOptions } from './membership.js';
export { dbscanClustering, type DbscanOptions } from './dbscan.js';
export { clusterCenters, type CenterKind, type ClusterCenters, type ClusterCentersInput } from './centers.js';
export { createModel, saveModel, loadModel, type HdbscanModel, type CreateModelInput } from './model.js';
export type {
  MstEdges,
  SingleLinkageTree,
  CondensedTree,
  ClusterOptions,
  ResolvedClusterOptions,
  ClusterResult,
  ClusterTimings,
} from './types.js';
