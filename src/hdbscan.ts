/**
 * `hdbscan()`: HDBSCAN* clustering of a point cloud (Campello, Moulavi & Sander 2013, "Density-based clustering
 * based on hierarchical density estimates"; McInnes & Healy 2017, "Accelerated hierarchical density based
 * clustering", which is scikit-learn-contrib hdbscan). Semantics: DESIGN.md "HDBSCAN* semantics" and docs/hdbscan.md.
 *
 *   points → mutual-reachability MST   emst() with minSamples (GPU or CPU; canonical edge order)
 *          → everything after the MST  clusterFromMst(): single linkage → condensed tree → stability →
 *                                       EOM / leaf selection → labels, probabilities, GLOSH, persistence
 *          → exemplars                 each cluster's densest core (hdbscan's prediction data)
 *
 * To re-cluster the same points with another minClusterSize, method or ε, fit with `keep: { singleLinkage: true,
 * mst: true }` and call
 * `clusterFromSingleLinkage(result.singleLinkage, n, options, result.mst)`: milliseconds, no new MST.
 */
import { prepareClusterBuffers, prepareResidentBuffers } from './cluster/buffers.js';
import { checkCenterKind, clusterCenters, type CenterKind, type ClusterCenters } from './cluster/centers.js';
import {
  clusterFromSingleLinkage,
  clusterOnHost,
  type ClusterHost,
  type Clustering,
} from './cluster/clusterFromMst.js';
import { exemplars } from './cluster/exemplars.js';
import { clusterResident, residentApplies, type ResidentClustering } from './cluster/resident.js';
import { createModel, type HdbscanModel } from './cluster/model.js';
import { resolveClusterOptions } from './cluster/options.js';
import type {
  ClusterOptions,
  ClusterResult,
  ClusterTimings,
  ResolvedClusterOptions,
  SingleLinkageTree,
} from './cluster/types.js';
import { emstFor, type EmstBackend, type EmstOptions, type EmstResult } from './emst/emst.js';
import { AbortError, InputError } from './errors.js';
import type { GpuContext } from './gpu/context.js';
import { startClock } from './host/clock.js';
import { createHost } from './host/host.js';
import { resolveThreads } from './host/threads.js';
import { MAX_DEFAULT_HOST_THREADS, MAX_DEFAULT_THREADS } from './host/thresholds.js';
import { coreDistances } from './knn/core.js';
import { progressSpan, type ProgressCallback } from './progress.js';

export interface HdbscanOptions extends ClusterOptions {
  /** Coordinates per point; points.length must be a multiple of it. */
  dim: number;
  /**
   * The MST from `treeline worker` processes through NATS (emst()'s `cluster`: the partitioned exact MST, the same
   * edges); the clustering then runs here on the host: give `backend: 'cpu'` (`treeline hdbscan --nats`).
   */
  cluster?: EmstOptions['cluster'];
  /**
   * Neighbours defining a point's core distance, the point itself excluded (hdbscan's `min_samples`; sklearn's
   * `min_samples` − 1). Default: minClusterSize. 1 means plain Euclidean distances (single linkage). Clamped to n − 1.
   */
  minSamples?: number;
  /** Mutual reachability divides distances by alpha (default 1). */
  alpha?: number;
  /** 'auto' (default): the GPU when a hardware adapter exists (never a software one), else the CPU. Same MST. */
  backend?: EmstBackend;
  /** A GPU context to reuse (not destroyed); without one the GPU backend creates and destroys its own. */
  gpu?: GpuContext;
  /** Progress of the whole call, 0 … 1 (the MST is the first 90 %), and its phase: the MST's, then 'cluster'. */
  onProgress?: ProgressCallback;
  /** Aborts between Borůvka rounds and before clustering: rejects with AbortError. */
  signal?: AbortSignal;
  /**
   * Threads for the CPU work: the CPU backend's MST (as `emst`'s `threads`) and, from 2^19 points on, the first touch
   * of the clustering's memory while the GPU computes the MST, the MST's read-back, the labelling pass and (with ≥ 6
   * threads) single linkage. Then `labels`, `probabilities`, `outlierScores` and the single-linkage
   * and condensed trees' arrays are views of SharedArrayBuffers. Default: the available cores, at most 8 for the CPU
   * backend's MST and at most 16 for the rest; Node only (one thread in browsers).
   */
  threads?: number;
  /**
   * Also compute each cluster's centre (scikit-learn's `store_centers`): `'centroid'` (probability-weighted mean),
   * `'medoid'` (the point minimising its probability-weighted distance sum; O(n_c²) per cluster) or `'both'`.
   */
  centers?: CenterKind;
  /**
   * Also return the MST (`mst: true`, 12 bytes an edge) and/or the single-linkage tree (`singleLinkage: true`, 20
   * bytes a merge), as hdbscan's `gen_min_span_tree` does for the MST. Default: neither — on the GPU the tree then
   * never leaves it (only the condensed tree's rows and the per-point results cross the bus). Keep the single linkage
   * to re-cluster with `clusterFromSingleLinkage` or cut with `dbscanClustering`.
   */
  keep?: { mst?: boolean; singleLinkage?: boolean };
}

