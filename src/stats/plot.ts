/**
 * The classic MiSTree figure (Naidoo et al. 2020, MNRAS 491, 1709, figs. 3–6; MiSTree's `PlotHistMST`) as a
 * standalone SVG string, no dependencies (issue 7, deliverable 5): four columns — degree d, edge length l, branch
 * length b, √(1 − s) — each a histogram panel over a smaller ratio panel.
 *
 * - Histogram panel: the realisations' mean as a line, with 1σ and 2σ shaded bands per bin (MiSTree's
 *   `plot_histogram_confidence`); the catalogue as black steps (and points for the few degree bins).
 * - Ratio panel: catalogue / mean, with the 1σ and 2σ bands of the realisations around 1 (std / mean), and a dashed
 *   line at 1. Its y range covers the bins that hold at least 1 % of the peak mean (the noisy tails would otherwise
 *   set it), at most [0, 2]; what lies beyond is clipped.
 * - Without realisations only the histogram panels are drawn.
 *
 * - Options (issue 21): `log` draws l and b on log axes with y per dex (dN̄/dlog₁₀ l: the unit-area density times
 *   the bin's width over its width in log10; for log bins, `bins: { edgeLength: { log: true } }`), and `tree` adds a
 *   first panel (`<g id="tree">`) with the tree drawn over two columns of the points (plot/points.ts). Without them the figure is
 *   the same to the byte as before.
 *
 * Every panel is a `<g>` with a stable id and class (`panel-degree`, `ratio-edgeLength`, … after STAT_NAMES;
 * class `panel histogram` or `panel ratio`); the legend is `<g id="legend">`. Non-finite values (empty or NaN bins,
 * a zero mean) break lines and bands instead of reaching the path data: every coordinate written is finite.
 */
import { checkHistograms, compareStats, type StatComparison } from './compare.js';
import { STAT_NAMES, type Histogram, type MstHistograms, type StatName } from './types.js';
import { pointsPanel, type PlotEdges } from '../plot/points.js';
import { escapeXml, fmt, logTickLabel, logTicks, niceTicks, px, tickLabel } from '../plot/svg.js';

export interface MstPlotInput {
  catalogue: MstHistograms;
  /** Realisations on the same bins as the catalogue: their mean and 1σ/2σ bands, and the ratio panels. */
  realisations?: MstHistograms[];
  labels?: {
    /** Legend entry of the catalogue; default 'catalogue'. */
    catalogue?: string;
    /** Legend entry of the realisations' mean; default 'realisations (mean of N)'. */
    realisations?: string;
    /** Units of l and b, appended to their axis labels as 'l [units]'. */
    units?: string;
  };
  /** l and b on log10 axes, y per dex (meant for log bins; see the header). */
  log?: boolean;
  /** A first panel: the tree over two columns of the points (row-major n × dim), edges coloured by length. */
  tree?: MstTreePanel;
}

export interface MstTreePanel {
  points: ArrayLike<number>;
  dim: number;
  edges: PlotEdges;
  /** The two columns drawn; default the first two. */
  columns?: [number, number];
  axisLabels?: [string, string];
  /** Most points and edges drawn (a seeded sample beyond); default 100 000. */
  maxPoints?: number;
}

const COLOR_MEAN = '#1f77b4';
const COLOR_CATALOGUE = '#111111';
const ALPHA_1SIGMA = 0.35;
const ALPHA_2SIGMA = 0.15;

// Layout, in SVG user units (px at 1:1).
const COLUMN_WIDTH = 290;
const PLOT_LEFT = 62; // from the column's left edge to the panel's left edge
const PLOT_WIDTH = 210;
const LEGEND_HEIGHT = 44;
const HIST_HEIGHT = 190;
const GAP = 14;
const RATIO_HEIGHT = 80;
const AXIS_BELOW = 46; // tick labels and x label under the bottom panel
const MARGIN_LEFT = 6;
const MARGIN_RIGHT = 12;
const TREE_COLUMN = 300; // the tree panel's column, before the four statistics

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

interface Scale {
  lo: number;
  hi: number;
  px0: number;
  px1: number;
  log?: boolean;
}

