/**
 * CPU twins of emst()'s door check and scaling on the GPU (shaders/emst/pointcheck.wgsl, pointscale.wgsl; host side
 * src/emst/pointcheck.ts), on the same bit patterns in the same integer steps, so the seeded tests can compare them
 * word for word. The rules they reproduce are validate.ts's checkCoordinates and scale.ts's Math.fround(x · 2^e).
 */

/** Bits of fround(1e38) (validate.ts's MAX_COORDINATE in float32): for a float32 x, |x| ≤ 1e38 ⇔ |bits| ≤ these. */
export const MAX_COORDINATE_BITS = 0x7e967699;

/** What the check finds: the first flagged word (−1: none) and the largest magnitude's bits among words in range. */
export interface PointCheck {
  /** Index of the first word whose magnitude bits exceed the limit (NaN, ±Inf, out of range), or −1. */
  first: number;
  /** Bits of the largest |x| among words with |bits| ≤ MAX_COORDINATE_BITS (0 for none). */
  topBits: number;
}

/** pointcheck.wgsl: flags |bits| > limit; the maximum over |bits| ≤ MAX_COORDINATE_BITS. */
export function checkPointsCpu(bits: Uint32Array, limit: number): PointCheck {
  let first = -1;
  let topBits = 0;
  for (let i = 0; i < bits.length; i++) {
    const a = bits[i] & 0x7fffffff;
    if (a > limit && first < 0) first = i;
    if (a <= MAX_COORDINATE_BITS && a > topBits) topBits = a;
  }
  return { first, topBits };
}

/** pointscale.wgsl's bit scaling: the float32 bits·2^e, rounded half to even where the result is subnormal. */
export function scaleBitsCpu(bits: number, e: number): number {
  const sign = (bits & 0x80000000) >>> 0;
  const mag = bits & 0x7fffffff;
  if (mag === 0) return bits >>> 0;
  let E = mag >>> 23;
  let m = mag & 0x7fffff;
  if (E === 0) {
    const s = Math.clz32(m) - 8;
    m <<= s;
    E = 1 - s;
  } else {
    m |= 0x800000;
  }
  E += e;
  if (E >= 255) return (sign | 0x7f800000) >>> 0;
  if (E >= 1) return (sign | (E << 23) | (m & 0x7fffff)) >>> 0;
  const s = 1 - E;
  if (s > 24) return sign;
  const q = m >>> s;
  const rem = m & ((1 << s) - 1);
  const half = 1 << (s - 1);
  const up = rem > half || (rem === half && (q & 1) === 1);
  return (sign | (q + (up ? 1 : 0))) >>> 0;
}

/** pointscale.wgsl over an array, in place. */
export function scalePointsCpu(bits: Uint32Array, e: number): void {
  for (let i = 0; i < bits.length; i++) bits[i] = scaleBitsCpu(bits[i], e);
}
