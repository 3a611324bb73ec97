/**
 * Issue 19: the shapes of big arrays (src/gpu/bigarray.ts) — windows for element-wise kernels and parts for random
 * access — and the WGSL generated for parts. test/gpu/emst.gather.test.ts runs a kernel bound both ways.
 */
import { describe, expect, it } from 'vitest';
import {
  alignElements,
  bigArrayParts,
  bigArrayWgsl,
  partElements,
  planParts,
  windows,
  type BigArrayLimits,
} from '../../src/gpu/bigarray.js';
import { InputError } from '../../src/errors.js';

const MIB: BigArrayLimits = { maxStorageBufferBindingSize: 1048576, minStorageBufferOffsetAlignment: 256 };
const H100: BigArrayLimits = { maxStorageBufferBindingSize: 2 ** 31 - 4, minStorageBufferOffsetAlignment: 256 };

describe('alignElements / partElements', () => {
  it('issue 19: a part starts at a multiple of the offset alignment for every stride', () => {
    expect(alignElements(MIB, [4])).toBe(64);
    expect(alignElements(MIB, [8])).toBe(32);
    expect(alignElements(MIB, [12])).toBe(64);
    expect(alignElements(MIB, [24])).toBe(32);
    expect(alignElements(MIB, [12, 8])).toBe(64);
    expect(alignElements(MIB, [16, 256])).toBe(16);
    for (const stride of [4, 8, 12, 16, 20, 24, 28, 36, 256, 260]) {
      const per = partElements(MIB, stride);
      expect(per * stride).toBeLessThanOrEqual(MIB.maxStorageBufferBindingSize);
      expect((per * stride) % 256).toBe(0);
      // The largest such count: one unit more would not fit.
      expect((per + alignElements(MIB, [stride])) * stride).toBeGreaterThan(MIB.maxStorageBufferBindingSize);
    }
    // The H100's 2 GiB − 4: 4-byte parts of 2^29 − 64 elements.
    expect(partElements(H100, 4)).toBe(2 ** 29 - 64);
  });

  it('issue 19: strides that are not whole words are an InputError naming them', () => {
    expect(() => partElements(MIB, 6)).toThrow(/stride to be a positive multiple of 4 bytes, got 6/);
    expect(() => partElements(MIB, 0)).toThrow(InputError);
  });
});

describe('windows(limits, length, strides)', () => {
  it('issue 19: the fast path is one window [0, length); none for 0 elements', () => {
    expect(windows(MIB, 0, [12, 8])).toEqual([]);
    expect(windows(MIB, 1, [12, 8])).toEqual([{ first: 0, count: 1 }]);
    expect(windows(MIB, 87381, [12])).toEqual([{ first: 0, count: 87381 }]);
    expect(windows(H100, 10 ** 8, [12, 8])).toEqual([{ first: 0, count: 10 ** 8 }]);
  });

  it('issue 19: split windows tile [0, length) in order, each fitting a binding at an accepted offset', () => {
    for (const [length, strides, cap] of [
      [87382, [12], Infinity],
      [200000, [12, 8, 4], Infinity],
      [600001, [4, 4], Infinity],
      [130, [4], 64],
      [65, [4], 64],
      [1000, [12, 8], 100],
      [4097, [16], 128],
    ] as [number, number[], number][]) {
      const ws = windows(MIB, length, strides, cap);
      expect(ws.length).toBeGreaterThan(1);
      let next = 0;
      for (const w of ws) {
        expect(w.first).toBe(next);
        expect(w.count).toBeGreaterThan(0);
        expect(w.count).toBeLessThanOrEqual(cap);
        for (const s of strides) {
          expect(w.count * s).toBeLessThanOrEqual(MIB.maxStorageBufferBindingSize);
          expect((w.first * s) % 256).toBe(0);
        }
        next += w.count;
      }
      expect(next).toBe(length);
    }
  });

  it('issue 19: a cap below one alignment unit cannot be honoured and says so', () => {
    expect(() => windows(MIB, 100, [12], 10)).toThrow(/No window of whole 64-element units/);
  });
});

