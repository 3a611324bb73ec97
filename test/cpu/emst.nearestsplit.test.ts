/**
 * Issue 19: the CPU twin of Borůvka's subtree-window traversal (src/emst/nearestsplit.cpu.ts). The roots of every
 * tree window tile the leaves exactly (each leaf under one root of its own window, every root's range inside its
 * window), and the candidates searched window by window from them equal brute force's — the least (key, min index,
 * max index) over the points of other components within the upper bound and above the scale cut — on random
 * components, upper bounds that tie with candidates, duplicates, mutual reachability and a periodic box, for window
 * sizes from 1 point to all of them.
 */
import { describe, expect, it } from 'vitest';
import { buildBvhCpu, type BvhCpu } from '../../src/bvh/lbvh.cpu.js';
import { NONE } from '../../src/bvh/layout.js';
import { subtreeMinCore2 } from '../../src/emst/nearest.cpu.js';
import {
  childLabelsCpu,
  keyBits,
  nearestSplitCpu,
  subtreeRootsCpu,
  type SplitRoundState,
} from '../../src/emst/nearestsplit.cpu.js';
import { squaredDistance } from '../../src/knn/keys.cpu.js';
import type { Window } from '../../src/gpu/bigarray.js';
import { mulberry32 } from '../helpers/random.js';

const f32 = Math.fround;
const INF_KEY = 0x7f800000;

/** n points on a coarse grid (many ties and duplicates), in a box of side `side`. */
function points(n: number, dim: number, seed: number, side = 16): Float32Array {
  const r = mulberry32(seed);
  const p = new Float32Array(n * dim);
  for (let i = 0; i < p.length; i++) p[i] = Math.floor(r() * side) / 2;
  return p;
}

const windowsOf = (n: number, step: number): Window[] =>
  Array.from({ length: Math.ceil(n / step) }, (_, w) => ({ first: w * step, count: Math.min(step, n - w * step) }));

/** A random round: components as labels (each a member's Morton position), upper bounds from real pairs or +inf. */
function randomState(
  bvh: BvhCpu,
  seed: number,
  o: { comps: number; mr?: boolean; period?: Float32Array; cut?: boolean },
) {
  const { n, dim, sortedPoints } = bvh;
  const r = mulberry32(seed);
  const rep = Array.from({ length: o.comps }, () => Math.floor(r() * n));
  const label = new Uint32Array(n);
  for (let j = 0; j < n; j++) label[j] = rep[Math.floor(r() * o.comps)];
  for (const c of rep) label[c] = c; // a label is a member's position
  let mr: SplitRoundState['mr'];
  const key = (a: number, b: number) => {
    let w = squaredDistance(sortedPoints, dim, a, b, o.period ?? null);
    if (mr) w = Math.max(mr.core2[a], mr.core2[b], f32(w * mr.ia2));
    return keyBits(w);
  };
  if (o.mr) {
    const core2 = Float32Array.from({ length: n }, () => Math.floor(r() * 8) / 4);
    const internal = subtreeMinCore2(bvh, core2);
    const minCore2 = new Float32Array(2 * n);
    for (let rec = 0; rec < n; rec++) {
      for (let side = 0; side < 2; side++) {
        const c = bvh.links[4 * rec + side];
        minCore2[2 * rec + side] = c === NONE ? 0 : c >= n - 1 ? core2[c - (n - 1)] : internal[c];
      }
    }
    mr = { core2, minCore2, ia2: f32(1 / 1.5 ** 2) };
  }
  // Upper bounds: the key of a random pair leaving the component (ties the best candidate often), else +inf.
  const ub = new Uint32Array(n).fill(INF_KEY);
  for (const c of rep) {
    const out = Array.from({ length: n }, (_, k) => k).filter((k) => label[k] !== label[c]);
    if (out.length > 0 && r() < 0.7) ub[label[c]] = key(c, out[Math.floor(r() * out.length)]);
  }
  const cut = o.cut ? key(0, n - 1) : 0;
  const state: SplitRoundState = { label, ub, childLabel: childLabelsCpu(bvh, label), cut, mr, period: o.period };
  return { state, key };
}

