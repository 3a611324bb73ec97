/**
 * Compute kernels: one shader composer and one pipeline cache per device (CONVENTIONS.md 8, 9).
 *
 * A kernel's WGSL is composed in exactly one way: `enable` lines, then `const` lines for the values that size
 * private arrays (k, d, …), then the shared modules of `shaders/common/`, then the generated declarations and
 * accessors of big arrays bound in parts (bigarray.ts), then the kernel's own module. Shape is
 * set through `override` constants (the workgroup size is always the override `WG`); per-dispatch values go
 * through a uniform buffer. No string surgery on WGSL anywhere else.
 *
 * Bindings by name (issue 16; TypeGPU's layouts as data): each kernel declares its group-0 bindings once, by the
 * WGSL variables' names and access (`Bindings`), and its uniform block's fields by name and type
 * (`UniformLayout`), in the module that owns its WGSL. Composing the kernel checks both against the composed WGSL
 * (`checkBindings`: a mismatch throws naming the kernel, the binding and both sides), names are resolved to binding
 * indices once at creation (`resolveBindings`), and dispatches pass buffers by name and uniform values by field
 * (`writeUniforms`: a u32 field takes only an integer, so a float cannot land in it by accident).
 * test/cpu/gpu.bindings.test.ts composes every kernel of the project and checks them all without a GPU.
 */
import type { GpuContext } from './context.js';
import { GpuError, InputError, TreelineError } from '../errors.js';
import { shaderSources } from './shaders.generated.js';

/**
 * How a kernel's binding is used, spelled as WGSL spells it: `var<uniform>`, `var<storage, read>` (or
 * `var<storage>`), `var<storage, read_write>`.
 */
export type BindingKind = 'uniform' | 'read' | 'read_write';
/**
 * The older positional form (an array in binding order, `'rw'` for `'read_write'`), still accepted and checked
 * (access only) for callers outside treeline's own kernels, which all declare bindings by name.
 */
export type PositionalKind = 'uniform' | 'read' | 'rw';

/**
 * A kernel's bindings of group 0 BY NAME, each name the WGSL variable's, in binding-number order from 0 (object
 * key order): `{ u: 'uniform', points: 'read', out: 'read_write' }` is `@binding(0) var<uniform> u`,
 * `@binding(1) var<storage, read> points`, `@binding(2) var<storage, read_write> out`. Checked against the
 * composed WGSL when the kernel is created (`checkBindings`).
 */
export type Bindings = Readonly<Record<string, BindingKind>>;

/** A uniform field's type: a 4-byte scalar, or a `vec4f` / `array<vec4f, N>` (16 bytes each, 16-aligned). */
export type UniformType = 'u32' | 'i32' | 'f32' | 'vec4f' | `array<vec4f, ${number}>`;
/**
 * A uniform block's fields by name and type, in the WGSL struct's order (checked against it when the kernel is
 * created). Values are written through `writeUniforms`, which picks the view by the declared type: a u32 field
 * takes only an integer in [0, 2³²), so a float cannot land in it by accident.
 */
export type UniformLayout = Readonly<Record<string, UniformType>>;

/** The names of the non-uniform bindings of `B`. */
export type BufferName<B> = B extends readonly unknown[]
  ? never
  : { [K in keyof B]: B[K] extends 'uniform' ? never : K }[keyof B] & string;

/** Values of a uniform layout's fields (`pad*` fields may be left out; absent fields are 0). */
export type UniformValues<U> = {
  [K in keyof U as K extends `pad${string}` ? never : K]?: U[K] extends 'u32' | 'i32' | 'f32'
    ? number
    : U[K] extends 'vec4f' | `array<vec4f, ${number}>`
      ? ArrayLike<number>
      : number | ArrayLike<number>;
};

export interface KernelSpec<
  B extends Bindings | readonly PositionalKind[] = Bindings | readonly PositionalKind[],
  U extends UniformLayout = UniformLayout,
