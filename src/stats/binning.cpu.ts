/**
 * Exact histogram counts from float32 values, shared by the GPU histograms (binning.ts, shaders/stats/binning.wgsl)
 * and their CPU twin below. The host's histograms (histogram.ts) bin float64 values against float64 edges; the GPU
 * has float32 only. The counts still agree exactly:
 *
 *   degree, l, b   The host's value is a float32 value v times a power of two c (the EMST ran on scaled points,
 *                  src/emst/scale.ts), so v·c ≥ E ⟺ v ≥ ⌈E / c⌉₃₂ (the smallest float32 ≥ E / c, exact division
 *                  by a power of two) and v·c ≤ E ⟺ v ≤ ⌊E / c⌋₃₂. Each float64 edge becomes such a float32
 *                  threshold once, on the host (binThresholds); the kernel compares float32 with float32. Degrees
 *                  compare as integers against ⌈E⌉ and ⌊E⌋.
 *   √(1 − s)       The host computes s = e / L and √(1 − s) in float64 from the float32 end-to-end e and length L;
 *                  the GPU computes √((L − e) / L) in float32. They differ by far less than SHAPE_TOLERANCE: with
 *                  e < L both float32, L − e ≥ one ulp of L, so √(1 − s) ≥ 2^−12.5 and the host's relative error
 *                  is ≤ 2^−29; the GPU's (L − e exact for e ≥ L/2 by Sterbenz, a division within 2.5 ulp, a square
 *                  root within a few) stays below 10^−6. A value within SHAPE_TOLERANCE (relative) of a threshold
 *                  is not counted on the GPU but listed as its (L, e) pair ("ambiguous"), and the host bins it
 *                  with its own float64 arithmetic (resolveShapes). e = L gives exactly 0 on both sides; e > L or
 *                  L = 0 gives NaN on the host (s > 1, 0/0), which falls in no bin: the GPU skips them.
 *
 * Thresholds: | T[0] … T[k] (bins' lower edges and the top edge, rounded up) | U (the top edge rounded down) |,
 * k + 2 u32 words (float32 bits, or integers for degrees). A value v is in range iff T[0] ≤ v ≤ U; its bin is the
 * largest i < k with T[i] ≤ v (numpy's rule: edges[i] ≤ v < edges[i + 1], the last bin closed).
 */
import { binOf } from './histogram.js';

/** How the kernel reads a value: a degree (u32), a float32 length, or a branch's (L, e) pair for √(1 − e / L). */
export type BinMode = 'u32' | 'f32' | 'shape';
export const BIN_MODES: Record<BinMode, number> = { u32: 0, f32: 1, shape: 2 };

/** Relative distance of √(1 − s) to a threshold under which the host decides its bin (see the header). */
export const SHAPE_TOLERANCE = 1e-5;

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The float32 bit pattern of x (x representable in float32). */
export function bitsOf(x: number): number {
  f32[0] = x;
  return u32[0];
}

/** The float32 whose bit pattern is `bits`. */
export function floatOf(bits: number): number {
  u32[0] = bits;
  return f32[0];
}

/** The next float32 above the float32 f (−0 and +0 step to the smallest subnormal; +∞ stays). */
function nextUp(f: number): number {
  if (f === Infinity || f !== f) return f;
  if (f === 0) return floatOf(1);
  const b = bitsOf(f);
  return floatOf(f > 0 ? b + 1 : b - 1);
}

/** The next float32 below the float32 f. */
function nextDown(f: number): number {
  return -nextUp(-f);
}

/** The smallest float32 ≥ x (x a float64; +∞ above float32's range). */
export function ceilF32(x: number): number {
  const f = Math.fround(x);
  return f < x ? nextUp(f) : f;
}

/** The largest float32 ≤ x (−∞ below float32's range). */
export function floorF32(x: number): number {
  const f = Math.fround(x);
  return f > x ? nextDown(f) : f;
}

/**
 * The k + 2 threshold words of `edges` (ascending float64, k + 1 of them) for values the host multiplies by `scale`
 * (a power of two; 1 for degrees and shapes).
 */
export function binThresholds(edges: Float64Array, mode: BinMode, scale = 1): Uint32Array {
  const k = edges.length - 1;
  const out = new Uint32Array(k + 2);
  if (mode === 'u32') {
    const word = (x: number) => (x <= 0 ? 0 : x >= 0xffffffff ? 0xffffffff : x);
    for (let i = 0; i <= k; i++) out[i] = word(Math.ceil(edges[i]));
    const top = Math.floor(edges[k]);
    // A top edge below 0 admits no degree: T[0] = 2^32 − 1 > U = 0 (a degree is never 2^32 − 1).
    if (top < 0) out[0] = 0xffffffff;
    out[k + 1] = word(top);
    return out;
  }
  for (let i = 0; i <= k; i++) out[i] = bitsOf(ceilF32(edges[i] / scale));
  out[k + 1] = bitsOf(floorF32(edges[k] / scale));
  return out;
}

