import { describe, expect, it } from 'vitest';
import { generate, GENERATORS, type GeneratorName } from '../../src/datasets/generate.js';
import { InputError } from '../../src/errors.js';

describe('generate()', () => {
  it.each(GENERATORS)('%s is deterministic in its seed, finite, and n × dim long', (name: GeneratorName) => {
    const dim = name === 'moons' ? 2 : 3;
    const a = generate(name, { n: 2000, dim, seed: 7 });
    const b = generate(name, { n: 2000, dim, seed: 7 });
    const c = generate(name, { n: 2000, dim, seed: 8 });
    expect(a.length).toBe(2000 * dim);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect(a.every(Number.isFinite)).toBe(true);
  });

  it('uniform stays in [0, 1) and normal has mean ≈ 0, variance ≈ 1', () => {
    const u = generate('uniform', { n: 10000, dim: 2, seed: 1 });
    expect(Math.min(...u)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...u)).toBeLessThan(1);
    const g = generate('normal', { n: 20000, dim: 1, seed: 1 });
    const mean = g.reduce((s, x) => s + x, 0) / g.length;
    const variance = g.reduce((s, x) => s + (x - mean) ** 2, 0) / g.length;
    expect(Math.abs(mean)).toBeLessThan(0.05);
    expect(Math.abs(variance - 1)).toBeLessThan(0.05);
  });

  it('cosmology stays in its periodic box [0, 1000)', () => {
    const p = generate('cosmology', { n: 5000, dim: 3, seed: 3 });
    expect(p.every((x) => x >= 0 && x < 1000)).toBe(true);
  });

  it('rejects bad sizes and names with an InputError naming the value', () => {
    expect(() => generate('uniform', { n: -1, dim: 2 })).toThrow(/n .* got -1/);
    expect(() => generate('uniform', { n: 3, dim: 0 })).toThrow(InputError);
    expect(() => generate('moons', { n: 3, dim: 3 })).toThrow(/dim=2, got 3/);
    expect(() => generate('nope' as GeneratorName, { n: 3, dim: 3 })).toThrow(/Unknown generator 'nope'/);
  });

  it('n = 0 gives an empty array', () => {
    for (const name of GENERATORS) expect(generate(name, { n: 0, dim: 2 }).length).toBe(0);
  });
});
