/**
 * The GPU context: the only place that obtains a WebGPU device. It works in Node (the `webgpu` package = Dawn)
 * and in browsers (`navigator.gpu`), requests the limits treeline needs and the optional features it can use,
 * and turns every validation error, out-of-memory error and device loss into a typed exception. It says whether the
 * adapter is a software implementation (adapter.ts), which `backend: 'auto'` refuses through `hardwareOnly`, and keeps
 * Dawn's and the Vulkan loader's native lines off the user's stderr (stderr.ts).
 *
 * Important! In Node the object returned by `create()` must stay referenced for as long as any adapter or device
 * from it lives: when it was garbage-collected mid-run the process segfaulted (DESIGN.md). Even after its devices
 * are lost the binding may still pump its events, so treeline keeps one instance per process and never drops it.
 */
import { GpuDeviceLostError, GpuError, GpuUnavailableError, InputError } from '../errors.js';
import { adapterName, softwareAdapterReason } from './adapter.js';
import { BufferTracker, type MemoryStats } from './buffers.js';
import {
  createKernel,
  type Bindings,
  type Kernel,
  type KernelSpec,
  type PositionalKind,
  type UniformLayout,
} from './kernel.js';
import { Recorder } from './recorder.js';
import { DEFAULT_CHUNK_BYTES, StagingRing, writeChunked, type StagingOptions, type UploadMethod } from './upload.js';
import { ReadbackRing, readFresh, type ReadbackChunk, type ReadbackMethod, type ReadbackOptions } from './readback.js';
import type { Timer } from './timer.js';

/** Optional WebGPU features treeline uses when the adapter has them; each has a fallback path. */
export interface GpuFeatures {
  /** `subgroups`: subgroup operations in WGSL. */
  subgroups: boolean;
  /** `timestamp-query`: per-pass GPU timings. */
  timestampQuery: boolean;
  /** `atomic-vec2u-min-max`: 64-bit `atomicMin`/`atomicMax` on `atomic<vec2u>`. */
  atomicVec2uMinMax: boolean;
}

export interface GpuContextOptions {
  /**
   * Which optional features to request where the adapter has them. `'none'` requests none, so that every
   * fallback path runs (the tests use it). Defaults to all; the environment variable
   * `TREELINE_GPU_FEATURES=none` (or a comma list such as `subgroups,timestamp-query`) overrides the default, and
   * any other value is an InputError naming it.
   */
  features?: Partial<GpuFeatures> | 'none' | 'all';
  /** Passed to `requestAdapter`. */
  powerPreference?: GPUPowerPreference;
  /**
   * Refuse a software adapter (lavapipe, SwiftShader, WARP: adapter.ts) with GpuUnavailableError, as
   * `backend: 'auto'` does: one is slower than the CPU backend. Default false: `backend: 'gpu'` uses any adapter.
   */
  hardwareOnly?: boolean;
  /**
   * The `GPU` object to take the adapter from, instead of finding one (`navigator.gpu` in browsers and workers,
   * Dawn's `create()` from the `webgpu` package in Node). The caller keeps it alive.
   */
  gpu?: GPU;
  /**
   * Dawn's `disable_robustness` toggle: removes bounds clamping on storage accesses (Node only). Never on by
   * default; benchmarks report figures with and without it.
   */
  disableRobustness?: boolean;
  /**
   * Lowers the per-dimension workgroup-count limit the dispatch helper assumes (tests use it to exercise 2D
   * grids with small buffers). Defaults to the device's `maxComputeWorkgroupsPerDimension`.
   */
  maxWorkgroupsPerDimension?: number;
  /**
   * Lowers the storage binding limit treeline works to, in bytes (an integer multiple of 4, at least
   * MIN_BINDING_BYTES): every size check and split path then sees it as `limits.maxStorageBufferBindingSize`, and the
   * recorder refuses a binding above it (recorder.ts), so the split paths run on a device whose own limit is larger
   * (tests on lavapipe, issue 19). Defaults to the environment variable `TREELINE_MAX_BINDING_BYTES`, else the
   * device's own limit; a value above the device's limit is the device's limit.
   */
  maxBindingBytes?: number;
  /**
   * Keep destroyed storage buffers (≥ 64 KiB) for later requests of the same size, cleared before reuse (buffers.ts):
   * a context that runs call after call skips the driver's allocations (~18 ms per hdbscan() at 10^6 points, ~100
   * at 10^7, on the H100). Pooled and live memory together stay under the most the context ever had live at once
   * plus up to 512 MiB (buffers.ts POOL_EXTRA_BYTES); `trim()` and `destroy()` free the pool. Default true.
   */
  bufferPool?: boolean;
}

