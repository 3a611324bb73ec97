/** Exact k nearest neighbours and core distances, on the GPU or the CPU backend. */
export {
  knn,
  createKnnSearcher,
  type KnnOptions,
  type KnnSearcher,
  type KnnSearcherOptions,
  type KnnOutput,
} from './knn.js';
export { knnCpu, kthSquaredDistancesCpu, type KnnResult } from './knn.cpu.js';
export { coreDistances, type CoreDistanceOptions } from './core.js';
export { boxDistance2 } from './keys.cpu.js';
