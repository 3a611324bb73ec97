/**
 * Records one submission: dispatches (with a timer each in its own compute pass labelled with the kernel's label,
 * so that timer scopes name the kernel; without one, consecutive dispatches in one pass), copies and clears. Kernels record; only orchestrators submit
 * (CONVENTIONS.md 6). Per-dispatch uniforms are gathered into one uniform buffer per submission, one
 * 256-byte-aligned slot per distinct content, so that every dispatch sees its own values.
 *
 * Dispatches that repeat — the same kernel, buffers and uniform contents, as every Borůvka round does — share one
 * slot and one bind group: creating bind groups was most of the host time of recording a chunk of rounds.
 */
import type { GpuContext } from './context.js';
import {
  writeUniforms,
  type Bindings,
  type BufferName,
  type Kernel,
  type PositionalKind,
  type UniformLayout,
  type UniformValues,
} from './kernel.js';
import type { Timer } from './timer.js';
import { GpuError, InputError } from '../errors.js';
import { Usage } from './usage.js';

/**
 * The most bytes one recorded copyBufferToBuffer or clearBuffer moves (Recorder.copy and clear record larger ones in
 * pieces). Issue 19: copies and fills past 2^32 bytes were suspected when an EMST of 4·10^8 points stalled on the
 * H100; they were not the cause (the bench's points were: host/wire.ts) and run there whole too (a 5·10^9-byte copy,
 * session 13), but pieces cost nothing measurable and keep every command's size below 2^31.
 */
export const PIECE_BYTES = 2 ** 30;

/** A whole buffer, or a range of one. */
export type Binding = GPUBuffer | { buffer: GPUBuffer; offset?: number; size?: number };

export interface DispatchArgs<
  B extends Bindings | readonly PositionalKind[] = Bindings | readonly PositionalKind[],
  U extends UniformLayout = UniformLayout,
> {
  /**
   * The non-uniform bindings by their declared names (`{ points, out }`); for a kernel still declared by
   * position, an array in binding order.
   */
  buffers: B extends readonly unknown[] ? Binding[] : { readonly [K in BufferName<B>]: Binding };
  /**
   * The uniform block's contents when the kernel has a uniform binding: its fields by name, written through the
   * kernel's declared layout (`writeUniforms`); or u32 words, or raw bytes.
   */
  uniforms?: UniformValues<U> | ArrayLike<number> | ArrayBufferView;
  /** Number of threads: the workgroup count is ⌈threads / WG⌉, spread over a 2D grid where needed. */
  threads?: number;
  /** Number of workgroups, for kernels that give each group a block of work. */
  groups?: number;
  /** Indirect dispatch: the (x, y, z) workgroup counts are read from `buffer` at `offset`. */
  indirect?: { buffer: GPUBuffer; offset?: number };
}

type Op =
  | { kind: 'dispatch'; kernel: Kernel; args: DispatchArgs; slot: number; grid: [number, number] }
  | { kind: 'copy'; src: GPUBuffer; srcOffset: number; dst: GPUBuffer; dstOffset: number; size: number }
  | { kind: 'clear'; buffer: GPUBuffer; offset: number; size?: number };

/** Spreads `groups` workgroups over an (x, y) grid with x ≤ maxPerDim. */
export function gridFor(groups: number, maxPerDim: number, label: string): [number, number] {
  if (groups <= maxPerDim) return [groups, 1];
  const y = Math.ceil(groups / maxPerDim);
  if (y > maxPerDim) {
    throw new InputError(`${label}: ${groups} workgroups exceed the ${maxPerDim}² grid this device allows`);
  }
  return [Math.ceil(groups / y), y];
}

/** Calls `f(at, bytes)` for consecutive pieces of at most PIECE_BYTES covering [0, total). */
function pieces(total: number, f: (at: number, bytes: number) => void): void {
  for (let at = 0; at < total; at += PIECE_BYTES) f(at, Math.min(PIECE_BYTES, total - at));
}

/** Small stable ids for bind-group cache keys (GPU objects have no identity usable in a string key). */
const ids = new WeakMap<object, number>();
let nextId = 1;
/** Bind groups the context keeps before it starts over (a call of 10^6 points makes ~200). */
const BIND_GROUP_CACHE = 4096;