/** A shader module and its compilation messages (requested once, when the module is created). */
export interface ShaderModule {
  module: GPUShaderModule;
  info: Promise<GPUCompilationInfo>;
}

/** Pipelines and shader modules a context has created: what a call compiled (issue 17 §5). */
export interface CompileStats {
  /** Compute pipelines created (kernels not found in the context's cache). */
  pipelines: number;
  /** Shader modules created (distinct composed WGSL texts). */
  modules: number;
  /** The pipelines' labels, in creation order. */
  labels: string[];
  /**
   * Milliseconds from each pipeline's creation to its promise resolving, by position in `labels` (NaN while
   * compiling or after a failure): with every kernel compiling at once, the longest is the compile's critical path.
   */
  ms: number[];
}

/** What the adapter says about itself. */
export interface AdapterDescription {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  /** `'node'` (Dawn through the `webgpu` package) or `'browser'` (`navigator.gpu`). */
  runtime: 'node' | 'browser';
  /** Why this is a software (CPU) implementation, which `backend: 'auto'` never uses (adapter.ts); null for a GPU. */
  software: string | null;
}

const FEATURE_NAMES: Record<keyof GpuFeatures, string> = {
  subgroups: 'subgroups',
  timestampQuery: 'timestamp-query',
  atomicVec2uMinMax: 'atomic-vec2u-min-max',
};

/** The limits treeline raises to the adapter's maximum when creating the device. */
const RAISED_LIMITS = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxStorageBuffersPerShaderStage',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupsPerDimension',
  'maxBindGroups',
] as const;

/** A WebGPU device with treeline's error handling, pipeline cache, buffer tracking and submission helpers. */
export class GpuContext {
  /** Live GPU buffers created through this context, and the peak of their total size. */
  readonly buffers: BufferTracker;
  /** Bind groups by kernel, uniform range and buffers, kept across submissions and calls (recorder.ts). */
  readonly bindGroups = new Map<string, GPUBindGroup>();
  private readonly kernels = new Map<string, Promise<Kernel>>();
  /** Shader modules by composed WGSL text: kernels that differ only in entry point or overrides share one. */
  private readonly modules = new Map<string, ShaderModule>();
  private readonly compiled: CompileStats = { pipelines: 0, modules: 0, labels: [], ms: [] };
  /** Staging memory for uploads, kept for the context's life (upload.ts); made on the first staged upload. */
  private staging: StagingRing = new StagingRing(this);
  /** Staging memory for read-backs, kept for the context's life (readback.ts); made as reads need it. */
  private readback: ReadbackRing = new ReadbackRing(this);
  private uncaptured: GPUError | null = null;
  private lostInfo: GPUDeviceLostInfo | null = null;
  private destroyed = false;

  constructor(
    readonly device: GPUDevice,
    readonly adapter: AdapterDescription,
    /** The optional features this device was created with. */
    readonly features: GpuFeatures,
    /** The workgroup-count limit per dispatch dimension the dispatch helper uses. */
    readonly maxWorkgroupsPerDimension: number,
    /** Keeps Dawn's instance (the object `create()` returned) alive: never read, only held. */
    private readonly instance: unknown,
    /** The storage binding limit asked for (`maxBindingBytes`); the device's own where larger or absent. */
    maxBindingBytes = Number.POSITIVE_INFINITY,
    /** Reuse destroyed buffers (GpuContextOptions.bufferPool). */
    bufferPool = true,
  ) {
    this.buffers = new BufferTracker(device, bufferPool);
    const own = device.limits.maxStorageBufferBindingSize;
    this.bindingLowered = maxBindingBytes < own;
    this.lowered = this.bindingLowered ? loweredLimits(device.limits, maxBindingBytes) : device.limits;
    device.onuncapturederror = (ev: GPUUncapturedErrorEvent) => {
      this.uncaptured ??= ev.error;
    };
    void device.lost.then((info) => {
      if (!this.destroyed) this.lostInfo = info;
    });
  }

  /**
   * The limits treeline works to: the device's (the adapter's maxima for those treeline raises), with
   * `maxStorageBufferBindingSize` lowered to `maxBindingBytes` / TREELINE_MAX_BINDING_BYTES where that was asked for.
   */
  get limits(): GPUSupportedLimits {
    return this.lowered;
  }

