/**
 * Points in the plane (issue 21): a labelled scatter (noise in grey, a legend of cluster ids and sizes) and a
 * spanning tree drawn over the points with its edges coloured by weight (hdbscan's
 * `minimum_spanning_tree_.plot()`: viridis edges, a colour bar, the points on top). Two columns of the points are
 * drawn (default the first two), on equal scales so distances look like distances.
 *
 * Large n keeps the SVG sane: beyond `maxPoints` (default 100 000) a seeded, deterministic sample of the points (and
 * of the edges) is drawn and the figure says so; beyond 5 000 drawn points they are small squares in one path per
 * label instead of circles. Every group carries `data-count`, the number of marks it draws.
 */
import {
  axes,
  colourBar,
  escapeXml,
  fmt,
  labelColour,
  legend,
  NOISE_COLOUR,
  px,
  svgOpen,
  viridis,
  type Box,
  type Scale,
} from './svg.js';

/** A tree's edges as parallel arrays (an MstEdges); weights colour the edges. */
export interface PlotEdges {
  sources: ArrayLike<number>;
  targets: ArrayLike<number>;
  weights?: ArrayLike<number>;
}

export interface PointsPlotOptions {
  /** Coordinates per point (points is row-major n × dim). */
  dim: number;
  /** The two columns drawn as x and y; default [0, 1] (a 1-column input is drawn against 0). */
  columns?: [number, number];
  /** Cluster label per point (−1 noise): colours and the legend. Without it every point is black. */
  labels?: ArrayLike<number>;
  /** A spanning tree drawn under the points, edges coloured by weight. */
  edges?: PlotEdges;
  /** Colour-bar label of the edge weights; default 'edge weight'. */
  edgeLabel?: string;
  /** Axis names; default 'x[i]' by column index. */
  axisLabels?: [string, string];
  /** Most points (and edges) drawn; beyond it a seeded sample. Default 100 000. */
  maxPoints?: number;
  /** Figure title. */
  title?: string;
}

/** What a points panel drew. */
export interface PointsPanel {
  svg: string;
  /** Points drawn (≤ maxPoints) and in the input. */
  drawn: number;
  total: number;
  /** Edge weight range, when edges have weights. */
  weightRange: [number, number] | null;
}

export const DEFAULT_MAX_POINTS = 100_000;
const CIRCLE_LIMIT = 5000;

/** The labelled scatter as a standalone SVG (with `edges`: the tree under the points). */
export function scatterSvg(points: ArrayLike<number>, options: PointsPlotOptions): string {
  return figure(points, options, 'scatter');
}

/** The spanning tree over the points, edges coloured by weight with a colour bar (hdbscan's MST plot). */
export function spanningTreeSvg(points: ArrayLike<number>, options: PointsPlotOptions & { edges: PlotEdges }): string {
  return figure(points, options, 'spanning-tree');
}

function figure(points: ArrayLike<number>, o: PointsPlotOptions, id: string): string {
  const side = 480;
  const left = 70;
  const top = o.title ? 40 : 20;
  const withBar = !!o.edges?.weights;
  const withLegend = !!o.labels;
  const right = (withBar ? 90 : 0) + (withLegend ? 170 : 0) + 20;
  const width = left + side + right;
  const height = top + side + 60;
  const box: Box = { x: left, y: top, w: side, h: side };
  const panel = pointsPanel(points, o, box, id);
  const out = [svgOpen(width, height)];
  if (o.title)
    out.push(
      `<text class="title" x="${fmt(left + side / 2)}" y="24" text-anchor="middle" font-size="14">${escapeXml(o.title)}</text>`,
    );
  out.push(panel.svg);
  let x = left + side + 20;
  if (withBar && panel.weightRange) {
    const [lo, hi] = panel.weightRange;
    out.push(colourBar({ x, y: top, w: 14, h: side }, lo, hi, o.edgeLabel ?? 'edge weight'));
    x += 90;
  }
  if (o.labels) out.push(labelLegend(o.labels, x, top));
  out.push('</svg>');
  return out.join('\n');
}