function idOf(o: object): number {
  let id = ids.get(o);
  if (id === undefined) ids.set(o, (id = nextId++));
  return id;
}

/**
 * The dispatch's buffers in binding order: by position as given, or looked up by the names resolved at kernel
 * creation (one property read per binding; a missing name throws here, naming it).
 */
function bufferList(kernel: Kernel, args: DispatchArgs): readonly Binding[] {
  const r = kernel.bindings;
  if (!r.named) {
    const list = args.buffers as Binding[];
    for (let i = 0; i < list.length; i++) {
      if (!list[i])
        throw new InputError(
          `${kernel.spec.label}: binding ${r.indices[i]} has no buffer (got ${list.length} buffers)`,
        );
    }
    return list;
  }
  const byName = args.buffers as Readonly<Record<string, Binding>>;
  const list: Binding[] = new Array(r.names.length);
  for (let i = 0; i < r.names.length; i++) {
    const b = byName[r.names[i]];
    if (!b) throw new InputError(`${kernel.spec.label}: no buffer for binding ${r.indices[i]} '${r.names[i]}'`);
    list[i] = b;
  }
  return list;
}

export class Recorder {
  private readonly ops: Op[] = [];
  private readonly uniformChunks: Uint8Array[] = [];
  /** Slot per distinct uniform content. */
  private readonly slots = new Map<string, number>();
  private uniformBuffer: GPUBuffer | null = null;

  constructor(
    private readonly ctx: GpuContext,
    readonly label: string,
    private readonly timer?: Timer,
  ) {}

  /** Records a dispatch of `kernel`. */
  dispatch<B extends Bindings | readonly PositionalKind[], U extends UniformLayout>(
    kernel: Kernel<B, U>,
    args: DispatchArgs<B, U>,
  ): void {
    const { spec } = kernel;
    let grid: [number, number] = [0, 0];
    if (!args.indirect) {
      const groups = args.groups ?? Math.ceil((args.threads ?? 0) / spec.workgroupSize);
      if (groups === 0) return;
      grid = gridFor(groups, this.ctx.maxWorkgroupsPerDimension, spec.label);
    }
    let slot = -1;
    if (kernel.bindings.uniform >= 0) {
      if (!args.uniforms)
        throw new InputError(`${spec.label}: the kernel has a uniform binding but no uniforms were given`);
      const u = args.uniforms;
      const bytes = ArrayBuffer.isView(u)
        ? new Uint8Array(u.buffer, u.byteOffset, u.byteLength).slice()
        : typeof (u as ArrayLike<number>).length === 'number'
          ? new Uint8Array(Uint32Array.from(u as ArrayLike<number>).buffer)
          : writeUniforms(spec.label, kernel.bindings, u as Record<string, number>);
      const key = bytes.join(',');
      const known = this.slots.get(key);
      if (known !== undefined) {
        slot = known;
      } else {
        slot = this.uniformChunks.length;
        this.uniformChunks.push(bytes);
        this.slots.set(key, slot);
      }
    }
    this.ops.push({ kind: 'dispatch', kernel: kernel as Kernel, args: args as DispatchArgs, slot, grid });
  }

  /** Records a buffer-to-buffer copy (in pieces of at most PIECE_BYTES). */
  copy(src: GPUBuffer, srcOffset: number, dst: GPUBuffer, dstOffset: number, size: number): void {
    pieces(size, (at, bytes) =>
      this.ops.push({ kind: 'copy', src, srcOffset: srcOffset + at, dst, dstOffset: dstOffset + at, size: bytes }),
    );
  }

  /** Records zero-filling `buffer` (all of it, or `size` bytes from `offset`; in pieces of at most PIECE_BYTES). */
  clear(buffer: GPUBuffer, offset = 0, size?: number): void {
    pieces(size ?? buffer.size - offset, (at, bytes) =>
      this.ops.push({ kind: 'clear', buffer, offset: offset + at, size: bytes }),
    );
  }

  /** Encodes everything recorded into one command buffer. */
  finish(): GPUCommandBuffer {
    const { align, slotSize } = this.writeUniformBlock();
    return this.encodeOps(this.ops, align, slotSize, true);
  }