  /** The device's own limits, whatever `maxBindingBytes` asked for (`treeline info` prints both). */
  get deviceLimits(): GPUSupportedLimits {
    return this.device.limits;
  }

  /** Whether `limits.maxStorageBufferBindingSize` is below the device's own (maxBindingBytes). */
  readonly bindingLowered: boolean;
  private readonly lowered: GPUSupportedLimits;

  /** Live and peak bytes of buffers created through this context (and the bytes pooled for reuse). */
  get memory(): MemoryStats {
    return this.buffers.stats();
  }

  /**
   * Makes the upload and read-back staging rings (upload.ts, readback.ts) and faults their pages in by moving one
   * ring's worth of zeros each way: what a fresh process's first upload and read-back would pay (~15–20 ms at 10^7 ×
   * 3 points on the H100's host). The CLI does it while it still reads the point file (cli/gpuahead.ts).
   */
  async warmTransfers(): Promise<void> {
    const bytes = this.staging.chunkBytes * this.staging.slotCount;
    const buffer = this.createBuffer('gpu::warmTransfers', bytes);
    try {
      await this.staging.write(buffer, 0, new Uint8Array(bytes));
      await this.readChunks(buffer, 0, bytes, () => undefined);
    } finally {
      buffer.destroy();
    }
  }

  /** Frees the buffers kept for reuse (GpuContextOptions.bufferPool); the context stays usable. */
  trim(): void {
    this.buffers.trim();
  }

  /** Throws if the device was lost or an error escaped every error scope. */
  check(label: string): void {
    if (this.destroyed) throw new GpuDeviceLostError(`${label}: the GPU context was destroyed`);
    if (this.lostInfo) {
      throw new GpuDeviceLostError(`${label}: GPU device lost (${this.lostInfo.reason}): ${this.lostInfo.message}`);
    }
    if (this.uncaptured) {
      const err = this.uncaptured;
      this.uncaptured = null;
      throw new GpuError('uncaptured', label, err.message);
    }
  }

  /**
   * Creates (once per device, then cached) a compute kernel. Its pipeline starts compiling before this returns:
   * start every kernel a call needs, then await them together (`Promise.all`), and they compile in parallel.
   */
  kernel<B extends Bindings | readonly PositionalKind[], U extends UniformLayout>(
    spec: KernelSpec<B, U>,
  ): Promise<Kernel<B, U>> {
    this.check(spec.label);
    const key = JSON.stringify(spec);
    let k = this.kernels.get(key);
    if (!k) {
      this.compiled.pipelines++;
      const at = this.compiled.labels.push(spec.label) - 1;
      this.compiled.ms.push(Number.NaN);
      const t0 = performance.now();
      k = createKernel(this, spec) as Promise<Kernel>;
      this.kernels.set(key, k);
      k.then(
        () => (this.compiled.ms[at] = performance.now() - t0),
        () => this.kernels.delete(key),
      );
    }
    return k as Promise<Kernel<B, U>>;
  }

  /**
   * The shader module of a composed WGSL text (once per device, then cached), with its compilation messages. Called
   * by createKernel inside its error scopes.
   */
  shaderModule(label: string, code: string): ShaderModule {
    let m = this.modules.get(code);
    if (!m) {
      const module = this.device.createShaderModule({ label, code });
      m = { module, info: module.getCompilationInfo() };
      this.modules.set(code, m);
      this.compiled.modules++;
    }
    return m;
  }

  /** How many pipelines and shader modules this context has created (the kernels' labels in creation order). */
  get compileStats(): Readonly<CompileStats> {
    return { ...this.compiled, labels: [...this.compiled.labels], ms: [...this.compiled.ms] };
  }

  /** Creates a labelled storage buffer (`layer::thing`) tracked for leaks and peak memory. */
  createBuffer(label: string, byteLength: number, usage = 0): GPUBuffer {
    this.check(label);
    return this.buffers.create(label, byteLength, usage);
  }

  /** Creates a labelled storage buffer holding a copy of `data`. */
  upload(label: string, data: ArrayBufferView, usage = 0): GPUBuffer {
    this.check(label);
    return this.buffers.upload(label, data, usage);
  }

