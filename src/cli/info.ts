/** `treeline info`: backend, adapter, features and limits. */
import { createGpuContext } from '../gpu/context.js';
import { GpuUnavailableError } from '../errors.js';

export interface InfoReport {
  backend: 'gpu' | 'cpu';
  adapter?: { vendor: string; architecture: string; device: string; description: string; runtime: string };
  features?: Record<string, boolean>;
  limits?: Record<string, number>;
  /** Why the GPU backend is unavailable, when it is. */
  reason?: string;
}

const LIMITS = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxStorageBuffersPerShaderStage',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupsPerDimension',
  'minUniformBufferOffsetAlignment',
];

export async function gatherInfo(): Promise<InfoReport> {
  let ctx;
  try {
    ctx = await createGpuContext();
  } catch (e) {
    if (e instanceof GpuUnavailableError) return { backend: 'cpu', reason: e.message };
    throw e;
  }
  try {
    const limits: Record<string, number> = {};
    for (const k of LIMITS) limits[k] = (ctx.limits as unknown as Record<string, number>)[k];
    return { backend: 'gpu', adapter: { ...ctx.adapter }, features: { ...ctx.features }, limits };
  } finally {
    await ctx.destroy();
  }
}

export function formatInfo(r: InfoReport): string {
  if (r.backend === 'cpu') {
    return `backend: cpu (no WebGPU adapter)\n${r.reason}\nThe CPU backend gives the same results, more slowly.\n`;
  }
  const lines = [
    'backend: gpu (WebGPU)',
    `adapter: ${r.adapter!.description || r.adapter!.device} [${r.adapter!.vendor} ${r.adapter!.architecture}] via ${r.adapter!.runtime}`,
    'optional features:',
    ...Object.entries(r.features!).map(([k, v]) => `  ${k}: ${v ? 'yes' : 'no'}`),
    'limits:',
    ...Object.entries(r.limits!).map(([k, v]) => `  ${k}: ${v}`),
  ];
  return lines.join('\n') + '\n';
}
