/**
 * CPU twin of compact.ts: the values whose flag is non-zero, in their order.
 */
import { InputError } from '../errors.js';

/** values[i] for every i with flags[i] != 0, in order. */
export function compactCpu(values: Uint32Array, flags: Uint32Array): Uint32Array {
  if (flags.length !== values.length) {
    throw new InputError(
      `compactCpu: expected flags.length to equal values.length=${values.length}, got ${flags.length}.`,
    );
  }
  let kept = 0;
  for (let i = 0; i < flags.length; i++) if (flags[i] !== 0) kept++;
  const out = new Uint32Array(kept);
  for (let i = 0, j = 0; i < flags.length; i++) if (flags[i] !== 0) out[j++] = values[i];
  return out;
}