  /**
   * Creates a labelled storage buffer holding a copy of `data` (zero-padded to a multiple of 4 bytes), written
   * through the context's staging ring (upload.ts: chunks whose host copy overlaps the previous chunk's GPU copy,
   * staging memory reused for the context's life). Resolves once every chunk is submitted: work submitted after it
   * sees the data. `method` picks another way (the bench suite `upload` compares them).
   */
  async uploadAsync(
    label: string,
    data: ArrayBufferView,
    usage = 0,
    options: { method?: UploadMethod } = {},
  ): Promise<GPUBuffer> {
    this.check(label);
    const method = options.method ?? 'staged';
    if (method === 'mapped') return this.buffers.upload(label, data, usage);
    const buffer = this.buffers.create(label, data.byteLength, usage);
    try {
      await this.writeBuffer(buffer, 0, data, method);
    } catch (e) {
      buffer.destroy();
      throw e;
    }
    return buffer;
  }

  /**
   * Creates a labelled storage buffer of `data.length` float32 values: a Float32Array as `uploadAsync` writes it, a
   * Float64Array rounded to float32 chunk by chunk as it is written into the staging ring (upload.ts writeRounded),
   * with no float32 copy of it on the host. Resolves once every chunk is submitted.
   */
  async uploadFloat32(label: string, data: Float32Array | Float64Array, usage = 0): Promise<GPUBuffer> {
    if (data instanceof Float32Array) return this.uploadAsync(label, data, usage);
    this.check(label);
    const buffer = this.buffers.create(label, 4 * data.length, usage);
    try {
      if (data.length > 0) await this.staging.writeRounded(buffer, 0, data);
    } catch (e) {
      buffer.destroy();
      throw e;
    }
    return buffer;
  }

  /**
   * Writes `data` into `buffer` (which has COPY_DST, as every buffer from `createBuffer` does) at `byteOffset` (a
   * multiple of 4), zero-padding its last word, through the staging ring or by `method` ('write', 'write-chunked').
   */
  async writeBuffer(
    buffer: GPUBuffer,
    byteOffset: number,
    data: ArrayBufferView,
    method: Exclude<UploadMethod, 'mapped'> = 'staged',
  ): Promise<void> {
    const label = `upload::${buffer.label}`;
    this.check(label);
    if (byteOffset % 4 !== 0 || byteOffset + Math.ceil(data.byteLength / 4) * 4 > buffer.size) {
      throw new InputError(
        `${label}: ${data.byteLength} bytes at offset ${byteOffset} do not fit the buffer's ${buffer.size} bytes at a multiple of 4`,
      );
    }
    if (data.byteLength === 0) return;
    if (method === 'staged') return this.staging.write(buffer, byteOffset, data);
    const chunk = method === 'write' ? Number.POSITIVE_INFINITY : this.staging.chunkBytes;
    await this.scoped(label, () => writeChunked(this.device.queue, buffer, byteOffset, data, chunk));
  }

  /**
   * Replaces the staging ring (its chunk size and slot count: upload.ts), for tests and benchmarks. Call between
   * uploads, not during one.
   */
  configureStaging(options: StagingOptions): void {
    this.staging.destroy();
    this.staging = new StagingRing(this, options);
  }

  /** Bytes of staging memory held for uploads (0 before the first staged upload); not counted in `memory`. */
  get stagingBytes(): number {
    return this.staging.bytes;
  }

  /**
   * Records GPU work with `record` and submits it as one command buffer, inside validation, out-of-memory and
   * internal error scopes: any error becomes a `GpuError` naming `label` and, through Dawn's message, the
   * kernel's label. Resolves once the errors are known (not when the GPU is done; see `onDone`).
   */
  async submit(label: string, record: (rec: Recorder) => void, options: { timer?: Timer } = {}): Promise<void> {
    await this.enqueue(label, record, options);
  }

  /**
   * Like `submit`, but the work is submitted before this returns; the promise only carries the errors. Lets an
   * orchestrator queue the next submission without waiting for the error scopes of the last.
   */
  enqueue(label: string, record: (rec: Recorder) => void, options: { timer?: Timer } = {}): Promise<void> {
    this.check(label);
    const rec = new Recorder(this, label, options.timer);
    const { errors } = this.scopedSync(label, () => {
      record(rec);
      if (!STEP_LOG) this.device.queue.submit([rec.finish()]);
      else for (const step of rec.finishSteps()) this.submitLogged(`${step.label} (${label})`, step.commands);
    });
    rec.release();
    return errors;
  }

