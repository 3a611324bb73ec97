/**
 * The shapes shared by the MST statistics (mstStats), their comparison and their plot: MiSTree's four statistics
 * (Naidoo et al. 2020, MNRAS 491, 1709) — degree d, edge length l, branch length b, branch shape s — and their
 * histograms. Defined once here so the statistics, the comparison and the SVG plot speak one language.
 */

/** One histogram over fixed bins. */
export interface Histogram {
  /** Bin edges, ascending, length bins + 1. */
  edges: Float64Array;
  /** Bin centres (MiSTree's x_*), length bins. */
  x: Float64Array;
  /** Raw counts per bin (values outside the edges, or NaN, fall in no bin). */
  counts: Float64Array;
  /** MiSTree's plotted y_*: counts normalised to unit area (counts / (total · bin width)) when `normalised`. */
  y: Float64Array;
  /** Whether `y` is normalised (MiSTree's usenorm, the default) or equals `counts`. */
  normalised: boolean;
}

/**
 * MiSTree's HistMST histograms: degree (6 unit bins 0.5 … 6.5), edge length l and branch length b (100 linear bins on
 * [0, 1.05·max] by default), and √(1 − s) of the branch shapes (50 bins on [0, 1]).
 */
export interface MstHistograms {
  degree: Histogram;
  edgeLength: Histogram;
  branchLength: Histogram;
  /** Histogram of √(1 − s) (MiSTree's use_sqrt_s, the default); s > 1 gives NaN, which falls in no bin. */
  branchShape: Histogram;
}

/** The names of the four statistics, in the order of the classic 4-panel plot. */
export const STAT_NAMES = ['degree', 'edgeLength', 'branchLength', 'branchShape'] as const;
export type StatName = (typeof STAT_NAMES)[number];