  /**
   * Encodes each recorded operation into a command buffer of its own, labelled with its kernel (or copy / clear), for
   * TREELINE_GPU_STEPLOG: submitted one by one, a stalled submission names its kernel. Same work, same order.
   */
  finishSteps(): { label: string; commands: GPUCommandBuffer }[] {
    const { align, slotSize } = this.writeUniformBlock();
    return this.ops.map((op, i) => ({
      label:
        op.kind === 'dispatch'
          ? op.kernel.spec.label
          : `${op.kind}::${op.kind === 'copy' ? op.dst.label : op.buffer.label}`,
      commands: this.encodeOps([op], align, slotSize, i === this.ops.length - 1),
    }));
  }

  private writeUniformBlock(): { align: number; slotSize: (b: Uint8Array) => number } {
    const device = this.ctx.device;
    const align = Math.max(256, device.limits.minUniformBufferOffsetAlignment);
    const slotSize = (b: Uint8Array) => Math.max(16, Math.ceil(b.byteLength / 16) * 16);
    if (this.uniformChunks.length > 0) {
      const total =
        (this.uniformChunks.length - 1) * align + slotSize(this.uniformChunks[this.uniformChunks.length - 1]);
      const maxSlot = Math.max(...this.uniformChunks.map(slotSize));
      if (maxSlot > align) throw new InputError(`${this.label}: a uniform block is larger than ${align} bytes`);
      // From the context's pool (buffers.ts: a fresh buffer per submission cost the calling thread more than its
      // encoding), written by the queue before this command buffer is submitted (queue order), not cleared first.
      this.uniformBuffer = this.ctx.buffers.create(`${this.label}::uniforms`, total, Usage.UNIFORM, false);
      const bytes = new Uint8Array(total);
      this.uniformChunks.forEach((c, i) => bytes.set(c, i * align));
      device.queue.writeBuffer(this.uniformBuffer, 0, bytes);
    }
    return { align, slotSize };
  }

  private encodeOps(
    ops: readonly Op[],
    align: number,
    slotSize: (b: Uint8Array) => number,
    resolve: boolean,
  ): GPUCommandBuffer {
    const enc = this.ctx.device.createCommandEncoder({ label: this.label });
    // Without a timer, consecutive dispatches share one compute pass: every dispatch is its own synchronization
    // scope in WebGPU either way, and each pass costs the host time in dawn.node (with a pass per dispatch the
    // Borůvka spent more time encoding than the GPU spent computing: bench/RESULTS.md). With a timer each
    // dispatch keeps its own pass, labelled with the kernel, for its timestamps.
    let shared: GPUComputePassEncoder | null = null;
    let lastPipeline: GPUComputePipeline | null = null;
    for (const op of ops) {
      if (op.kind === 'dispatch') {
        if (this.timer) {
          this.encodeDispatch(enc, op, align, slotSize);
          continue;
        }
        if (!shared) {
          shared = enc.beginComputePass({ label: this.label });
          lastPipeline = null;
        }
        if (op.kernel.pipeline !== lastPipeline) {
          shared.setPipeline(op.kernel.pipeline);
          lastPipeline = op.kernel.pipeline;
        }
        this.dispatchInPass(shared, op, align, slotSize);
        continue;
      }
      if (shared) {
        shared.end();
        shared = null;
      }
      if (op.kind === 'copy') enc.copyBufferToBuffer(op.src, op.srcOffset, op.dst, op.dstOffset, op.size);
      else enc.clearBuffer(op.buffer, op.offset, op.size);
    }
    if (shared) shared.end();
    if (resolve) this.timer?.encodeResolve(enc);
    return enc.finish({ label: this.label });
  }

  private encodeDispatch(
    enc: GPUCommandEncoder,
    op: Extract<Op, { kind: 'dispatch' }>,
    align: number,
    slotSize: (b: Uint8Array) => number,
  ): void {
    const { kernel } = op;
    const spec = kernel.spec;
    const pass = enc.beginComputePass({ label: spec.label, timestampWrites: this.timer?.writesFor(spec.label) });
    pass.setPipeline(kernel.pipeline);
    this.dispatchInPass(pass, op, align, slotSize);
    pass.end();
  }

