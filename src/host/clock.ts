/**
 * One phase clock: `lap(label)` records the wall time since the previous lap (or the start) under `label` and
 * returns it, so timings are taken where the phases end instead of timestamps travelling through return values.
 */
export interface Clock {
  /** Milliseconds since the last lap (or the start), recorded under `label` (added to what it holds). */
  lap(label: string): number;
  /** Starts the next lap now without recording the time since the last one. */
  skip(): void;
  /** Milliseconds since the clock started. */
  total(): number;
  /** The laps by label. */
  readonly laps: Record<string, number>;
}

const now = (): number => globalThis.performance.now();

export function startClock(): Clock {
  const start = now();
  let last = start;
  const laps: Record<string, number> = {};
  return {
    laps,
    lap(label) {
      const t = now();
      const ms = t - last;
      last = t;
      laps[label] = (laps[label] ?? 0) + ms;
      return ms;
    },
    skip() {
      last = now();
    },
    total: () => now() - start,
  };
}
