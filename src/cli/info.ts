/**
 * `treeline info`: the backend `--backend auto` would use and why, then the WebGPU adapter, its optional features and
 * limits. 'auto' never uses a software adapter (lavapipe, SwiftShader, WARP: src/gpu/adapter.ts); `info` names the
 * adapter and says which it is, so that a slow run is never a surprise. It also prints the storage binding limit
 * treeline works to (TREELINE_MAX_BINDING_BYTES lowers it) and the largest n that limit lets each entry point take
 * (src/bvh/capacity.ts, issue 19).
 */
import { createGpuContext } from '../gpu/context.js';
import { adapterName } from '../gpu/adapter.js';
import { GpuUnavailableError } from '../errors.js';
import { capacity, emstPeakBytesPerPoint, type CapacityTask } from '../bvh/capacity.js';
import { DEFAULT_MIN_CLUSTER_SIZE } from '../cluster/options.js';
import { graphCapacity, type GraphCapacity } from '../graph/capacity.js';

export interface InfoReport {
  /** The backend `--backend auto` uses: 'gpu' on a hardware adapter, else 'cpu'. */
  backend: 'gpu' | 'cpu';
  /** Why 'auto' uses that backend, one sentence. */
  auto: string;
  /** The adapter WebGPU gives (with `--backend gpu`, the one that runs), when there is one. */
  adapter?: {
    vendor: string;
    architecture: string;
    device: string;
    description: string;
    runtime: string;
    /** Why it is a software implementation, or null for a GPU. */
    software: string | null;
  };
  features?: Record<string, boolean>;
  limits?: Record<string, number>;
  /**
   * The storage binding limit treeline works to (issue 19): `bytes` (the device's own unless TREELINE_MAX_BINDING_BYTES
   * lowers it) and `device`, the device's own.
   */
  binding?: { bytes: number; device: number };
  /**
   * The largest n each GPU entry point takes in 2 and 3 dimensions (src/bvh/capacity.ts), and the array (or, for a
   * task whose arrays are bound in parts, the kernel) that sets it: `emst`, `hdbscan` (default minClusterSize,
   * clustered on the GPU), `hdbscanHost` (TREELINE_RESIDENT=0) and `knn` (any k: issue 19's parts and windows).
   */
  maxPoints?: Record<string, { dim: number; n: number; limitedBy: string }[]>;
  /**
   * The EMST's GPU memory at its peak in 2 and 3 dimensions, bytes a point beyond the input's 4·dim (issue 19;
   * src/bvh/capacity.ts, emstPeakBytesPerPoint): Euclidean and mutual reachability. The same on every device.
   */
  emstBytesPerPoint?: { dim: number; euclidean: number; mutualReachability: number }[];
  /**
   * The largest graph the GPU graph MSF takes (src/graph/capacity.ts): vertices (its 4-byte vertex arrays in parts) and
   * candidate edges (edge arrays and worklists in windows: one buffer each within maxBufferSize).
   */
  graph?: GraphCapacity;
  /** Why no GPU backend is available at all, when none is. */
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
    if (e instanceof GpuUnavailableError) {
      return { backend: 'cpu', auto: `no WebGPU adapter: ${e.message.split('\n')[0]}`, reason: e.message };
    }
    throw e;
  }
  try {
    const limits: Record<string, number> = {};
    for (const k of LIMITS) limits[k] = (ctx.limits as unknown as Record<string, number>)[k];
    const adapter = { ...ctx.adapter };
    const name = adapterName(adapter);
    const auto = adapter.software
      ? `the only adapter, ${name}, is a software implementation (${adapter.software}), slower than the CPU ` +
        'backend; --backend gpu uses it anyway'
      : `${name} is a hardware adapter`;
    const binding = {
      bytes: ctx.limits.maxStorageBufferBindingSize,
      device: ctx.deviceLimits.maxStorageBufferBindingSize,
    };
    const tasks: Record<string, CapacityTask> = {
      emst: { kind: 'emst' },
      hdbscan: { kind: 'hdbscan', minClusterSize: DEFAULT_MIN_CLUSTER_SIZE, resident: true },
      hdbscanHost: { kind: 'hdbscan', minClusterSize: DEFAULT_MIN_CLUSTER_SIZE, resident: false },
      knn: { kind: 'knn', k: 16 },
    };
    const maxPoints = Object.fromEntries(
      Object.entries(tasks).map(([name, task]) => [
        name,
        [2, 3].map((dim) => {
          const c = capacity(ctx!.limits, task, dim);
          return { dim, n: c.maxPoints, limitedBy: c.limitedBy };
        }),
      ]),
    );
    return {
      backend: adapter.software ? 'cpu' : 'gpu',
      auto,
      adapter,
      features: { ...ctx.features },
      limits,
      binding,
      maxPoints,
      graph: graphCapacity(ctx.limits),
      emstBytesPerPoint: [2, 3].map((dim) => ({
        dim,
        euclidean: emstPeakBytesPerPoint(dim),
        mutualReachability: emstPeakBytesPerPoint(dim, { mutualReachability: true }),
      })),
    };
  } finally {
    await ctx.destroy();
  }
}

export function formatInfo(r: InfoReport): string {
  if (!r.adapter) {
    return `auto: cpu (${r.auto})\nThe CPU backend gives the same results, more slowly.\n`;
  }
  const a = r.adapter;
  const lines = [
    `auto: ${r.backend} (${r.auto})`,
    `adapter: ${a.description || a.device} [${a.vendor} ${a.architecture}] via ${a.runtime}` +
      `${a.software ? ', software' : ''} (used by --backend gpu)`,
    'optional features:',
    ...Object.entries(r.features!).map(([k, v]) => `  ${k}: ${v ? 'yes' : 'no'}`),
    'limits:',
    ...Object.entries(r.limits!).map(([k, v]) => `  ${k}: ${v}`),
  ];
  if (r.binding) {
    const lowered = r.binding.bytes < r.binding.device;
    lines.push(
      `binding limit: ${r.binding.bytes} bytes` +
        (lowered ? ` (TREELINE_MAX_BINDING_BYTES; the device binds ${r.binding.device})` : ' (the device’s own)'),
    );
  }
  if (r.maxPoints) {
    const what: Record<string, string> = {
      emst: 'emst',
      hdbscan: `hdbscan (minClusterSize ${DEFAULT_MIN_CLUSTER_SIZE}, clustered on the GPU)`,
      hdbscanHost: 'hdbscan with TREELINE_RESIDENT=0',
      knn: 'knn (any k; its arrays in parts of one binding)',
    };
    lines.push('largest n on the GPU (one storage binding per array, or parts where said):');
    for (const [name, caps] of Object.entries(r.maxPoints)) {
      const each = caps.map((c) => `${c.dim}D ${c.n} (${c.limitedBy})`).join(', ');
      lines.push(`  ${what[name] ?? name}: ${each}`);
    }
  }
  if (r.graph) {
    lines.push(
      `  graph MSF: ${r.graph.maxVertices} vertices (4-byte vertex arrays in parts), ` +
        `${r.graph.maxCandidates} edges (edge arrays and worklists in windows)`,
    );
  }
  if (r.emstBytesPerPoint) {
    const each = r.emstBytesPerPoint.map((m) => `${m.dim}D ${m.euclidean} (${m.mutualReachability})`).join(', ');
    lines.push(
      `GPU memory at the EMST's peak, bytes a point beyond the input's 4·dim (mutual reachability in brackets): ${each}`,
    );
  }
  return lines.join('\n') + '\n';
}
