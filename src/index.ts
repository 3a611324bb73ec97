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
