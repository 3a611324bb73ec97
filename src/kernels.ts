/**
 * `treeline/kernels`: the building blocks under the public API, for callers who compose their own GPU pipelines —
 * the linear BVH, union-find, scan / reduce / compact, the radix sort (each a GPU kernel with its CPU twin), the GPU
 * timer and the MST-statistics histogram step. Stable in name, lower-level in contract: inputs are checked less
 * than at `treeline`'s door. Node and bundlers only (no browser bundle of its own; a bundler builds it from
 * dist/kernels.js like any ES module).
 */
export { buildBvh, type GpuBvh } from './bvh/lbvh.js';
export { buildBvhCpu, type BvhCpu } from './bvh/lbvh.cpu.js';
export { createUnionFind, unionFindLabels, type GpuUnionFind } from './unionfind/unionfind.js';
export { UnionFind, unionFindLabelsCpu } from './unionfind/unionfind.cpu.js';
export {
  createScanner,
  scanU32,
  scanU32Cpu,
  createReducer,
  reduce,
  reduceCpu,
  reduceIdentity,
  createCompactor,
  compact,
  compactCpu,
  type Scanner,
  type ScanMode,
  type ScannerOptions,
  type PrimitiveOptions,
  type BlockShape,
  type Reducer,
  type ReduceOp,
  type ReduceType,
  type Compactor,
} from './primitives/index.js';
export { createRadixSorter, sortPairs, type RadixSorter, type RadixSorterOptions } from './primitives/radixsort.js';
export { sortPairsCpu } from './primitives/radixsort.cpu.js';
export { Timer, type TimerEntry } from './gpu/index.js';
export { mstHistograms, type MstValues } from './stats/histogram.js';
