/**
 * ExemplarCollector (src/cluster/exemplars.ts): hits grown past the first capacity, handed over as offers and as
 * typed arrays (addHits), and labels whose leaves hold non-consecutive ranks (nested selections), which get a copy
 * rather than a view — against a direct recomputation from the offers.
 */
import { describe, expect, it } from 'vitest';
import { ExemplarCollector } from '../../src/cluster/exemplars.js';
import { mulberry32 } from '../helpers/random.js';

// Clusters: 0 the root with children 1, 2; 1 with children 3, 4 (firstChild[c] = f: children f and f + 1).
const firstChild = Int32Array.from([1, 3, -1, -1, -1]);
const maxLambda = Float64Array.from([1, 2, 3, 4, 5]);
/** The leaves under cluster c, depth-first, first child first. */
function leavesOf(c: number): number[] {
  const f = firstChild[c];
  return f < 0 ? [c] : [...leavesOf(f), ...leavesOf(f + 1)];
}

function check(selected: number[], hits: number, viaArrays: boolean, seed: number): void {
  const n = 5000;
  const random = mulberry32(seed);
  const collector = new ExemplarCollector(firstChild, maxLambda, Int32Array.from(selected), n);
  const offers: [number, number, number][] = [];
  for (let h = 0; h < hits; h++) {
    const c = Math.floor(random() * 5);
    const lam = random() < 0.8 ? maxLambda[c] : maxLambda[c] / 2; // some offers below the leaf's largest λ
    offers.push([c, Math.floor(random() * n), lam]);
  }
  if (!viaArrays) for (const [c, x, lam] of offers) collector.offer(c, x, lam);
  else {
    // In chunks, as the labelling's threads hand them back (tested hits only).
    const kept = offers.filter(([c, , lam]) => collector.rankOf[c] >= 0 && lam === maxLambda[c]);
    for (let at = 0; at < kept.length; at += 777) {
      const chunk = kept.slice(at, at + 777);
      collector.addHits(
        Uint32Array.from(chunk, ([, x]) => x),
        Uint32Array.from(chunk, ([c]) => collector.rankOf[c]),
      );
    }
  }
  const got = collector.result();
  expect(got.length).toBe(selected.length);
  selected.forEach((top, label) => {
    const want = leavesOf(top).flatMap((leaf) =>
      offers.filter(([c, , lam]) => c === leaf && lam === maxLambda[c]).map(([, x]) => x),
    );
    expect(Array.from(got[label]), `label ${label}`).toEqual(want);
  });
}

describe('ExemplarCollector', () => {
  it('grows past its first capacity (offers and arrays), labels as views', () => {
    check([1, 2], 6000, false, 1);
    check([1, 2], 6000, true, 2);
  });
  it('nested selections: a leaf under two labels, non-consecutive ranks copied', () => {
    check([4, 1], 3000, false, 3); // label 1's leaves 3, 4 hold ranks 1, 0
    check([3, 1, 2], 3000, true, 4);
  });
  it('no hits, no labels', () => {
    check([], 10, false, 5);
    check([2], 0, true, 6);
  });
});
