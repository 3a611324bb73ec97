/** The canonical edge order on the host: sortEqualWeightRuns (after the GPU's sort by key) against sortEdgesCanonical. */
import { describe, expect, it } from 'vitest';
import {
  mergeCanonical,
  sortEdgesCanonical,
  sortEqualWeightRuns,
  sortEqualWeightRunsFrom,
  type EdgeList,
} from '../../src/emst/edges.cpu.js';
import { mulberry32 } from '../helpers/random.js';

function randomEdges(m: number, distinctWeights: number, seed: number): EdgeList {
  const r = mulberry32(seed);
  const e: EdgeList = { sources: new Uint32Array(m), targets: new Uint32Array(m), weights: new Float32Array(m) };
  for (let i = 0; i < m; i++) {
    const a = Math.floor(r() * 50);
    const b = a + 1 + Math.floor(r() * 50);
    e.sources[i] = a;
    e.targets[i] = b;
    e.weights[i] = Math.fround(Math.floor(r() * distinctWeights) / 7);
  }
  return e;
}

describe('sortEqualWeightRuns(edges sorted by weight)', () => {
  it.each([
    [1000, 1000],
    [1000, 10],
    [5000, 1],
    [100000, 2],
    [20, 3],
    [0, 1],
  ])("m=%i with %i distinct weights gives sortEdgesCanonical's order", (m, distinct) => {
    const input = randomEdges(m, distinct, m + distinct);
    const want = sortEdgesCanonical(input);
    // Sorted by weight only, in an arbitrary order within each run (what a GPU sort by (key, min) can leave).
    const perm = Array.from({ length: m }, (_, i) => i).sort(
      (x, y) => input.weights[x] - input.weights[y] || ((x * 7919) % 13) - ((y * 7919) % 13),
    );
    const got: EdgeList = {
      sources: Uint32Array.from(perm, (i) => input.sources[i]),
      targets: Uint32Array.from(perm, (i) => input.targets[i]),
      weights: Float32Array.from(perm, (i) => input.weights[i]),
    };
    const copy = (): EdgeList => ({
      sources: got.sources.slice(),
      targets: got.targets.slice(),
      weights: got.weights.slice(),
    });
    // In ranges that cut runs anywhere (as the read-back's threads do, readback.threads.ts), in any order.
    const ranged = copy();
    const cuts = [0, Math.floor(m / 3), Math.floor(m / 3) + 1, Math.floor((2 * m) / 3), m];
    for (let j = cuts.length - 2; j >= 0; j--) sortEqualWeightRunsFrom(ranged, cuts[j], cuts[j + 1]);
    sortEqualWeightRuns(got);
    expect(Array.from(got.sources)).toEqual(Array.from(want.sources));
    expect(Array.from(got.targets)).toEqual(Array.from(want.targets));
    expect(Array.from(got.weights)).toEqual(Array.from(want.weights));
    expect(Array.from(ranged.sources)).toEqual(Array.from(want.sources));
    expect(Array.from(ranged.targets)).toEqual(Array.from(want.targets));
  });
});

describe('mergeCanonical(a, b) of two sorted halves', () => {
  it.each([
    [1000, 1000, 500],
    [3000, 7, 1000],
    [5000, 1, 4999],
    [10, 3, 0],
  ])(
    "m=%i with %i distinct weights, split at %i, gives sortEdgesCanonical's order (and the sort writes into given arrays)",
    (m, distinct, at) => {
      const input = randomEdges(m, distinct, 3 * m + distinct);
      const part = (a: number, b: number): EdgeList => ({
        sources: input.sources.slice(a, b),
        targets: input.targets.slice(a, b),
        weights: input.weights.slice(a, b),
      });
      const into: EdgeList = {
        sources: new Uint32Array(m - at),
        targets: new Uint32Array(m - at),
        weights: new Float32Array(m - at),
      };
      expect(sortEdgesCanonical(part(at, m), into)).toBe(into);
      const got = mergeCanonical(sortEdgesCanonical(part(0, at)), into);
      const want = sortEdgesCanonical(input);
      expect([Array.from(got.sources), Array.from(got.targets), Array.from(got.weights)]).toEqual([
        Array.from(want.sources),
        Array.from(want.targets),
        Array.from(want.weights),
      ]);
    },
  );
});