  /**
   * `TREELINE_GPU_STEPLOG=1`: every recorded operation (dispatch, copy, clear) is submitted by itself, with one stderr
   * line when it is submitted and one when the GPU has finished it (seconds since this module loaded), so that a run
   * that stalls names the kernel the GPU did not finish (issue 19's 6·10^8 stall). Same work in the same order; the
   * callbacks only observe. Slower (a submission per dispatch): for diagnosis, not timing.
   */
  private submitLogged(label: string, commands: GPUCommandBuffer): void {
    const t = () => ((performance.now() - STEP_T0) / 1000).toFixed(3);
    const n = ++this.steps;
    this.device.queue.submit([commands]);
    console.error(`[gpu] ${n} submitted ${label} at ${t()} s`);
    this.device.queue.onSubmittedWorkDone().then(
      () => console.error(`[gpu] ${n} finished ${label} at ${t()} s`),
      () => undefined,
    );
  }

  private steps = 0;

  /** Resolves when all submitted work has finished on the GPU. */
  async onDone(): Promise<void> {
    await this.device.queue.onSubmittedWorkDone();
    this.check('onSubmittedWorkDone');
  }

  /** Copies `byteLength` bytes from `buffer` (at `byteOffset`, a multiple of 4) back to the host. */
  async read(buffer: GPUBuffer, byteOffset = 0, byteLength = buffer.size - byteOffset): Promise<ArrayBuffer> {
    const out = new Uint8Array(byteLength);
    await this.readInto(buffer, byteOffset, byteLength, out);
    return out.buffer;
  }

  /**
   * Copies `byteLength` bytes of `buffer` (at `byteOffset`, a multiple of 4) into the first `byteLength` bytes of
   * `dest` (any typed array or DataView, plain or over a SharedArrayBuffer), chunk by chunk through the context's
   * read-back staging (readback.ts: the host copies chunk k out while the GPU copies chunk k + 1). Reads started
   * together share the staging. `buffer` must not be written or destroyed by work submitted before this resolves.
   */
  async readInto(
    buffer: GPUBuffer,
    byteOffset: number,
    byteLength: number,
    dest: ArrayBufferView,
    options: { method?: ReadbackMethod } = {},
  ): Promise<void> {
    if (dest.byteLength < byteLength) {
      throw new InputError(
        `readback::${buffer.label}: a destination of ${dest.byteLength} bytes cannot take ${byteLength} bytes`,
      );
    }
    // A view per chunk, not one over the whole destination: typed arrays end at 2^32 elements (> 4 GiB reads).
    await this.readChunks(
      buffer,
      byteOffset,
      byteLength,
      (chunk, at) => {
        const size = Math.min(chunk.byteLength, byteLength - at);
        new Uint8Array(dest.buffer, dest.byteOffset + at, size).set(new Uint8Array(chunk, 0, size));
      },
      options,
    );
  }

  /**
   * Brings `byteLength` bytes of `buffer` (at `byteOffset`, a multiple of 4) back and hands them to `use` chunk by
   * chunk, in order, for callers that transform while copying: `use(chunk, at)` gets a mapped range (length rounded
   * up to 4 bytes, detached when `use` returns) and its byte offset `at` in the read, a multiple of the chunk size
   * (so of 16: records of 4, 8 or 16 bytes never straddle chunks). `buffer` must not be written or destroyed by work
   * submitted before this resolves.
   */
  async readChunks(
    buffer: GPUBuffer,
    byteOffset: number,
    byteLength: number,
    use: ReadbackChunk,
    options: { method?: ReadbackMethod } = {},
  ): Promise<void> {
    const label = `readback::${buffer.label}`;
    this.check(label);
    const size = Math.ceil(byteLength / 4) * 4;
    if (byteOffset % 4 !== 0 || byteOffset < 0 || byteOffset + size > buffer.size) {
      throw new InputError(
        `${label}: ${byteLength} bytes at offset ${byteOffset} are not inside the buffer's ${buffer.size} bytes at a multiple of 4`,
      );
    }
    if (size === 0) return;
    if (options.method === 'fresh') return readFresh(this, buffer, byteOffset, size, use, label);
    return this.readback.read(buffer, byteOffset, size, use, label);
  }

  /**
   * Replaces the read-back staging (its chunk size and slot count: readback.ts), for tests and benchmarks. Call
   * between reads, not during one.
   */
  configureReadback(options: ReadbackOptions): void {
    this.readback.destroy();
    this.readback = new ReadbackRing(this, options);
  }