/** The points (and edges) in `box` with axes; used by the standalone figures and by stats/plot.ts's tree panel. */
export function pointsPanel(points: ArrayLike<number>, o: PointsPlotOptions, box: Box, id = 'points'): PointsPanel {
  const { dim } = o;
  if (!Number.isInteger(dim) || dim < 1) throw new RangeError(`Expected dim to be an integer ≥ 1, got ${dim}.`);
  if (points.length % dim !== 0)
    throw new RangeError(`Expected points.length to be a multiple of dim=${dim}, got ${points.length}.`);
  const n = points.length / dim;
  const [cx, cy] = o.columns ?? [0, Math.min(1, dim - 1)];
  for (const c of [cx, cy])
    if (!Number.isInteger(c) || c < 0 || c >= dim)
      throw new RangeError(`Expected plot columns in 0 … ${dim - 1}, got ${c}.`);
  if (o.labels && o.labels.length !== n)
    throw new RangeError(`Expected ${n} labels (one per point), got ${o.labels.length}.`);
  const X = (i: number): number => points[i * dim + cx];
  const Y = (i: number): number => (dim === 1 ? 0 : points[i * dim + cy]);
  // Equal scales: the data's larger extent fills the box, the other is centred.
  let x0 = Infinity;
  let x1 = -Infinity;
  let y0 = Infinity;
  let y1 = -Infinity;
  for (let i = 0; i < n; i++) {
    const x = X(i);
    const y = Y(i);
    if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  if (!(x1 >= x0)) [x0, x1, y0, y1] = [0, 1, 0, 1];
  const span = Math.max(x1 - x0, y1 - y0) * 1.06 || 1;
  const mx = (x0 + x1) / 2;
  const my = (y0 + y1) / 2;
  const xs: Scale = { lo: mx - span / 2, hi: mx + span / 2, px0: box.x, px1: box.x + box.w };
  const ys: Scale = { lo: my - span / 2, hi: my + span / 2, px0: box.y + box.h, px1: box.y };

  const max = Math.max(1, Math.floor(o.maxPoints ?? DEFAULT_MAX_POINTS));
  const sample = n > max ? sampleIndices(n, max, 1) : null;
  const g: string[] = [`<g id="${id}" class="panel points-panel" data-n="${n}">`];
  g.push(
    `<clipPath id="clip-${id}"><rect x="${fmt(box.x)}" y="${fmt(box.y)}" width="${fmt(box.w)}" height="${fmt(box.h)}"/></clipPath>`,
  );
  g.push(`<g clip-path="url(#clip-${id})">`);
  let weightRange: [number, number] | null = null;
  if (o.edges) {
    const e = edgePaths(o.edges, n, X, Y, xs, ys, max);
    g.push(e.svg);
    weightRange = e.range;
  }
  const drawn = sample ? sample.length : n;
  g.push(pointMarks(sample, n, o.labels, X, Y, xs, ys, drawn, Math.min(1, box.w / 480)));
  g.push('</g>');
  const name = (c: number): string => `x[${c}]`;
  const [ax, ay] = o.axisLabels ?? [name(cx), name(cy)];
  g.push(axes(box, { scale: xs, label: ax }, { scale: ys, label: ay }));
  if (sample) {
    // Inside the frame's top-right corner, on a white box so that the points do not hide it.
    const note = `${drawn.toLocaleString('en-US')} of ${n.toLocaleString('en-US')} points drawn (seeded sample)`;
    const w = 5.6 * note.length + 8;
    g.push(
      `<rect x="${fmt(box.x + box.w - w - 1)}" y="${fmt(box.y + 1)}" width="${fmt(w)}" height="16" fill="#ffffff" fill-opacity="0.85"/>` +
        `<text class="note" x="${fmt(box.x + box.w - 5)}" y="${fmt(box.y + 12)}" text-anchor="end" font-size="10" fill="#333333">` +
        `${escapeXml(note)}</text>`,
    );
  }
  g.push('</g>');
  return { svg: g.join('\n'), drawn, total: n, weightRange };
}

/** `count` distinct indices of 0 … n − 1, ascending, by a seeded partial Fisher–Yates shuffle (mulberry32). */
export function sampleIndices(n: number, count: number, seed: number): Uint32Array {
  const idx = new Uint32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(next() * (n - i));
    const t = idx[i];
    idx[i] = idx[j];
    idx[j] = t;
  }
  return idx.slice(0, count).sort();
}

const EDGE_BINS = 24;

