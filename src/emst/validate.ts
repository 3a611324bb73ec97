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
  /** 'auto' (default): the GPU when an adapter exists, else the CPU. */
  backend?: EmstBackend;
  /** A GPU context to run on (kept alive); without one the GPU backend creates and destroys its own. */
  gpu?: GpuContext;
  /** Called after every Borůvka round with the fraction of the n − 1 edges found so far. */
  onProgress?: (fraction: number) => void;
  /** Checked between Borůvka rounds: an aborted signal rejects with AbortError. */
  signal?: AbortSignal;
}

/** The input after validation: float32 points and every option resolved. */
export interface EmstInput {
  points: Float32Array;
  n: number;
  dim: number;
  minSamples: number;
  alpha: number;
  backend: EmstBackend;
  /** True when the caller passed a Float64Array that was rounded to float32. */
  converted: boolean;
}

const describe = (x: unknown) =>
  x === null || typeof x !== 'object' ? String(x) : Object.prototype.toString.call(x).slice(8, -1);

/** Checks points and options; returns the float32 points and the resolved options. Throws InputError. */
export function validateEmstInput(points: unknown, options: EmstOptions | undefined): EmstInput {
  if (options === null || typeof options !== 'object') {
    throw new InputError(`Expected an options object with at least { dim }, got ${describe(options)}.`);
  }
  const { dim } = options;
  if (!(points instanceof Float32Array) && !(points instanceof Float64Array)) {
    throw new InputError(`Expected points to be a Float32Array or Float64Array (row-major n × dim), got ${describe(points)}.`);
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
    throw new InputError(`Expected backend to be one of ${BACKENDS.map((b) => `'${b}'`).join(', ')}, got ${describe(backend)}.`);
  }
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') {
    throw new InputError(`Expected onProgress to be a function, got ${describe(options.onProgress)}.`);
  }
  const signal = options.signal as unknown;
  if (signal !== undefined && (signal === null || typeof (signal as AbortSignal).aborted !== 'boolean')) {
    throw new InputError(`Expected signal to be an AbortSignal, got ${describe(signal)}.`);
  }
  checkCoordinates(points, dim);
  const converted = points instanceof Float64Array;
  return { points: converted ? new Float32Array(points) : points, n, dim, minSamples, alpha, backend, converted };
}

/**
 * Every coordinate must be finite and within ±MAX_COORDINATE (1e38: box extents and Morton scales stay finite in
 * float32); the message names the first offending row and column.
 */
function checkCoordinates(points: Float32Array | Float64Array, dim: number): void {
  for (let i = 0; i < points.length; i++) {
    const x = points[i];
    if (x >= -MAX_COORDINATE && x <= MAX_COORDINATE) continue;
    const where = `row ${Math.floor(i / dim)}, column ${i % dim}`;
    if (Number.isNaN(x)) throw new InputError(`Expected finite coordinates, got NaN at ${where}.`);
    if (!Number.isFinite(x)) throw new InputError(`Expected finite coordinates, got ${x} at ${where}.`);
    throw new InputError(`Expected coordinates within ±${MAX_COORDINATE} (float32 range), got ${x} at ${where}.`);
  }
}
