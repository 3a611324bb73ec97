/**
 * Seeded point-cloud generators (row-major Float32Array, n × dim), shared by `treeline generate`, the tests and the
 * benchmarks. Every generator is deterministic in (n, dim, seed, options).
 */
import { InputError } from '../errors.js';
import { MAX_TABLE_VALUES } from '../io/limits.js';
import { Random } from './random.js';

export type GeneratorName = 'uniform' | 'normal' | 'blobs' | 'moons' | 'visualvar' | 'cosmology';
export const GENERATORS: GeneratorName[] = ['uniform', 'normal', 'blobs', 'moons', 'visualvar', 'cosmology'];

/**
 * The generators' defaults and boxes, used below and listed by `treeline generate --help` (so the help cannot
 * drift): blobs' centres and noise lie in [−halfWidth, halfWidth)^dim, visualvar's in [0, box]^dim, cosmology's in
 * the periodic [0, box)^dim.
 */
export const GENERATOR_DEFAULTS = {
  blobs: { clusters: 5, noise: 0.05, halfWidth: 10 },
  visualvar: { clusters: 100, noise: 1e-4, box: 1e4 },
  cosmology: { box: 1000 },
} as const;

export interface GenerateOptions {
  /** Number of points. */
  n: number;
  /** Dimension (moons: 2 only). */
  dim: number;
  seed?: number;
  /** blobs: number of Gaussian clusters (default 5). visualvar: expected number of clusters (default 100). */
  clusters?: number;
  /** blobs / visualvar: fraction of uniform noise points (default 0.05 for blobs, 1e-4 for visualvar). */
  noise?: number;
}

/** Clusters allowed whatever n is (more need n at least as large). */
const MAX_CLUSTERS_ANY_N = 65536;

/** The options' checks every generator runs first (InputError), for generate.threads.ts. */
export function checkGenerateOptions(opts: GenerateOptions): void {
  check(opts);
}

function check(opts: GenerateOptions): void {
  if (!Number.isInteger(opts.n) || opts.n < 0) throw new InputError(`Expected n to be a non-negative integer, got ${opts.n}.`);
  if (!Number.isInteger(opts.dim) || opts.dim < 1) throw new InputError(`Expected dim to be a positive integer, got ${opts.dim}.`);
  // Sizes are checked before anything is allocated from them (issue 15: `generate -n 1e12` was a RangeError).
  if (opts.n * opts.dim > MAX_TABLE_VALUES) {
    throw new InputError(`Expected n · dim ≤ ${MAX_TABLE_VALUES} (2^32 − 1, the longest Float32Array), got n = ${opts.n}, dim = ${opts.dim}.`);
  }
  // The cluster centres take clusters · dim values: bounded by the output's size, or a small constant, so that a
  // few points may still be drawn from many clusters (some then empty) without --clusters 1e12 exhausting memory.
  const k = opts.clusters;
  const maxClusters = Math.max(MAX_CLUSTERS_ANY_N, opts.n);
  if (k !== undefined && (!Number.isInteger(k) || k < 1 || k > maxClusters)) {
    throw new InputError(`Expected clusters to be an integer in [1, max(n, ${MAX_CLUSTERS_ANY_N}) = ${maxClusters}], got ${k}.`);
  }
}

/** Uniform in the unit cube [0, 1)^dim. */
export function uniform(opts: GenerateOptions): Float32Array {
  check(opts);
  const r = new Random(opts.seed ?? 1);
  const out = new Float32Array(opts.n * opts.dim);
  for (let i = 0; i < out.length; i++) out[i] = r.next();
  return out;
}

/** Standard normal in every coordinate (ArborX's "normal" data). */
export function normal(opts: GenerateOptions): Float32Array {
  check(opts);
  const r = new Random(opts.seed ?? 1);
  const out = new Float32Array(opts.n * opts.dim);
  for (let i = 0; i < out.length; i++) out[i] = r.normal();
  return out;
}

/** Gaussian blobs (σ = 1) with centres uniform in [−10, 10)^dim, plus a fraction of uniform noise in that box. */
export function blobs(opts: GenerateOptions): Float32Array {
  check(opts);
  const { n, dim } = opts;
  const r = new Random(opts.seed ?? 1);
  const { clusters, noise: noiseDefault, halfWidth: h } = GENERATOR_DEFAULTS.blobs;
  const k = opts.clusters ?? clusters;
  const noise = opts.noise ?? noiseDefault;
  const centres = new Float64Array(k * dim).map(() => r.next() * 2 * h - h);
  const out = new Float32Array(n * dim);
  const nNoise = Math.round(n * noise);
  for (let i = 0; i < n; i++) {
    if (i < n - nNoise) {
      const c = Math.floor(r.next() * k);
      for (let d = 0; d < dim; d++) out[i * dim + d] = centres[c * dim + d] + r.normal();
    } else {
      for (let d = 0; d < dim; d++) out[i * dim + d] = r.next() * 2 * h - h;
    }
  }
  return out;
}

/** Two interleaving half circles in 2D with Gaussian noise σ = 0.05 (scikit-learn's make_moons shape). */
export function moons(opts: GenerateOptions): Float32Array {
  check(opts);
  if (opts.dim !== 2) throw new InputError(`moons is 2-dimensional: expected dim=2, got ${opts.dim}.`);
  const r = new Random(opts.seed ?? 1);
  const out = new Float32Array(opts.n * 2);
  for (let i = 0; i < opts.n; i++) {
    const t = Math.PI * r.next();
    const upper = i % 2 === 0;
    out[2 * i] = (upper ? Math.cos(t) : 1 - Math.cos(t)) + 0.05 * r.normal();
    out[2 * i + 1] = (upper ? Math.sin(t) : 0.5 - Math.sin(t)) + 0.05 * r.normal();
  }
  return out;
}

