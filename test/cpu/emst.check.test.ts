/**
 * checkSpanningTree(): the answer check used by tests and benchmarks must accept valid trees and catch every kind
 * of wrong answer (too few or too many edges, a cycle, unordered or repeated edges, bad endpoints or weights).
 */
import { describe, expect, it } from 'vitest';
import { assertSpanningTree, checkSpanningTree, relativeDifference } from '../../src/emst/check.js';
import { TreelineError } from '../../src/errors.js';

const tree = (edges: [number, number, number][]) => ({
  sources: Uint32Array.from(edges, (e) => e[0]),
  targets: Uint32Array.from(edges, (e) => e[1]),
  weights: Float32Array.from(edges, (e) => e[2]),
});

describe('checkSpanningTree(n, tree)', () => {
  it('accepts a canonical spanning tree, the empty trees of n = 0 and 1, and a forest when told', () => {
    const ok = checkSpanningTree(
      4,
      tree([
        [0, 1, 1],
        [1, 2, 1],
        [0, 3, 2],
      ]),
    );
    expect(ok).toEqual({ ok: true, problems: [], edges: 3, components: 1, totalWeight: 4 });
    expect(checkSpanningTree(0, tree([])).ok).toBe(true);
    expect(checkSpanningTree(1, tree([])).ok).toBe(true);
    expect(
      checkSpanningTree(
        4,
        tree([
          [0, 1, 1],
          [2, 3, 1],
        ]),
        { components: 2 },
      ).ok,
    ).toBe(true);
  });

  it('reports a missing edge, a cycle, and disorder', () => {
    expect(
      checkSpanningTree(
        4,
        tree([
          [0, 1, 1],
          [1, 2, 1],
        ]),
      ).problems.join(),
    ).toMatch(/expected n − c = 4 − 1 = 3 edges, got 2/);
    expect(
      checkSpanningTree(
        4,
        tree([
          [0, 1, 1],
          [1, 2, 1],
          [0, 2, 2],
        ]),
      ).problems.join(),
    ).toMatch(/closes a cycle/);
    expect(
      checkSpanningTree(
        4,
        tree([
          [0, 1, 1],
          [0, 3, 2],
          [1, 2, 1],
        ]),
      ).problems.join(),
    ).toMatch(/does not follow/);
    // Equal weights must be ordered by (source, target) too; a repeated edge is out of order (and a cycle).
    expect(
      checkSpanningTree(
        4,
        tree([
          [1, 2, 1],
          [0, 1, 1],
          [0, 3, 2],
        ]),
      ).problems.join(),
    ).toMatch(/does not follow/);
    expect(
      checkSpanningTree(
        3,
        tree([
          [0, 1, 1],
          [0, 1, 1],
        ]),
      ).ok,
    ).toBe(false);
  });

  it('reports bad endpoints and weights', () => {
    expect(
      checkSpanningTree(
        3,
        tree([
          [1, 0, 1],
          [1, 2, 1],
        ]),
      ).problems.join(),
    ).toMatch(/source 1 >= target 0/);
    expect(
      checkSpanningTree(
        3,
        tree([
          [0, 1, 1],
          [1, 3, 1],
        ]),
      ).problems.join(),
    ).toMatch(/names a point >= n=3/);
    expect(
      checkSpanningTree(
        3,
        tree([
          [0, 1, NaN],
          [1, 2, 1],
        ]),
      ).problems.join(),
    ).toMatch(/weight NaN/);
    expect(
      checkSpanningTree(
        3,
        tree([
          [0, 1, -1],
          [1, 2, 1],
        ]),
      ).problems.join(),
    ).toMatch(/weight -1/);
    const ragged = { ...tree([[0, 1, 1]]), weights: new Float32Array(0) };
    expect(checkSpanningTree(2, ragged).problems.join()).toMatch(/differ in length/);
  });

  it('assertSpanningTree throws a TreelineError listing the problems, else returns the total weight', () => {
    expect(
      assertSpanningTree(
        3,
        tree([
          [0, 1, 1.5],
          [1, 2, 2],
        ]),
      ),
    ).toBe(3.5);
    expect(() => assertSpanningTree(3, tree([[0, 1, 1]]))).toThrow(TreelineError);
  });

  it('relativeDifference is symmetric and 0 for two zeros', () => {
    expect(relativeDifference(0, 0)).toBe(0);
    expect(relativeDifference(1, 1.000001)).toBeCloseTo(relativeDifference(1.000001, 1), 15);
    expect(relativeDifference(100, 99)).toBeCloseTo(0.01, 12);
  });
});
