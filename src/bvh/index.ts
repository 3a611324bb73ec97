/** The linear BVH: GPU build, CPU twin, layout. See `layout.ts` for every array's meaning. */
export { buildBvh, allocateBvh, createBvhBuilder, type GpuBvh, type BvhBuilder, type BvhBuilderOptions } from './lbvh.js';
export { buildBvhCpu, type BvhCpu } from './lbvh.cpu.js';
export { readBvh } from './readback.js';
export type { SceneFrame } from './morton.cpu.js';
export { NONE, STACK_SIZE, MAX_COORDINATE, bitsPerAxis, codeBits } from './layout.js';
