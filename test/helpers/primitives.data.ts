/**
 * Seeded test data for the scan, reduce and compact tests: random u32 with runs of all-bits-set values and
 * runs of one repeated value mixed in (the acceptance criteria of issue 2 ask for both).
 */
import { mulberry32, randomU32 } from './random.js';

/** The sizes every primitive is checked at (plus a 2D-grid case in each test file). */
export const SIZES = [0, 1, 255, 256, 257, 4097, (1 << 20) + 7];

/** `n` u32 from `seed`: random, with runs of 0xFFFFFFFF and runs of a repeated value. */
export function u32Data(n: number, seed: number): Uint32Array {
  const d = randomU32(n, seed);
  const r = mulberry32(seed ^ 0x5bd1e995);
  for (let i = 0; i < n;) {
    const len = 1 + Math.floor(r() * 40);
    const kind = r();
    if (kind < 0.25) d.fill(0xffffffff, i, Math.min(n, i + len));
    else if (kind < 0.5) d.fill(d[i], i, Math.min(n, i + len));
    i += len + Math.floor(r() * 40);
  }
  return d;
}

/** `n` f32 from `seed` in ±1000 (exact in f32), with runs of one repeated value and some −0. */
export function f32Data(n: number, seed: number): Float32Array {
  const r = mulberry32(seed);
  const d = new Float32Array(n);
  for (let i = 0; i < n; i++) d[i] = (r() - 0.5) * 2000;
  for (let i = 0; i < n;) {
    const len = 1 + Math.floor(r() * 40);
    const kind = r();
    if (kind < 0.1) d.fill(-0, i, Math.min(n, i + len));
    else if (kind < 0.4) d.fill(d[i], i, Math.min(n, i + len));
    i += len + Math.floor(r() * 40);
  }
  return d;
}

/** Where `a` and `b` first differ, with both values (for failure messages), or null when they are equal. */
export function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): string | null {
  if (a.length !== b.length) return `lengths differ: ${a.length} vs ${b.length}`;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return `index ${i}: ${a[i]} vs ${b[i]}`;
  return null;
}