export interface HdbscanResult extends Omit<ClusterResult, 'timings' | 'mst' | 'singleLinkage'>, ClusterCenters {
  /**
   * The mutual-reachability MST, with `keep: { mst: true }` (else absent): n − 1 edges, sources < targets, in the
   * canonical (weight, source, target) order.
   */
  mst?: EmstResult;
  /** The single-linkage tree in scipy's layout, with `keep: { singleLinkage: true }` (else absent). */
  singleLinkage?: SingleLinkageTree;
  /** Exemplar point indices of each cluster (`exemplars[label]`): the points at its leaves' largest λ. */
  exemplars: Uint32Array[];
  /** The minSamples used (the default filled in, before clamping to n − 1). */
  minSamples: number;
  /** The backend that computed the MST. */
  backend: 'gpu' | 'cpu';
  /**
   * Wall times in ms: the MST's phases (`emst::validate`, then `emst::…` and `emst::total`, which excludes the
   * validation), the clustering's (`cluster::sort`, `cluster::linkage`, `cluster::condense` — with its parts
   * `cluster::condense.layout`, `.sweep` and `.runts` — `cluster::select`,
   * `cluster::label`, `cluster::exemplars`: grouping the exemplars, which the labelling pass gathers — where the
   * labelling runs on worker threads from the GPU's point rows, the workers select too and then group the exemplars,
   * all inside `cluster::label`, with `cluster::select` and `cluster::exemplars` ~0),
   * `hdbscan::prepare` (allocating the clustering's buffers and starting their touching), `hdbscan::wait` (for that
   * touching after the MST) and `hdbscan::total`.
   */
  timings: Record<string, number>;
}

/**
 * Clusters `points` (row-major n × dim) with HDBSCAN*. Reproduces scikit-learn-contrib hdbscan 0.8.43 on the same
 * MST; ties between equal weights break by the canonical edge order, so results are reproducible.
 *
 * @throws InputError for invalid points or options, GpuUnavailableError for `backend: 'gpu'` without a GPU,
 *   AbortError when `signal` aborts.
 */
export async function hdbscan(points: Float32Array | Float64Array, options: HdbscanOptions): Promise<HdbscanResult> {
  return (await fitAndSweep(points, options, [])).fit;
}

/** One more clustering of a sweep (hdbscanSweep): what hdbscan() with its minClusterSize gives on the same MST. */
export interface SweepClustering {
  minClusterSize: number;
  result: ClusterResult;
  /** Exemplar point indices of each cluster, as HdbscanResult's. */
  exemplars: Uint32Array[];
  /** Whether the GPU condensed it (the resident dendrogram), not the host from the single linkage. */
  onGpu: boolean;
}

/**
 * A minClusterSize sweep (`treeline hdbscan --min-cluster-size 5,10,20`): `hdbscan(points, options)`, then each of
 * `more` from the same mutual-reachability MST (options.minSamples, default options.minClusterSize). After a GPU
 * MST with the tree kept there (cluster/resident.ts) the one dendrogram is condensed on the GPU once per value; a
 * value whose row keys do not fit (condenseRowsFits) and the host path re-cluster the single linkage on the host
 * (clusterFromSingleLinkage). Each equals hdbscan() with that minClusterSize and the same minSamples; its time is
 * `fit.timings['cluster::recluster(<value>)']`.
 */
export async function hdbscanSweep(
  points: Float32Array | Float64Array,
  options: HdbscanOptions,
  more: number[],
): Promise<{ fit: HdbscanResult; more: SweepClustering[] }> {
  return fitAndSweep(points, options, more);
}

