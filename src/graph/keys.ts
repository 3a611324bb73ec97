/**
 * The order-preserving map from 32-bit weights to u32 keys (DESIGN.md, "canonical edge order"): comparing keys as
 * unsigned integers orders the weights numerically, so one 32-bit `atomicMin` (or the high word of a 64-bit one)
 * finds the lightest edge whatever the weight type. The WGSL twin is `weight_key` in shaders/graph/common.wgsl.
 *
 *   u32: the value itself.
 *   i32: flip the sign bit (−2^31 → 0, 0 → 2^31, 2^31 − 1 → 2^32 − 1).
 *   f32: negative (sign bit set): flip all bits; otherwise set the sign bit. −0 maps like +0 (key 0x80000000),
 *        so that weights equal as numbers have equal keys and ties break by edge id alone. NaN is rejected at
 *        the door (it has no place in an order).
 */
import type { WeightArray, WeightKind } from './types.js';

/** The key of one weight given as its raw 32 bits. */
export function keyOfBits(kind: WeightKind, bits: number): number {
  if (kind === 'i32') return (bits ^ 0x80000000) >>> 0;
  if (kind === 'f32') {
    if (bits === 0x80000000) return 0x80000000; // −0 sorts as +0
    return (bits & 0x80000000 ? ~bits : bits | 0x80000000) >>> 0;
  }
  return bits >>> 0;
}

/** The raw 32 bits of every weight (a view, no copy). */
export function weightBits(w: WeightArray): Uint32Array {
  return new Uint32Array(w.buffer, w.byteOffset, w.length);
}

/** The key of every weight. */
export function weightKeys(w: WeightArray, kind: WeightKind): Uint32Array {
  const bits = weightBits(w);
  const out = new Uint32Array(bits.length);
  if (kind === 'u32') out.set(bits);
  else for (let i = 0; i < bits.length; i++) out[i] = keyOfBits(kind, bits[i]);
  return out;
}

/** The weight a key stands for (the inverse map; −0 comes back as +0). */
export function weightOfKey(kind: WeightKind, key: number): number {
  const bits = new Uint32Array(1);
  if (kind === 'i32') return (key ^ 0x80000000) | 0;
  if (kind === 'u32') return key >>> 0;
  bits[0] = key & 0x80000000 ? key & 0x7fffffff : ~key;
  return new Float32Array(bits.buffer)[0];
}