/** Largest i in [0, k) with T[i] ≤ v, given T[0] ≤ v (binning.wgsl's search). */
function search(t: ArrayLike<number>, k: number, v: number): number {
  let a = 0;
  let b = k;
  while (b - a > 1) {
    const mid = (a + b) >>> 1;
    if (t[mid] <= v) a = mid;
    else b = mid;
  }
  return a;
}

/** One histogram's input as the kernel reads it: value i is words[i·stride + offset], kept where mask[i] ≠ 0. */
export interface BinSource {
  /** u32 words: degrees, float32 bits of lengths (mode 'f32'), or of branch lengths L (mode 'shape'). */
  words: Uint32Array;
  count: number;
  stride?: number;
  offset?: number;
  /** Per value: 0 to leave it out (the walks that do not report a branch). */
  mask?: Uint32Array;
  /** Mode 'shape': per value, the branch's float32 end-to-end distance e. */
  other?: Float32Array;
}

export interface BinCounts {
  /** Counts per bin of the values the kernel decided. */
  counts: Uint32Array;
  /** Mode 'shape': the (L, e) pairs it left to the host, flattened. */
  ambiguous: number[];
}

/** The value of a shape pair as the GPU computes it (in float32: √((L − e) / L)), or NaN where the host has NaN. */
export function shapeValueF32(L: number, e: number): number {
  if (!(L > 0) || !(e <= L)) return NaN;
  if (e === L) return 0;
  return Math.fround(Math.sqrt(Math.fround(Math.fround(L - e) / L)));
}

/** CPU twin of binning.wgsl's `count` entry: counts per bin and the ambiguous pairs, as the kernel decides them. */
export function binCountsCpu(src: BinSource, thresholds: Uint32Array, mode: BinMode): BinCounts {
  const k = thresholds.length - 2;
  const counts = new Uint32Array(k);
  const ambiguous: number[] = [];
  const stride = src.stride ?? 1;
  const offset = src.offset ?? 0;
  const t = mode === 'u32' ? thresholds : Array.from(thresholds, floatOf);
  const hi = t[k + 1];
  for (let i = 0; i < src.count; i++) {
    if (src.mask && src.mask[i] === 0) continue;
    const w = src.words[i * stride + offset];
    let v: number;
    if (mode === 'u32') v = w;
    else if (mode === 'f32') v = floatOf(w);
    else {
      v = shapeValueF32(floatOf(w), src.other![i]);
      if (v !== v) continue;
      if (v > 0) {
        const tol = SHAPE_TOLERANCE * v;
        const near = (x: number) => Math.abs(v - x) <= tol;
        let doubt = near(t[0]) || near(hi);
        if (!doubt && v >= t[0] && v <= hi) {
          const b = search(t, k, v);
          doubt = near(t[b]) || near(t[b + 1]);
        }
        if (doubt) {
          ambiguous.push(floatOf(w), src.other![i]);
          continue;
        }
      }
    }
    if (!(v >= t[0] && v <= hi)) continue;
    counts[search(t, k, v)]++;
  }
  return { counts, ambiguous };
}

/**
 * Adds the ambiguous (L, e) pairs to `counts`, binned as the host bins branch shapes (mstStats.ts: s = e·c / (L·c),
 * histogram.ts: √(1 − s) against the float64 edges).
 */
export function resolveShapes(pairs: ArrayLike<number>, edges: Float64Array, counts: Float64Array, scale = 1): void {
  for (let j = 0; j + 1 < pairs.length; j += 2) {
    const s = (pairs[j + 1] * scale) / (pairs[j] * scale);
    const b = binOf(Math.sqrt(1 - s), edges);
    if (b >= 0) counts[b]++;
  }
}

/**
 * The extremes binEdges needs of non-negative values (float32 bits, or u32): the largest (bit patterns ≥ 2^31, i.e.
 * negative floats, left out), the smallest positive (0xffffffff when none) and how many values there are.
 * CPU twin of binning.wgsl's `extrema` entry.
 */
export function extremaCpu(src: BinSource): { maxBits: number; minPositiveBits: number; count: number } {
  const stride = src.stride ?? 1;
  const offset = src.offset ?? 0;
  let maxBits = 0;
  let minPositiveBits = 0xffffffff;
  let count = 0;
  for (let i = 0; i < src.count; i++) {
    if (src.mask && src.mask[i] === 0) continue;
    count++;
    const w = src.words[i * stride + offset];
    if (w >= 0x80000000) continue;
    if (w > maxBits) maxBits = w;
    if (w > 0 && w < minPositiveBits) minPositiveBits = w;
  }
  return { maxBits, minPositiveBits, count };
}

/** The two values binEdges reads of a statistic (its largest and smallest positive), from its extremes. */
export function extremeValues(
  e: { maxBits: number; minPositiveBits: number; count: number },
  mode: 'u32' | 'f32',
  scale = 1,
): number[] {
  if (e.count === 0) return [];
  const value = (w: number) => (mode === 'u32' ? w : floatOf(w) * scale);
  return e.minPositiveBits === 0xffffffff ? [value(e.maxBits)] : [value(e.maxBits), value(e.minPositiveBits)];
}