/** The 4-panel figure as a standalone SVG document (UTF-8 text). */
export function mstPlotSvg(input: MstPlotInput): string {
  const { catalogue } = input;
  checkHistograms(catalogue, 'catalogue');
  const realisations = input.realisations ?? [];
  const comparison = realisations.length > 0 ? compareStats(catalogue, realisations, { chi2: [] }) : null;
  const withRatio = comparison !== null;
  const left = MARGIN_LEFT + (input.tree ? TREE_COLUMN : 0);
  const width = left + 4 * COLUMN_WIDTH + MARGIN_RIGHT;
  const height = LEGEND_HEIGHT + HIST_HEIGHT + (withRatio ? GAP + RATIO_HEIGHT : 0) + AXIS_BELOW;
  const units = input.labels?.units;
  const xLabels: Record<StatName, string> = {
    degree: 'd',
    edgeLength: units ? `l [${units}]` : 'l',
    branchLength: units ? `b [${units}]` : 'b',
    branchShape: '√(1 − s)',
  };

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ` +
      `font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="11">`,
  );
  out.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`);
  const defs: string[] = [];
  const body: string[] = [];
  STAT_NAMES.forEach((name, col) => {
    const x0 = left + col * COLUMN_WIDTH + PLOT_LEFT;
    const hist: Box = { x: x0, y: LEGEND_HEIGHT, w: PLOT_WIDTH, h: HIST_HEIGHT };
    const ratio: Box = { x: x0, y: LEGEND_HEIGHT + HIST_HEIGHT + GAP, w: PLOT_WIDTH, h: RATIO_HEIGHT };
    const h = catalogue[name];
    const stat = comparison ? comparison[name] : null;
    defs.push(clip(`clip-panel-${name}`, hist), ...(withRatio ? [clip(`clip-ratio-${name}`, ratio)] : []));
    const log = !!input.log && (name === 'edgeLength' || name === 'branchLength');
    body.push(histogramPanel(name, h, stat, hist, withRatio ? null : xLabels[name], log));
    if (stat) body.push(ratioPanel(name, stat, ratio, xLabels[name], log));
  });
  if (input.tree) {
    const t = input.tree;
    const side = Math.min(TREE_COLUMN - 70, height - LEGEND_HEIGHT - AXIS_BELOW);
    const box = { x: MARGIN_LEFT + 56, y: LEGEND_HEIGHT, w: side, h: side };
    body.push(pointsPanel(t.points, { ...t, edges: t.edges }, box, 'tree').svg);
    body.push(
      `<text class="title" x="${fmt(box.x + side / 2)}" y="${LEGEND_HEIGHT - 8}" text-anchor="middle" font-size="12">` +
        `EMST, edges coloured by length (viridis)</text>`,
    );
  }
  out.push(`<defs>${defs.join('')}</defs>`);
  out.push(...body);
  out.push(legend(input, realisations.length, left));
  out.push('</svg>');
  return out.join('\n');
}

// ——— panels ———

