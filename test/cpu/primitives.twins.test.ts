import { describe, expect, it } from 'vitest';
import { scanU32Cpu } from '../../src/primitives/scan.cpu.js';
import { reduceCpu } from '../../src/primitives/reduce.cpu.js';
import { compactCpu } from '../../src/primitives/compact.cpu.js';
import { InputError } from '../../src/errors.js';

// The CPU twins of scan, reduce and compact on hand-checked cases (the GPU tests compare the kernels with them).
describe('primitives CPU twins', () => {
  it('scanU32Cpu(data, mode) gives exclusive and inclusive sums that wrap mod 2^32', () => {
    const d = new Uint32Array([3, 0xffffffff, 5, 0]);
    expect([...scanU32Cpu(d, 'exclusive')]).toEqual([0, 3, 2, 7]);
    expect([...scanU32Cpu(d, 'inclusive')]).toEqual([3, 2, 7, 7]);
    expect(scanU32Cpu(new Uint32Array(0), 'inclusive').length).toBe(0);
    expect(() => scanU32Cpu(d, 'both' as 'exclusive')).toThrow(InputError);
  });

  it('reduceCpu(data, op) returns min, max, wrapping u32 sums, f32-rounded sums and identities', () => {
    const u = new Uint32Array([7, 0xffffffff, 2]);
    expect([reduceCpu(u, 'min'), reduceCpu(u, 'max'), reduceCpu(u, 'sum')]).toEqual([2, 0xffffffff, 8]);
    const f = new Float32Array([1e8, 1, -2.5]);
    expect([reduceCpu(f, 'min'), reduceCpu(f, 'max')]).toEqual([-2.5, 1e8]);
    expect(reduceCpu(f, 'sum')).toBe(Math.fround(Math.fround(1e8 + 1) - 2.5));
    expect(reduceCpu(new Uint32Array(0), 'min')).toBe(0xffffffff);
    expect(reduceCpu(new Float32Array(0), 'max')).toBe(-Infinity);
    expect(reduceCpu(new Float32Array(0), 'sum')).toBe(0);
  });

  it('compactCpu(values, flags) keeps flagged values in order and checks lengths', () => {
    expect([...compactCpu(new Uint32Array([5, 6, 7, 8]), new Uint32Array([0, 0xffffffff, 0, 2]))]).toEqual([6, 8]);
    expect(() => compactCpu(new Uint32Array(2), new Uint32Array(3))).toThrow(/flags.length.*3/);
  });
});
