// The built clustering layer (dist/) as one module, for scripts/bench-cluster.mjs --threads.
export * from '../dist/cluster/index.js';
export { clusterFromMstWithExemplars, clusterOnHost } from '../dist/cluster/clusterFromMst.js';
export { createHost } from '../dist/host/host.js';
export { allocateClusterBuffers } from '../dist/cluster/buffers.js';