function histogramPanel(
  name: StatName,
  h: Histogram,
  stat: StatComparison | null,
  box: Box,
  xLabel: string | null,
  log = false,
): string {
  const edges = h.edges;
  const bins = h.x.length;
  // On a log axis a unit-area density is shown per dex: × width / width in log10.
  const perDex = (v: ArrayLike<number>): Float64Array =>
    Float64Array.from({ length: bins }, (_, i) =>
      h.normalised ? (v[i] * (edges[i + 1] - edges[i])) / Math.log10(edges[i + 1] / edges[i]) : v[i],
    );
  const y = log ? perDex(h.y) : h.y;
  if (log && stat) stat = { ...stat, mean: perDex(stat.mean), std: perDex(stat.std) };
  const lo2 = new Float64Array(bins);
  const hi2 = new Float64Array(bins);
  const lo1 = new Float64Array(bins);
  const hi1 = new Float64Array(bins);
  let top = 0;
  for (let i = 0; i < bins; i++) {
    if (Number.isFinite(y[i])) top = Math.max(top, y[i]);
    if (!stat) continue;
    const m = stat.mean[i];
    const s = stat.std[i];
    lo1[i] = m - s;
    hi1[i] = m + s;
    lo2[i] = m - 2 * s;
    hi2[i] = m + 2 * s;
    if (Number.isFinite(hi2[i])) top = Math.max(top, hi2[i]);
    else if (Number.isFinite(m)) top = Math.max(top, m);
  }
  const xs: Scale = { lo: edges[0], hi: edges[bins], px0: box.x, px1: box.x + box.w, ...(log ? { log } : {}) };
  const yTicks = niceTicks(0, top > 0 ? top * 1.05 : 1, 5);
  const ys: Scale = { lo: 0, hi: yTicks.hi, px0: box.y + box.h, px1: box.y };
  const g: string[] = [];
  g.push(`<g id="panel-${name}" class="panel histogram">`);
  g.push(frameBackground(box));
  g.push(`<g clip-path="url(#clip-panel-${name})">`);
  if (stat) {
    g.push(bandPath(edges, lo2, hi2, xs, ys, ALPHA_2SIGMA, 'band-2sigma'));
    g.push(bandPath(edges, lo1, hi1, xs, ys, ALPHA_1SIGMA, 'band-1sigma'));
    g.push(stepPath(edges, stat.mean, xs, ys, COLOR_MEAN, 1.6, 'mean'));
  }
  g.push(stepPath(edges, y, xs, ys, COLOR_CATALOGUE, 1.3, 'catalogue'));
  if (name === 'degree') g.push(points(h.x, h.y, xs, ys));
  g.push('</g>');
  const yLabel = h.normalised ? (log ? 'N̄ per dex' : 'N̄') : 'N';
  g.push(axes(box, xs, ys, xLabel !== null, yTicks.ticks, yLabel, xLabel));
  g.push('</g>');
  return g.join('\n');
}

function ratioPanel(name: StatName, stat: StatComparison, box: Box, xLabel: string, log = false): string {
  const { edges, mean, ratio, ratioSigma } = stat;
  const bins = mean.length;
  let peak = 0;
  for (let i = 0; i < bins; i++) if (Number.isFinite(mean[i])) peak = Math.max(peak, mean[i]);
  let half = 0;
  for (let i = 0; i < bins; i++) {
    if (!(mean[i] >= 0.01 * peak) || mean[i] <= 0) continue;
    if (Number.isFinite(ratio[i])) half = Math.max(half, Math.abs(ratio[i] - 1));
    if (Number.isFinite(ratioSigma[i])) half = Math.max(half, 2 * ratioSigma[i]);
  }
  half = Math.min(1, Math.max(0.05, half * 1.1));
  const yTicks = niceTicks(1 - half, 1 + half, 3);
  const ys: Scale = { lo: yTicks.lo, hi: yTicks.hi, px0: box.y + box.h, px1: box.y };
  const xs: Scale = { lo: edges[0], hi: edges[bins], px0: box.x, px1: box.x + box.w, ...(log ? { log } : {}) };
  const band = (k: number, sign: number): Float64Array => ratioSigma.map((s) => 1 + sign * k * s);
  const g: string[] = [];
  g.push(`<g id="ratio-${name}" class="panel ratio">`);
  g.push(frameBackground(box));
  g.push(`<g clip-path="url(#clip-ratio-${name})">`);
  g.push(bandPath(edges, band(2, -1), band(2, 1), xs, ys, ALPHA_2SIGMA, 'band-2sigma'));
  g.push(bandPath(edges, band(1, -1), band(1, 1), xs, ys, ALPHA_1SIGMA, 'band-1sigma'));
  const one = py(1, ys);
  g.push(
    `<line x1="${fmt(box.x)}" y1="${fmt(one)}" x2="${fmt(box.x + box.w)}" y2="${fmt(one)}" stroke="${COLOR_MEAN}" ` +
      `stroke-width="1" stroke-dasharray="4 3"/>`,
  );
  g.push(stepPath(edges, ratio, xs, ys, COLOR_CATALOGUE, 1.2, 'ratio'));
  if (name === 'degree') g.push(points(stat.x, ratio, xs, ys));
  g.push('</g>');
  g.push(axes(box, xs, ys, true, yTicks.ticks, 'ratio', xLabel));
  g.push('</g>');
  return g.join('\n');
}

