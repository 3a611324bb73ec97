/**
 * Soft clustering's distance part on the CPU: each point's distance to the nearest exemplar of every selected
 * cluster (hdbscan's `dist_membership_vector`, `_prediction_utils.pyx`), in two precisions:
 *
 * - `nearestExemplarDistances`: float64, as hdbscan computes it (the CPU backend's path; golden within 2.2e-16);
 * - `exemplarDistanceTable`: the GPU kernel's twin (exemplars.distance.ts), the smallest SQUARED distance in f32,
 *   every square and addition rounded to f32 in axis order (add_square() of shaders/knn/distance.wgsl, as
 *   src/knn/keys.cpu.ts rounds it), so both backends give the same bits.
 */

/** Every selected cluster's exemplars, as the GPU kernel takes them. */
export interface ExemplarSets {
  /** All exemplars' coordinates in column order, E × dim, row-major (float32 values). */
  coords: Float32Array;
  /** k + 1 offsets: column j's exemplars are rows [starts[j], starts[j + 1]) of `coords`. */
  starts: Uint32Array;
}

/** The largest f32: the kernel's value for a column without exemplars. */
export const NO_EXEMPLAR = 3.4028234663852886e38;

/** Packs per-column exemplar coordinates (each count × dim) into one ExemplarSets. */
export function packExemplars(columns: ArrayLike<number>[], dim: number): ExemplarSets {
  const starts = new Uint32Array(columns.length + 1);
  columns.forEach((c, j) => (starts[j + 1] = starts[j] + c.length / dim));
  const coords = new Float32Array(starts[columns.length] * dim);
  let at = 0;
  for (const c of columns) {
    coords.set(c, at);
    at += c.length;
  }
  return { coords, starts };
}

/**
 * Distances (float64) from the point at `point[offset …]` to the nearest exemplar of each column of `exemplars`
 * (each count × dim, row-major), into `out` (k entries); Number.MAX_VALUE for a column without exemplars.
 */
export function nearestExemplarDistances(
  exemplars: Float64Array[],
  point: Float32Array,
  offset: number,
  dim: number,
  out: Float64Array,
): void {
  for (let j = 0; j < exemplars.length; j++) {
    const ex = exemplars[j];
    let best = Number.MAX_VALUE;
    for (let e = 0; e < ex.length; e += dim) {
      let d2 = 0;
      for (let a = 0; a < dim; a++) {
        const t = point[offset + a] - ex[e + a];
        d2 += t * t;
      }
      const d = Math.sqrt(d2);
      if (d < best) best = d;
    }
    out[j] = best;
  }
}

const f32 = Math.fround;

/**
 * The GPU kernel's table on the CPU: n × k (row-major) smallest squared f32 distances from each point of `points`
 * (n × dim) to the exemplars of each column; NO_EXEMPLAR where a column has none.
 */
export function exemplarDistanceTable(points: Float32Array, dim: number, sets: ExemplarSets): Float32Array {
  const n = points.length / dim;
  const k = sets.starts.length - 1;
  const out = new Float32Array(n * k);
  const { coords, starts } = sets;
  for (let r = 0; r < n; r++) {
    const p = r * dim;
    for (let j = 0; j < k; j++) {
      let best = NO_EXEMPLAR;
      for (let e = starts[j]; e < starts[j + 1]; e++) {
        let s = 0;
        for (let a = 0; a < dim; a++) {
          const t = f32(points[p + a] - coords[e * dim + a]);
          s = f32(s + f32(t * t));
        }
        if (s < best) best = s;
      }
      out[r * k + j] = best;
    }
  }
  return out;
}