  /** Binds (a cached bind group) and dispatches `op` in `pass`, whose pipeline is already op's kernel's. */
  private dispatchInPass(
    pass: GPUComputePassEncoder,
    op: Extract<Op, { kind: 'dispatch' }>,
    align: number,
    slotSize: (b: Uint8Array) => number,
  ): void {
    const { kernel, args } = op;
    const list = bufferList(kernel, args);
    // The context's cache (GpuContext.bindGroups), so the key names the uniform block's buffer and range too: with
    // the buffer pool (buffers.ts) a call that repeats the last one's sizes binds the same buffers and finds its bind
    // groups made (createBindGroup was ~9 ms of a 10^6-point hdbscan() on the H100's host). Ids are never reused, so
    // an entry of a destroyed buffer is never found again.
    const chunk = op.slot >= 0 ? this.uniformChunks[op.slot] : undefined;
    let key = `${idOf(kernel)}|${chunk ? `${idOf(this.uniformBuffer!)}:${op.slot * align}:${slotSize(chunk)}` : ''}|`;
    for (let i = 0; i < list.length; i++) {
      const b = list[i];
      key += `${i > 0 ? ',' : ''}${'buffer' in b ? `${idOf(b.buffer)}:${b.offset ?? 0}:${b.size ?? ''}` : idOf(b)}`;
    }
    const cache = this.ctx.bindGroups;
    let bindGroup = cache.get(key);
    if (!bindGroup) {
      bindGroup = this.createBindGroup(op, list, align, slotSize);
      if (cache.size >= BIND_GROUP_CACHE) cache.clear();
      cache.set(key, bindGroup);
    }
    pass.setBindGroup(0, bindGroup);
    if (args.indirect) pass.dispatchWorkgroupsIndirect(args.indirect.buffer, args.indirect.offset ?? 0);
    else pass.dispatchWorkgroups(op.grid[0], op.grid[1]);
  }

  private createBindGroup(
    op: Extract<Op, { kind: 'dispatch' }>,
    list: readonly Binding[],
    align: number,
    slotSize: (b: Uint8Array) => number,
  ): GPUBindGroup {
    const { kernel, args } = op;
    const spec = kernel.spec;
    const r = kernel.bindings;
    if (r.named) {
      const extra = Object.keys(args.buffers).filter((name) => !r.names.includes(name));
      if (extra.length > 0) {
        throw new InputError(`${spec.label}: no binding named ${extra.join(', ')} (bindings: ${r.names.join(', ')})`);
      }
    } else if (list.length !== r.indices.length) {
      throw new InputError(`${spec.label}: expected ${r.indices.length} buffers, got ${list.length}`);
    }
    let next = 0;
    const entries: GPUBindGroupEntry[] = r.kinds.map((kind, binding) => {
      if (kind === 'uniform') {
        return {
          binding,
          resource: {
            buffer: this.uniformBuffer!,
            offset: op.slot * align,
            size: slotSize(this.uniformChunks[op.slot]),
          },
        };
      }
      const b = list[next++];
      if (this.ctx.bindingLowered) this.checkBindingSize(spec.label, r.names[next - 1] ?? `${binding}`, b);
      return { binding, resource: 'buffer' in b ? b : { buffer: b } };
    });
    return this.ctx.device.createBindGroup({ label: spec.label, layout: kernel.layout, entries });
  }

  /**
   * Refuses a storage binding larger than the lowered binding limit (GpuContextOptions.maxBindingBytes,
   * TREELINE_MAX_BINDING_BYTES) as WebGPU refuses one above the device's: otherwise a kernel that binds a whole
   * array would pass a test of the split paths on a device whose own limit is larger.
   */
  private checkBindingSize(label: string, name: string, b: Binding): void {
    const size = 'buffer' in b ? (b.size ?? b.buffer.size - (b.offset ?? 0)) : b.size;
    const limit = this.ctx.limits.maxStorageBufferBindingSize;
    if (size > limit) {
      const buffer = 'buffer' in b ? b.buffer : b;
      throw new GpuError(
        'validation',
        label,
        `binding '${name}' (${buffer.label}) is ${size} bytes, above the binding limit of ${limit} bytes ` +
          `(TREELINE_MAX_BINDING_BYTES; the device binds ${this.ctx.deviceLimits.maxStorageBufferBindingSize})`,
      );
    }
  }

  /** Frees the submission's uniform buffer (WebGPU keeps it alive until the GPU is done with it). */
  release(): void {
    this.uniformBuffer?.destroy();
    this.uniformBuffer = null;
  }
}