/** Edges in EDGE_BINS colour classes of their weight, one path each (group data-count: edges drawn). */
function edgePaths(
  e: PlotEdges,
  n: number,
  X: (i: number) => number,
  Y: (i: number) => number,
  xs: Scale,
  ys: Scale,
  max: number,
): { svg: string; range: [number, number] | null } {
  const m = e.sources.length;
  if (e.targets.length !== m) throw new RangeError(`Expected ${m} edge targets, got ${e.targets.length}.`);
  const chosen = m > max ? sampleIndices(m, max, 2) : null;
  const count = chosen ? chosen.length : m;
  let lo = Infinity;
  let hi = -Infinity;
  const w = e.weights;
  if (w) {
    for (let k = 0; k < m; k++) {
      const v = w[k];
      if (Number.isFinite(v)) {
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
    }
  }
  const range: [number, number] | null = w && hi >= lo ? [lo, hi] : null;
  const bins: string[][] = Array.from({ length: range ? EDGE_BINS : 1 }, () => []);
  let drawn = 0;
  for (let c = 0; c < count; c++) {
    const k = chosen ? chosen[c] : c;
    const a = e.sources[k];
    const b = e.targets[k];
    if (a >= n || b >= n) throw new RangeError(`Edge ${k} (${a}, ${b}) names a point ≥ n = ${n}.`);
    const xa = X(a);
    const ya = Y(a);
    const xb = X(b);
    const yb = Y(b);
    if (![xa, ya, xb, yb].every(Number.isFinite)) continue;
    let bin = 0;
    if (range) {
      const v = w![k];
      const t = range[1] > range[0] ? (Math.min(v, range[1]) - range[0]) / (range[1] - range[0]) : 0.5;
      bin = Math.min(EDGE_BINS - 1, Math.floor((Number.isFinite(t) ? t : 1) * EDGE_BINS));
    }
    bins[bin].push(`M${fmt(px(xa, xs))} ${fmt(px(ya, ys))}L${fmt(px(xb, xs))} ${fmt(px(yb, ys))}`);
    drawn++;
  }
  const width = drawn > 20000 ? 0.5 : drawn > 2000 ? 0.8 : 1.4;
  const paths = bins
    .map((d, i) => {
      if (d.length === 0) return '';
      const colour = range ? viridis((i + 0.5) / EDGE_BINS) : '#555555';
      return `<path d="${d.join('')}" stroke="${colour}" stroke-width="${width}" fill="none" stroke-linecap="round"/>`;
    })
    .filter((s) => s);
  return { svg: `<g class="edges" data-count="${drawn}">${paths.join('')}</g>`, range };
}

/** Points grouped by label (noise first, beneath), circles or squares as the count asks. */
function pointMarks(
  sample: Uint32Array | null,
  n: number,
  labels: ArrayLike<number> | undefined,
  X: (i: number) => number,
  Y: (i: number) => number,
  xs: Scale,
  ys: Scale,
  drawn: number,
  shrink: number,
): string {
  const groups = new Map<number, string[]>();
  const count = sample ? sample.length : n;
  const circles = drawn <= CIRCLE_LIMIT;
  // Radius by the count (crowded plots get small marks) and the panel (a small panel, smaller marks).
  const r = circles ? Math.max(0.7, Math.max(1.2, Math.min(3.5, 160 / Math.sqrt(Math.max(1, drawn)))) * shrink) : 0.7;
  for (let c = 0; c < count; c++) {
    const i = sample ? sample[c] : c;
    const x = X(i);
    const y = Y(i);
    if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
    const label = labels ? (labels[i] < 0 ? -1 : labels[i]) : 0;
    let list = groups.get(label);
    if (!list) groups.set(label, (list = []));
    const sx = px(x, xs);
    const sy = px(y, ys);
    list.push(
      circles
        ? `<circle cx="${fmt(sx)}" cy="${fmt(sy)}" r="${fmt(r)}"/>`
        : `M${fmt(sx - r)} ${fmt(sy - r)}h${fmt(2 * r)}v${fmt(2 * r)}h${fmt(-2 * r)}z`,
    );
  }
  const keys = [...groups.keys()].sort((a, b) => a - b);
  const out: string[] = [];
  for (const k of keys) {
    const marks = groups.get(k)!;
    const colour = !labels ? '#111111' : k < 0 ? NOISE_COLOUR : labelColour(k);
    const body = circles ? marks.join('') : `<path d="${marks.join('')}"/>`;
    const alpha = !labels ? ' fill-opacity="0.85"' : '';
    out.push(`<g class="points" data-label="${k}" data-count="${marks.length}" fill="${colour}"${alpha}>${body}</g>`);
  }
  return out.join('\n');
}

/** The legend of cluster labels: 'cluster k (size)' per label, noise last; at most 24 rows. */
function labelLegend(labels: ArrayLike<number>, x: number, y: number): string {
  const sizes = new Map<number, number>();
  let noise = 0;
  for (let i = 0; i < labels.length; i++) {
    const l = labels[i];
    if (l < 0) noise++;
    else sizes.set(l, (sizes.get(l) ?? 0) + 1);
  }
  const ids = [...sizes.keys()].sort((a, b) => a - b);
  const shown = ids.length > 24 ? ids.slice(0, 23) : ids;
  const entries = shown.map((k) => ({ colour: labelColour(k), label: `cluster ${k} (${sizes.get(k)})` }));
  if (shown.length < ids.length) entries.push({ colour: '#ffffff', label: `… ${ids.length - shown.length} more` });
  if (noise > 0) entries.push({ colour: NOISE_COLOUR, label: `noise (${noise})` });
  return legend(x, y, entries);
}