/** The least (key, lo, hi) candidate of every point by brute force. */
function brute(bvh: BvhCpu, s: SplitRoundState, key: (a: number, b: number) => number) {
  const { n, order } = bvh;
  const best = { key: new Uint32Array(n).fill(NONE), other: new Uint32Array(n).fill(NONE) };
  for (let j = 0; j < n; j++) {
    let bk = NONE;
    let blo = NONE;
    let bhi = NONE;
    for (let k = 0; k < n; k++) {
      if (s.label[k] === s.label[j]) continue;
      const kk = key(j, k);
      if (kk < s.cut || kk > s.ub[s.label[j]]) continue;
      const lo = Math.min(order[j], order[k]);
      const hi = Math.max(order[j], order[k]);
      if (kk < bk || (kk === bk && (lo < blo || (lo === blo && hi < bhi)))) {
        bk = kk;
        blo = lo;
        bhi = hi;
        best.key[j] = kk;
        best.other[j] = k;
      }
    }
  }
  return best;
}

describe('subtreeRootsCpu', () => {
  it.each([
    [2, 1],
    [2, 2],
    [3, 1],
    [37, 4],
    [200, 7],
    [200, 64],
    [513, 256],
    [100, 100],
    [100, 1000],
  ])('n=%i, windows of %i: every leaf lies under exactly one root, inside its window', (n, step) => {
    const bvh = buildBvhCpu(points(n, 3, n + step), 3);
    const roots = subtreeRootsCpu(n, bvh.links, bvh.ranges, step);
    expect(roots.length).toBe(Math.ceil(n / step));
    const covered = new Uint32Array(n);
    roots.forEach((list, w) => {
      expect(list.length).toBeGreaterThan(0);
      expect(list.length).toBeLessThanOrEqual(2 * 96);
      for (const c of list) {
        const [a, b] = c >= n - 1 ? [c - (n - 1), c - (n - 1)] : [bvh.ranges[2 * c], bvh.ranges[2 * c + 1]];
        expect(Math.floor(a / step)).toBe(w);
        expect(Math.floor(b / step)).toBe(w);
        // Its internal nodes' records lie in the window too (Karras: node indices within the range).
        if (c < n - 1) expect(c >= a && c <= b).toBe(true);
        for (let p = a; p <= b; p++) covered[p]++;
      }
    });
    expect(Array.from(covered).every((x) => x === 1)).toBe(true);
  });
});

describe('nearestSplitCpu', () => {
  it.each([
    ['2 points', 2, 2, 2, {}],
    ['3 points, one per window', 3, 3, 1, {}],
    ['2D', 300, 2, 37, {}],
    ['3D, windows of 1', 120, 3, 1, {}],
    ['3D', 400, 3, 64, {}],
    ['3D, one window', 400, 3, 400, {}],
    ['3D, mutual reachability', 300, 3, 50, { mr: true }],
    ['3D, scale cut', 300, 3, 50, { cut: true }],
    ['3D, periodic', 300, 3, 45, { period: Float32Array.of(8, 8, 8) }],
    ['5D', 200, 5, 30, {}],
  ] as [string, number, number, number, { mr?: boolean; cut?: boolean; period?: Float32Array }][])(
    '%s (n=%i d=%i, windows of %i): brute force',
    (_, n, dim, step, o) => {
      const bvh = buildBvhCpu(points(n, dim, 7 * n + dim), dim);
      for (const comps of [1, 2, 5, Math.max(1, n >> 2), n]) {
        const { state, key } = randomState(bvh, n + comps, { comps: Math.min(comps, n), ...o });
        const got = nearestSplitCpu(bvh, state, windowsOf(n, step));
        const want = brute(bvh, state, key);
        expect(Array.from(got.key), `${comps} components`).toEqual(Array.from(want.key));
        expect(Array.from(got.other), `${comps} components`).toEqual(Array.from(want.other));
      }
    },
  );
});

