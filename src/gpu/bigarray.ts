/**
 * Big arrays (issue 19): arrays larger than one storage binding. WebGPU caps one binding at
 * `maxStorageBufferBindingSize` (2 GiB − 4 on the H100, 128 MiB on lavapipe; lowered on purpose by
 * TREELINE_MAX_BINDING_BYTES, context.ts) but not a buffer, which may be as large as `maxBufferSize`: a big array is
 * ONE buffer of `length` elements of `stride` bytes (so uploads, copies and read-backs stay as they are), bound as
 * ranges that each fit a binding. Kernels bind it in one of two ways:
 *
 *   (a) parts, for random access: the array as `slots` consecutive bindings of `partElements` elements each
 *       (`name0`, `name1`, … the last shorter, those beyond the end bound to a small unused buffer), read and written
 *       through accessors that bigArrayWgsl generates — `fn name_get(i: u32) -> T` (and `name_set(i, v)` for a
 *       read_write array) pick part i / partElements. Each part is a storage binding of the stage
 *       (maxStorageBuffersPerShaderStage: 16 on lavapipe and on Dawn's Vulkan devices), so `slots` is small and
 *       fixed per kernel: the array may hold at most slots × partElements elements. The BVH's boxes
 *       (bvh/boxparts.ts, 3 parts) were the first array bound this way, with a hand-written accessor.
 *   (b) windows, for element-wise kernels: windows() cuts [0, length) into windows whose every array's range fits
 *       one binding and starts at an offset the device accepts (minStorageBufferOffsetAlignment); the kernel is
 *       dispatched once per window with the window's first element as a uniform (`base`), binding
 *       windowBinding(buffer, stride, window) of each array. No binding count grows with n.
 *
 * The fast path: where an array fits one binding it is ONE part named `name` (not `name0`) bound whole, and its
 * accessor is a plain `name[i]`; a kernel whose arrays all fit has one window, bound whole. The bind groups are then
 * those of a kernel that never heard of big arrays.
 *
 * For traversal kernels (k-NN, Borůvka's nearest: random access to every BVH array along a root-to-leaf path)
 * neither (a) nor (b) scales without limit: (a) multiplies the bindings by the parts, (b) does not apply. The
 * intended decomposition there is the top tree / subtree one: cut the BVH into subtrees whose arrays each fit one
 * binding (a subtree of the Karras hierarchy is a contiguous range of leaves and of internal nodes), run the query
 * against each subtree's window in turn, each run pruned by the bound the previous ones left (the k-th distance, the
 * component's upper bound), and the top tree above them as a small array bound whole. It needs no more bindings
 * however large n is. Built for Borůvka (emst/nearestsplit.ts) in a simpler form: no top tree — each tree window's
 * roots (its maximal subtrees) are searched in turn, the query's best so far carried between dispatches. The k-NN
 * binds the BVH's four arrays in parts beside two windowed outputs (knn/knn.ts; the stage's 16 storage buffers hold
 * ~4·10^8 3D points at 2 GiB a binding, bvh/capacity.ts).
 *
 * Users today: windows — emst/pointcheck.ts, bvh/codes.ts, the radix sort's block kernels, the k-NN's outputs,
 * Borůvka's split traversal and rounds (emst/nearestsplit.ts, emst/roundsplit.ts), the graph MSF's edge slots and
 * worklist segments (graph/eclsplit.ts); parts — emst/gather.ts, bvh/gather.ts, bvh/karras.ts, bvh/refit.ts and
 * knn/knn.ts (planParts / bindParts), the radix sort's scatter outputs, emst/roundsplit.ts (best, edges, parents,
 * minCore2), graph/eclsplit.ts (the vertex arrays, the union-find through the compare-exchange accessor).
 */
import type { GpuContext } from './context.js';
import type { Binding } from './recorder.js';
import { InputError } from '../errors.js';

