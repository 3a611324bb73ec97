/**
 * CPU twin of reduce.ts: min, max or sum of u32 (sum mod 2^32) or f32 (sum rounded to f32 after every
 * addition, left to right — the GPU sums in a tree, so f32 sums agree only within rounding).
 */
import type { ReduceOp } from './reduce.js';
import { InputError } from '../errors.js';

/** The identity of `op` for the element type of `data`: what an empty reduction returns. */
export function reduceIdentity(op: ReduceOp, type: 'u32' | 'f32'): number {
  if (op === 'sum') return 0;
  if (op === 'min') return type === 'u32' ? 0xffffffff : Number.POSITIVE_INFINITY;
  return type === 'u32' ? 0 : Number.NEGATIVE_INFINITY;
}

/** The min, max or sum of `data` (the identity when `data` is empty). */
export function reduceCpu(data: Uint32Array | Float32Array, op: ReduceOp): number {
  const f32 = data instanceof Float32Array;
  if (!f32 && !(data instanceof Uint32Array)) {
    throw new InputError(
      `reduceCpu: expected a Uint32Array or Float32Array, got ${Object.prototype.toString.call(data)}.`,
    );
  }
  let acc = reduceIdentity(op, f32 ? 'f32' : 'u32');
  if (op === 'sum') {
    if (f32) for (let i = 0; i < data.length; i++) acc = Math.fround(acc + data[i]);
    else for (let i = 0; i < data.length; i++) acc = (acc + data[i]) >>> 0;
  } else if (op === 'min') {
    for (let i = 0; i < data.length; i++) if (data[i] < acc) acc = data[i];
  } else if (op === 'max') {
    for (let i = 0; i < data.length; i++) if (data[i] > acc) acc = data[i];
  } else {
    throw new InputError(`reduceCpu: expected op 'min', 'max' or 'sum', got '${String(op)}'.`);
  }
  return acc;
}
