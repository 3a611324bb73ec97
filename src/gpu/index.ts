export {
  createGpuContext,
  GpuContext,
  type GpuContextOptions,
  type GpuFeatures,
  type AdapterDescription,
} from './context.js';
export {
  type Kernel,
  type KernelSpec,
  type BindingKind,
  type Bindings,
  type UniformLayout,
  type UniformType,
  composeShader,
  composeChecked,
  uniformBytes,
  floatBits,
} from './kernel.js';
export { Recorder, gridFor, type Binding, type DispatchArgs } from './recorder.js';
export { Timer, type TimerEntry } from './timer.js';
export { type MemoryStats } from './buffers.js';
export { Usage } from './usage.js';
export { softwareAdapterReason, adapterName, type AdapterFacts } from './adapter.js';
