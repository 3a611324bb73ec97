/** f32 bit patterns for tests of exact float arithmetic (the canonical weights: src/emst/canonical.cpu.ts). */

/** Edge-case bit patterns: zeros, subnormals, exponent boundaries, the largest finite, infinity, NaN, negatives. */
export function edgeCaseKeys(): number[] {
  const xs = [0, 0x80000000, 1, 2, 3, 0x7fffff, 0x400000, 0x3fffff, 0x800000, 0x800001, 0xffffff, 0x1000000];
  for (let b = 0; b < 23; b++) xs.push(1 << b, (1 << b) + 1, (1 << (b + 1)) - 1);
  for (let ex = 1; ex < 255; ex++) {
    const base = ex << 23;
    xs.push(base, base + 1, base + 0x3fffff, base + 0x400000, base + 0x7ffffe, base + 0x7fffff);
  }
  xs.push(0x7f800000, 0x7fc00000, 0xbf800000, 0x80000001);
  return xs.map((x) => x >>> 0);
}