async function fitAndSweep(
  points: Float32Array | Float64Array,
  options: HdbscanOptions,
  more: number[],
): Promise<{ fit: HdbscanResult; more: SweepClustering[] }> {
  if (options === null || typeof options !== 'object') {
    throw new InputError(`Expected an options object with at least { dim }, got ${String(options)}.`);
  }
  const clusterOptions = resolveClusterOptions(options); // fail fast, before the MST
  if (options.centers !== undefined) checkCenterKind(options.centers);
  const minSamples = options.minSamples ?? clusterOptions.minClusterSize;
  const { onProgress, signal, dim } = options;
  const clock = startClock();
  const n = points instanceof Float32Array || points instanceof Float64Array ? pointCount(points.length, dim) : 0;
  // After a GPU MST the host's cores are free for the clustering's passes: up to 16 by default (8 beside a CPU MST).
  const threads = await resolveThreads(
    options.threads,
    n,
    options.backend === 'cpu' ? undefined : MAX_DEFAULT_HOST_THREADS,
  );
  // On the GPU the clustering follows the MST there (cluster/resident.ts) unless TREELINE_RESIDENT=0 or the case
  // does not fit its row keys; the host then only finishes what the condensed tree's rows give.
  const resident = options.backend !== 'cpu' && !residentOff() && residentApplies(n, clusterOptions.minClusterSize);
  // Otherwise the clustering's arrays (~120 bytes a point, the MST's included) are allocated now and first touched by
  // worker threads while the MST is computed (cluster/buffers.ts); not beside the CPU backend, whose MST wants every
  // core.
  const keep = { mst: options.keep?.mst === true, singleLinkage: options.keep?.singleLinkage === true };
  // A sweep's further settings: those the GPU can condense are condensed there, the others need the single linkage.
  const moreOptions = more.map((minClusterSize) => resolveClusterOptions({ ...options, minClusterSize }));
  const moreOnGpu = resident ? moreOptions.filter((o) => residentApplies(n, o.minClusterSize)) : [];
  const read = { ...keep, singleLinkage: keep.singleLinkage || moreOnGpu.length < moreOptions.length };
  const prepared =
    options.backend === 'cpu' || resident
      ? null
      : await prepareClusterBuffers(n, clusterOptions.minClusterSize, threads);
  const preparedResident = resident
    ? await prepareResidentBuffers(n, clusterOptions.minClusterSize, threads, read)
    : null;
  const host: ClusterHost = { ...createHost(threads), buffers: prepared?.buffers, fromEmst: true };
  let onGpu: (ResidentClustering & { also: Clustering[] }) | null = null;
  const afterGpu = resident
    ? async (edges: { records: GPUBuffer; count: number; points: GPUBuffer }, ctx: GpuContext, scale: number) => {
        onProgress?.(0.9, 'cluster');
        onGpu = await clusterResident(ctx, edges, n, clusterOptions, host, read, scale, preparedResident, moreOnGpu);
      }
    : undefined;
  clock.lap('hdbscan::prepare');
  // The GPU's edges go straight into the buffers (payload: condensing's scratch, free until then), the read-back's
  // host work on the threads.
  const readInto = prepared ? { edges: prepared.buffers.mst, ready: prepared.touched } : undefined;
  // A CPU MST takes at most 8 of them by default (as emst()'s): min(threads, 8), so the count is resolved once.
  const emstThreads = options.threads ?? Math.min(threads, MAX_DEFAULT_THREADS);
  const emstOptions = {
    dim,
    minSamples,
    alpha: options.alpha,
    backend: options.backend,
    gpu: options.gpu,
    signal,
    threads: emstThreads,
    ...(options.cluster ? { cluster: options.cluster } : {}),
  };
  const mst = await emstFor(
    'hdbscan',
    points,
    { ...emstOptions, onProgress: progressSpan(onProgress, 0, 0.9) },
    {
      readInto,
      afterGpu,
      afterUpload: preparedResident ? () => void preparedResident.start() : undefined,
      // The sweep's smallest minClusterSize condensed on the GPU sizes the rows there.
      capacity: {
        kind: 'hdbscan',
        minClusterSize: Math.min(clusterOptions.minClusterSize, ...moreOnGpu.map((o) => o.minClusterSize)),
        resident,
      },
    },
  ).catch(async (e) => {
    await prepared?.touched.catch(() => undefined);
    await preparedResident?.started()?.catch(() => undefined);
    throw e;
  });
  clock.skip();
  if (prepared) await prepared.touched;
  // After a fallback to the CPU the resident path's buffers went unused; their touching ends before we go on.
  if (preparedResident && !onGpu) await preparedResident.started();
  clock.lap('hdbscan::wait');
  if (signal?.aborted) throw new AbortError('hdbscan was aborted after the MST.');
  const done = onGpu as (ResidentClustering & { also: Clustering[] }) | null;
  if (!done) onProgress?.(0.9, 'cluster');
  // The exemplars are gathered in the labelling pass (`exemplars()` would read the condensed tree twice more).
  const {
    result: clusters,
    exemplars,
    exemplarsMs,
  } = done ? done.clustering : await clusterOnHost(mst, n, clusterOptions, host);
  const tree: EmstResult | undefined = !keep.mst
    ? undefined
    : done
      ? { ...done.mst, timings: mst.timings, backend: mst.backend }
      : mst;
  const centers = options.centers ? clusterCenters(points, { ...clusters, dim, centers: options.centers }) : {};
  const sweepTimings: Record<string, number> = {};
  const swept = sweepRest(moreOptions, n, clusters, done ? done.also : null, sweepTimings);
  const total = clock.total();
  onProgress?.(1, 'cluster');
  const timings = {
    ...mst.timings,
    ...clusterTimings(clusters.timings, exemplarsMs),
    ...(done ? done.timings : {}),
    ...clock.laps,
    ...sweepTimings,
    'hdbscan::total': total,
  };
  // clusterOnHost keeps the input's arrays when they are already canonical, as emst() delivers them.
  const { singleLinkage, mst: _, ...rest } = clusters;
  const fit: HdbscanResult = {
    ...rest,
    ...centers,
    ...(tree ? { mst: tree } : {}),
    ...(keep.singleLinkage ? { singleLinkage } : {}),
    exemplars,
    minSamples,
    backend: mst.backend,
    timings,
  };
  return { fit, more: swept };
}

