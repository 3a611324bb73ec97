/**
 * `emst()`: the exact Euclidean minimum spanning tree of a point cloud, or HDBSCAN*'s mutual-reachability MST —
 * treeline's public entry point for both, on the GPU or the CPU.
 *
 * The algorithm on both backends is seed 002's single-tree Borůvka over a linear BVH (Prokopenko, Sao,
 * Lebrun-Grandié, ../shared/seeds/002, §3):
 *
 *   points  → validate            (validate.ts: names the bad value, its row and column; on the GPU the
 *                                  coordinates are checked and scaled after the upload, pointcheck.ts)
 *           → linear BVH          (src/bvh: Morton sort, Karras hierarchy, boxes)
 *           → core distances      (k nearest neighbours; mutual reachability only)
 *           → Borůvka rounds      (until one component: nearest other-component point per point,
 *                                  per-component minimum in (key, min, max) order, merge)
 *           → canonical edge list (weight, min, max) ascending
 *
 * The MST under the strict order (key, min(u, v), max(u, v)) is unique, so both backends return the identical edge
 * list wherever they compute the same float32 keys (DESIGN.md, floating point).
 *
 * With `box`, distances are minimum-image distances on the torus of those side lengths (validate.ts), on both
 * backends: the BVH is built over the wrapped points as usual, and only the point keys and the box bounds change
 * (src/emst/keys.cpu.ts, shaders/emst/distance.wgsl).
 */
import { AbortError, InputError } from '../errors.js';
import type { GpuContext } from '../gpu/context.js';
import { gpuElseCpu } from '../gpu/fallback.js';
import { progressSpan } from '../progress.js';
import { emstCpuAsync } from './boruvka.cpu.js';
import { emstGpu } from './pipeline.js';
import type { ReadbackInto } from './readback.threads.js';
import type { CapacityTask } from '../bvh/capacity.js';
import type { EdgeList } from './edges.cpu.js';
import { checkDeferred, validateEmstInput, type EmstOptions } from './validate.js';
import { scaleInput, unscaleWeights } from './scale.js';

export type { EmstOptions, EmstBackend } from './validate.js';
export type { EdgeList } from './edges.cpu.js';

/** The MST as parallel arrays, in canonical order. */
export interface EmstResult extends EdgeList {
  /** Per-phase wall times in ms under the `emst::…` labels, and `emst::total`. */
  timings?: Record<string, number>;
  /** The backend that computed the tree. */
  backend: 'gpu' | 'cpu';
}

/** What hdbscan() hands emst() beside the public options (internal: never part of EmstOptions). */
export interface EmstInternal {
  /**
   * Shared arrays for the GPU backend to read the edges into, each straight from the GPU (src/emst/readback.threads.ts;
   * hdbscan's host path, `treeline emst`). The CPU backend ignores it.
   */
  readInto?: ReadbackInto;
  /**
   * GPU backend only: instead of the read-back, called with the tree as Borůvka left it on the GPU (emstGpu's
   * `afterGpu`: n − 1 records | source | target | key |), the context, and the factor that brings weights back to
   * the caller's units (the coordinates' power-of-two scaling, scale.ts). The result's edge arrays are then empty.
   * hdbscan()'s GPU-resident clustering (src/cluster/resident.ts). `edges.points`: the points' buffer, which nothing
   * reads after the MST on this path — the callee may use it as scratch until it returns (still emstGpu's to free).
   */
  afterGpu?: (
    edges: { records: GPUBuffer; count: number; points: GPUBuffer },
    ctx: GpuContext,
    scale: number,
  ) => Promise<void>;
  /** GPU backend only: called once the points are on the GPU (hdbscan() starts touching its host buffers then). */
  afterUpload?: () => void;
  /** GPU backend only: the caller's task for the size check (capacity.ts); default the EMST's own. */
  capacity?: CapacityTask;
}

