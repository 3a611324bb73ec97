/**
 * An independent 2D EMST oracle: the Euclidean MST is a subgraph of every Delaunay triangulation (Shamos & Hoey
 * 1975), so Kruskal over the triangulation's edges gives an EMST. d3-delaunay (Delaunator, robust orientation
 * predicates) triangulates; weights and sums are float64 from the float32 coordinates.
 *
 * Degenerate inputs: exact duplicates are joined to their first copy at weight 0 and triangulated once; when no
 * triangle exists (fewer than 3 distinct points, or all collinear) consecutive points along the line, in (x, y)
 * order, are the edges.
 * Ties may be broken differently from treeline's canonical order, so compare total weights, not edge lists.
 */
import { Delaunay } from 'd3-delaunay';
import { UnionFind } from '../../src/unionfind/unionfind.cpu.js';

export interface DelaunayEmst {
  sources: Uint32Array;
  targets: Uint32Array;
  /** float64 weights, ascending. */
  weights: Float64Array;
  /** Sum of the weights (float64). */
  totalWeight: number;
}

/** The EMST of row-major 2D `points` by Delaunay + Kruskal. */
export function delaunayEmst(points: Float32Array | Float64Array): DelaunayEmst {
  const n = points.length >> 1;
  const a: number[] = [];
  const b: number[] = [];
  // Exact duplicates: sort by (x, y), keep the first index of each run, join the others to it at weight 0.
  const byXY = Array.from({ length: n }, (_, i) => i).sort(
    (i, j) => points[2 * i] - points[2 * j] || points[2 * i + 1] - points[2 * j + 1] || i - j,
  );
  const unique: number[] = [];
  for (let r = 0; r < n; r++) {
    const i = byXY[r];
    const prev = unique[unique.length - 1];
    if (r > 0 && points[2 * i] === points[2 * prev] && points[2 * i + 1] === points[2 * prev + 1]) {
      a.push(prev);
      b.push(i);
    } else unique.push(i);
  }
  const coords = new Float64Array(2 * unique.length);
  unique.forEach((i, r) => {
    coords[2 * r] = points[2 * i];
    coords[2 * r + 1] = points[2 * i + 1];
  });
  const delaunay = unique.length >= 3 ? new Delaunay(coords) : null;
  // d3-delaunay triangulates collinear input after perturbing it and flags it with `collinear`.
  if (delaunay === null || (delaunay as { collinear?: Int32Array }).collinear !== undefined) {
    // No triangle: the unique points lie on a line, and (x, y) order is the order along it.
    for (let r = 1; r < unique.length; r++) {
      a.push(unique[r - 1]);
      b.push(unique[r]);
    }
  } else {
    const { triangles, halfedges } = delaunay;
    for (let e = 0; e < triangles.length; e++) {
      if (halfedges[e] > e) continue; // each interior edge once; hull edges have halfedge −1
      const next = e % 3 === 2 ? e - 2 : e + 1;
      a.push(unique[triangles[e]]);
      b.push(unique[triangles[next]]);
    }
  }
  return kruskal(points, n, a, b);
}

function kruskal(points: ArrayLike<number>, n: number, a: number[], b: number[]): DelaunayEmst {
  const w = a.map((u, e) => {
    const dx = points[2 * u] - points[2 * b[e]];
    const dy = points[2 * u + 1] - points[2 * b[e] + 1];
    return Math.sqrt(dx * dx + dy * dy);
  });
  const byWeight = Array.from({ length: a.length }, (_, e) => e).sort((e, f) => w[e] - w[f]);
  const uf = new UnionFind(n);
  const s: number[] = [];
  const t: number[] = [];
  const ws: number[] = [];
  let total = 0;
  for (const e of byWeight) {
    if (!uf.union(a[e], b[e])) continue;
    s.push(Math.min(a[e], b[e]));
    t.push(Math.max(a[e], b[e]));
    ws.push(w[e]);
    total += w[e];
  }
  return {
    sources: Uint32Array.from(s),
    targets: Uint32Array.from(t),
    weights: Float64Array.from(ws),
    totalWeight: total,
  };
}
