/**
 * Compute kernels: one shader composer and one pipeline cache per device (CONVENTIONS.md 8, 9).
 *
 * A kernel's WGSL is composed in exactly one way: `enable` lines, then `const` lines for the values that size
 * private arrays (k, d, …), then the shared modules of `shaders/common/`, then the kernel's own module. Shape is
 * set through `override` constants (the workgroup size is always the override `WG`); per-dispatch values go
 * through a uniform buffer. No string surgery on WGSL anywhere else.
 */
import type { GpuContext } from './context.js';
import { GpuError } from '../errors.js';
import { shaderSources } from './shaders.generated.js';

/** How a kernel's binding is used: a uniform block, a read-only storage buffer, or a read-write one. */
export type BindingKind = 'uniform' | 'read' | 'rw';

export interface KernelSpec {
  /** `layer::thing`, used for the pipeline, its passes, errors and timer scopes. */
  label: string;
  /** The kernel's own module, by path under `shaders/` without `.wgsl` (e.g. `'primitives/scan'`). */
  shader: string;
  /** Entry point. */
  entry: string;
  /** Bindings of group 0, in binding-number order. */
  bindings: BindingKind[];
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
}

export interface Kernel {
  readonly spec: KernelSpec;
  readonly pipeline: GPUComputePipeline;
  readonly layout: GPUBindGroupLayout;
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
    if (!Number.isInteger(value) || value < 0) throw new Error(`${spec.label}: constant ${name}=${value} must be a u32`);
    parts.push(`const ${name}: u32 = ${value}u;`);
  }
  for (const inc of spec.include ?? ['common/grid']) parts.push(source(inc));
  parts.push(source(spec.shader));
  return parts.join('\n');
}

const bindingType: Record<BindingKind, GPUBufferBindingType> = {
  uniform: 'uniform',
  read: 'read-only-storage',
  rw: 'storage',
};

export async function createKernel(ctx: GpuContext, spec: KernelSpec): Promise<Kernel> {
  const device = ctx.device;
  const code = composeShader(spec);
  const layout = await ctx.scoped(spec.label, () =>
    device.createBindGroupLayout({
      label: spec.label,
      entries: spec.bindings.map((kind, binding) => ({
        binding,
        visibility: 4 /* GPUShaderStage.COMPUTE */,
        buffer: { type: bindingType[kind] },
      })),
    }),
  );
  const module = await ctx.scoped(spec.label, () => device.createShaderModule({ label: spec.label, code }));
  const info = await module.getCompilationInfo();
  const errors = info.messages.filter((m) => m.type === 'error');
  if (errors.length > 0) {
    const lines = code.split('\n');
    const detail = errors
      .map((m) => `line ${m.lineNum}:${m.linePos}: ${m.message}\n    ${lines[m.lineNum - 1] ?? ''}`)
      .join('\n');
    throw new GpuError('validation', spec.label, `WGSL compilation failed:\n${detail}`);
  }
  try {
    const pipeline = await device.createComputePipelineAsync({
      label: spec.label,
      layout: device.createPipelineLayout({ label: spec.label, bindGroupLayouts: [layout] }),
      compute: {
        module,
        entryPoint: spec.entry,
        constants: { WG: spec.workgroupSize, ...(spec.overrides ?? {}) },
      },
    });
    return { spec, pipeline, layout };
  } catch (e) {
    throw new GpuError('validation', spec.label, (e as Error).message);
  }
}
