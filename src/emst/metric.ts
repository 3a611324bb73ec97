/**
 * Which metric an MST is taken under, decided once (validate.ts, from the caller's minSamples and alpha) and passed
 * down to both backends as a value — as ArborX passes `Euclidean{}` or `MutualReachability{core}` to its Borůvka:
 *
 *   euclidean:            key(a, b) = d²(a, b)
 *   mutual-reachability:  key(a, b) = max(core²(a), core²(b), d²(a, b) / alpha²), core(i) = distance to i's
 *                         minSamples-th neighbour, i excluded by index (Campello et al. 2015; src/emst/distance.cpu.ts)
 *
 * Important! minSamples 1 with alpha ≠ 1 is mutual reachability (core = the nearest other point, as hdbscan's
 * mutual_reachability(min_points=1) takes it), not the Euclidean MST: deciding from minSamples alone dropped alpha on
 * the GPU (issue 15 §4.9). No other module re-derives this; each backend branches on `metric.kind`.
 */
export type Metric = { kind: 'euclidean' } | { kind: 'mutual-reachability'; minSamples: number; alpha: number };

export const EUCLIDEAN: Metric = { kind: 'euclidean' };

/** The metric of emst()'s options (valid: minSamples an integer ≥ 1, alpha finite and > 0; validate.ts checks). */
export function metricOf(minSamples = 1, alpha = 1): Metric {
  return minSamples > 1 || alpha !== 1 ? { kind: 'mutual-reachability', minSamples, alpha } : EUCLIDEAN;
}