/**
 * The exact EMST (minSamples 1) or mutual-reachability MST (minSamples ≥ 2) of `points`, row-major n × dim.
 *
 * Returns n − 1 edges (none for n < 2; n − c for c components of a forest under `minEdgeLength`) with
 * sources[i] < targets[i], sorted by (weight, source, target). Weights are
 * float32: the square root of the float32 squared distance summed in dimension order, or for mutual reachability
 * max(core(a), core(b), d(a, b) / alpha). Float64Array input is rounded to float32 first (validate.ts).
 *
 * @throws InputError for invalid points or options, GpuUnavailableError for `backend: 'gpu'` where no GPU
 *   backend can run, AbortError when `signal` aborts.
 */
export async function emst(points: Float32Array | Float64Array, options: EmstOptions): Promise<EmstResult> {
  return emstFor('emst', points, options);
}

/** emst()'s `cluster` runner: the coordinator's entry point (src/distributed/coordinator.ts). */
export type ClusterEntry = (
  points: Float32Array | Float64Array,
  options: {
    dim: number;
    minSamples?: number;
    alpha?: number;
    onProgress?: EmstOptions['onProgress'];
    signal?: AbortSignal;
    cluster: NonNullable<EmstOptions['cluster']>;
  },
) => Promise<EdgeList & { timings: Record<string, number> }>;

let clusterEntry: ClusterEntry | null = null;

/**
 * Called by coordinator.ts as it loads: by treeline's Node entry (src/node.ts, which `import 'treeline'` resolves to in
 * Node), the CLI, and whatever imports the coordinator. This module imports nothing from distributed/.
 */
export function registerClusterEntry(entry: ClusterEntry): void {
  clusterEntry = entry;
}

/**
 * `cluster`: the partitioned EMST on NATS workers (issue 20; emst(), and hdbscan()'s MST). `internal` does not apply:
 * the edges come back to the host. The coordinator is Node's only (registerClusterEntry), so that browser bundles
 * never contain the NATS client. `backend` says 'cpu': the coordinator's merge runs on this host; each worker
 * computes with its own --backend.
 */
async function emstOnCluster(points: Float32Array | Float64Array, options: EmstOptions): Promise<EmstResult> {
  if (options.box !== undefined || (options.minEdgeLength ?? 0) > 0) {
    throw new InputError('emst() with `cluster` supports neither `box` (periodic) nor `minEdgeLength` (scale cut).');
  }
  const run = clusterEntry;
  if (run === null) {
    throw new InputError(
      "emst() with `cluster` needs treeline's Node entry (import from 'treeline' in Node, which loads the NATS " +
        'coordinator); this build has none (a browser bundle, or the module imported by its path).',
    );
  }
  const r = await run(points, {
    dim: options.dim,
    minSamples: options.minSamples,
    alpha: options.alpha,
    onProgress: options.onProgress,
    signal: options.signal,
    cluster: options.cluster!,
  });
  return { sources: r.sources, targets: r.targets, weights: r.weights, timings: r.timings, backend: 'cpu' };
}

/**
 * `emst()` on behalf of another entry point (`caller`: 'hdbscan', 'mstStats'), which the note on stderr names when
 * `backend: 'auto'` runs on the CPU (src/gpu/fallback.ts). 'auto' never takes a software adapter (src/gpu/adapter.ts);
 * a context the caller passed is used as it is. `internal`: what only hdbscan() passes (EmstInternal).
 */
