/**
 * Validation of `emst()`'s input at the door (CONVENTIONS.md 10): every message names the value it got, and for
 * coordinates the row and the column. Degenerate geometry (0–2 points, duplicates, collinear points) is valid.
 *
 * Float64Array input is accepted and converted to float32 (treeline computes in float32 on both backends,
 * DESIGN.md "Data at the boundary"): coordinates are rounded to the nearest float32, so points closer than float32
 * resolution become duplicates. That is documented behaviour, not an error; a value beyond float32's range is.
 */
import { MAX_COORDINATE } from '../bvh/layout.js';
import { InputError } from '../errors.js';
import type { GpuContext } from '../gpu/context.js';
import type { ProgressCallback } from '../progress.js';
import { metricOf, type Metric } from './metric.js';

export type EmstBackend = 'auto' | 'gpu' | 'cpu';
const BACKENDS: EmstBackend[] = ['auto', 'gpu', 'cpu'];

export interface EmstOptions {
  /** Coordinates per point; points.length must be a multiple of it. */
  dim: number;
  /**
   * 1 (default): the Euclidean MST. m ≥ 2: the mutual-reachability MST with core(i) = distance to i's m-th
   * nearest neighbour, i itself excluded by index (clamped to n − 1); hdbscan's min_samples = m.
   */
  minSamples?: number;
  /** Mutual reachability divides distances by alpha (default 1; must be finite and > 0). */
  alpha?: number;
  /**
   * Periodic box side lengths, one per dimension (each finite and > 0): the EMST of the torus [0, L_0) × … ×
   * [0, L_{d−1}) under minimum-image distances, per axis min(|a − b|, L − |a − b|) (cosmological simulation boxes).
   * Coordinates outside [0, L) are wrapped into it first (x − L·⌊x / L⌋, in float64, then rounded to float32; a
   * value that rounds to L becomes 0). Euclidean MST only (minSamples 1). Omit for an open box.
   */
  box?: ArrayLike<number>;
  /**
   * MiSTree's scale cut (its scale_cut_length): pairs shorter than this are not edges, so the result is the
   * minimum spanning forest of the complete graph without them (n − c edges for c components). Kept pairs have
   * float32 weight ≥ fround(minEdgeLength). Default 0 (none); Euclidean MST only.
   */
  minEdgeLength?: number;
  /** 'auto' (default): the GPU when an adapter exists, else the CPU. */
  backend?: EmstBackend;
  /** A GPU context to run on (kept alive); without one the GPU backend creates and destroys its own. */
  gpu?: GpuContext;
  /**
   * Called with the fraction of the work done (non-decreasing, 1 at the end) and the phase now running ('bvh',
   * 'k-NN', 'Borůvka round r', 'sort', …): at the start of every phase and after every Borůvka round (src/progress.ts).
   */
  onProgress?: ProgressCallback;
  /** Checked between Borůvka rounds: an aborted signal rejects with AbortError. */
  signal?: AbortSignal;
  /**
   * CPU backend: threads for its k-NN phase (Node worker threads; the edges are identical for any count). Default:
   * min(os.availableParallelism(), 8) in Node from 50,000 points on, else 1; 1 runs everything on the calling
   * thread. Browsers and runtimes without worker threads always use one.
   */
  threads?: number;
  /**
   * Node only: compute on `treeline worker` processes through a NATS JetStream server instead of in this process —
   * the partitioned exact EMST (src/distributed/coordinator.ts), the same edges as without it. `{ url, partitions,
   * runId, creds, tlsCert, tlsKey, tlsCa, allowAnonymous }`; `backend`, `gpu` and `threads` are then each worker's
   * own, and `box` and `minEdgeLength` are not supported.
   */
  cluster?: EmstClusterOptions;
}

/**
 * Where `emst()` runs with `cluster` (issue 20; src/distributed/coordinator.ts reads it): the NATS server and what
 * authenticates this process, the number of spatial partitions and the run's id. Declared here, not there, so that
 * emst/ imports nothing from distributed/ (which builds on emst/).
 */
