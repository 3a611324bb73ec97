/**
 * Extreme coordinate scales (issue 15 §4.1): every key is a float32 *squared* distance, so coordinates near 1e30
 * overflowed every key to +∞ and coordinates near 1e-30 underflowed them to 0 — a silent wrong tree. The fix is the
 * mechanism, not the symptom: before any distance is formed the points are multiplied by a power of two 2^e that
 * brings the largest |coordinate| into [1, 2), and the weights are multiplied back by 2^−e at the end.
 *
 * Multiplying a float32 by a power of two is exact (only the exponent changes) unless the result leaves float32's
 * normal range, and so is every difference, square, sum and square root formed from the scaled values: the scaled
 * run rounds exactly the same steps as an unscaled run would in an unbounded exponent range. The tree is therefore
 * the tree of the data, and the weights are its weights bit for bit, at any scale float32 can hold. (Periodic side
 * lengths and the scale cut are scaled with the points; core distances are keys and scale with them.)
 *
 * Data whose largest |coordinate| lies in [2^-32, 2^32] is left alone (no copy): there the squares of differences
 * down to 2^-31 of that coordinate stay normal floats, and up to 2^33 apart they stay far below float32's maximum,
 * in any dimension. A weight that is itself beyond float32's range after scaling back (coordinates near ±1e38, more
 * than 3.4e38 apart) cannot be returned: that input is an InputError naming the weight.
 */
import { InputError } from '../errors.js';
import { sortEqualWeightRuns, type EdgeList } from './edges.cpu.js';
import type { EmstInput } from './validate.js';

/** The largest |coordinate| left unscaled is within [2^-SAFE_EXPONENT, 2^SAFE_EXPONENT]. */
const SAFE_EXPONENT = 32;

/** The input brought to unit scale, and how to bring its tree's weights back. */
export interface ScaledInput {
  input: EmstInput;
  /** The exponent e of the factor 2^e applied to the coordinates (0: none). */
  exponent: number;
}

/** The power of two e with |x|·2^e in [1, 2) for the largest |x|, or 0 when no scaling is needed. */
export function scaleExponent(maxAbs: number): number {
  if (!(maxAbs > 0) || (maxAbs >= 2 ** -SAFE_EXPONENT && maxAbs <= 2 ** SAFE_EXPONENT)) return 0;
  return -Math.floor(Math.log2(maxAbs));
}

/** `input` with points (and periodic side lengths, scale cut) multiplied by 2^e; the input itself when e = 0. */
export function scaleInput(input: EmstInput): ScaledInput {
  if (input.deferred) throw new Error('scaleInput: the coordinates were left to the GPU check, maxAbs is not known');
  const top = input.period === null ? input.maxAbs : Math.max(input.maxAbs, ...input.period);
  const exponent = scaleExponent(top);
  if (exponent === 0) return { input, exponent };
  const f = 2 ** exponent;
  // A private copy: the caller's array is never modified (a Float64Array was already copied by validation).
  const points = input.converted ? input.points : new Float32Array(input.points.length);
  for (let i = 0; i < points.length; i++) points[i] = input.points[i] * f;
  const period = input.period === null ? null : input.period.map((L) => L * f);
  const minEdgeLength = Math.fround(input.minEdgeLength) * f;
  return { input: { ...input, points, upload: points, period, minEdgeLength, maxAbs: input.maxAbs * f }, exponent };
}

/**
 * The weights of a tree of scaled points brought back by 2^−e, in place. Where the factor takes weights into
 * float32's subnormal range, distinct weights can round to one: the equal runs are re-sorted by (source, target),
 * so the list stays in canonical order. Throws InputError where a weight exceeds float32's range.
 */
export function unscaleWeights(edges: EdgeList, exponent: number): void {
  if (exponent === 0) return;
  const f = 2 ** -exponent;
  const w = edges.weights;
  for (let i = 0; i < w.length; i++) {
    const x = w[i] * f;
    w[i] = x;
    if (w[i] === Infinity) {
      throw new InputError(
        `The tree has an edge of length ${x.toPrecision(4)}, beyond float32's range (3.4e38): the coordinates are too far apart to return its weight; scale them down.`,
      );
    }
  }
  sortEqualWeightRuns(edges);
}