  /** Bytes of staging memory held for read-backs (0 before the first read); not counted in `memory`. */
  get readbackBytes(): number {
    return this.readback.bytes;
  }

  /** Runs `fn` inside error scopes and throws the first error they caught as a `GpuError` naming `label`. */
  async scoped<T>(label: string, fn: () => T): Promise<T> {
    const { result, errors } = this.scopedSync(label, fn);
    await errors;
    return result;
  }

  /**
   * Runs `fn` inside error scopes and returns at once: `errors` rejects with a `GpuError` naming `label` if the
   * scopes caught one. The three scopes are popped together, so no await separates them.
   */
  scopedSync<T>(label: string, fn: () => T): { result: T; errors: Promise<void> } {
    const d = this.device;
    d.pushErrorScope('internal');
    d.pushErrorScope('out-of-memory');
    d.pushErrorScope('validation');
    let result: T;
    try {
      result = fn();
    } catch (e) {
      for (let i = 0; i < 3; i++) void d.popErrorScope().catch(() => undefined);
      throw e;
    }
    const pops = [d.popErrorScope(), d.popErrorScope(), d.popErrorScope()];
    const errors = Promise.all(pops).then(([validation, oom, internal]) => {
      if (validation) throw new GpuError('validation', label, validation.message);
      if (oom) throw new GpuError('out-of-memory', label, oom.message);
      if (internal) throw new GpuError('internal', label, internal.message);
    });
    return { result, errors };
  }

  /**
   * Destroys every buffer still alive and the device (Node exits once no device lives). Safe to call twice. The
   * returned promise settles once the device's teardown has finished (its `lost` promise).
   */
  destroy(): Promise<void> {
    if (!this.destroyed) {
      this.destroyed = true;
      this.buffers.destroyAll();
      this.staging.destroy();
      this.readback.destroy();
      this.kernels.clear();
      this.modules.clear();
      this.device.destroy();
      this.closed = this.device.lost.then(() => undefined);
    }
    return this.closed;
  }

  private closed: Promise<void> = Promise.resolve();
}

const STEP_LOG = typeof process !== 'undefined' && process.env?.TREELINE_GPU_STEPLOG === '1';
const STEP_T0 = typeof performance !== 'undefined' ? performance.now() : 0;

/**
 * `TREELINE_GPU_FEATURES`: unset, '' or 'all' (every feature the adapter has), 'none', or a comma list of feature
 * names. Anything else is an InputError naming the value and the valid ones: a typo must not silently change which
 * code paths run (issue 15 §4.10).
 */
export function featuresFromEnv(
  env = typeof process !== 'undefined' ? process.env?.TREELINE_GPU_FEATURES : undefined,
): GpuContextOptions['features'] | undefined {
  if (env === undefined || env.trim() === '' || env.trim() === 'all') return undefined;
  if (env.trim() === 'none') return 'none';
  const known = Object.values(FEATURE_NAMES);
  const names = new Set(
    env
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  );
  const unknown = [...names].filter((s) => !known.includes(s));
  if (unknown.length > 0) {
    throw new InputError(
      `Unknown TREELINE_GPU_FEATURES value '${unknown.join("', '")}' (in '${env}'): expected 'all', 'none' or a ` +
        `comma list of ${known.map((k) => `'${k}'`).join(', ')}.`,
    );
  }
  return {
    subgroups: names.has('subgroups'),
    timestampQuery: names.has('timestamp-query'),
    atomicVec2uMinMax: names.has('atomic-vec2u-min-max'),
  };
}

/**
 * The smallest binding limit `maxBindingBytes` / TREELINE_MAX_BINDING_BYTES accepts: below it the fixed-size arrays
 * (the radix sort's digit table, the scan's look-back tiles) would no longer fit.
 */
export const MIN_BINDING_BYTES = 65536;

/**
 * Checks a binding limit asked for (`maxBindingBytes` or TREELINE_MAX_BINDING_BYTES, named by `source`): an integer
 * multiple of 4 bytes (WebGPU binds whole words; a value that is not is refused rather than silently rounded),
 * at least MIN_BINDING_BYTES. Returns it.
 */
export function checkMaxBindingBytes(value: number, source = 'maxBindingBytes'): number {
  if (!Number.isSafeInteger(value) || value < MIN_BINDING_BYTES || value % 4 !== 0) {
    const hint = Number.isSafeInteger(value) && value >= MIN_BINDING_BYTES ? ` (${value - (value % 4)}?)` : '';
    throw new InputError(
      `Expected ${source} to be a whole number of bytes, a multiple of 4 and at least ${MIN_BINDING_BYTES}, got ${value}${hint}.`,
    );
  }
  return value;
}

