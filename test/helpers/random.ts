/** Seeded pseudo-random numbers for tests and benchmarks (mulberry32): the same seed gives the same data. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` random u32 values from `seed`. */
export function randomU32(n: number, seed: number): Uint32Array {
  const r = mulberry32(seed);
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = (r() * 4294967296) >>> 0;
  return out;
}
