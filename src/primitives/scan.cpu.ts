/**
 * CPU twin of scan.ts: exclusive or inclusive prefix sums of u32 with wrapping (mod 2^32) addition.
 */
import type { ScanMode } from './scan.js';
import { InputError } from '../errors.js';

/** The prefix sums of `data`: out[i] = data[0] + … + data[i − 1] (exclusive) or + data[i] (inclusive), mod 2^32. */
export function scanU32Cpu(data: Uint32Array, mode: ScanMode): Uint32Array {
  if (mode !== 'exclusive' && mode !== 'inclusive') {
    throw new InputError(`scanU32Cpu: expected mode 'exclusive' or 'inclusive', got '${String(mode)}'.`);
  }
  const out = new Uint32Array(data.length);
  let sum = 0;
  if (mode === 'exclusive') {
    for (let i = 0; i < data.length; i++) {
      out[i] = sum;
      sum = (sum + data[i]) >>> 0;
    }
  } else {
    for (let i = 0; i < data.length; i++) {
      sum = (sum + data[i]) >>> 0;
      out[i] = sum;
    }
  }
  return out;
}