/**
 * `TREELINE_MAX_BINDING_BYTES`: unset or '' (the device's own limit), or a number of bytes as checkMaxBindingBytes
 * takes it (decimal digits only); anything else is an InputError naming the value.
 */
export function maxBindingBytesFromEnv(
  env = typeof process !== 'undefined' ? process.env?.TREELINE_MAX_BINDING_BYTES : undefined,
): number | undefined {
  if (env === undefined || env.trim() === '') return undefined;
  const text = env.trim();
  if (!/^\d+$/.test(text)) {
    throw new InputError(`Expected TREELINE_MAX_BINDING_BYTES to be a number of bytes, got '${env}'.`);
  }
  return checkMaxBindingBytes(Number(text), 'TREELINE_MAX_BINDING_BYTES');
}

/** A copy of `limits` with maxStorageBufferBindingSize lowered to `bytes` (a plain object: every limit by name). */
function loweredLimits(limits: GPUSupportedLimits, bytes: number): GPUSupportedLimits {
  const out: Record<string, number> = {};
  // WebGPU's limits are attributes on the prototype: for…in lists them, Object.keys does not.
  for (const k in limits) {
    const v = (limits as unknown as Record<string, unknown>)[k];
    if (typeof v === 'number') out[k] = v;
  }
  out.maxStorageBufferBindingSize = bytes;
  return Object.freeze(out) as unknown as GPUSupportedLimits;
}

interface GpuSource {
  gpu: GPU;
  /** What must stay referenced while any adapter or device from `gpu` lives (Dawn's instance in Node). */
  instance: unknown;
  runtime: 'node' | 'browser';
}

const isNode = (): boolean => typeof process !== 'undefined' && !!process.versions?.node;

/**
 * Where the `GPU` object comes from: the caller's, else `navigator.gpu` (browsers, workers, Deno), else Dawn
 * through the `webgpu` package (Node), imported only here and only when needed, so that browser bundles of
 * treeline (scripts/build-browser.mjs) never contain it.
 */
async function getGpu(options: GpuContextOptions): Promise<GpuSource> {
  if (options.gpu) return { gpu: options.gpu, instance: options.gpu, runtime: isNode() ? 'node' : 'browser' };
  const nav = (globalThis as { navigator?: { gpu?: GPU } }).navigator;
  if (nav?.gpu) return { gpu: nav.gpu, instance: null, runtime: 'browser' };
  if (!isNode()) throw new GpuUnavailableError('This browser has no WebGPU (navigator.gpu is undefined).');
  return nodeGpu(options);
}

const dawnInstances = new Map<string, GPU>();
/** Dawn instances whose adapters were enumerated (their first requestAdapter, which prints: stderr.ts). */
const enumerated = new WeakSet<GPU>();

/** Dawn's `GPU` in Node, with the `GPUBufferUsage`-style globals browsers have. */
async function nodeGpu(options: GpuContextOptions): Promise<GpuSource> {
  let mod: { create: (flags: string[]) => GPU; globals: Record<string, unknown> };
  try {
    // A computed specifier: bundlers leave it alone (the browser bundle must not pull in Dawn's native addon).
    const name = 'webgpu';
    mod = await import(/* @vite-ignore */ name);
  } catch (e) {
    throw new GpuUnavailableError(`The 'webgpu' package could not be loaded: ${(e as Error).message}`);
  }
  // GPUBufferUsage, GPUMapMode, … are globals in browsers; Dawn's Node binding exports them.
  for (const [k, v] of Object.entries(mod.globals)) {
    if (!(k in globalThis)) (globalThis as Record<string, unknown>)[k] = v;
  }
  // Dawn quantises timestamps (to ~65 µs on the H100) as a browser privacy measure; a compute library in Node
  // wants real per-kernel times.
  const flags: string[] = ['disable-dawn-features=timestamp_quantization'];
  if (options.disableRobustness) flags.push('enable-dawn-features=disable_robustness');
  // One Dawn instance per set of flags for the life of the process, never released: the binding's event
  // pump (AsyncRunner) can still fire ProcessEvents on an instance after its last device is lost, and an instance
  // collected by then is a use-after-free (a segfault in CallbackTaskManager::Flush, seen in test workers).
  // A held instance does not keep Node from exiting; live devices do.
  const key = flags.join(' ');
  let gpu = dawnInstances.get(key);
  if (!gpu) {
    gpu = mod.create(flags);
    dawnInstances.set(key, gpu);
  }
  return { gpu, instance: gpu, runtime: 'node' };
}