function legend(input: MstPlotInput, n: number, left: number): string {
  const catLabel = input.labels?.catalogue ?? 'catalogue';
  const realLabel = input.labels?.realisations ?? `realisations (mean of ${n})`;
  const y = 20;
  const g: string[] = [`<g id="legend" class="legend" font-size="12">`];
  let x = left + PLOT_LEFT;
  const entry = (mark: string, label: string): void => {
    g.push(mark, `<text x="${fmt(x + 30)}" y="${y + 4}">${escapeXml(label)}</text>`);
    x += 30 + 6.8 * [...label].length + 28;
  };
  entry(
    `<path d="M${fmt(x)} ${y + 5}H${fmt(x + 12)}V${y - 5}H${fmt(x + 24)}" fill="none" stroke="${COLOR_CATALOGUE}" stroke-width="1.3"/>`,
    catLabel,
  );
  if (n > 0) {
    entry(
      `<line x1="${fmt(x)}" y1="${y}" x2="${fmt(x + 24)}" y2="${y}" stroke="${COLOR_MEAN}" stroke-width="1.6"/>`,
      realLabel,
    );
    // The 1σ band lies over the 2σ band in the panels: the swatch stacks both the same way.
    const swatch = (alpha: number): string =>
      `<rect x="${fmt(x)}" y="${y - 6}" width="24" height="12" fill="${COLOR_MEAN}" fill-opacity="${alpha}"/>`;
    entry(swatch(ALPHA_2SIGMA) + swatch(ALPHA_1SIGMA), '1σ');
    entry(swatch(ALPHA_2SIGMA), '2σ');
  }
  g.push('</g>');
  return g.join('\n');
}

// ——— marks ———

/** A histogram as steps; a non-finite bin breaks the line. */
function stepPath(
  edges: Float64Array,
  v: ArrayLike<number>,
  xs: Scale,
  ys: Scale,
  color: string,
  width: number,
  cls: string,
): string {
  const d: string[] = [];
  let open = false;
  for (let i = 0; i < v.length; i++) {
    if (!Number.isFinite(v[i])) {
      open = false;
      continue;
    }
    const y = fmt(py(v[i], ys));
    if (open) d.push(`V${y}`);
    else d.push(`M${fmt(px(edges[i], xs))} ${y}`);
    d.push(`H${fmt(px(edges[i + 1], xs))}`);
    open = true;
  }
  if (d.length === 0) return '';
  return `<path class="${cls}" d="${d.join('')}" fill="none" stroke="${color}" stroke-width="${width}" stroke-linejoin="miter"/>`;
}

/** A band between lo and hi per bin, one polygon per run of finite bins (no seams between neighbouring bins). */
function bandPath(
  edges: Float64Array,
  lo: ArrayLike<number>,
  hi: ArrayLike<number>,
  xs: Scale,
  ys: Scale,
  alpha: number,
  cls: string,
): string {
  const d: string[] = [];
  let start = -1;
  for (let i = 0; i <= lo.length; i++) {
    const ok = i < lo.length && Number.isFinite(lo[i]) && Number.isFinite(hi[i]);
    if (ok && start < 0) start = i;
    if (ok || start < 0) continue;
    // Bins start … i − 1: along the top left to right, back along the bottom right to left.
    const outline: string[] = [];
    for (let j = start; j < i; j++) {
      const y = fmt(py(hi[j], ys));
      outline.push(`${fmt(px(edges[j], xs))} ${y}`, `${fmt(px(edges[j + 1], xs))} ${y}`);
    }
    for (let j = i - 1; j >= start; j--) {
      const y = fmt(py(lo[j], ys));
      outline.push(`${fmt(px(edges[j + 1], xs))} ${y}`, `${fmt(px(edges[j], xs))} ${y}`);
    }
    d.push(`M${outline.join('L')}Z`);
    start = -1;
  }
  if (d.length === 0) return '';
  return `<path class="${cls}" d="${d.join('')}" fill="${COLOR_MEAN}" fill-opacity="${alpha}" stroke="none"/>`;
}

