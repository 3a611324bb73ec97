/** Validation of point clouds at the door (CONVENTIONS.md 10): names the bad value and where it is. */
import { InputError } from '../errors.js';
import { MAX_COORDINATE } from './layout.js';

/** Checks `dim` and the array's length; returns n. */
function pointCount(points: Float32Array, dim: number): number {
  if (!(points instanceof Float32Array)) {
    throw new InputError(`Expected points to be a Float32Array, got ${Object.prototype.toString.call(points)}.`);
  }
  if (!Number.isInteger(dim) || dim < 1) throw new InputError(`Expected dim to be a positive integer, got ${dim}.`);
  if (points.length % dim !== 0) {
    throw new InputError(`Expected points.length to be a multiple of dim=${dim}, got ${points.length}.`);
  }
  return points.length / dim;
}

/** Checks that every coordinate is finite and within ±MAX_COORDINATE; returns n. */
export function checkPoints(points: Float32Array, dim: number): number {
  const n = pointCount(points, dim);
  for (let i = 0; i < points.length; i++) {
    const x = points[i];
    if (!(x >= -MAX_COORDINATE && x <= MAX_COORDINATE)) {
      throw new InputError(
        `Expected finite coordinates within ±${MAX_COORDINATE}, got ${x} at point ${Math.floor(i / dim)}, axis ${i % dim}.`,
      );
    }
  }
  return n;
}