> {
  /** `layer::thing`, used for the pipeline, its passes, errors and timer scopes. */
  label: string;
  /** The kernel's own module, by path under `shaders/` without `.wgsl` (e.g. `'primitives/scan'`). */
  shader: string;
  /** Entry point. */
  entry: string;
  /** Bindings of group 0 by name (see `Bindings`); a positional array only for kernels not yet converted. */
  bindings: B;
  /** The uniform block's fields (see `UniformLayout`), when the kernel has a uniform binding. */
  uniforms?: U;
  /** Threads per workgroup: the value of the WGSL override `WG`. */
  workgroupSize: number;
  /** Shared modules (under `shaders/`) composed before the kernel's own; default `['common/grid']`. */
  include?: string[];
  /** `const NAME: u32 = value;` lines, for sizes that private arrays need at compile time. */
  constants?: Record<string, number>;
  /** Other pipeline-overridable constants. */
  overrides?: Record<string, number>;
  /** WGSL extensions to enable (`'subgroups'`). */
  enable?: string[];
  /**
   * Generated WGSL composed after the includes, before the kernel's own module: only the declarations and accessors
   * of big arrays bound in parts (gpu/bigarray.ts, bigArrayWgsl), which depend on how many parts a device needs.
   */
  generated?: string[];
}

/** The binding table resolved once at kernel creation: kinds by index, the buffers' names in binding order. */
export interface ResolvedBindings {
  /** Kind of binding i. */
  kinds: readonly BindingKind[];
  /** Binding index of the uniform block, or −1. */
  uniform: number;
  /** Names of the non-uniform bindings in binding order (empty for a positional spec). */
  names: readonly string[];
  /** Binding index of each of `names`. */
  indices: readonly number[];
  /** Whether buffers are passed by name (an object) rather than by position (an array). */
  named: boolean;
  /** The uniform layout with byte offsets, when declared. */
  uniformFields: readonly { name: string; type: UniformType; offset: number; words: number }[] | null;
  /** Size of the uniform block in bytes (a multiple of 16), when declared. */
  uniformSize: number;
}

function uniformWords(t: UniformType): number {
  if (t === 'u32' || t === 'i32' || t === 'f32') return 1;
  if (t === 'vec4f') return 4;
  const m = /^array<vec4f, (\d+)>$/.exec(t);
  if (!m) throw new Error(`Unknown uniform type '${t}'`);
  return 4 * Number(m[1]);
}

/** Resolves a spec's bindings (and uniform layout) to indices, once. */
export function resolveBindings(spec: KernelSpec): ResolvedBindings {
  const b = spec.bindings;
  const named = !Array.isArray(b);
  // Named: binding i is the i-th key (WGSL identifiers never look like integers, so key order is declaration order).
  const keys = named ? Object.keys(b) : [];
  const kinds: BindingKind[] = named
    ? Object.values(b as Bindings)
    : (b as readonly PositionalKind[]).map((k) => (k === 'rw' ? 'read_write' : k));
  const indices = kinds.flatMap((k, i) => (k === 'uniform' ? [] : [i]));
  const names = named ? indices.map((i) => keys[i]) : [];
  let uniformFields: ResolvedBindings['uniformFields'] = null;
  let uniformSize = 0;
  if (spec.uniforms) {
    let offset = 0;
    uniformFields = Object.entries(spec.uniforms).map(([name, type]) => {
      const words = uniformWords(type);
      if (words > 1) offset = Math.ceil(offset / 16) * 16;
      const f = { name, type, offset, words };
      offset += 4 * words;
      return f;
    });
    uniformSize = Math.max(16, Math.ceil(offset / 16) * 16);
  }
  return { kinds, uniform: kinds.indexOf('uniform'), names, indices, named, uniformFields, uniformSize };
}

/**
 * Writes a uniform block from field values through the declared layout: u32/i32 fields through integer views
 * (a value that is not an integer of the field's range throws), f32 and vec4f fields through a float view.
 */
