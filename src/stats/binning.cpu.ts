/**
 * Exact histogram counts from float32 values, shared by the GPU histograms (binning.ts, shaders/stats/binning.wgsl)
 * and their CPU twin below. The host's histograms (histogram.ts) bin float64 values against float64 edges; the GPU
 * has float32 only. The counts still agree exactly:
 *
 *   degree, l, b   The host's value is a float32 value v times a power of two c (the EMST ran on scaled points,
 *                  src/emst/scale.ts), so v·c ≥ E ⟺ v ≥ ⌈E / c⌉₃₂ (the smallest float32 ≥ E / c, exact division
 *                  by a power of two) and v·c ≤ E ⟺ v ≤ ⌊E / c⌋₃₂. Each float64 edge becomes such a float32
 *                  threshold once, on the host (binThresholds); the kernel compares them by their bits
 *                  (orderKey). Degrees compare as integers against ⌈E⌉ and ⌊E⌋.
 *   √(1 − s)       The host computes s = e / L and √(1 − s) in float64 from the float32 end-to-end e and length L.
 *                  The GPU sorts each pair by the bits of L and e first (shapeBin): L = ±0 is in no bin (the host's
 *                  s is NaN or ±∞); e > L is in no bin (s > 1 in float64 too: NaN); e = L and e = 0 give exactly 0
 *                  and 1 on both sides. Where L lies in [2^−95, 2^94) and e is 0 or normal (SHAPE_EXPONENTS) it
 *                  computes √((L − e) / L) in float32: L − e ≥ ulp(L) ≥ 2^−118 and every result stays normal, so a
 *                  device that flushes subnormals to zero (WGSL allows it; the H100 does) computes the same, and the
 *                  division is inside [2^−126, 2^126], where WGSL bounds its error (2.5 ulp); with the host's
 *                  relative error ≤ 2^−29 (√(1 − s) ≥ 2^−12.5) the two differ by a few ulp, far less than
 *                  SHAPE_TOLERANCE (1e−5 ≈ 84 ulp). A value within SHAPE_TOLERANCE (relative) of a threshold, and
 *                  every other pair (negative, NaN, ±∞, subnormal or extreme; never a real branch) is not counted on
 *                  the GPU but listed as its (L, e) pair ("ambiguous"), and the host bins it with its own float64
 *                  arithmetic (resolveShapes).
 *   ordering       Values are compared with thresholds by orderKey (their bits as a u32 that orders as the floats
 *                  do), never as floats: a device that flushes subnormals would order a subnormal value or threshold
 *                  as 0 (issue 17: the H100 read a branch of length 2^−149 as 0 and dropped it).
 *
 * A device's float32 may differ from IEEE 754 as WGSL allows (F32Device: subnormals flushed, division and square
 * root a few ulp off): binCountsCpu emulates one, and its counts must not change (test/cpu/stats.binning.test.ts).
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

/**
 * A device's float32 arithmetic where WGSL lets it differ from IEEE 754: subnormal operands and results flushed to
 * zero, and each subtraction, division and square root off by up to `ulps` units in the last place (the error of each
 * drawn from `random`). binCountsCpu runs binning.wgsl's float arithmetic on it.
 */
export interface F32Device {
  flushSubnormals: boolean;
  ulps: number;
  /** Uniform numbers in [0, 1). */
  random: () => number;
}

/** IEEE 754 float32, correctly rounded (lavapipe). */
export const IEEE_F32: F32Device = { flushSubnormals: false, ulps: 0, random: () => 0.5 };

const MIN_NORMAL = 2 ** -126;

/** x as the device holds it: flushed to a signed zero when subnormal and the device flushes. */
function held(x: number, d: F32Device): number {
  return d.flushSubnormals && Math.abs(x) < MIN_NORMAL ? (x < 0 || Object.is(x, -0) ? -0 : 0) : x;
}

/** The device's result of an operation whose exact value is x: float32, off by up to d.ulps, maybe flushed. */
function deviceResult(x: number, d: F32Device): number {
  let f = held(Math.fround(x), d);
  let k = Math.round((2 * d.random() - 1) * d.ulps);
  for (; k > 0; k--) f = nextUp(f);
  for (; k < 0; k++) f = nextDown(f);
  return held(f, d);
}