export interface EmstClusterOptions {
  /** Server URL(s), comma-separated: nats://host:4222, tls://host:4222. */
  url: string;
  /** A NATS credentials file (JWT + NKey seed). */
  creds?: string;
  /** TLS client certificate and key (PEM files), for servers that verify clients. */
  tlsCert?: string;
  tlsKey?: string;
  /** CA certificate (PEM) that signed the server's certificate. */
  tlsCa?: string;
  /** Connect without credentials to a server that is not on loopback (refused otherwise). */
  allowAnonymous?: boolean;
  /** The connection's name in the server's monitoring. */
  name?: string;
  /** Spatial partitions (default 8). */
  partitions?: number;
  /**
   * How the partitions' trees are joined (README, "More than one GPU or machine"): 'rounds' (Borůvka rounds of
   * queries to the partitions' owners: the least work, for CPU workers), 'pairs' (an MST of every pair of partitions
   * on the workers: the method for GPU workers), 'pairs-kruskal' (the pairs with the whole Kruskal here). Default:
   * TREELINE_PARTITIONED_METHOD, else 'rounds'.
   */
  method?: 'rounds' | 'pairs' | 'pairs-kruskal';
  /** The run's id (letters, digits, '-', '_'): the same id resumes an unfinished run. Default: a fresh one. */
  runId?: string;
  /** Keep the run's objects (and its same-host folder) after success (default false: removed). */
  keep?: boolean;
  /**
   * The folder in which workers on this host find the run's partitions and leave their large results, as files
   * (src/distributed/nats.local.ts): default /dev/shm where it exists; false: everything through the object store.
   */
  localDir?: string | false;
  /** Lines about the run (its id, resumption), e.g. the CLI's stderr. */
  log?: (line: string) => void;
}

/** The input after validation: float32 points and every option resolved. */
export interface EmstInput {
  /** The float32 points (empty while `deferred` for a Float64Array: see `upload`). */
  points: Float32Array;
  /**
   * What the GPU uploads: `points`, or while `deferred` the caller's array itself — a Float64Array is then rounded to
   * float32 as it is written into staging (GpuContext.uploadFloat32), with no float32 copy of it on the host.
   */
  upload: Float32Array | Float64Array;
  n: number;
  dim: number;
  /** Euclidean or mutual reachability: decided here, once, for both backends (metric.ts). */
  metric: Metric;
  backend: EmstBackend;
  /** True when the caller passed a Float64Array that was rounded to float32. */
  converted: boolean;
  /** Periodic side lengths rounded to float32 (points wrapped into [0, L)), or null for an open box. */
  period: Float32Array | null;
  /** The scale cut (0: none). */
  minEdgeLength: number;
  /** CPU threads as the caller asked (undefined: the CPU backend's default). */
  threads: number | undefined;
  /**
   * The largest |coordinate| (0 for no points): how far the coordinates are from float32's safe middle (scale.ts).
   * NaN while `deferred`.
   */
  maxAbs: number;
  /**
   * True when the per-coordinate check (finite, within ±MAX_COORDINATE) and maxAbs were left to the GPU
   * (pointcheck.ts, issue 17 §4): the GPU path checks and scales the uploaded points; the CPU path, or a fallback to
   * it, calls `checkDeferred` first (which also makes a Float64Array's float32 points). Only with
   * `deferCoordinates`, and never for a periodic box or a scale cut.
   */
  deferred: boolean;
}

const describe = (x: unknown) =>
  x === null || typeof x !== 'object' ? String(x) : Object.prototype.toString.call(x).slice(8, -1);

/**
 * Checks points and options; returns the float32 points and the resolved options. Throws InputError.
 * `deferCoordinates` (emst()'s entry point): where the GPU may run (backend not 'cpu') with an open box and no
 * scale cut, the per-coordinate check and a Float64Array's conversion are left to the GPU path (EmstInput.deferred:
 * checked after the upload, rounded during it) and only the O(1) checks run here.
 */
