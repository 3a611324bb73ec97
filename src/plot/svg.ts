/**
 * SVG building blocks for treeline's figures (issue 21): scales (linear and log), round ticks, framed axes, a
 * viridis colour map with its colour bar, a categorical palette for cluster labels, and number formatting that
 * never writes a non-finite coordinate. Plain string building: no DOM and no Node imports, so the figures run in
 * browsers too. This folder is a leaf like io/: it knows nothing of clusters or MST statistics; cluster/plot.ts and
 * stats/plot.ts draw their figures with it.
 */

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A map from data [lo, hi] to pixels [px0, px1]; `log` maps log10 of the value (lo, hi > 0). */
export interface Scale {
  lo: number;
  hi: number;
  px0: number;
  px1: number;
  log?: boolean;
}

export const FONT = 'DejaVu Sans, Helvetica, Arial, sans-serif';

/** The opening tag of a standalone figure and its white background. */
export function svgOpen(width: number, height: number): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ` +
    `font-family="${FONT}" font-size="11">\n<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`
  );
}

export function px(v: number, s: Scale): number {
  if (s.log) {
    const a = Math.log10(s.lo);
    return s.px0 + ((Math.log10(v) - a) / (Math.log10(s.hi) - a)) * (s.px1 - s.px0);
  }
  return s.px0 + ((v - s.lo) / (s.hi - s.lo)) * (s.px1 - s.px0);
}

/** A pixel coordinate: two decimals, clamped so a huge value stays finite; a non-finite one is a bug. */
export function fmt(v: number): string {
  if (!Number.isFinite(v)) throw new Error(`plot: non-finite coordinate ${v} (a bug: non-finite values are skipped).`);
  const c = Math.max(-1e5, Math.min(1e5, v));
  return String(Math.round(c * 100) / 100);
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** About `count` round ticks (1, 2 or 5 × 10^k apart) covering [lo, hi]; lo and hi widened to whole steps. */
export function niceTicks(
  lo: number,
  hi: number,
  count: number,
): { lo: number; hi: number; step: number; ticks: number[] } {
  if (!Number.isFinite(lo) || !Number.isFinite(hi))
    return { lo: 0, hi: 1, step: 0.2, ticks: [0, 0.2, 0.4, 0.6, 0.8, 1] };
  if (hi <= lo) hi = lo + (Math.abs(lo) || 1);
  const raw = (hi - lo) / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  const step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
  const first = Math.floor(lo / step + 1e-9);
  const last = Math.ceil(hi / step - 1e-9);
  const ticks: number[] = [];
  for (let k = first; k <= last; k++) ticks.push(k * step);
  return { lo: first * step, hi: last * step, step, ticks };
}

/** Ticks of a log axis on [lo, hi] (> 0): the decades inside, with 2 and 5 × 10^k when fewer than 3 decades. */
export function logTicks(lo: number, hi: number): number[] {
  const a = Math.floor(Math.log10(lo));
  const b = Math.ceil(Math.log10(hi));
  const few = b - a < 3;
  const ticks: number[] = [];
  for (let k = a; k <= b; k++) {
    for (const m of few ? [1, 2, 5] : [1]) {
      const t = m * 10 ** k;
      if (t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9)) ticks.push(t);
    }
  }
  return ticks;
}

export function tickLabel(v: number, step: number): string {
  if (step >= 1e5 || step < 1e-3) {
    if (v === 0) return '0';
    const digits = Math.max(0, Math.min(6, Math.floor(Math.log10(Math.abs(v))) - Math.floor(Math.log10(step) + 1e-9)));
    return v.toExponential(digits).replace('e+', 'e').replace(/-/g, '−');
  }
  const decimals = Math.max(0, Math.min(12, -Math.floor(Math.log10(step) + 1e-9)));
  let s = v.toFixed(decimals);
  if (Number(s) === 0) s = (0).toFixed(decimals);
  return s.replace('-', '−');
}

/** A log-axis tick label: 0.01, 0.1, 1, 10, 100 written out, 1e−3 and 1e4 beyond. */
export function logTickLabel(v: number): string {
  const k = Math.round(Math.log10(v));
  if (k >= -2 && k <= 3) return String(Number(v.toPrecision(3)));
  return v.toExponential(0).replace('e+', 'e').replace(/-/g, '−');
}

export interface AxisSpec {
  scale: Scale;
  label: string;
  /** Tick values; default round ticks of the scale (decades for a log scale). */
  ticks?: number[];
  /** Write the tick labels (default true). */
  labels?: boolean;
}

/** A frame around `box`, outward ticks with labels on the left and bottom, and the two axis labels. */
export function axes(box: Box, x: AxisSpec | null, y: AxisSpec | null, cls = 'axes', frame = true): string {
  const a: string[] = [`<g class="${cls}">`];
  const ticks: string[] = [];
  const bottom = box.y + box.h;
  if (x) {
    const { ticks: values, label } = axisTicks(x.scale, x.ticks);
    for (const t of values) {
      const xx = fmt(px(t, x.scale));
      ticks.push(`M${xx} ${fmt(bottom)}v4`);
      if (x.labels !== false)
        a.push(`<text x="${xx}" y="${fmt(bottom + 16)}" text-anchor="middle">${escapeXml(label(t))}</text>`);
    }
    a.push(
      `<text class="xlabel" x="${fmt(box.x + box.w / 2)}" y="${fmt(bottom + 36)}" text-anchor="middle" font-size="13">${escapeXml(x.label)}</text>`,
    );
  }
  if (y) {
    const { ticks: values, label } = axisTicks(y.scale, y.ticks);
    let widest = 0;
    for (const t of values) {
      const yy = fmt(px(t, y.scale));
      ticks.push(`M${fmt(box.x)} ${yy}h-4`);
      const text = label(t);
      widest = Math.max(widest, text.length);
      if (y.labels !== false)
        a.push(`<text x="${fmt(box.x - 7)}" y="${yy}" dy="0.35em" text-anchor="end">${escapeXml(text)}</text>`);
    }
    const yx = fmt(box.x - 16 - 6.5 * widest);
    const yy = fmt(box.y + box.h / 2);
    a.push(
      `<text class="ylabel" x="${yx}" y="${yy}" text-anchor="middle" transform="rotate(-90 ${yx} ${yy})" font-size="13">${escapeXml(y.label)}</text>`,
    );
  }
  a.push(`<path class="ticks" d="${ticks.join('')}" stroke="#000000" stroke-width="1" fill="none"/>`);
  // Without the frame only the spines of the drawn axes (matplotlib's look for hdbscan's trees).
  if (frame)
    a.push(
      `<rect class="frame" x="${fmt(box.x)}" y="${fmt(box.y)}" width="${fmt(box.w)}" height="${fmt(box.h)}" fill="none" stroke="#000000" stroke-width="1"/>`,
    );
  else {
    const spines =
      (y ? `M${fmt(box.x)} ${fmt(box.y)}V${fmt(bottom)}` : '') +
      (x ? `M${fmt(box.x)} ${fmt(bottom)}H${fmt(box.x + box.w)}` : '');
    a.push(`<path class="spines" d="${spines}" stroke="#000000" stroke-width="1" fill="none"/>`);
  }
  a.push('</g>');
  return a.join('\n');
}

function axisTicks(s: Scale, given?: number[]): { ticks: number[]; label: (v: number) => string } {
  const lo = Math.min(s.lo, s.hi);
  const hi = Math.max(s.lo, s.hi);
  if (s.log) return { ticks: given ?? logTicks(lo, hi), label: logTickLabel };
  const nice = niceTicks(lo, hi, 5);
  const ticks = (given ?? nice.ticks).filter((t) => t >= lo - 1e-9 * (hi - lo) && t <= hi + 1e-9 * (hi - lo));
  const step = given && given.length > 1 ? Math.abs(given[1] - given[0]) : nice.step;
  return { ticks, label: (v) => tickLabel(v, step) };
}

// ——— colours ———

// matplotlib's viridis at 9 evenly spaced stops (interpolated linearly in between).
const VIRIDIS = [
  [68, 1, 84],
  [71, 44, 122],
  [59, 81, 139],
  [44, 113, 142],
  [33, 144, 141],
  [39, 173, 129],
  [92, 200, 99],
  [170, 220, 50],
  [253, 231, 37],
];

/** viridis at t ∈ [0, 1] (clamped) as '#rrggbb'. */
export function viridis(t: number): string {
  const u = Math.max(0, Math.min(1, Number.isFinite(t) ? t : 0)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(u));
  const f = u - i;
  const c = VIRIDIS[i].map((v, k) => Math.round(v + f * (VIRIDIS[i + 1][k] - v)));
  return '#' + c.map((v) => v.toString(16).padStart(2, '0')).join('');
}

// matplotlib's tab10, then the lighter half of tab20: 20 distinguishable label colours.
const PALETTE = [
  '#1f77b4',
  '#ff7f0e',
  '#2ca02c',
  '#d62728',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#bcbd22',
  '#17becf',
  '#7f7f7f',
  '#aec7e8',
  '#ffbb78',
  '#98df8a',
  '#ff9896',
  '#c5b0d5',
  '#c49c94',
  '#f7b6d2',
  '#dbdb8d',
  '#9edae5',
  '#393b79',
];

export const NOISE_COLOUR = '#b0b0b0';

/** The colour of cluster label k ≥ 0 (tab10 then tab20's light half; beyond 20, hues a golden angle apart). */
export function labelColour(k: number): string {
  if (k < 0) return NOISE_COLOUR;
  if (k < PALETTE.length) return PALETTE[k];
  // Hex, not hsl(): every renderer reads it (resvg drew hsl() black).
  const h = ((k * 137.508) % 360) / 60;
  const c = 0.65 * (1 - Math.abs(2 * 0.45 - 1));
  const x = c * (1 - Math.abs((h % 2) - 1));
  const m = 0.45 - c / 2;
  const [r, g, b] =
    h < 1 ? [c, x, 0] : h < 2 ? [x, c, 0] : h < 3 ? [0, c, x] : h < 4 ? [0, x, c] : h < 5 ? [x, 0, c] : [c, 0, x];
  return (
    '#' +
    [r, g, b]
      .map((v) =>
        Math.round((v + m) * 255)
          .toString(16)
          .padStart(2, '0'),
      )
      .join('')
  );
}

/** A vertical colour bar in `box` for values lo … hi of viridis, with ticks and a label on its right. */
export function colourBar(box: Box, lo: number, hi: number, label: string, log = false): string {
  const id = `cbar-${Math.round(box.x)}-${Math.round(box.y)}`;
  const stops = Array.from({ length: 9 }, (_, i) => {
    const t = i / 8;
    return `<stop offset="${t}" stop-color="${viridis(t)}"/>`;
  }).join('');
  if (!(hi > lo)) hi = lo + (log ? lo || 1 : 1);
  const s: Scale = { lo, hi, px0: box.y + box.h, px1: box.y, log };
  const g: string[] = [`<g class="colourbar">`];
  g.push(`<defs><linearGradient id="${id}" x1="0" y1="1" x2="0" y2="0">${stops}</linearGradient></defs>`);
  g.push(
    `<rect x="${fmt(box.x)}" y="${fmt(box.y)}" width="${fmt(box.w)}" height="${fmt(box.h)}" fill="url(#${id})" stroke="#000000" stroke-width="0.8"/>`,
  );
  const { ticks, label: text } = axisTicks(s);
  const path: string[] = [];
  let widest = 0;
  for (const t of ticks) {
    const y = fmt(px(t, s));
    path.push(`M${fmt(box.x + box.w)} ${y}h4`);
    const l = text(t);
    widest = Math.max(widest, l.length);
    g.push(`<text x="${fmt(box.x + box.w + 7)}" y="${y}" dy="0.35em">${escapeXml(l)}</text>`);
  }
  g.push(`<path d="${path.join('')}" stroke="#000000" stroke-width="1"/>`);
  const lx = fmt(box.x + box.w + 18 + 6.5 * widest);
  const ly = fmt(box.y + box.h / 2);
  g.push(
    `<text class="cbar-label" x="${lx}" y="${ly}" text-anchor="middle" transform="rotate(90 ${lx} ${ly})" font-size="12">${escapeXml(label)}</text>`,
  );
  g.push('</g>');
  return g.join('\n');
}

/** A legend of coloured swatches, one entry per row, top-left at (x, y); returns its markup. */
export function legend(x: number, y: number, entries: { colour: string; label: string; shape?: 'dot' | 'ring' }[]) {
  const g: string[] = [`<g class="legend">`];
  entries.forEach((e, i) => {
    const cy = y + 8 + i * 17;
    g.push(
      e.shape === 'ring'
        ? `<circle cx="${fmt(x + 6)}" cy="${fmt(cy)}" r="5" fill="none" stroke="${e.colour}" stroke-width="2"/>`
        : `<circle cx="${fmt(x + 6)}" cy="${fmt(cy)}" r="4.5" fill="${e.colour}"/>`,
    );
    g.push(`<text x="${fmt(x + 17)}" y="${fmt(cy)}" dy="0.35em">${escapeXml(e.label)}</text>`);
  });
  g.push('</g>');
  return g.join('\n');
}