/** float32 bits as a u32 that orders as the floats do (binning.wgsl's key): −0 = +0, NaNs beyond ±∞. */
export function orderKey(bits: number): number {
  if (bits === 0x80000000) return 0x80000000;
  return (bits & 0x80000000) !== 0 ? ~bits >>> 0 : (bits | 0x80000000) >>> 0;
}

/**
 * Biased exponent fields (read with the sign bit) of the branch lengths L the kernel bins itself: [2^−95, 2^94)
 * (the header; binning.wgsl SHAPE_EXP_MIN, SHAPE_EXP_MAX).
 */
export const SHAPE_EXPONENTS = { min: 32, max: 220 } as const;
/** shapeBin's answers besides a bin. */
export const NO_BIN = -1;
export const TO_HOST = -2;

/** A threshold table as binning.wgsl reads it: comparison keys (integers for degrees) and float32 values. */
interface Table {
  k: number;
  keys: Uint32Array;
  floats: Float64Array;
}

function table(thresholds: Uint32Array, mode: BinMode): Table {
  const k = thresholds.length - 2;
  const keys = mode === 'u32' ? thresholds : thresholds.map(orderKey);
  return { k, keys, floats: Float64Array.from(thresholds, floatOf) };
}

/** The bin of v (an integer or an orderKey), or NO_BIN out of range (binning.wgsl bin_in_range). */
function binInRange(t: Table, v: number): number {
  if (v < t.keys[0] || v > t.keys[t.k + 1]) return NO_BIN;
  return search(t.keys, t.k, v);
}

/**
 * Mode 'shape': the bin of branch (L, e), given as float32 bits, as binning.wgsl's shape_bin decides it on device `d`
 * — a bin, NO_BIN, or TO_HOST (listed for the host: near a threshold, or outside the safe range).
 */
export function shapeBin(lw: number, ew: number, thresholds: Uint32Array, d: F32Device = IEEE_F32): number {
  return shapeBinIn(table(thresholds, 'shape'), lw, ew, d);
}

function shapeBinIn(t: Table, lw: number, ew: number, d: F32Device): number {
  if ((lw & 0x7fffffff) === 0) return NO_BIN;
  const le = lw >>> 23;
  const ee = ew >>> 23;
  if (le < SHAPE_EXPONENTS.min || le > SHAPE_EXPONENTS.max || (ew !== 0 && (ee === 0 || ee > 254))) return TO_HOST;
  if (ew > lw) return NO_BIN;
  if (ew === lw) return binInRange(t, orderKey(0));
  if (ew === 0) return binInRange(t, orderKey(bitsOf(1)));
  const L = held(floatOf(lw), d);
  const e = held(floatOf(ew), d);
  const v = deviceResult(Math.sqrt(deviceResult(deviceResult(L - e, d) / L, d)), d);
  const near = (j: number) => Math.abs(v - held(t.floats[j], d)) <= SHAPE_TOLERANCE * v;
  if (near(0) || near(t.k + 1)) return TO_HOST;
  const b = binInRange(t, orderKey(bitsOf(v)));
  if (b >= 0 && (near(b) || near(b + 1))) return TO_HOST;
  return b;
}

/**
 * CPU twin of binning.wgsl: counts per bin and the ambiguous pairs, as the kernel decides them on a device whose
 * float32 is `device` (IEEE by default).
 */
export function binCountsCpu(
  src: BinSource,
  thresholds: Uint32Array,
  mode: BinMode,
  device: F32Device = IEEE_F32,
): BinCounts {
  const t = table(thresholds, mode);
  const counts = new Uint32Array(t.k);
  const ambiguous: number[] = [];
  const stride = src.stride ?? 1;
  const offset = src.offset ?? 0;
  const other = src.other ? new Uint32Array(src.other.buffer, src.other.byteOffset, src.other.length) : null;
  for (let i = 0; i < src.count; i++) {
    if (src.mask && src.mask[i] === 0) continue;
    const w = src.words[i * stride + offset];
    let b: number;
    if (mode === 'u32') b = binInRange(t, w);
    else if (mode === 'f32') b = binInRange(t, orderKey(w));
    else {
      b = shapeBinIn(t, w, other![i], device);
      if (b === TO_HOST) ambiguous.push(floatOf(w), src.other![i]);
    }
    if (b >= 0) counts[b]++;
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
