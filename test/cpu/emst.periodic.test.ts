/**
 * Issue 7: the exact EMST in a periodic box (minimum-image distances) on the CPU backend, against brute-force Prim
 * on the torus in float64 (test/helpers/prim.ts with `box`) and against a float32-key Prim on the torus (the exact
 * order the backend must reproduce); the open-box EMST where no pair is nearer around the torus; wrapping of
 * coordinates outside the box; errors.
 */
import { describe, expect, it } from 'vitest';
import { checkSpanningTree, relativeDifference } from '../../src/emst/check.js';
import { emst } from '../../src/emst/emst.js';
import { InputError } from '../../src/errors.js';
import { periodicPoints, periodicPrimF32, type PeriodicKind } from '../helpers/periodic.js';
import { primMst } from '../helpers/prim.js';

const f32 = Math.fround;
const BOXES: number[][] = [
  [1, 1],
  [3, 7],
  [1, 1, 1],
  [2, 5, 3],
];

function rows(t: { sources: Uint32Array; targets: Uint32Array; weights: Float32Array }): [number, number, number][] {
  return Array.from(t.sources, (s, i) => [s, t.targets[i], t.weights[i]]);
}

describe('emst(points, { box }) on the CPU backend', () => {
  for (const kind of ['faces', 'corners', 'grid'] as PeriodicKind[]) {
    for (const box of BOXES) {
      it(`${kind} in box [${box}]: Prim on the torus (float32 keys identical, float64 total weight)`, async () => {
        const dim = box.length;
        const sides = kind === 'grid' ? box.map((L) => 4 * L + 1) : box;
        const n = kind === 'grid' ? 300 : 700;
        const p = periodicPoints(kind, n, sides, 17 * dim + sides[0]);
        const got = await emst(p, { dim, box: sides, backend: 'cpu' });
        expect(checkSpanningTree(n, got).problems).toEqual([]);
        expect(rows(got)).toEqual(periodicPrimF32(p, sides));
        const oracle = primMst(p, dim, { box: sides });
        const total = got.weights.reduce((s, w) => s + w, 0);
        expect(
          relativeDifference(
            total,
            oracle.weights.reduce((s, w) => s + w, 0),
          ),
        ).toBeLessThan(1e-6);
        if (kind === 'grid') {
          // Integer coordinates: every key is exact, so the float64 tree is the same tree.
          expect(Array.from(got.sources)).toEqual(Array.from(oracle.sources));
          expect(Array.from(got.targets)).toEqual(Array.from(oracle.targets));
          expect(Array.from(got.weights)).toEqual(Array.from(oracle.weights, f32));
        }
        if (kind !== 'grid') {
          // The torus matters here: the open-box tree is longer (a filled integer grid has unit edges either way).
          const open = await emst(p, { dim, backend: 'cpu' });
          expect(open.weights.reduce((s, w) => s + w, 0)).toBeGreaterThan(total);
        }
      });
    }
  }

  it('equals the open-box EMST when every point is far from the faces', async () => {
    for (const box of BOXES) {
      const dim = box.length;
      const p = periodicPoints('inner', 2000, box, 5 + dim);
      const periodic = await emst(p, { dim, box, backend: 'cpu' });
      const open = await emst(p, { dim, backend: 'cpu' });
      expect(rows(periodic)).toEqual(rows(open));
    }
  });

  it('wraps coordinates outside [0, L) into the box (x ± L, x = L)', async () => {
    const box = [8, 8, 8];
    const p = periodicPoints('grid', 400, box, 3);
    const shifted = p.map((x, i) => (i % 7 === 0 ? x + 8 : i % 5 === 0 ? x - 16 : x));
    shifted[1] = 8; // exactly L: the same point of the torus as 0
    p[1] = 0;
    const want = await emst(p, { dim: 3, box, backend: 'cpu' });
    const got = await emst(shifted, { dim: 3, box, backend: 'cpu' });
    expect(rows(got)).toEqual(rows(want));
    expect(shifted[7]).toBe(p[7] + 8); // the caller's array is left alone
  });

  it('n = 0, 1, 2 and all-identical points', async () => {
    const box = [1, 1];
    expect((await emst(new Float32Array(0), { dim: 2, box, backend: 'cpu' })).sources.length).toBe(0);
    expect((await emst(new Float32Array([0.5, 0.5]), { dim: 2, box, backend: 'cpu' })).sources.length).toBe(0);
    const two = await emst(new Float32Array([0.05, 0.5, 0.95, 0.5]), { dim: 2, box, backend: 'cpu' });
    expect(rows(two)).toEqual([[0, 1, f32(Math.sqrt(f32(f32(1 - f32(0.95 - 0.05)) ** 2)))]]);
    expect(two.weights[0]).toBeCloseTo(0.1, 6);
    const same = await emst(new Float32Array(20).fill(0.25), { dim: 2, box, backend: 'cpu' });
    expect(Array.from(same.weights)).toEqual(new Array(9).fill(0));
  });

  it('rejects a bad box, naming the value', async () => {
    const p = new Float32Array(12);
    await expect(emst(p, { dim: 3, box: [1, 1] })).rejects.toThrow(/one side length per dimension \(3\), got 2/);
    await expect(emst(p, { dim: 3, box: [1, 0, 1] })).rejects.toThrow(/box\[1\] to be a finite side length > 0, got 0/);
    await expect(emst(p, { dim: 3, box: [1, NaN, 1] })).rejects.toThrow(InputError);
    await expect(emst(p, { dim: 3, box: [1, 1, 1], minSamples: 5 })).rejects.toThrow(/Euclidean MST only/);
  });
});