export function writeUniforms(
  label: string,
  r: ResolvedBindings,
  values: Readonly<Record<string, number | ArrayLike<number>>>,
): Uint8Array {
  const fields = r.uniformFields;
  if (!fields)
    throw new InputError(`${label}: uniform values given by name, but the kernel declares no uniform layout`);
  const u32 = new Uint32Array(r.uniformSize >> 2);
  let used = 0;
  for (const f of fields) {
    const v = values[f.name];
    if (v === undefined) continue;
    used++;
    const at = f.offset >> 2;
    if (f.type === 'u32') {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0xffffffff) {
        throw new InputError(`${label}: uniform field ${f.name} is u32, got ${String(v)}`);
      }
      u32[at] = v;
    } else if (f.type === 'i32') {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < -0x80000000 || v > 0x7fffffff) {
        throw new InputError(`${label}: uniform field ${f.name} is i32, got ${String(v)}`);
      }
      u32[at] = v >>> 0;
    } else if (f.type === 'f32') {
      if (typeof v !== 'number') throw new InputError(`${label}: uniform field ${f.name} is f32, got ${String(v)}`);
      f32Bits[0] = v;
      u32[at] = u32Bits[0];
    } else {
      if (typeof v === 'number' || v.length > 4 * f.words) {
        throw new InputError(
          `${label}: uniform field ${f.name} is ${f.type} (${4 * f.words} floats), got ${String(v)}`,
        );
      }
      for (let i = 0; i < v.length; i++) {
        f32Bits[0] = v[i];
        u32[at + i] = u32Bits[0];
      }
    }
  }
  let given = 0;
  for (const k in values) if (values[k] !== undefined) given++;
  if (used !== given) {
    const unknown = Object.keys(values).filter((k) => !fields.some((f) => f.name === k));
    throw new InputError(
      `${label}: no uniform field ${unknown.join(', ')} (fields: ${fields.map((f) => f.name).join(', ')})`,
    );
  }
  return new Uint8Array(u32.buffer);
}

/** One float's bits, for writing f32 fields into the u32 words of a uniform block. */
const f32Bits = new Float32Array(1);
const u32Bits = new Uint32Array(f32Bits.buffer);

/** The bits of `x` as an f32: the value of a u32 field that holds a float's bits on purpose (ordered keys, ±∞). */
export function floatBits(x: number): number {
  f32Bits[0] = x;
  return u32Bits[0];
}

/**
 * A kernel's uniform block written once through its declared layout, for a caller that dispatches it many times
 * with the same values (the recorder copies the bytes at each dispatch).
 */
export function uniformBytes<U extends UniformLayout>(
  kernel: Kernel<Bindings | readonly PositionalKind[], U>,
  values: UniformValues<U>,
): Uint8Array {
  return writeUniforms(kernel.spec.label, kernel.bindings, values as Record<string, number | ArrayLike<number>>);
}

/** A `@group(0) @binding(i) var<…> name` declaration found in composed WGSL. */
export interface WgslBinding {
  index: number;
  name: string;
  kind: BindingKind;
  /** The variable's type (the struct name, for a uniform). */
  type: string;
}

function stripComments(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '');
}

/** The group-0 binding declarations of composed WGSL (several may share an index, used by different entries). */
export function parseBindings(code: string): WgslBinding[] {
  const re =
    /@group\(\s*0\s*\)\s*@binding\(\s*(\d+)\s*\)\s*var\s*<\s*(uniform|storage)\s*(?:,\s*(read|read_write)\s*)?>\s*(\w+)\s*:\s*([^;]+);/g;
  const out: WgslBinding[] = [];
  for (const m of stripComments(code).matchAll(re)) {
    const kind: BindingKind = m[2] === 'uniform' ? 'uniform' : m[3] === 'read_write' ? 'read_write' : 'read';
    out.push({ index: Number(m[1]), name: m[4], kind, type: m[5].trim() });
  }
  return out;
}