describe('bigArrayParts / bigArrayWgsl', () => {
  it('issue 19: parts cover the array; an override makes more, smaller parts', () => {
    expect(bigArrayParts(MIB, 262144, 4)).toEqual({ partElements: 262144, parts: 1 });
    expect(bigArrayParts(MIB, 262145, 4)).toEqual({ partElements: 262144, parts: 2 });
    expect(bigArrayParts(MIB, 1000, 4, 300)).toEqual({ partElements: 256, parts: 4 });
    expect(bigArrayParts(MIB, 0, 4)).toEqual({ partElements: 262144, parts: 1 });
    expect(() => bigArrayParts(MIB, 1000, 4, 10)).toThrow(/partElements ≥ 64/);
  });

  it('issue 19: one slot declares the array whole under its own name (the fast path)', () => {
    const d = { name: 'src', type: 'u32', access: 'read', binding: 3, slots: 1, partElements: 0 } as const;
    expect(bigArrayWgsl(d)).toBe(
      '@group(0) @binding(3) var<storage, read> src: array<u32>;\n' + 'fn src_get(i: u32) -> u32 { return src[i]; }',
    );
    expect(bigArrayWgsl({ ...d, access: 'read_write', type: 'vec2u' })).toContain(
      'fn src_set(i: u32, v: vec2u) { src[i] = v; }',
    );
  });

  it('issue 19: several slots declare name0… at consecutive bindings, the accessor picking the part', () => {
    const code = bigArrayWgsl({
      name: 'pts',
      type: 'f32',
      access: 'read_write',
      binding: 5,
      slots: 3,
      partElements: 1024,
    });
    expect(code).toContain('@group(0) @binding(5) var<storage, read_write> pts0: array<f32>;');
    expect(code).toContain('@group(0) @binding(7) var<storage, read_write> pts2: array<f32>;');
    expect(code).toContain('if (i < 1024u) { return pts0[i]; }');
    expect(code).toContain('if (i < 2048u) { return pts1[i - 1024u]; }');
    expect(code).toContain('{ return pts2[i - 2048u]; }');
    expect(code).toContain('{ pts2[i - 2048u] = v; return; }');
    expect(() =>
      bigArrayWgsl({ name: 'a b', type: 'u32', access: 'read', binding: 0, slots: 1, partElements: 0 }),
    ).toThrow(InputError);
  });

  it('issue 19: atomic arrays get _store, _load, _max, _min, _add and _xor, whole or in parts; a non-u32 atomic array is refused', () => {
    const d = {
      name: 'links',
      type: 'u32',
      access: 'read_write',
      binding: 4,
      partElements: 256,
      atomic: true,
    } as const;
    expect(bigArrayWgsl({ ...d, slots: 1 })).toBe(
      '@group(0) @binding(4) var<storage, read_write> links: array<atomic<u32>>;\n' +
        'fn links_store(i: u32, v: u32) { atomicStore(&links[i], v); }\n' +
        'fn links_load(i: u32) -> u32 { return atomicLoad(&links[i]); }\n' +
        'fn links_max(i: u32, v: u32) -> u32 { return atomicMax(&links[i], v); }\n' +
        'fn links_min(i: u32, v: u32) -> u32 { return atomicMin(&links[i], v); }\n' +
        'fn links_add(i: u32, v: u32) -> u32 { return atomicAdd(&links[i], v); }\n' +
        'fn links_xor(i: u32, v: u32) -> u32 { return atomicXor(&links[i], v); }',
    );
    const two = bigArrayWgsl({ ...d, slots: 2 });
    expect(two).toContain('@group(0) @binding(5) var<storage, read_write> links1: array<atomic<u32>>;');
    expect(two).toContain('if (i < 256u) { return atomicMax(&links0[i], v); }');
    expect(two).toContain('{ atomicStore(&links1[i - 256u], v); return; }');
    expect(two).toContain('if (i < 256u) { return atomicAdd(&links0[i], v); }');
    expect(two).toContain('{ return atomicXor(&links1[i - 256u], v); }');
    expect(two).toContain('if (i < 256u) { return atomicMin(&links0[i], v); }');
    expect(two).toContain('{ return atomicLoad(&links1[i - 256u]); }');
    expect(() => bigArrayWgsl({ ...d, type: 'vec2u', slots: 1 })).toThrow(/atomic big array to be u32 and read_write/);
  });

  it('issue 19: cas adds name_cas (atomicCompareExchangeWeak, true where it exchanged) to an atomic array, whole or in parts', () => {
    const d = {
      name: 'parent',
      type: 'u32',
      access: 'read_write',
      binding: 2,
      partElements: 64,
      atomic: true,
    } as const;
    expect(bigArrayWgsl({ ...d, slots: 1 })).not.toContain('parent_cas');
    expect(bigArrayWgsl({ ...d, slots: 1, cas: true })).toContain(
      'fn parent_cas(i: u32, cmp: u32, v: u32) -> bool { return atomicCompareExchangeWeak(&parent[i], cmp, v).exchanged; }',
    );
    const two = bigArrayWgsl({ ...d, slots: 2, cas: true });
    expect(two).toContain('if (i < 64u) { return atomicCompareExchangeWeak(&parent0[i], cmp, v).exchanged; }');
    expect(two).toContain('{ return atomicCompareExchangeWeak(&parent1[i - 64u], cmp, v).exchanged; }');
  });
});

describe('planParts', () => {
  const limits = { ...MIB, maxStorageBuffersPerShaderStage: 16 };
  const arrays = [
    { name: 'a', type: 'u32', stride: 4, length: (n: number) => n, access: 'read' },
    { name: 'b', type: 'vec4u', stride: 16, length: (n: number) => n, access: 'read_write' },
  ] as const;

  it('issue 19: one binding per array where all fit (the fast path), numbered slots where one does not', () => {
    const small = planParts(limits, 'test', arrays, 1000, 1);
    expect(small.slots).toBe(2);
    expect(Object.keys(small.bindings)).toEqual(['a', 'b']);
    const big = planParts(limits, 'test', arrays, 200000, 1);
    expect(big.arrays.map((a) => a.parts.parts)).toEqual([1, 4]);
    expect(Object.keys(big.bindings)).toEqual(['a', 'b0', 'b1', 'b2', 'b3']);
    expect(big.generated[1]).toContain('@group(0) @binding(2) var<storage, read_write> b0: array<vec4u>;');
  });

  it('issue 19: more slots than the stage binds is an InputError naming each array’s parts', () => {
    expect(() => planParts(limits, 'test::k', arrays, 1000000, 1)).toThrow(
      'test::k: 1000000 points need 4 a, 16 b bindings; this device binds 16 storage buffers per stage.',
    );
  });
});