function points(x: ArrayLike<number>, v: ArrayLike<number>, xs: Scale, ys: Scale): string {
  const c: string[] = [];
  for (let i = 0; i < v.length; i++) {
    if (!Number.isFinite(v[i]) || !Number.isFinite(x[i])) continue;
    c.push(`<circle cx="${fmt(px(x[i], xs))}" cy="${fmt(py(v[i], ys))}" r="2.6"/>`);
  }
  return `<g class="points" fill="${COLOR_CATALOGUE}">${c.join('')}</g>`;
}

// ——— axes ———

function frameBackground(box: Box): string {
  return `<rect class="frame" x="${fmt(box.x)}" y="${fmt(box.y)}" width="${fmt(box.w)}" height="${fmt(box.h)}" fill="#ffffff" stroke="none"/>`;
}

/** Frame, ticks on all four sides (inward), tick labels on the left (and bottom when `xTickLabels`), axis labels. */
function axes(
  box: Box,
  xs: Scale,
  ys: Scale,
  xTickLabels: boolean,
  yTicks: number[],
  yLabel: string,
  xLabel: string | null,
): string {
  const a: string[] = [];
  const bottom = box.y + box.h;
  const right = box.x + box.w;
  const ticks: string[] = [];
  const xt = xs.log ? { ticks: logTicks(xs.lo, xs.hi), step: NaN } : niceTicks(xs.lo, xs.hi, 5);
  for (const t of xt.ticks) {
    if (t < xs.lo - 1e-12 * Math.abs(xs.hi - xs.lo) || t > xs.hi + 1e-12 * Math.abs(xs.hi - xs.lo)) continue;
    const x = fmt(px(t, xs));
    ticks.push(`M${x} ${fmt(bottom)}v-5M${x} ${fmt(box.y)}v5`);
    const label = xs.log ? logTickLabel(t).replace(/-/g, '−') : tickLabel(t, xt.step);
    if (xTickLabels) a.push(`<text x="${x}" y="${fmt(bottom + 15)}" text-anchor="middle">${label}</text>`);
  }
  const yStep = yTicks.length > 1 ? yTicks[1] - yTicks[0] : 1;
  for (const t of yTicks) {
    const y = fmt(py(t, ys));
    ticks.push(`M${fmt(box.x)} ${y}h5M${fmt(right)} ${y}h-5`);
    a.push(`<text x="${fmt(box.x - 6)}" y="${y}" dy="0.35em" text-anchor="end">${tickLabel(t, yStep)}</text>`);
  }
  a.push(`<path class="ticks" d="${ticks.join('')}" stroke="#000000" stroke-width="1" fill="none"/>`);
  a.push(
    `<rect class="axes" x="${fmt(box.x)}" y="${fmt(box.y)}" width="${fmt(box.w)}" height="${fmt(box.h)}" fill="none" ` +
      `stroke="#000000" stroke-width="1"/>`,
  );
  const yx = fmt(box.x - 46);
  const yy = fmt(box.y + box.h / 2);
  a.push(
    `<text class="ylabel" x="${yx}" y="${yy}" text-anchor="middle" transform="rotate(-90 ${yx} ${yy})" font-size="13">${escapeXml(yLabel)}</text>`,
  );
  if (xLabel !== null) {
    const style = xLabel.length <= 1 || xLabel[1] === ' ' ? ' font-style="italic"' : '';
    a.push(
      `<text class="xlabel" x="${fmt(box.x + box.w / 2)}" y="${fmt(bottom + 34)}" text-anchor="middle" font-size="13"${style}>${escapeXml(xLabel)}</text>`,
    );
  }
  return a.join('\n');
}

// ——— coordinates ———

const py = px;

function clip(id: string, box: Box): string {
  return `<clipPath id="${id}"><rect x="${fmt(box.x)}" y="${fmt(box.y)}" width="${fmt(box.w)}" height="${fmt(box.h)}"/></clipPath>`;
}
