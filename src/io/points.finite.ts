/**
 * The check every point table a command reads passes (readPoints, the CLI's headerless reader), and its loop over a
 * range, which the large-file readers (points.stream.ts) run on each piece as it lands instead of one more pass over
 * all the points afterwards. A range only says whether every value passed: where one did not, requireFinite names
 * the first, so the message is the same whichever path found it.
 */
import { InputError } from '../errors.js';
import { formatF32 } from './graph.text.js';
import { MAX_COORDINATE } from './limits.js';
import type { PointTable } from './points.csv.js';

/**
 * Every table a command reads passes here. No rows is an InputError (issue 15: a header-only CSV clustered 0 points
 * and exited 0). The first NaN or ±Infinity (a float64 beyond the float32 range reads as one), or a coordinate
 * beyond the library's ±MAX_COORDINATE (src/emst/validate.ts applies the same rule), is an InputError naming the
 * file, the 0-based row, the column and the value — the library's own check could name only the row.
 */
export function requireFinite(t: PointTable, path: string): PointTable {
  if (t.n === 0)
    throw new InputError(
      `${path}: no data rows (0 points of ${t.dim} column${t.dim === 1 ? '' : 's'}); expected at least one point.`,
    );
  const p = t.points;
  for (let i = 0; i < p.length; i++) {
    const x = p[i];
    if (Math.abs(x) <= MAX_COORDINATE) continue;
    const row = Math.floor(i / t.dim);
    const col = t.columns[i % t.dim] ?? String(i % t.dim);
    const at = `${path}: row ${row} (0-based), column '${col}' is ${x}`;
    if (Number.isFinite(x))
      throw new InputError(
        `${path}: row ${row} (0-based), column '${col}' is ${formatF32(x)}; expected coordinates within ±${MAX_COORDINATE} (float32 range).`,
      );
    const why = Number.isNaN(x) ? '' : ' (infinite, or beyond the float32 range)';
    throw new InputError(`${at}${why}; expected a finite number.`);
  }
  return t;
}

/** Whether values [from, to) of `p` all pass requireFinite's test (|x| ≤ MAX_COORDINATE: false for NaN). */
export function finiteIn(p: Float32Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!(Math.abs(p[i]) <= MAX_COORDINATE)) return false;
  return true;
}