export function validateEmstInput(
  points: unknown,
  options: EmstOptions | undefined,
  { deferCoordinates = false }: { deferCoordinates?: boolean } = {},
): EmstInput {
  if (options === null || typeof options !== 'object') {
    throw new InputError(`Expected an options object with at least { dim }, got ${describe(options)}.`);
  }
  const { dim } = options;
  if (!(points instanceof Float32Array) && !(points instanceof Float64Array)) {
    throw new InputError(
      `Expected points to be a Float32Array or Float64Array (row-major n × dim), got ${describe(points)}.`,
    );
  }
  if (typeof dim !== 'number' || !Number.isInteger(dim) || dim < 1) {
    throw new InputError(`Expected dim to be a positive integer, got ${describe(dim)}.`);
  }
  if (points.length % dim !== 0) {
    throw new InputError(`Expected points.length to be a multiple of dim=${dim}, got ${points.length}.`);
  }
  const n = points.length / dim;
  if (n > 0xfffffffe) throw new InputError(`Expected at most 2^32 − 2 points, got n=${n}.`);
  const minSamples = options.minSamples ?? 1;
  if (typeof minSamples !== 'number' || !Number.isInteger(minSamples) || minSamples < 1) {
    throw new InputError(`Expected minSamples to be an integer >= 1, got ${describe(minSamples)}.`);
  }
  const alpha = options.alpha ?? 1;
  if (typeof alpha !== 'number' || !Number.isFinite(alpha) || alpha <= 0) {
    throw new InputError(`Expected alpha to be a finite number > 0, got ${describe(alpha)}.`);
  }
  const backend = options.backend ?? 'auto';
  if (!BACKENDS.includes(backend)) {
    throw new InputError(
      `Expected backend to be one of ${BACKENDS.map((b) => `'${b}'`).join(', ')}, got ${describe(backend)}.`,
    );
  }
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') {
    throw new InputError(`Expected onProgress to be a function, got ${describe(options.onProgress)}.`);
  }
  const signal = options.signal as unknown;
  if (signal !== undefined && (signal === null || typeof (signal as AbortSignal).aborted !== 'boolean')) {
    throw new InputError(`Expected signal to be an AbortSignal, got ${describe(signal)}.`);
  }
  const deferred = deferCoordinates && backend !== 'cpu' && options.box === undefined && !options.minEdgeLength;
  const maxAbs = deferred ? NaN : checkCoordinates(points, dim);
  const converted = points instanceof Float64Array;
  let xs = !converted ? points : deferred ? new Float32Array(0) : new Float32Array(points);
  const metric = metricOf(minSamples, alpha);
  const period = options.box === undefined ? null : checkBox(options.box, dim, metric);
  if (period !== null) xs = wrapIntoBox(xs, period, converted);
  const minEdgeLength = options.minEdgeLength ?? 0;
  if (typeof minEdgeLength !== 'number' || !Number.isFinite(minEdgeLength) || minEdgeLength < 0) {
    throw new InputError(`Expected minEdgeLength to be a finite number >= 0, got ${describe(minEdgeLength)}.`);
  }
  if (minEdgeLength > 0 && metric.kind !== 'euclidean') {
    throw new InputError(
      `minEdgeLength (the scale cut) is supported for the Euclidean MST only (minSamples 1, alpha 1), got minSamples=${minSamples}, alpha=${alpha}.`,
    );
  }
  const threads = options.threads;
  if (threads !== undefined && (typeof threads !== 'number' || !Number.isInteger(threads) || threads < 1)) {
    throw new InputError(`Expected threads to be an integer >= 1, got ${describe(threads)}.`);
  }
  const upload = deferred ? points : xs;
  return { points: xs, upload, n, dim, metric, backend, converted, period, minEdgeLength, threads, maxAbs, deferred };
}

/**
 * A deferred input (validateEmstInput's `deferCoordinates`) checked on the host after all, as it would have been:
 * for the CPU backend, also after a fallback from the GPU. `points`: the caller's array.
 */
export function checkDeferred(input: EmstInput, points: Float32Array | Float64Array): EmstInput {
  if (!input.deferred) return input;
  const maxAbs = checkCoordinates(points, input.dim);
  const xs = points instanceof Float64Array ? new Float32Array(points) : points;
  return { ...input, points: xs, upload: xs, maxAbs, deferred: false };
}

/** Periodic boxes: MAX_PERIODIC_DIM axes at most (the GPU keeps the side lengths in a uniform block). */
export const MAX_PERIODIC_DIM = 16;

function checkBox(box: ArrayLike<number>, dim: number, metric: Metric): Float32Array {
  if (box === null || typeof box !== 'object' || typeof box.length !== 'number') {
    throw new InputError(`Expected box to be an array of ${dim} side lengths, got ${describe(box)}.`);
  }
  if (box.length !== dim)
    throw new InputError(`Expected box to have one side length per dimension (${dim}), got ${box.length}.`);
  if (dim > MAX_PERIODIC_DIM)
    throw new InputError(`Periodic boxes support at most ${MAX_PERIODIC_DIM} dimensions, got dim=${dim}.`);
  if (metric.kind !== 'euclidean') {
    const { minSamples, alpha } = metric;
    throw new InputError(
      `A periodic box is supported for the Euclidean MST only (minSamples 1, alpha 1), got minSamples=${minSamples}, alpha=${alpha}.`,
    );
  }
  const period = new Float32Array(dim);
  for (let k = 0; k < dim; k++) {
    const L = box[k];
    if (typeof L !== 'number' || !Number.isFinite(L) || L <= 0 || L > MAX_COORDINATE) {
      throw new InputError(`Expected box[${k}] to be a finite side length > 0, got ${describe(L)}.`);
    }
    period[k] = Math.fround(L);
    if (!(period[k] > 0)) throw new InputError(`Expected box[${k}] to be representable in float32 and > 0, got ${L}.`);
  }
  return period;
}

