/**
 * One-line summaries of a statistic's values (count, sum, mean, standard deviation, min, max), computed in float64
 * in two passes (mean, then the squared deviations) without sorting, so they cost O(n) at 10^8 values. NaN values
 * (the shape of a branch of length 0) are left out and counted apart.
 */

export interface Summary {
  /** Values that are not NaN. */
  count: number;
  sum: number;
  mean: number;
  /** Population standard deviation (numpy's default, ddof = 0). */
  std: number;
  min: number;
  max: number;
  /** NaN values left out of the figures above. */
  nan: number;
}

export function summarise(values: ArrayLike<number>): Summary {
  let count = 0;
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v !== v) continue;
    count++;
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const mean = count > 0 ? sum / count : NaN;
  let ss = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === v) ss += (v - mean) * (v - mean);
  }
  return {
    count,
    sum,
    mean,
    std: count > 0 ? Math.sqrt(ss / count) : NaN,
    min: count > 0 ? min : NaN,
    max: count > 0 ? max : NaN,
    nan: values.length - count,
  };
}
