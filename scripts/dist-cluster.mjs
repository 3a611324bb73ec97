// The built clustering layer (dist/) as one module, for scripts/bench-cluster.mjs --threads.
export * from '../dist/cluster/index.js';
export { clusterFromMstWithExemplars, clusterFromMstWithExemplarsThreaded } from '../dist/cluster/clusterFromMst.js';
export { allocateClusterBuffers } from '../dist/cluster/buffers.js';
