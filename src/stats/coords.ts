/**
 * Celestial coordinates as MiSTree reads them (Naidoo et al. 2020; MiSTree's `coordinate_utility.py`):
 * RA/Dec in degrees become φ = RA·(π/180) and θ = π/2 − Dec·(π/180), then
 * (x, y, z) = r·(cos φ sin θ, sin φ sin θ, cos θ) with r = 1 (MiSTree's 'tomographic celestial' mode: points on the
 * unit sphere, edges measured as chords) or r = the third column (its 'spherical polar celestial' mode: ordinary 3D
 * points). The arithmetic follows MiSTree's order of operations in float64, so the unit vectors agree with its own
 * to the last bit or two.
 */
import { InputError } from '../errors.js';

const RAD = Math.PI / 180;

/**
 * Row-major RA,Dec[,distance] (degrees) → row-major float64 x,y,z. `dim` is 2 (unit sphere) or 3 (the third column is
 * the distance, which must be finite and ≥ 0).
 */
export function celestialToCartesian(points: Float32Array | Float64Array, dim: number): Float64Array {
  if (dim !== 2 && dim !== 3) {
    throw new InputError(
      `coords 'radec' expects 2 columns (RA, Dec in degrees) or 3 (RA, Dec, distance), got dim=${dim}.`,
    );
  }
  checkCelestial(points, dim);
  const n = points.length / dim;
  const out = new Float64Array(3 * n);
  for (let i = 0; i < n; i++) {
    const ra = points[i * dim];
    const dec = points[i * dim + 1];
    const r = dim === 3 ? points[i * dim + 2] : 1;
    const phi = ra * RAD;
    const theta = Math.PI / 2 - dec * RAD;
    const sinTheta = Math.sin(theta);
    out[3 * i] = r * Math.cos(phi) * sinTheta;
    out[3 * i + 1] = r * Math.sin(phi) * sinTheta;
    out[3 * i + 2] = r * Math.cos(theta);
  }
  return out;
}

/**
 * Checks RA,Dec[,distance] rows (degrees): RA and Dec finite, Dec within [−90, 90], the distance finite and ≥ 0.
 * Given the `file` and its column names (the CLI's), the message names them as `requireFinite` does for any file
 * (src/io/points.ts): "sky.csv: row 3 (0-based), column 'dec' is 95; expected Dec within [−90, 90] degrees."
 */
export function checkCelestial(
  points: Float32Array | Float64Array,
  dim: number,
  file?: string,
  columns?: string[],
): void {
  const n = points.length / dim;
  const fail = (i: number, c: number, value: number, expected: string, library: string): never => {
    if (file === undefined) throw new InputError(library);
    throw new InputError(
      `${file}: row ${i} (0-based), column '${columns?.[c] ?? c}' is ${value}; expected ${expected}.`,
    );
  };
  for (let i = 0; i < n; i++) {
    const ra = points[i * dim];
    const dec = points[i * dim + 1];
    const r = dim === 3 ? points[i * dim + 2] : 1;
    if (!Number.isFinite(ra) || !Number.isFinite(dec)) {
      const c = Number.isFinite(ra) ? 1 : 0;
      fail(
        i,
        c,
        c ? dec : ra,
        'finite RA and Dec (degrees)',
        `Expected finite RA and Dec (degrees), got RA=${ra}, Dec=${dec} at row ${i}.`,
      );
    }
    if (dec < -90 || dec > 90)
      fail(i, 1, dec, 'Dec within [−90, 90] degrees', `Expected Dec within [−90, 90] degrees, got ${dec} at row ${i}.`);
    if (!(r >= 0) || !Number.isFinite(r))
      fail(i, 2, r, 'a finite distance ≥ 0', `Expected a finite distance ≥ 0, got ${r} at row ${i}, column 2.`);
  }
}

/** A chord of the unit sphere → the angle it subtends, 2·arcsin(chord / 2) (MiSTree's perpendicular_distance_2_angle). */
export function chordToAngle(chord: number): number {
  return 2 * Math.asin(chord / 2);
}