/**
 * A sweep's clusterings in the order asked: the GPU's (`onGpu`: those of the settings whose row keys fit, in order;
 * null after a host path), the rest from the fit's single linkage on the host, timed into `timings` under
 * `cluster::recluster(<value>)` (as the GPU's are, cluster/resident.ts).
 */
function sweepRest(
  settings: ResolvedClusterOptions[],
  n: number,
  fit: ClusterResult,
  onGpu: Clustering[] | null,
  timings: Record<string, number>,
): SweepClustering[] {
  let next = 0;
  return settings.map((o) => {
    const minClusterSize = o.minClusterSize;
    if (onGpu && residentApplies(n, minClusterSize)) {
      const { result, exemplars: ex } = onGpu[next++];
      return { minClusterSize, result, exemplars: ex, onGpu: true };
    }
    const t0 = performance.now();
    const mst = fit.mst.sources.length > 0 ? fit.mst : undefined;
    const result = clusterFromSingleLinkage(fit.singleLinkage, n, o, mst);
    const ex = exemplars(result.condensedTree, result.selectedClusters);
    timings[`cluster::recluster(${minClusterSize})`] = performance.now() - t0;
    return { minClusterSize, result, exemplars: ex, onGpu: false };
  });
}

/** TREELINE_RESIDENT=0: hdbscan() reads the MST back and clusters on the host after a GPU MST (comparisons). */
function residentOff(): boolean {
  return typeof process !== 'undefined' && process.env?.TREELINE_RESIDENT === '0';
}

/** n for well-formed input (validation, in emst(), names anything else). */
function pointCount(length: number, dim: number): number {
  return Number.isInteger(dim) && dim > 0 ? Math.floor(length / dim) : 0;
}

/** The clustering's timings under the `cluster::…` labels. */
function clusterTimings(c: ClusterTimings, exemplarsMs: number): Record<string, number> {
  const parts = c.condenseParts;
  return {
    'cluster::sort': c.sort,
    'cluster::linkage': c.linkage,
    'cluster::condense': c.condense,
    ...(parts
      ? {
          'cluster::condense.layout': parts.layout,
          'cluster::condense.sweep': parts.sweep,
          'cluster::condense.runts': parts.runts,
        }
      : {}),
    'cluster::select': c.select,
    'cluster::label': c.label,
    'cluster::exemplars': exemplarsMs,
  };
}

/**
 * A fitted model for `approximatePredict` and `saveModel`, from the points `hdbscan()` clustered. The prediction
 * core distances (hdbscan's: the (minSamples − 1)-th other neighbour) come from the BVH k-NN in O(n log n), for any
 * minSamples (the k-th distance has no limit of 64 since issue 15).
 */
export async function hdbscanModel(
  points: Float32Array | Float64Array,
  dim: number,
  result: HdbscanResult,
): Promise<HdbscanModel> {
  const f32 = points instanceof Float32Array ? points : new Float32Array(points);
  const n = result.condensedTree.numPoints;
  if (!Number.isInteger(dim) || dim < 1 || f32.length !== n * dim) {
    throw new InputError(`Expected the ${n} clustered points × dim=${dim}, got ${f32.length} coordinates.`);
  }
  const rank = result.minSamples - 1;
  const core = Float64Array.from(await coreDistances(f32, { dim, minSamples: rank, backend: 'cpu' }));
  const fit = { ...result, timings: { sort: 0, linkage: 0, condense: 0, select: 0, label: 0, total: 0 } };
  return createModel({ points: f32, dim, result: fit, minSamples: result.minSamples, predictionCoreDistances: core });
}
