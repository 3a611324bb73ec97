export {
  createScanner,
  scanU32,
  type Scanner,
  type ScanMode,
  type ScannerOptions,
  type PrimitiveOptions,
  type BlockShape,
} from './scan.js';
export { scanU32Cpu } from './scan.cpu.js';
export { createReducer, reduce, type Reducer, type ReduceOp, type ReduceType } from './reduce.js';
export { reduceCpu, reduceIdentity } from './reduce.cpu.js';
export { createCompactor, compact, type Compactor } from './compact.js';
export { compactCpu } from './compact.cpu.js';