/**
 * Gan & Tao's "seed spreader" with variable density ("visual var"; J. Gan and Y. Tao, "On the hardness and
 * approximation of Euclidean DBSCAN", TODS 2017), with the parameters ArborX's benchmark uses: data space
 * [0, 10^4]^dim, c_reset = 100, noise fraction 10^-4, restart probability clusters / (n (1 − noise)), vicinity
 * 100 · ((restarts mod 10) + 1), shift vicinity · dim / 2. The spreader emits points uniformly in the cube of
 * half-width r_vicinity around its position, moves by r_shift in a random direction every c_reset points, and
 * jumps to a random location on restart. Our own seeded implementation: same distribution, not the same points.
 */
export function visualVar(opts: GenerateOptions): Float32Array {
  check(opts);
  const { n, dim } = opts;
  const r = new Random(opts.seed ?? 1);
  const L = GENERATOR_DEFAULTS.visualvar.box;
  const noise = opts.noise ?? GENERATOR_DEFAULTS.visualvar.noise;
  const nSignal = Math.floor(n * (1 - noise));
  const restart = (opts.clusters ?? GENERATOR_DEFAULTS.visualvar.clusters) / Math.max(1, nSignal);
  const cReset = 100;
  const origin = new Float64Array(dim);
  const dir = new Float64Array(dim);
  const out = new Float32Array(n * dim);
  let vicinity = 0;
  let shift = 0;
  let count = 0;
  let restarts = 0;
  let reset = true;
  for (let i = 0; i < nSignal; i++) {
    if (reset) {
      for (let d = 0; d < dim; d++) origin[d] = r.next() * L;
      vicinity = 100 * ((restarts % 10) + 1);
      shift = (vicinity * dim) / 2;
      restarts++;
      count = cReset;
      reset = false;
    }
    if (count === 0) {
      let norm = 0;
      for (let d = 0; d < dim; d++) {
        dir[d] = 2 * r.next() - 1;
        norm += dir[d] * dir[d];
      }
      norm = Math.sqrt(norm) || 1;
      for (let d = 0; d < dim; d++) origin[d] += (dir[d] * shift) / norm;
      count = cReset;
    }
    for (let d = 0; d < dim; d++) out[i * dim + d] = origin[d] + (2 * r.next() - 1) * vicinity;
    count--;
    if (r.next() <= restart) reset = true;
  }
  for (let i = nSignal; i < n; i++) for (let d = 0; d < dim; d++) out[i * dim + d] = r.next() * L;
  return out;
}

/**
 * A clustered, cosmology-like field in a periodic box [0, 1000)^dim (Mpc/h-like units): 60 % of the points in
 * haloes whose masses follow a power law (Pareto, slope −1.9) and whose members follow an isotropic profile with
 * density ∝ r^-2 out to a radius ∝ mass^(1/3), 40 % in a smooth field of filament-like segments between random
 * haloes. A stand-in for N-body snapshots with the same qualitative statistics (heavy clustering, filaments, voids).
 */
export function cosmology(opts: GenerateOptions): Float32Array {
  check(opts);
  const { n, dim } = opts;
  const r = new Random(opts.seed ?? 1);
  const box = GENERATOR_DEFAULTS.cosmology.box;
  const nHalo = Math.max(1, Math.round(n / 200));
  const centres = new Float64Array(nHalo * dim).map(() => r.next() * box);
  const weights = new Float64Array(nHalo);
  let total = 0;
  for (let h = 0; h < nHalo; h++) {
    weights[h] = Math.pow(1 - r.next(), -1 / 0.9); // Pareto(α = 0.9): dN/dM ∝ M^-1.9
    total += weights[h];
  }
  const cdf = new Float64Array(nHalo);
  let acc = 0;
  for (let h = 0; h < nHalo; h++) cdf[h] = acc += weights[h] / total;
  const pick = () => {
    const u = r.next();
    let lo = 0;
    let hi = nHalo - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const wrap = (x: number) => ((x % box) + box) % box;
  const out = new Float32Array(n * dim);
  const v = new Float64Array(dim);
  for (let i = 0; i < n; i++) {
    if (r.next() < 0.6) {
      const h = pick();
      const radius = 2 * Math.cbrt(weights[h]);
      let norm = 0;
      for (let d = 0; d < dim; d++) norm += (v[d] = r.normal()) ** 2;
      norm = Math.sqrt(norm) || 1;
      const rr = radius * r.next(); // uniform radius: density ∝ r^-2 in 3D
      for (let d = 0; d < dim; d++) out[i * dim + d] = wrap(centres[h * dim + d] + (v[d] / norm) * rr);
    } else {
      const a = pick();
      const b = pick();
      const t = r.next();
      for (let d = 0; d < dim; d++) {
        let delta = centres[b * dim + d] - centres[a * dim + d];
        if (delta > box / 2) delta -= box;
        if (delta < -box / 2) delta += box;
        out[i * dim + d] = wrap(centres[a * dim + d] + t * delta + 3 * r.normal());
      }
    }
  }
  return out;
}

/** Runs the generator named `name`. */
export function generate(name: GeneratorName, opts: GenerateOptions): Float32Array {
  switch (name) {
    case 'uniform':
      return uniform(opts);
    case 'normal':
      return normal(opts);
    case 'blobs':
      return blobs(opts);
    case 'moons':
      return moons(opts);
    case 'visualvar':
      return visualVar(opts);
    case 'cosmology':
      return cosmology(opts);
    default:
      throw new InputError(`Unknown generator '${name as string}'; known: ${GENERATORS.join(', ')}.`);
  }
}