/**
 * Dawn's first `requestAdapter` on an instance, with its native stderr lines kept from the user (stderr.ts); later
 * ones print nothing and run as they are.
 */
async function requestAdapter(
  gpu: GPU,
  runtime: 'node' | 'browser',
  options: GPURequestAdapterOptions,
): Promise<GPUAdapter | null> {
  if (runtime !== 'node' || enumerated.has(gpu)) return gpu.requestAdapter(options);
  const { quietNativeStderr } = await import('./stderr.js');
  const adapter = await quietNativeStderr(() => gpu.requestAdapter(options));
  enumerated.add(gpu);
  return adapter;
}

/**
 * Finds an adapter and creates a device with the adapter's maximum limits for what treeline needs and the
 * optional features it can use. Throws `GpuUnavailableError` when there is no adapter, or (with `hardwareOnly`) when
 * the adapter is a software implementation; InputError for an unknown `TREELINE_GPU_FEATURES` or an invalid
 * `maxBindingBytes` / `TREELINE_MAX_BINDING_BYTES`.
 */
export async function createGpuContext(options: GpuContextOptions = {}): Promise<GpuContext> {
  const wanted = options.features ?? featuresFromEnv() ?? 'all';
  const maxBindingBytes =
    options.maxBindingBytes !== undefined ? checkMaxBindingBytes(options.maxBindingBytes) : maxBindingBytesFromEnv();
  const { gpu, instance, runtime } = await getGpu(options);
  const adapter = await requestAdapter(gpu, runtime, { powerPreference: options.powerPreference });
  if (!adapter) {
    throw new GpuUnavailableError(
      'No WebGPU adapter was found (no GPU with a Vulkan, Metal or Direct3D 12 driver that WebGPU can use).',
    );
  }
  const info = adapter.info ?? ({} as GPUAdapterInfo);
  // isFallbackAdapter moved from GPUAdapter to GPUAdapterInfo in 2024; implementations have either.
  const fallback =
    (info as { isFallbackAdapter?: boolean }).isFallbackAdapter ??
    (adapter as { isFallbackAdapter?: boolean }).isFallbackAdapter;
  const software = softwareAdapterReason({ ...pickInfo(info), isFallbackAdapter: fallback });
  if (software && options.hardwareOnly) {
    // WebGPU ranks software adapters after every GPU (Dawn: discrete, integrated, then CPU), so this is the only
    // kind on offer.
    throw new GpuUnavailableError(
      `The only WebGPU adapter (${adapterName(pickInfo(info))}) is a software implementation (${software}), slower ` +
        "than the CPU backend; backend 'gpu' (--backend gpu) uses it anyway.",
    );
  }
  const features = {} as GpuFeatures;
  const required: GPUFeatureName[] = [];
  for (const key of Object.keys(FEATURE_NAMES) as (keyof GpuFeatures)[]) {
    const want = wanted === 'all' ? true : wanted === 'none' ? false : (wanted[key] ?? true);
    const name = FEATURE_NAMES[key];
    features[key] = want && adapter.features.has(name);
    if (features[key]) required.push(name as GPUFeatureName);
  }
  const requiredLimits: Record<string, number> = {};
  for (const name of RAISED_LIMITS) {
    const v = (adapter.limits as unknown as Record<string, number>)[name];
    if (typeof v === 'number') requiredLimits[name] = v;
  }
  const device = await adapter.requestDevice({
    label: 'treeline',
    requiredFeatures: required,
    requiredLimits,
  });
  const description: AdapterDescription = { ...pickInfo(info), runtime, software };
  const maxDim = Math.min(
    device.limits.maxComputeWorkgroupsPerDimension,
    options.maxWorkgroupsPerDimension ?? Number.POSITIVE_INFINITY,
  );
  return new GpuContext(device, description, features, maxDim, instance, maxBindingBytes, options.bufferPool ?? true);
}

/** GPUAdapterInfo's four strings ('' where missing). */
function pickInfo(info: GPUAdapterInfo): { vendor: string; architecture: string; device: string; description: string } {
  return {
    vendor: info.vendor ?? '',
    architecture: info.architecture ?? '',
    device: info.device ?? '',
    description: info.description ?? '',
  };
}