/** The fields (name, type) of `struct name { … }` in WGSL, or null if there is no such struct. */
export function parseStruct(code: string, name: string): { name: string; type: string }[] | null {
  const m = new RegExp(`struct\\s+${name}\\s*\\{([^}]*)\\}`).exec(stripComments(code));
  if (!m) return null;
  const fields: { name: string; type: string }[] = [];
  for (const f of m[1].matchAll(/(\w+)\s*:\s*(array\s*<[^>]*>|vec\d\s*<\s*\w+\s*>|\w+)/g)) {
    fields.push({ name: f[1], type: normalizeType(f[2]) });
  }
  return fields;
}

function normalizeType(t: string): string {
  return t
    .replace(/\s+/g, '')
    .replace(/vec4<f32>/g, 'vec4f')
    .replace(/,/g, ', ');
}

/**
 * Checks a kernel's declared bindings (and uniform layout) against its composed WGSL: every declared binding
 * must be declared in the WGSL at the same index with the same access, and (for named specs) the same name; the
 * uniform layout's fields must be the uniform struct's, in order, with the same types. Throws naming the kernel,
 * the binding and both sides.
 */
export function checkBindings(spec: KernelSpec, code: string, resolved = resolveBindings(spec)): void {
  const wgsl = parseBindings(code);
  const declared = (i: number) => wgsl.filter((w) => w.index === i);
  const show = (ws: WgslBinding[]) =>
    ws.length === 0
      ? 'nothing'
      : ws.map((w) => `var<${w.kind === 'uniform' ? 'uniform' : `storage, ${w.kind}`}> ${w.name}`).join(' | ');
  const names = resolved.named ? Object.keys(spec.bindings as Bindings) : null;
  resolved.kinds.forEach((kind, i) => {
    const ws = declared(i);
    const name = names ? names[i] : null;
    const match = ws.find((w) => w.kind === kind && (name === null || w.name === name));
    if (!match) {
      const ours = `${name ?? `binding ${i}`}: '${kind}'`;
      throw new TreelineError(
        `${spec.label}: binding ${i} is declared as ${ours} in the kernel spec, but the WGSL declares ${show(ws)} at @binding(${i})`,
      );
    }
  });
  if (resolved.uniformFields) {
    const u = resolved.uniform >= 0 ? declared(resolved.uniform).find((w) => w.kind === 'uniform') : undefined;
    if (!u)
      throw new TreelineError(`${spec.label}: a uniform layout is declared but the kernel has no uniform binding`);
    const fields = parseStruct(code, u.type);
    if (!fields)
      throw new TreelineError(`${spec.label}: no struct ${u.type} (the type of uniform ${u.name}) in the WGSL`);
    const ours = resolved.uniformFields.map((f) => `${f.name}: ${f.type}`).join(', ');
    const theirs = fields.map((f) => `${f.name}: ${f.type}`).join(', ');
    if (ours !== theirs) {
      throw new TreelineError(
        `${spec.label}: uniform layout { ${ours} } in the kernel spec, but the WGSL's struct ${u.type} is { ${theirs} }`,
      );
    }
  }
}

export interface Kernel<
  B extends Bindings | readonly PositionalKind[] = Bindings | readonly PositionalKind[],
  U extends UniformLayout = UniformLayout,
> {
  readonly spec: KernelSpec<B, U>;
  readonly pipeline: GPUComputePipeline;
  readonly layout: GPUBindGroupLayout;
  /** The binding table, resolved once at creation. */
  readonly bindings: ResolvedBindings;
}

function source(name: string): string {
  const s = shaderSources[name];
  if (s === undefined) throw new Error(`No shader module '${name}' (known: ${Object.keys(shaderSources).join(', ')})`);
  return s;
}