/** The two limits that shape a big array. */
export interface BigArrayLimits {
  maxStorageBufferBindingSize: number;
  minStorageBufferOffsetAlignment: number;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
const lcm = (a: number, b: number): number => (a / gcd(a, b)) * b;

/**
 * The element counts at which ranges of arrays of these strides may start: a multiple of this many elements is,
 * for every stride, a byte offset the device accepts (minStorageBufferOffsetAlignment).
 */
export function alignElements(limits: BigArrayLimits, strides: readonly number[]): number {
  const align = limits.minStorageBufferOffsetAlignment;
  return strides.reduce((acc, s) => lcm(acc, align / gcd(s, align)), 1);
}

/**
 * The most elements of `stride` bytes that one binding holds, rounded down to whole multiples of the offset
 * alignment so that the next part starts where the device accepts it.
 */
export function partElements(limits: BigArrayLimits, stride: number): number {
  checkStride(stride);
  const unit = alignElements(limits, [stride]);
  const most = Math.floor(Math.floor(limits.maxStorageBufferBindingSize / stride) / unit) * unit;
  if (most < unit) {
    throw new InputError(
      `A binding of ${limits.maxStorageBufferBindingSize} bytes cannot hold ${unit} elements of ${stride} bytes.`,
    );
  }
  return most;
}

function checkStride(stride: number): void {
  if (!Number.isInteger(stride) || stride < 4 || stride % 4 !== 0) {
    throw new InputError(`Expected a big array's stride to be a positive multiple of 4 bytes, got ${stride}.`);
  }
}

/** A range [first, first + count) of elements, bound and dispatched as one. */
export interface Window {
  first: number;
  count: number;
}

/**
 * The windows of `length` elements for an element-wise kernel over arrays of these strides (bytes per element):
 * every array's range of every window fits one binding and starts at an accepted offset. One window [0, length)
 * when everything fits (the fast path), none for length 0. `maxElements` caps a window further (tests use it to cut
 * small inputs into many windows).
 */
export function windows(
  limits: BigArrayLimits,
  length: number,
  strides: readonly number[],
  maxElements = Number.POSITIVE_INFINITY,
): Window[] {
  if (!Number.isInteger(length) || length < 0) {
    throw new InputError(`Expected a big array's length to be a non-negative integer, got ${length}.`);
  }
  if (length === 0) return [];
  const fits = Math.min(maxElements, ...strides.map((s) => Math.floor(limits.maxStorageBufferBindingSize / s)));
  if (length <= fits) return [{ first: 0, count: length }];
  const unit = alignElements(limits, strides);
  const step = Math.floor(fits / unit) * unit;
  if (step < unit) {
    throw new InputError(
      `No window of whole ${unit}-element units fits ${Math.min(fits, maxElements)} elements (strides ${strides.join(', ')}).`,
    );
  }
  const out: Window[] = [];
  for (let first = 0; first < length; first += step) out.push({ first, count: Math.min(step, length - first) });
  return out;
}

/**
 * The binding of a window's range of `array` (a buffer, or a range of one, holding elements of `stride` bytes from
 * its start): `array` itself where the window starts at 0 and `array` fits one binding (the fast path: the binding a
 * plain kernel makes), else the window's range.
 */
export function windowBinding(limits: BigArrayLimits, array: Binding, stride: number, w: Window): Binding {
  const buffer = 'buffer' in array ? array.buffer : array;
  const offset = 'buffer' in array ? (array.offset ?? 0) : 0;
  const size = 'buffer' in array ? (array.size ?? buffer.size - offset) : buffer.size;
  if (w.first === 0 && size <= limits.maxStorageBufferBindingSize) return array;
  return { buffer, offset: offset + w.first * stride, size: w.count * stride };
}

/** How an array is split into parts for random access: `parts` ranges of `partElements` elements (the last shorter). */
export interface BigArrayParts {
  /** Elements per part (a multiple of the offset alignment's unit). */
  partElements: number;
  /** Parts that hold elements (≥ 1). */
  parts: number;
}

/**
 * The parts of `length` elements of `stride` bytes on a device with these limits (`partElementsOverride`: fewer
 * elements per part, for tests; rounded down to the alignment's unit).
 */
export function bigArrayParts(
  limits: BigArrayLimits,
  length: number,
  stride: number,
  partElementsOverride?: number,
): BigArrayParts {
  let per = partElements(limits, stride);
  if (partElementsOverride !== undefined) {
    const unit = alignElements(limits, [stride]);
    const asked = Math.floor(partElementsOverride / unit) * unit;
    if (asked < unit)
      throw new InputError(
        `Expected partElements ≥ ${unit} (the offset alignment's unit), got ${partElementsOverride}.`,
      );
    per = Math.min(per, asked);
  }
  return { partElements: per, parts: Math.max(1, Math.ceil(length / per)) };
}

/**
 * The bindings of a random-access array (a): `name` bound whole for one slot, else `name0` … `name{slots − 1}`, part
 * i's range of `buffer`, slots beyond the last part bound to 256-byte ranges of `unused` (never read or written:
 * accessors only reach parts that hold elements). Writable bindings may not overlap, so unused slot i takes range
 * `unusedFirst + i` of `unused`, which must hold UNUSED_RANGE bytes for every slot of every array bound beside it.
 */
export function partBindings(
  limits: BigArrayLimits,
  name: string,
  array: Binding,
  stride: number,
  length: number,
  shape: BigArrayParts,
  slots: number,
  unused: GPUBuffer,
  unusedFirst = 0,
): Record<string, Binding> {
  const buffer = 'buffer' in array ? array.buffer : array;
  const base = 'buffer' in array ? (array.offset ?? 0) : 0;
  if (shape.parts > slots) {
    throw new InputError(
      `${buffer.label}: ${length} elements need ${shape.parts} parts of ${shape.partElements}, more than the ${slots} bindings of the kernel.`,
    );
  }
  if (slots === 1) {
    const size = 'buffer' in array ? (array.size ?? buffer.size - base) : buffer.size;
    const whole = size <= limits.maxStorageBufferBindingSize;
    return { [name]: whole ? array : { buffer, offset: base, size: Math.max(length, 1) * stride } };
  }
  const out: Record<string, Binding> = {};
  for (let i = 0; i < slots; i++) {
    const first = i * shape.partElements;
    const count = Math.min(shape.partElements, length - first);
    out[`${name}${i}`] =
      count > 0
        ? { buffer, offset: base + first * stride, size: count * stride }
        : { buffer: unused, offset: UNUSED_RANGE * (unusedFirst + i), size: UNUSED_RANGE };
  }
  return out;
}

/** The read-modify-write accessors of an atomic big array (`name_max`, …), besides `name_store` and `name_load`. */
const ATOMIC_OPS = ['max', 'min', 'add', 'xor'] as const;

/** A random-access array's declaration for bigArrayWgsl. */
export interface BigArrayDecl {
  /** The WGSL name: the bindings are `name` (one slot) or `name0` …, the accessors `name_get` / `name_set`. */
  name: string;
  /** The element type (`u32`, `f32`, `vec2u`, …). */
  type: string;
  access: 'read' | 'read_write';
  /** The binding index of the first slot (the others follow). */
  binding: number;
  /** Bindings (1: the fast path, the array whole). */
  slots: number;
  /** Elements per part (ignored for one slot). */
  partElements: number;
  /**
   * An array of `atomic<u32>` (type must be 'u32', access read_write): its accessors are `name_store(i, v)`,
   * `name_load(i) -> u32`, `name_max(i, v) -> u32`, `name_min(i, v) -> u32`, `name_add(i, v) -> u32` and
   * `name_xor(i, v) -> u32` (atomicStore, atomicLoad, atomicMax, atomicMin, atomicAdd, atomicXor) instead of get and
   * set.
   */
  atomic?: boolean;
  /**
   * With `atomic`: also `name_cas(i, cmp, v) -> bool` (atomicCompareExchangeWeak; true where it exchanged), for a
   * union-find's link (graph/split_uf.wgsl).
   */
  cas?: boolean;
}

/**
 * The WGSL of a random-access array (a): its slot declarations and accessors. One slot: `var<storage, …> name:
 * array<T>` and accessors that index it directly. Several: the part is i / partElements — a uniform branch where
 * the whole workgroup reads one part, as nearly every access does.
 */
export function bigArrayWgsl(d: BigArrayDecl): string {
  if (!/^[A-Za-z_]\w*$/.test(d.name) || !/^[\w<>, ]+$/.test(d.type)) {
    throw new InputError(`Expected a WGSL name and type for a big array, got '${d.name}: ${d.type}'.`);
  }
  const { name, type, access, slots } = d;
  if (d.atomic && (type !== 'u32' || access !== 'read_write')) {
    throw new InputError(`Expected an atomic big array to be u32 and read_write, got '${name}: ${type}' (${access}).`);
  }
  const lines: string[] = [];
  const decl = (i: number, v: string) =>
    `@group(0) @binding(${d.binding + i}) var<storage, ${access}> ${v}: array<${d.atomic ? 'atomic<u32>' : type}>;`;
  if (slots === 1) {
    lines.push(decl(0, name));
    if (d.atomic) {
      lines.push(`fn ${name}_store(i: u32, v: u32) { atomicStore(&${name}[i], v); }`);
      lines.push(`fn ${name}_load(i: u32) -> u32 { return atomicLoad(&${name}[i]); }`);
      for (const op of ATOMIC_OPS) {
        const f = `atomic${op[0].toUpperCase()}${op.slice(1)}`;
        lines.push(`fn ${name}_${op}(i: u32, v: u32) -> u32 { return ${f}(&${name}[i], v); }`);
      }
      if (d.cas) lines.push(`fn ${name}_cas(i: u32, cmp: u32, v: u32) -> bool { ${casBody(name, 'i')} }`);
      return lines.join('\n');
    }
    lines.push(`fn ${name}_get(i: u32) -> ${type} { return ${name}[i]; }`);
    if (access === 'read_write') lines.push(`fn ${name}_set(i: u32, v: ${type}) { ${name}[i] = v; }`);
    return lines.join('\n');
  }
  for (let i = 0; i < slots; i++) lines.push(decl(i, `${name}${i}`));
  const per = `${d.partElements}u`;
  const pick = (body: (v: string, at: string) => string) => {
    const out: string[] = [];
    for (let i = 0; i < slots; i++) {
      const at = i === 0 ? 'i' : `i - ${i * d.partElements}u`;
      const cond = i === slots - 1 ? '' : `if (i < ${(i + 1) * d.partElements}u) `;
      out.push(`  ${cond}{ ${body(`${name}${i}`, at)} }`);
    }
    return out.join('\n');
  };
  lines.push(`// ${name}: ${slots} parts of ${per} elements (src/gpu/bigarray.ts).`);
  if (d.atomic) {
    lines.push(`fn ${name}_store(i: u32, v: u32) {\n${pick((w, at) => `atomicStore(&${w}[${at}], v); return;`)}\n}`);
    lines.push(`fn ${name}_load(i: u32) -> u32 {\n${pick((w, at) => `return atomicLoad(&${w}[${at}]);`)}\n}`);
    for (const op of ATOMIC_OPS) {
      const f = `atomic${op[0].toUpperCase()}${op.slice(1)}`;
      lines.push(`fn ${name}_${op}(i: u32, v: u32) -> u32 {\n${pick((w, at) => `return ${f}(&${w}[${at}], v);`)}\n}`);
    }
    if (d.cas) lines.push(`fn ${name}_cas(i: u32, cmp: u32, v: u32) -> bool {\n${pick((w, at) => casBody(w, at))}\n}`);
    return lines.join('\n');
  }
  lines.push(`fn ${name}_get(i: u32) -> ${type} {\n${pick((v, at) => `return ${v}[${at}];`)}\n}`);
  if (access === 'read_write') {
    lines.push(`fn ${name}_set(i: u32, v: ${type}) {\n${pick((w, at) => `${w}[${at}] = v; return;`)}\n}`);
  }
  return lines.join('\n');
}

/**
 * The accessors of an array a kernel variant leaves out (no binding): `name_get` returns T's zero value, the writes and
 * atomics do nothing (atomics return 0). For a kernel compiled in passes that each bind only some of its arrays (e.g.
 * bvh/refit.ts): the pass's constants keep every call to them unreached; they exist so that one WGSL source compiles.
 */
export function absentArrayWgsl(a: Pick<PartArray, 'name' | 'type' | 'access' | 'atomic' | 'cas'>): string {
  if (!/^[A-Za-z_]\w*$/.test(a.name) || !/^[\w<>, ]+$/.test(a.type)) {
    throw new InputError(`Expected a WGSL name and type for a big array, got '${a.name}: ${a.type}'.`);
  }
  const { name, type } = a;
  const lines = [`// ${name}: not bound in this pass (src/gpu/bigarray.ts absentArrayWgsl).`];
  if (a.atomic) {
    lines.push(`fn ${name}_store(i: u32, v: u32) {}`, `fn ${name}_load(i: u32) -> u32 { return 0u; }`);
    for (const op of ATOMIC_OPS) lines.push(`fn ${name}_${op}(i: u32, v: u32) -> u32 { return 0u; }`);
    if (a.cas) lines.push(`fn ${name}_cas(i: u32, cmp: u32, v: u32) -> bool { return false; }`);
    return lines.join('\n');
  }
  lines.push(`fn ${name}_get(i: u32) -> ${type} { return ${type}(); }`);
  if (a.access === 'read_write') lines.push(`fn ${name}_set(i: u32, v: ${type}) {}`);
  return lines.join('\n');
}

function casBody(v: string, at: string): string {
  return `return atomicCompareExchangeWeak(&${v}[${at}], cmp, v).exchanged;`;
}

/** Bytes of `unused` a slot beyond an array's last part binds (the storage offset alignment). */
export const UNUSED_RANGE = 256;

/** The buffer the slots beyond the last parts bind: `slots` ranges of UNUSED_RANGE bytes (partBindings). */
export function createUnusedParts(ctx: GpuContext, label: string, slots: number): GPUBuffer {
  return ctx.createBuffer(`${label}Unused`, UNUSED_RANGE * Math.max(slots, 1));
}

/** One array of a kernel that binds every array in parts (a): its WGSL name and type, and its size for n points. */
export interface PartArray {
  name: string;
  type: string;
  /** Bytes per element. */
  stride: number;
  /** Elements for n points. */
  length: (n: number) => number;
  access: 'read' | 'read_write';
  /** atomic<u32> words (BigArrayDecl.atomic). */
  atomic?: boolean;
  /** With atomic: a compare-exchange accessor too (BigArrayDecl.cas). */
  cas?: boolean;
  /** Fewer elements per part for this array than the plan's (tests: forced parts; planParts' `partElements`). */
  partElements?: number;
}

/** The bindings, generated WGSL and parts of a kernel's part-bound arrays, planned once for its largest n. */
export interface PartPlan {
  arrays: readonly (PartArray & { parts: BigArrayParts })[];
  /** Storage bindings of all the arrays' slots. */
  slots: number;
  /** The slots' binding kinds by name, in binding order (from `firstBinding` on). */
  bindings: Record<string, 'read' | 'read_write'>;
  /** bigArrayWgsl of every array, in binding order. */
  generated: string[];
}

/**
 * Plans the parts of `arrays` for up to maxN points, their slots from binding `firstBinding` on (`label` names the
 * kernel when they exceed the stage's storage buffers; `partElements`: smaller parts, tests).
 */
export function planParts(
  limits: BigArrayLimits & { maxStorageBuffersPerShaderStage: number },
  label: string,
  arrays: readonly PartArray[],
  maxN: number,
  firstBinding: number,
  partElements?: number,
): PartPlan {
  const planned = arrays.map((a) => ({
    ...a,
    parts: bigArrayParts(limits, a.length(maxN), a.stride, a.partElements ?? partElements),
  }));
  const slots = planned.reduce((s, a) => s + a.parts.parts, 0);
  const stage = limits.maxStorageBuffersPerShaderStage;
  if (slots > stage) {
    throw new InputError(
      `${label}: ${maxN} points need ${planned.map((a) => `${a.parts.parts} ${a.name}`).join(', ')} bindings; this device binds ${stage} storage buffers per stage.`,
    );
  }
  const bindings: Record<string, 'read' | 'read_write'> = {};
  const generated: string[] = [];
  let binding = firstBinding;
  for (const a of planned) {
    const p = a.parts.parts;
    for (let i = 0; i < p; i++) bindings[p === 1 ? a.name : `${a.name}${i}`] = a.access;
    const decl = { name: a.name, type: a.type, access: a.access, binding, slots: p };
    generated.push(bigArrayWgsl({ ...decl, partElements: a.parts.partElements, atomic: a.atomic, cas: a.cas }));
    binding += p;
  }
  return { arrays: planned, slots, bindings, generated };
}

/** Storage bindings the parts of `arrays` take for up to maxN points (planParts' count, without its refusal). */
export function partSlots(
  limits: BigArrayLimits,
  arrays: readonly PartArray[],
  maxN: number,
  partElements?: number,
): number {
  return arrays.reduce(
    (s, a) => s + bigArrayParts(limits, a.length(maxN), a.stride, a.partElements ?? partElements).parts,
    0,
  );
}

/**
 * The bindings of a planned kernel's arrays for n points (`buffers` by array name); `unused`: a buffer of
 * plan.slots UNUSED_RANGE ranges where any array has several parts (createUnusedParts). An array is bound no further
 * than its buffer (or range) reaches, where that holds fewer elements than its length for n (a forest's edges).
 */
export function bindParts(
  limits: BigArrayLimits,
  plan: PartPlan,
  buffers: Readonly<Record<string, Binding>>,
  n: number,
  unused: GPUBuffer | null,
): Record<string, Binding> {
  const out: Record<string, Binding> = {};
  let first = 0;
  for (const a of plan.arrays) {
    const array = buffers[a.name];
    const bytes = 'buffer' in array ? (array.size ?? array.buffer.size - (array.offset ?? 0)) : array.size;
    const length = Math.min(a.length(n), Math.floor(bytes / a.stride));
    const used = { ...a.parts, parts: Math.max(1, Math.ceil(length / a.parts.partElements)) };
    const fallback = unused ?? ('buffer' in array ? array.buffer : array);
    Object.assign(out, partBindings(limits, a.name, array, a.stride, length, used, a.parts.parts, fallback, first));
    first += a.parts.parts;
  }
  return out;
}
