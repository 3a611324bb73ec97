/**
 * Edge lengths of a tree, recomputed in float64 from the coordinates (as MiSTree measures them from its float64
 * positions): the EMST's float32 weights decide which edges form the tree, the float64 lengths are the statistic.
 * In a periodic box an edge's length is the minimum-image distance, the distance the periodic EMST minimised.
 */

/** The points the statistics are measured on: row-major float64 or float32 coordinates, n × dim. */
export interface Geometry {
  coords: Float32Array | Float64Array;
  dim: number;
  /** Periodic side lengths, one per dimension; absent for an open box. */
  box?: Float64Array;
}

/** The minimum-image component of a displacement along an axis of length `L`: d − L·round(d / L), in [−L/2, L/2]. */
export function minImage(d: number, L: number): number {
  return d - L * Math.round(d / L);
}

/** Writes into `out` the displacement from node `a` to node `b` (minimum image in a periodic box). */
export function displacement(g: Geometry, a: number, b: number, out: Float64Array): void {
  const { coords, dim, box } = g;
  for (let k = 0; k < dim; k++) {
    const d = coords[b * dim + k] - coords[a * dim + k];
    out[k] = box ? minImage(d, box[k]) : d;
  }
}

/** The float64 distance between nodes `a` and `b` (minimum image in a periodic box). */
export function distance(g: Geometry, a: number, b: number): number {
  const { coords, dim, box } = g;
  const ia = a * dim;
  const ib = b * dim;
  let s = 0;
  for (let k = 0; k < dim; k++) {
    let d = Math.abs(coords[ia + k] - coords[ib + k]);
    if (box) d = Math.abs(minImage(d, box[k]));
    s += d * d;
  }
  return Math.sqrt(s);
}

/** The length of every edge, float64, aligned with `sources`/`targets`. */
export function edgeLengths(g: Geometry, sources: Uint32Array, targets: Uint32Array): Float64Array {
  const m = sources.length;
  const out = new Float64Array(m);
  const { coords, dim, box } = g;
  if (!box && dim === 2) {
    for (let e = 0; e < m; e++) {
      const a = 2 * sources[e];
      const b = 2 * targets[e];
      const dx = coords[a] - coords[b];
      const dy = coords[a + 1] - coords[b + 1];
      out[e] = Math.sqrt(dx * dx + dy * dy);
    }
  } else if (!box && dim === 3) {
    for (let e = 0; e < m; e++) {
      const a = 3 * sources[e];
      const b = 3 * targets[e];
      const dx = coords[a] - coords[b];
      const dy = coords[a + 1] - coords[b + 1];
      const dz = coords[a + 2] - coords[b + 2];
      out[e] = Math.sqrt(dx * dx + dy * dy + dz * dz);
    }
  } else {
    for (let e = 0; e < m; e++) out[e] = distance(g, sources[e], targets[e]);
  }
  return out;
}