/** Composes the WGSL text of a kernel (exported for tests and debugging). */
export function composeShader(spec: KernelSpec): string {
  const parts: string[] = [];
  for (const e of spec.enable ?? []) parts.push(`enable ${e};`);
  for (const [name, value] of Object.entries(spec.constants ?? {})) {
    if (!Number.isInteger(value) || value < 0)
      throw new Error(`${spec.label}: constant ${name}=${value} must be a u32`);
    parts.push(`const ${name}: u32 = ${value}u;`);
  }
  for (const inc of spec.include ?? ['common/grid']) parts.push(source(inc));
  for (const g of spec.generated ?? []) parts.push(g);
  parts.push(source(spec.shader));
  return parts.join('\n');
}

/** Composes a kernel's WGSL and checks its declared bindings and uniform layout against it. */
export function composeChecked(spec: KernelSpec): { code: string; bindings: ResolvedBindings } {
  const code = composeShader(spec);
  const bindings = resolveBindings(spec);
  checkBindings(spec, code, bindings);
  return { code, bindings };
}

const bindingType: Record<BindingKind, GPUBufferBindingType> = {
  uniform: 'uniform',
  read: 'read-only-storage',
  read_write: 'storage',
};

/**
 * Creates a kernel's pipeline. Nothing here waits before `createComputePipelineAsync` is issued (issue 17 §5): the
 * bind group layout, the shader module (one per composed WGSL text and device, `GpuContext.shaderModule`: kernels
 * that differ only in their entry point share it) and the pipeline are created in one synchronous step, so that
 * callers which start several kernels before awaiting them (`Promise.all`) have every pipeline compiling at once —
 * Dawn builds pipelines created asynchronously on its worker threads (its default platform's worker pool), while
 * WGSL parsing and validation run in `createShaderModule` on the calling thread. Only then are the error scopes,
 * the module's compilation messages and the pipeline awaited.
 */
export async function createKernel<B extends Bindings | readonly PositionalKind[], U extends UniformLayout>(
  ctx: GpuContext,
  spec: KernelSpec<B, U>,
): Promise<Kernel<B, U>> {
  const device = ctx.device;
  const code = composeShader(spec);
  const bindings = resolveBindings(spec);
  try {
    checkBindings(spec, code, bindings);
  } catch (e) {
    throw new GpuError('validation', spec.label, (e as Error).message);
  }
  const { result, errors } = ctx.scopedSync(spec.label, () => {
    const layout = device.createBindGroupLayout({
      label: spec.label,
      entries: bindings.kinds.map((kind, binding) => ({
        binding,
        visibility: 4 /* GPUShaderStage.COMPUTE */,
        buffer: { type: bindingType[kind] },
      })),
    });
    const module = ctx.shaderModule(spec.label, code);
    const pipeline = device.createComputePipelineAsync({
      label: spec.label,
      layout: device.createPipelineLayout({ label: spec.label, bindGroupLayouts: [layout] }),
      compute: {
        module: module.module,
        entryPoint: spec.entry,
        constants: { WG: spec.workgroupSize, ...(spec.overrides ?? {}) },
      },
    });
    // Awaited below, after the compilation messages (which say more about a WGSL error than the rejection does).
    pipeline.catch(() => undefined);
    return { layout, module, pipeline };
  });
  const { layout, module, pipeline } = result;
  // WGSL errors first, quoting the failing lines; then what the scopes caught (a layout's validation error).
  const info = await module.info;
  const messages = info.messages.filter((m) => m.type === 'error');
  if (messages.length > 0) {
    void errors.catch(() => undefined);
    const lines = code.split('\n');
    const detail = messages
      .map((m) => `line ${m.lineNum}:${m.linePos}: ${m.message}\n    ${lines[m.lineNum - 1] ?? ''}`)
      .join('\n');
    throw new GpuError('validation', spec.label, `WGSL compilation failed:\n${detail}`);
  }
  await errors;
  try {
    return { spec, pipeline: await pipeline, layout, bindings };
  } catch (e) {
    throw new GpuError('validation', spec.label, (e as Error).message);
  }
}