// Exact duplicates (issue 19's note): every copy of a point at key 0 looked for the least other index among all its
// copies, and no box bound prunes at radius 0, so the traversal visited every copy — quadratic in the copies (GPU,
// lavapipe: 32,000 equal 3D points 24.6–35.5 s). A subtree whose box is one point is now one candidate, its least-index
// leaf outside the query's component (emst/traverse.wgsl and nearest_split.wgsl: equal_leaf); the count of leaf keys
// computed shows it, and brute force that the candidates did not change.
describe('nearestSplitCpu on exact duplicates', () => {
  /** n points at `positions` distinct places (0: all at the origin), shuffled. */
  const copies = (n: number, dim: number, positions: number, seed: number) => {
    const r = mulberry32(seed);
    const at = Array.from({ length: Math.max(positions, 1) * dim }, () => (positions === 0 ? 0 : f32(r() * 4)));
    const p = new Float32Array(n * dim);
    for (let i = 0; i < n; i++) {
      const g = Math.floor(r() * Math.max(positions, 1));
      for (let k = 0; k < dim; k++) p[i * dim + k] = at[g * dim + k];
    }
    return p;
  };
  /** Borůvka's state when every point is its own component (round 1) or every group of copies is one (round 2). */
  const roundState = (bvh: BvhCpu, round: 1 | 2): SplitRoundState => {
    const { n, dim, sortedPoints } = bvh;
    const label = new Uint32Array(n);
    for (let j = 0; j < n; j++) {
      const same =
        round === 2 &&
        j > 0 &&
        sortedPoints.subarray(j * dim, j * dim + dim).every((x, k) => x === sortedPoints[(j - 1) * dim + k]);
      label[j] = same ? label[j - 1] : j;
    }
    // Upper bounds: the least key between Morton neighbours in different components (emst/upperbounds.wgsl's).
    const ub = new Uint32Array(n).fill(INF_KEY);
    for (let j = 0; j + 1 < n; j++) {
      if (label[j] === label[j + 1]) continue;
      const k = keyBits(squaredDistance(sortedPoints, dim, j, j + 1, null));
      ub[label[j]] = Math.min(ub[label[j]], k);
      ub[label[j + 1]] = Math.min(ub[label[j + 1]], k);
    }
    return { label, ub, childLabel: childLabelsCpu(bvh, label), cut: 0 };
  };
  const bruteKey = (bvh: BvhCpu) => (a: number, b: number) =>
    keyBits(squaredDistance(bvh.sortedPoints, bvh.dim, a, b, null));

  it.each([
    ['all equal, 3D', 2000, 3, 0, 1],
    ['all equal, 2D', 1999, 2, 0, 1],
    ['8 places, 3D, round 1', 2000, 3, 8, 1],
    ['8 places, 3D, round 2', 2000, 3, 8, 2],
    ['5 places, 2D, round 2', 1501, 2, 5, 2],
  ] as [string, number, number, number, 1 | 2][])(
    '%s (n=%i): brute force, and a few leaf keys per point (was every copy)',
    (_, n, dim, positions, round) => {
      const bvh = buildBvhCpu(copies(n, dim, positions, n + dim), dim);
      const state = roundState(bvh, round);
      const stats = { leaves: 0, equalSubtrees: 0 };
      const got = nearestSplitCpu(bvh, state, windowsOf(n, n), stats);
      const want = brute(bvh, state, bruteKey(bvh));
      expect(Array.from(got.key)).toEqual(Array.from(want.key));
      expect(Array.from(got.other)).toEqual(Array.from(want.other));
      expect(stats.equalSubtrees).toBeGreaterThan(0);
      // With equal_leaf 1–2 a point (4000, 2000, 2750, 1501 here); without it every copy: 3,998,000 and 3,994,002 all
      // equal, 499,914 and 725,249 at 8 places (rounds 1, 2), 468,213 at 5.
      expect(stats.leaves).toBeLessThanOrEqual(16 * n);
    },
  );

  it.each([
    ['3D, windows of 64', 600, 3, 64, {}],
    ['2D, windows of 7', 300, 2, 7, {}],
    ['3D, mutual reachability', 400, 3, 50, { mr: true }],
    ['3D, scale cut', 400, 3, 50, { cut: true }],
    ['3D, periodic', 300, 3, 45, { period: Float32Array.of(2, 2, 2) }],
  ] as [string, number, number, number, { mr?: boolean; cut?: boolean; period?: Float32Array }][])(
    'a few places (%s, n=%i): brute force under random components',
    (_, n, dim, step, o) => {
      const bvh = buildBvhCpu(points(n, dim, 3 * n + dim, 4), dim);
      for (const comps of [1, 2, 5, n >> 2, n]) {
        const { state, key } = randomState(bvh, 5 * n + comps, { comps, ...o });
        const got = nearestSplitCpu(bvh, state, windowsOf(n, step));
        const want = brute(bvh, state, key);
        expect(Array.from(got.key), `${comps} components`).toEqual(Array.from(want.key));
        expect(Array.from(got.other), `${comps} components`).toEqual(Array.from(want.other));
      }
    },
  );
});
