/**
 * The order-preserving map from f32 bit patterns to u32 (twin of `shaders/bvh/floatorder.wgsl`): for finite
 * floats a < b ⇔ order(a) < order(b), and −0 orders just below +0. Boxes and bounds are min/max in this order on
 * both backends, so −0 and +0 come out bit-identical everywhere.
 */

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** order(bits): flip all bits of negatives, set the sign bit of non-negatives. */
function orderBits(bits: number): number {
  return (bits & 0x80000000 ? ~bits : bits | 0x80000000) >>> 0;
}

/** The inverse of `orderBits`. */
function unorderBits(u: number): number {
  return (u & 0x80000000 ? u & 0x7fffffff : ~u) >>> 0;
}

/** order(x) for a float value. */
export function orderF32(x: number): number {
  f32[0] = x;
  return orderBits(u32[0]);
}

/** The float whose order is u. */
export function unorderF32(u: number): number {
  u32[0] = unorderBits(u);
  return f32[0];
}

/** min in the order above: like Math.min, and −0 < +0. */
export function minF(a: number, b: number): number {
  return a < b || (a === b && Object.is(a, -0)) ? a : b;
}

/** max in the order above: like Math.max, and +0 > −0. */
export function maxF(a: number, b: number): number {
  return a > b || (a === b && Object.is(a, 0)) ? a : b;
}
