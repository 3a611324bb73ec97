/**
 * Progress reporting shared by the long library calls (`emst`, `hdbscan`, `mstStats`): `onProgress(fraction, phase)`.
 *
 * `fraction` is the part of the whole call done, non-decreasing, 1 at the end (what callers of the one-argument form
 * always got); `phase` names what runs now — 'bvh', 'k-NN', 'Borůvka round 3', 'sort', 'cluster', … — so that a
 * front end can say where the time goes from the first second on (issue 15: "today the first frame appears at
 * 68–89 %"). A call reports at the start of every phase and after every Borůvka round.
 */

/** Called with the fraction of the call done (0 … 1, non-decreasing) and the phase now running. */
export type ProgressCallback = (fraction: number, phase?: string) => void;

/**
 * The callback of a part of the work spanning [lo, hi] of the caller's: fractions are mapped into the span and
 * never go back; a report that repeats the last fraction without a new phase is dropped.
 */
export function progressSpan(
  callback: ProgressCallback | undefined,
  lo: number,
  hi: number,
): ProgressCallback | undefined {
  if (!callback) return undefined;
  let last = -1;
  let lastPhase: string | undefined;
  return (fraction, phase) => {
    const f = Math.max(last, lo + (hi - lo) * Math.min(1, Math.max(0, fraction)));
    if (f === last && (phase === undefined || phase === lastPhase)) return;
    last = f;
    lastPhase = phase;
    callback(f, phase);
  };
}

/**
 * The fraction of the Borůvka rounds done once `components` of the `n` points' components are left: the number of
 * components falls geometrically, by a factor of 2 or more per round, so log(n / components) / log(n) grows about
 * linearly in rounds (where edges / (n − 1) would pass 50 % after the first round).
 */
export function roundsFraction(n: number, components: number): number {
  if (n < 2 || components <= 1) return 1;
  return Math.log(n / components) / Math.log(n);
}