export async function emstFor(
  caller: string,
  points: Float32Array | Float64Array,
  options: EmstOptions,
  internal: EmstInternal = {},
): Promise<EmstResult> {
  if (options?.cluster) return emstOnCluster(points, options);
  const tv = performance.now();
  // Coordinates brought to unit scale by a power of two (exact), weights scaled back in finish(): no key overflows
  // or underflows at any scale float32 holds (scale.ts, issue 15 §4.1). Where the GPU may run, the per-coordinate
  // check and the scaling are left to it (validate.ts `deferred`, pointcheck.ts: after the upload, `emst::check`)
  // and a Float64Array is rounded to float32 as it is uploaded (GpuContext.uploadFloat32); here only the options.
  const validated = validateEmstInput(points, options, { deferCoordinates: true });
  const { input, exponent } = validated.deferred ? { input: validated, exponent: 0 } : scaleInput(validated);
  const validateMs = performance.now() - tv;
  if (options.signal?.aborted) throw new AbortError('emst was aborted before it started.');
  // One non-decreasing sequence of (fraction, phase) whichever backend runs, or both after a fallback.
  const onProgress = progressSpan(options.onProgress, 0, 1);
  if (input.minEdgeLength > 0 && input.n > 1 && input.minEdgeLength > longestPossibleEdge(input)) {
    // A scale cut beyond every pair (a cut in the wrong units, say): no edge at all, found without the search,
    // which would otherwise find nothing to prune by and take quadratic time.
    onProgress?.(1);
    const none = { sources: new Uint32Array(0), targets: new Uint32Array(0), weights: new Float32Array(0) };
    return { ...none, timings: { 'emst::total': 0 }, backend: input.backend === 'gpu' ? 'gpu' : 'cpu' };
  }
  // The caller's result; progress is said to be done whatever the backend reported last.
  const finish = (
    tree: EdgeList & { timings: Record<string, number> },
    t0: number,
    backend: 'gpu' | 'cpu',
    scaled: number,
    checkMs = 0,
  ): EmstResult => {
    unscaleWeights(tree, scaled);
    onProgress?.(1);
    const timings = {
      'emst::validate': validateMs + checkMs,
      ...tree.timings,
      'emst::total': performance.now() - t0,
    };
    return { sources: tree.sources, targets: tree.targets, weights: tree.weights, timings, backend };
  };
  const onGpu = async (): Promise<EmstResult> => {
    const t0 = performance.now();
    const r = await emstGpu(input.upload, input.dim, {
      metric: input.metric,
      period: input.period,
      minEdgeLength: input.minEdgeLength,
      ctx: options.gpu,
      hardwareOnly: input.backend === 'auto',
      onProgress,
      signal: options.signal,
      readInto: internal.readInto,
      afterUpload: internal.afterUpload,
      // hdbscan's resident clustering takes the points' buffer as scratch: no need to put them back in their order.
      scratchPoints: internal.afterGpu !== undefined,
      capacity: internal.capacity ?? { kind: caller === 'mstStats' ? 'mstStats' : 'emst' },
      // One of the two exponents is 0: the host scaled (exponent) or the GPU does (gpuExponent).
      afterGpu: internal.afterGpu
        ? (gpuPoints: GPUBuffer, edges: { records: GPUBuffer; count: number }, ctx: GpuContext, gpuExponent: number) =>
            internal.afterGpu!({ ...edges, points: gpuPoints }, ctx, 2 ** -(exponent + gpuExponent))
        : undefined,
      checkFrom: input.deferred ? points : undefined,
    });
    return finish(r, t0, 'gpu', exponent + r.exponent);
  };
  const onCpu = async (): Promise<EmstResult> => {
    const tc = performance.now();
    // The CPU backend (or a fallback to it) checks a deferred input on the host, as validation does for 'cpu'.
    const scaled = input.deferred ? scaleInput(checkDeferred(input, points)) : { input, exponent };
    const t0 = performance.now();
    const checkMs = t0 - tc;
    const cpuInput = scaled.input;
    const result = await emstCpuAsync(cpuInput.points, cpuInput.dim, {
      metric: cpuInput.metric,
      period: cpuInput.period,
      minEdgeLength: cpuInput.minEdgeLength,
      onProgress,
      signal: options.signal,
      threads: cpuInput.threads,
    });
    return finish(result, t0, 'cpu', scaled.exponent, checkMs);
  };
  return gpuElseCpu(caller, input.backend, onGpu, onCpu);
}

/**
 * An upper bound on every pair's distance (with a little float32 margin): the diagonal of the points' bounding box,
 * or in a periodic box the half-box diagonal when shorter.
 */
function longestPossibleEdge(input: {
  points: Float32Array;
  n: number;
  dim: number;
  period: Float32Array | null;
}): number {
  const { points, n, dim, period } = input;
  let open = 0;
  let torus = 0;
  for (let k = 0; k < dim; k++) {
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < n; i++) {
      const x = points[i * dim + k];
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
    open += (hi - lo) ** 2;
    if (period) torus += (period[k] / 2) ** 2;
  }
  const bound = Math.sqrt(period ? Math.min(open, torus) : open);
  return bound * (1 + 1e-5) + 1e-30;
}
