/**
 * mstStats() on tiny hand-made trees whose statistics are worked out by hand: a path, a star, a tree with three
 * branches, n = 0, 1, 2, duplicate points, RA/Dec on the unit sphere (s > 1) and with distances, periodic boxes
 * (edges across faces, a branch longer than half the box), and bad input.
 */
import { describe, expect, it } from 'vitest';
import { AbortError, InputError } from '../../src/errors.js';
import { mstStats } from '../../src/stats/mstStats.js';

const f64 = (a: number[]) => Float64Array.from(a);
const u32 = (a: number[]) => Uint32Array.from(a);
const tree = (edges: [number, number][]) => ({
  sources: u32(edges.map((e) => e[0])),
  targets: u32(edges.map((e) => e[1])),
});
const sorted = (a: ArrayLike<number>) => Array.from(a).sort((x, y) => x - y);

describe('mstStats on hand-made trees', () => {
  it('mstStats(path) — one branch: length 6, 3 edges, straight (s = 1)', async () => {
    // 0 — 1 — 2 — 3 on a line at x = 0, 1, 3, 6: the EMST is the path.
    const r = await mstStats(f64([0, 0, 1, 0, 3, 0, 6, 0]), { dim: 2, backend: 'cpu' });
    expect(Array.from(r.degree)).toEqual([1, 2, 2, 1]);
    expect(sorted(r.edgeLengths)).toEqual([1, 2, 3]);
    expect(Array.from(r.branchLengths)).toEqual([6]);
    expect(Array.from(r.branchEdgeCounts)).toEqual([3]);
    expect(Array.from(r.branchShapes)).toEqual([1]);
    expect(sorted(r.branchEnds)).toEqual([0, 3]);
    // √(1 − 1) = 0 lands in the first of 50 bins of width 0.02: density 1 / 0.02 = 50.
    expect(r.histograms.branchShape.counts[0]).toBe(1);
    expect(r.histograms.branchShape.y[0]).toBeCloseTo(50, 12);
  });

  it('mstStats(bent path) — s = end-to-end / length', async () => {
    // (0,0) — (3,0) — (3,4): length 7, end to end 5.
    const r = await mstStats(f64([0, 0, 3, 0, 3, 4]), { dim: 2, backend: 'cpu' });
    expect(Array.from(r.branchLengths)).toEqual([7]);
    expect(r.branchShapes[0]).toBe(5 / 7);
    expect(r.branchEndToEnd[0]).toBe(5);
  });

  it('mstStats(star) — centre degree 4, no branches (every edge joins nodes of degree ≠ 2)', async () => {
    const r = await mstStats(f64([0, 0, 1, 0, -1, 0, 0, 1, 0, -1]), { dim: 2, backend: 'cpu' });
    expect(Array.from(r.degree)).toEqual([4, 1, 1, 1, 1]);
    expect(Array.from(r.edgeLengths)).toEqual([1, 1, 1, 1]);
    expect(r.branchLengths.length).toBe(0);
    // Degree histogram: 4 nodes of degree 1, 1 of degree 4, over unit bins → y = [0.8, 0, 0, 0.2, 0, 0].
    expect(Array.from(r.histograms.degree.x)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(Array.from(r.histograms.degree.y)).toEqual([0.8, 0, 0, 0.2, 0, 0]);
    expect(Array.from(r.histograms.branchShape.y).every((y) => y === 0)).toBe(true);
  });

  it('mstStats(tree with three branches) — lengths, counts, shapes and ends by hand', async () => {
    //            4 (1,2)
    //           /
    //      3 (0,1)
    //         |
    // 5 — 0 (0,0) — 1 (1,0) — 2 (2,0)
    //         |
    //      6 (0,-1)
    //         |
    //      7 (0,-2)
    //      /      \
    // 8 (-1,-3)  9 (1,-3)
    const pts = f64([0, 0, 1, 0, 2, 0, 0, 1, 1, 2, -1, 0, 0, -1, 0, -2, -1, -3, 1, -3]);
    const edges: [number, number][] = [
      [0, 1],
      [1, 2],
      [0, 3],
      [3, 4],
      [0, 5],
      [0, 6],
      [6, 7],
      [7, 8],
      [7, 9],
    ];
    const r = await mstStats(pts, { dim: 2, emst: tree(edges) });
    expect(Array.from(r.degree)).toEqual([4, 2, 1, 2, 1, 1, 2, 3, 1, 1]);
    // Branches: 0-1-2 (length 2, straight), 0-3-4 (1 + √2, end to end √5), 0-6-7 (length 2, straight, ends 0 and 7).
    expect(r.branchLengths.length).toBe(3);
    expect(Array.from(r.branchEdgeCounts)).toEqual([2, 2, 2]);
    expect(sorted(r.branchLengths)).toEqual(sorted([2, 1 + Math.SQRT2, 2]));
    const i = Array.from(r.branchLengths).indexOf(1 + Math.SQRT2);
    expect(r.branchShapes[i]).toBeCloseTo(Math.sqrt(5) / (1 + Math.SQRT2), 15);
    const ends = [0, 1, 2].map((b) => sorted([r.branchEnds[2 * b], r.branchEnds[2 * b + 1]]).join('-')).sort();
    expect(ends).toEqual(['0-2', '0-4', '0-7']);
  });

  it('mstStats with n = 0, 1 and 2: valid empty statistics, no branch', async () => {
    const empty = await mstStats(new Float32Array(0), { dim: 3, backend: 'cpu' });
    expect(empty.n).toBe(0);
    expect(empty.degree.length + empty.edgeLengths.length + empty.branchLengths.length).toBe(0);
    // No values: l and b keep 100 bins on the default range [0, 1]; y is all zeros.
    expect(empty.histograms.edgeLength.edges[100]).toBe(1);
    expect(Array.from(empty.histograms.edgeLength.y).every((y) => y === 0)).toBe(true);

    const one = await mstStats(f64([1, 2]), { dim: 2, backend: 'cpu' });
    expect(Array.from(one.degree)).toEqual([0]);
    expect(one.edgeLengths.length).toBe(0);
    expect(Array.from(one.histograms.degree.counts)).toEqual([0, 0, 0, 0, 0, 0]); // degree 0 is below 0.5

    const two = await mstStats(f64([0, 0, 3, 4]), { dim: 2, backend: 'cpu' });
    expect(Array.from(two.degree)).toEqual([1, 1]);
    expect(Array.from(two.edgeLengths)).toEqual([5]);
    expect(two.branchLengths.length).toBe(0);
    // l = 5 sits in bin 95 of 100 on [0, 5.25].
    expect(two.histograms.edgeLength.counts[95]).toBe(1);
  });

  it('mstStats(duplicates) — zero lengths; the branch of length 0 has shape NaN (as MiSTree: 0/0), in no bin', async () => {
    const r = await mstStats(f64([1, 1, 1, 1, 1, 1]), { dim: 2, backend: 'cpu' });
    expect(Array.from(r.degree).sort()).toEqual([1, 1, 2]);
    expect(Array.from(r.edgeLengths)).toEqual([0, 0]);
    expect(Array.from(r.branchLengths)).toEqual([0]);
    expect(Number.isNaN(r.branchShapes[0])).toBe(true);
    // max l = 0: the default range falls back to [0, 1]; both zeros land in bin 0 (density 1 / 0.01 = 100).
    expect(r.histograms.edgeLength.counts[0]).toBe(2);
    expect(r.histograms.edgeLength.y[0]).toBeCloseTo(100, 10);
    expect(r.histograms.branchShape.counts.reduce((s, c) => s + c, 0)).toBe(0);
  });
});

describe('mstStats with coords: radec', () => {
  it('unit sphere: chords for l and b, the end-to-end chord as an angle, so s > 1', async () => {
    // RA 0, 45, 90 on the equator: two chords of 2·sin(22.5°); ends π/2 apart.
    const r = await mstStats(f64([0, 0, 45, 0, 90, 0]), { dim: 2, coords: 'radec', backend: 'cpu' });
    const chord = 2 * Math.sin(Math.PI / 8);
    for (const l of r.edgeLengths) expect(l).toBeCloseTo(chord, 14);
    expect(r.branchLengths[0]).toBeCloseTo(2 * chord, 14);
    expect(r.branchEndToEnd[0]).toBeCloseTo(Math.PI / 2, 14);
    expect(r.branchShapes[0]).toBeCloseTo(Math.PI / 2 / (2 * chord), 14);
    expect(r.branchShapes[0]).toBeGreaterThan(1);
    expect(r.histograms.branchShape.counts.reduce((s, c) => s + c, 0)).toBe(0); // √(1 − s) is NaN
  });

  it('with a distance column: distance × unit vector, ordinary 3D lengths and straight-line shape', async () => {
    // Dec 90 (the pole) at distances 1, 2, 4: a straight radial line.
    const r = await mstStats(f64([10, 90, 1, 200, 90, 2, 300, 90, 4]), { dim: 3, coords: 'radec', backend: 'cpu' });
    expect(sorted(r.edgeLengths).map((l) => +l.toFixed(12))).toEqual([1, 2]);
    expect(r.branchShapes[0]).toBeCloseTo(1, 12);
  });

  it('rejects a Dec outside [−90, 90] and a box', async () => {
    await expect(mstStats(f64([0, 91]), { dim: 2, coords: 'radec' })).rejects.toThrow(
      /Dec within \[−90, 90\].*91 at row 0/,
    );
    await expect(mstStats(f64([0, 0]), { dim: 2, coords: 'radec', box: [1, 1] })).rejects.toThrow(InputError);
  });
});

describe('mstStats in a periodic box', () => {
  // On x in a box of side 10: 0.5, 2.5, 4.5, 6.5, 8.0. Gaps 2, 2, 2, 1.5 and 2.5 across the face: the tree is the
  // path 0.5 → 8.0 (length 7.5). Its ends are 2.5 apart by minimum image, but the chain walks 7.5 without turning.
  const xs = [0.5, 2.5, 4.5, 6.5, 8.0];
  const pts = f64(xs.flatMap((x) => [x, 5]));
  const path = tree([
    [0, 1],
    [1, 2],
    [2, 3],
    [3, 4],
  ]);

  it('a branch longer than half the box is measured unwrapped: s = 1, not 2.5 / 7.5', async () => {
    const r = await mstStats(pts, { dim: 2, box: [10, 10], emst: path });
    expect(Array.from(r.branchLengths)).toEqual([7.5]);
    expect(r.branchEndToEnd[0]).toBe(7.5);
    expect(r.branchShapes[0]).toBe(1);
  });

  it('edges across a face have their minimum-image length; the computed periodic EMST wraps', async () => {
    // 9.5 and 0.5 are 1 apart across the face x = 10; 1.5 one further on.
    const p = f64([9.5, 5, 0.5, 5, 1.5, 5.5]);
    const r = await mstStats(p, { dim: 2, box: [10, 10], backend: 'cpu' });
    expect(sorted(r.edgeLengths).map((l) => +l.toFixed(12))).toEqual([1, +Math.sqrt(1.25).toFixed(12)]);
    expect(r.branchEndToEnd[0]).toBeCloseTo(Math.hypot(2, 0.5), 12);
    const open = await mstStats(p, { dim: 2, backend: 'cpu' });
    expect(sorted(open.edgeLengths)[1]).toBe(Math.hypot(8, 0.5)); // open box: 1.5 → 9.5, not across the face
  });

  it('points far from every face: the same statistics as the open box', async () => {
    const inner = Float64Array.from(
      { length: 3 * 300 },
      (_, i) => 40 + 20 * Math.abs((Math.sin(i * 12.9898) * 43758.5453) % 1),
    );
    const open = await mstStats(inner, { dim: 3, backend: 'cpu' });
    const torus = await mstStats(inner, { dim: 3, box: [100, 100, 100], backend: 'cpu' });
    expect(Array.from(torus.degree)).toEqual(Array.from(open.degree));
    expect(Array.from(torus.edgeLengths)).toEqual(Array.from(open.edgeLengths));
    expect(Array.from(torus.branchShapes)).toEqual(Array.from(open.branchShapes));
  });

  it('rejects a box of the wrong length or a non-positive side', async () => {
    await expect(mstStats(pts, { dim: 2, box: [10] })).rejects.toThrow(/2 side lengths/);
    await expect(mstStats(pts, { dim: 2, box: [10, 0] })).rejects.toThrow(/finite and > 0, got 0 at index 1/);
  });
});

describe('mstStats input validation', () => {
  it('throws InputError naming the value', async () => {
    await expect(mstStats([1, 2] as unknown as Float64Array, { dim: 2 })).rejects.toThrow(
      /Float32Array or Float64Array/,
    );
    await expect(mstStats(f64([1, 2, 3]), { dim: 2 })).rejects.toThrow(/multiple of dim=2, got 3/);
    await expect(mstStats(f64([1, NaN]), { dim: 2 })).rejects.toThrow(/NaN at row 0, column 1/);
    await expect(mstStats(f64([1, 2]), { dim: 2, coords: 'polar' as 'radec' })).rejects.toThrow(
      /'cartesian' or 'radec', got polar/,
    );
    await expect(mstStats(f64([1, 2]), { dim: 2, minEdgeLength: -1 })).rejects.toThrow(/minEdgeLength.*got -1/);
    await expect(mstStats(f64([0, 0, 1, 1]), { dim: 2, bins: { edgeLength: { count: 0 } } })).rejects.toThrow(
      /count: expected an integer ≥ 1, got 0/,
    );
    await expect(mstStats(f64([0, 0, 1, 1]), { dim: 2, bins: { degree: [1, 1] } })).rejects.toThrow(
      /strictly increasing/,
    );
    await expect(mstStats(f64([0, 0, 1, 1]), { dim: 2, bins: { edgeLength: { min: 2, max: 1 } } })).rejects.toThrow(
      /min < max, got min=2, max=1/,
    );
    await expect(mstStats(f64([0, 0, 1, 1]), { dim: 2, bins: { length: [0, 1] } as never })).rejects.toThrow(
      /unknown statistic 'length'/,
    );
    await expect(mstStats(f64([0, 0, 1, 1]), { dim: 2, arrays: 1 as never })).rejects.toThrow(
      /arrays to be a boolean, got 1/,
    );
  });

  it('issue 17: arrays: false — the same histograms and counts, the per-item arrays empty', async () => {
    const p = f64([0, 0, 1, 0, 2, 0.5, 3, 0, 1, 1, 1, 2, 5, 5, 5, 6]);
    const full = await mstStats(p, { dim: 2, backend: 'cpu' });
    const lean = await mstStats(p, { dim: 2, backend: 'cpu', arrays: false });
    expect([lean.numEdges, lean.numBranches]).toEqual([7, full.branchLengths.length]);
    expect(full.numBranches).toBeGreaterThan(0);
    expect(lean.histograms).toEqual(full.histograms);
    expect([lean.degree.length, lean.edgeSources.length, lean.branchEnds.length]).toEqual([0, 0, 0]);
  });

  it('checks a given tree: node range, self-loops, cycles, lengths', async () => {
    const p = f64([0, 0, 1, 0, 2, 0]);
    await expect(mstStats(p, { dim: 2, emst: tree([[0, 3]]) })).rejects.toThrow(
      /edge 0 joins 0 and 3, but there are n=3/,
    );
    await expect(mstStats(p, { dim: 2, emst: tree([[1, 1]]) })).rejects.toThrow(/self-loop at node 1/);
    await expect(
      mstStats(p, {
        dim: 2,
        emst: tree([
          [0, 1],
          [1, 0],
        ]),
      }),
    ).rejects.toThrow(/closes a cycle/);
    await expect(mstStats(p, { dim: 2, emst: { sources: u32([0]), targets: u32([]) } })).rejects.toThrow(
      /equal length/,
    );
    await expect(mstStats(p, { dim: 2, emst: tree([[0, 1]]), minEdgeLength: 1 })).rejects.toThrow(
      /cannot apply to a given emst/,
    );
  });

  it("minEdgeLength (MiSTree's scale cut): pairs closer than it are not joined", async () => {
    // x = 0, 1, 3, 6 with a cut of 1.5: the pair 0–1 (1) is no edge, so the tree is 1–2 (2), 0–2 (3), 2–3 (3).
    const r = await mstStats(f64([0, 0, 1, 0, 3, 0, 6, 0]), { dim: 2, minEdgeLength: 1.5, backend: 'cpu' });
    expect(sorted(r.edgeLengths)).toEqual([2, 3, 3]);
    expect(Array.from(r.degree)).toEqual([1, 1, 3, 1]);
    expect(r.branchLengths.length).toBe(0);
    // Two clumps of duplicates 10 apart: every pair inside a clump is cut, so only cross pairs remain (a forest
    // would need isolated points; here each point reaches the other clump).
    const clumps = await mstStats(f64([0, 0, 0, 0, 10, 0, 10, 0]), { dim: 2, minEdgeLength: 1, backend: 'cpu' });
    expect(Array.from(clumps.edgeLengths)).toEqual([10, 10, 10]);
    // Every pair closer than the cut: no edge at all, every degree 0.
    const none = await mstStats(f64([0, 0, 0.5, 0, 0.2, 0]), { dim: 2, minEdgeLength: 1, backend: 'cpu' });
    expect(none.edgeLengths.length).toBe(0);
    expect(Array.from(none.degree)).toEqual([0, 0, 0]);
  });

  it('an aborted signal rejects with AbortError', async () => {
    const c = new AbortController();
    c.abort();
    await expect(mstStats(f64([0, 0, 1, 1]), { dim: 2, backend: 'cpu', signal: c.signal })).rejects.toThrow(AbortError);
  });

  it('a forest: isolated nodes have degree 0 and branches stop at components', async () => {
    const p = f64([0, 0, 1, 0, 2, 0, 10, 0, 11, 0]);
    const r = await mstStats(p, {
      dim: 2,
      emst: tree([
        [0, 1],
        [1, 2],
      ]),
    });
    expect(Array.from(r.degree)).toEqual([1, 2, 1, 0, 0]);
    expect(Array.from(r.branchLengths)).toEqual([2]);
  });
});
