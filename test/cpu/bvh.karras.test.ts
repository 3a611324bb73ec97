/**
 * karrasSequentialCpu (the O(n) stack build the CPU BVH uses) returns karrasCpu's hierarchy — the per-node twin of
 * shaders/bvh/karras.wgsl — bit for bit, on seeded clouds of every kind (duplicates and grids: equal codes).
 */
import { describe, expect, it } from 'vitest';
import { codeBits } from '../../src/bvh/layout.js';
import { karrasCpu, karrasSequentialCpu, type Hierarchy } from '../../src/bvh/karras.cpu.js';
import { mortonCodesCpu, sceneFrameCpu } from '../../src/bvh/morton.cpu.js';
import { sortCodesCpu } from '../../src/bvh/sort.cpu.js';
import { CLOUD_KINDS, cloud } from '../helpers/clouds.js';

function sortedCodes(points: Float32Array, dim: number): Uint32Array {
  const n = points.length / dim;
  const frame = sceneFrameCpu(points, n, dim);
  return sortCodesCpu(mortonCodesCpu(points, n, dim, frame), n, codeBits(dim)).codes;
}

/** The first field and index where two hierarchies differ, or null (toEqual on long typed arrays is slow). */
function firstDifference(a: Hierarchy, b: Hierarchy): string | null {
  for (const field of ['links', 'ranges', 'parents'] as const) {
    if (a[field].length !== b[field].length) return `${field}.length`;
    for (let i = 0; i < a[field].length; i++) if (a[field][i] !== b[field][i]) return `${field}[${i}]`;
  }
  return null;
}

describe('karrasSequentialCpu(codes, n)', () => {
  for (const kind of CLOUD_KINDS) {
    it(`equals karrasCpu for ${kind} points, n = 0, 1, 2, 3, 1000, 20000, d = 1, 2, 3, 5`, () => {
      for (const dim of [1, 2, 3, 5]) {
        for (const n of [0, 1, 2, 3, 1000, 20_000]) {
          const codes = sortedCodes(cloud(kind, n, dim, 3 * n + dim), dim);
          expect(
            firstDifference(karrasSequentialCpu(codes, n), karrasCpu(codes, n)),
            `${kind} n=${n} d=${dim}`,
          ).toBeNull();
        }
      }
    });
  }

  it('equals karrasCpu at n = 2^17 + 3 (also into SharedArrayBuffers) and for all-equal codes', () => {
    const big = sortedCodes(cloud('uniform', (1 << 17) + 3, 2, 5), 2);
    expect(firstDifference(karrasSequentialCpu(big, (1 << 17) + 3), karrasCpu(big, (1 << 17) + 3))).toBeNull();
    const shared = karrasSequentialCpu(big, (1 << 17) + 3, (bytes) => new SharedArrayBuffer(bytes));
    expect(shared.links.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(firstDifference(shared, karrasCpu(big, (1 << 17) + 3))).toBeNull();
    const same = new Uint32Array(2 * 777).fill(12345);
    expect(firstDifference(karrasSequentialCpu(same, 777), karrasCpu(same, 777))).toBeNull();
  });
});