/**
 * Points wrapped into [0, L) per axis; returns `xs` itself when every coordinate already lies inside, else a copy
 * (or `xs` modified in place when it is already a private copy).
 */
function wrapIntoBox(xs: Float32Array, period: Float32Array, owned: boolean): Float32Array {
  const dim = period.length;
  let out: Float32Array | null = owned ? xs : null;
  for (let i = 0; i < xs.length; i++) {
    const L = period[i % dim];
    const x = xs[i];
    if (x >= 0 && x < L) continue;
    if (out === null) out = new Float32Array(xs);
    let w = Math.fround(x - L * Math.floor(x / L));
    if (!(w >= 0 && w < L)) w = 0; // rounded up to L (or a hair below 0): the same point of the torus as 0
    out[i] = w;
  }
  return out ?? xs;
}

/**
 * Every coordinate must be finite and within ±MAX_COORDINATE (1e38: box extents and Morton scales stay finite in
 * float32); the message names the first offending row and column. Also checks approximatePredict's new points
 * and a model's training points (src/cluster/predict.ts, model.ts), so that they meet the rule hdbscan() applied.
 * Returns the largest |coordinate| (0 for none), found in the same pass (emst() scales by it, scale.ts).
 */
export function checkCoordinates(points: Float32Array | Float64Array, dim: number): number {
  const top = points instanceof Float32Array ? maxAbsFloat32(points) : maxAbsFloat64(points);
  if (top <= MAX_COORDINATE) return top;
  rejectBadCoordinate(points, dim, 0);
  throw new Error('checkCoordinates: a coordinate beyond ±MAX_COORDINATE was seen but not found again');
}

/**
 * Throws checkCoordinates' InputError for the first coordinate at index `from` or later (row-major) that is NaN,
 * infinite or beyond ±MAX_COORDINATE; returns when there is none. The GPU check (pointcheck.ts) calls it with the
 * first index it flagged.
 */
export function rejectBadCoordinate(points: Float32Array | Float64Array, dim: number, from: number): void {
  let i = from;
  while (i < points.length && Math.abs(points[i]) <= MAX_COORDINATE) i++;
  if (i >= points.length) return;
  const x = points[i];
  const where = `row ${Math.floor(i / dim)}, column ${i % dim}`;
  if (Number.isNaN(x)) throw new InputError(`Expected finite coordinates, got NaN at ${where}.`);
  if (!Number.isFinite(x)) throw new InputError(`Expected finite coordinates, got ${x} at ${where}.`);
  throw new InputError(`Expected coordinates within ±${MAX_COORDINATE} (float32 range), got ${x} at ${where}.`);
}

/**
 * The largest |coordinate|, or NaN as soon as one is NaN or beyond ±MAX_COORDINATE (the caller then finds it). One
 * function per array type, so that each loop stays monomorphic, four at a time with four running maxima: faster
 * than one shared loop (bench/RESULTS.md).
 */
function maxAbsFloat32(points: Float32Array): number {
  const n = points.length;
  let t0 = 0;
  let t1 = 0;
  let t2 = 0;
  let t3 = 0;
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const a = Math.abs(points[i]);
    const b = Math.abs(points[i + 1]);
    const c = Math.abs(points[i + 2]);
    const d = Math.abs(points[i + 3]);
    if (!(a <= MAX_COORDINATE && b <= MAX_COORDINATE && c <= MAX_COORDINATE && d <= MAX_COORDINATE)) return NaN;
    if (a > t0) t0 = a;
    if (b > t1) t1 = b;
    if (c > t2) t2 = c;
    if (d > t3) t3 = d;
  }
  let top = Math.max(t0, t1, t2, t3);
  for (; i < n; i++) {
    const a = Math.abs(points[i]);
    if (!(a <= MAX_COORDINATE)) return NaN;
    if (a > top) top = a;
  }
  return top;
}

function maxAbsFloat64(points: Float64Array): number {
  let top = 0;
  for (let i = 0; i < points.length; i++) {
    const a = Math.abs(points[i]);
    if (!(a <= MAX_COORDINATE)) return NaN;
    if (a > top) top = a;
  }
  return top;
}
