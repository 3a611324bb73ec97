/** Seeded pseudo-random numbers for tests: the library's generator (src/datasets/random.ts) behind a function. */
import { Random } from '../../src/datasets/random.js';

/** Uniform numbers in [0, 1) from `seed` (mulberry32). */
export function mulberry32(seed: number): () => number {
  const r = new Random(seed);
  return () => r.next();
}

/** `n` random u32 values from `seed`. */
export function randomU32(n: number, seed: number): Uint32Array {
  const r = new Random(seed);
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = r.u32();
  return out;
}
