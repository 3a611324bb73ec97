/**
 * Seeded resampling of point catalogues for MST statistics (issue 7, deliverable 4), as the DESI MST analyses do:
 * random subsampling to a common number density (the MST's lengths scale with n^(−1/dim), so catalogues are compared
 * at equal n), and Gaussian positional jitter (to wash out a simulation's grid or a catalogue's quantised positions,
 * and to draw noisy realisations). Both are deterministic for a seed (src/datasets/random.ts: mulberry32, Box–Muller
 * normals), on every machine.
 *
 * Points are row-major `n × dim` coordinates; results are Float32Array, the library's point format.
 */
import { Random } from '../datasets/random.js';
import { InputError } from '../errors.js';

export interface SubsampleOptions {
  dim: number;
  /** Keep round(fraction · n) points, fraction in [0, 1]. Give exactly one of fraction and count. */
  fraction?: number;
  /** Keep exactly this many points, an integer in [0, n]. */
  count?: number;
  /** Seed of the generator; default 0. The same seed and input give the same subsample. */
  seed?: number;
}

export interface Subsample {
  /** The kept points, row-major count × dim, in their input order. */
  points: Float32Array;
  /** The kept points' indices into the input, ascending. */
  indices: Uint32Array;
}

/**
 * A uniformly random subset of exactly `count` points, without replacement: Knuth's selection sampling (TAOCP vol. 2,
 * section 3.4.2, Algorithm S), one uniform draw per input point, keeping point i with probability
 * (count − kept) / (n − i). Every subset of that size is equally likely, the input order is kept, and no n-sized
 * scratch array is needed (this runs on 10^8-point catalogues).
 */
export function subsample(points: ArrayLike<number>, options: SubsampleOptions): Subsample {
  const dim = checkDim(points, options);
  const n = points.length / dim;
  const { fraction, count } = options;
  if ((fraction === undefined) === (count === undefined)) {
    throw new InputError(
      `Expected exactly one of options.fraction and options.count, got fraction=${fraction}, count=${count}.`,
    );
  }
  let k: number;
  if (fraction !== undefined) {
    if (typeof fraction !== 'number' || !(fraction >= 0 && fraction <= 1)) {
      throw new InputError(`Expected options.fraction in [0, 1], got ${fraction}.`);
    }
    k = Math.round(fraction * n);
  } else {
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > n) {
      throw new InputError(`Expected options.count to be an integer in [0, n = ${n}], got ${count}.`);
    }
    k = count;
  }
  const random = new Random(checkSeed(options.seed));
  const indices = new Uint32Array(k);
  let kept = 0;
  for (let i = 0; i < n && kept < k; i++) {
    if ((n - i) * random.next() < k - kept) indices[kept++] = i;
  }
  const out = new Float32Array(k * dim);
  for (let j = 0; j < k; j++) {
    const src = indices[j] * dim;
    for (let a = 0; a < dim; a++) out[j * dim + a] = points[src + a];
  }
  return { points: out, indices };
}

export interface JitterOptions {
  dim: number;
  /** Standard deviation of the Gaussian displacement: one for all axes, or one per axis (length dim), each ≥ 0. */
  sigma: number | ArrayLike<number>;
  /** Seed of the generator; default 0. */
  seed?: number;
  /**
   * Periodic box side lengths (one for all axes, or one per axis): jittered coordinates are wrapped into [0, L).
   * Without it, points may leave the original bounds.
   */
  box?: number | ArrayLike<number>;
}

/**
 * Each coordinate moved by an independent Gaussian N(0, σ_axis²), drawn point by point, axis by axis, from one seeded
 * stream; with `box`, wrapped into [0, L) per axis. Displacements are computed in float64 and rounded once.
 */
export function jitter(points: ArrayLike<number>, options: JitterOptions): Float32Array {
  const dim = checkDim(points, options);
  const sigma = perAxis(options.sigma, dim, 'sigma', (v) => v >= 0);
  const box = options.box === undefined ? null : perAxis(options.box, dim, 'box', (v) => v > 0);
  const random = new Random(checkSeed(options.seed));
  const out = new Float32Array(points.length);
  for (let i = 0; i < points.length; i += dim) {
    for (let a = 0; a < dim; a++) {
      let x = points[i + a] + sigma[a] * random.normal();
      if (box) x = wrap(x, box[a]);
      out[i + a] = x;
    }
    if (box) {
      // Important! float32 rounding can carry a value just below L up to L itself; L ≡ 0 in a periodic box.
      for (let a = 0; a < dim; a++) if (out[i + a] >= box[a]) out[i + a] = 0;
    }
  }
  return out;
}

/** x wrapped into [0, L). */
function wrap(x: number, L: number): number {
  const w = x - L * Math.floor(x / L);
  return w >= L || w < 0 ? 0 : w;
}

function checkDim(points: ArrayLike<number>, options: { dim: number }): number {
  if (!options || typeof options !== 'object')
    throw new InputError(`Expected an options object with { dim }, got ${String(options)}.`);
  const { dim } = options;
  if (!Number.isInteger(dim) || dim < 1) throw new InputError(`Expected dim to be a positive integer, got ${dim}.`);
  if (!points || typeof points.length !== 'number')
    throw new InputError(`Expected points to be an array of coordinates, got ${String(points)}.`);
  if (points.length % dim !== 0) {
    throw new InputError(`Expected points.length to be a multiple of dim=${dim}, got ${points.length}.`);
  }
  return dim;
}

function checkSeed(seed: number | undefined): number {
  if (seed === undefined) return 0;
  if (!Number.isInteger(seed)) throw new InputError(`Expected options.seed to be an integer, got ${seed}.`);
  return seed;
}

function perAxis(
  value: number | ArrayLike<number>,
  dim: number,
  name: string,
  ok: (v: number) => boolean,
): Float64Array {
  const out = new Float64Array(dim);
  if (typeof value === 'number') {
    out.fill(value);
  } else if (value && typeof value.length === 'number') {
    if (value.length !== dim)
      throw new InputError(`Expected options.${name} to have dim=${dim} entries, got ${value.length}.`);
    for (let a = 0; a < dim; a++) out[a] = value[a];
  } else {
    throw new InputError(`Expected options.${name} to be a number or one number per axis, got ${String(value)}.`);
  }
  for (let a = 0; a < dim; a++) {
    if (!Number.isFinite(out[a]) || !ok(out[a])) {
      throw new InputError(
        `Expected options.${name}[${a}] to be finite and ${name === 'box' ? '> 0' : '≥ 0'}, got ${out[a]}.`,
      );
    }
  }
  return out;
}
