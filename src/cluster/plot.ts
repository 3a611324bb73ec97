/**
 * hdbscan's two tree pictures as standalone SVG strings (issue 21), drawn as hdbscan 0.8.43's `plots.py` draws them:
 *
 * - `condensedTreeSvg`: `condensed_tree_.plot(select_clusters=True)` (CondensedTree.get_plot_data). Each cluster is
 *   an icicle hanging from the λ at which it split off its parent (λ grows downward); its width is the number of
 *   points still in it, stepping down as points leave, in at most `maxRectanglesPerIcicle` rectangles coloured by
 *   width (viridis, colour bar "number of points"). Leaves sit `scaling` = root size apart, each parent over the mean
 *   of its children; horizontal lines join a split to its children. Selected clusters are ringed by an ellipse in
 *   their label colour (the scatter's colours), listed in a legend. λ = ∞ (distance 0: duplicate points) is drawn at
 *   a marked "λ = ∞" line below the largest finite λ, since an axis cannot reach infinity.
 * - `dendrogramSvg`: `single_linkage_tree_.plot()` (scipy's dendrogram): U-shaped links at their merge distance,
 *   coloured and thickened by log2 of the merged size. Beyond `p` leaves (default 30) it is truncated as scipy's
 *   `truncate_mode='lastp'`: only the last p − 1 merges are drawn and each leaf says how many points it holds.
 *
 * Groups carry classes and data attributes for tests: `g.icicle[data-cluster]` per cluster, `ellipse.selected
 * [data-label]` per selected cluster, `path.link` per merge drawn, `text.leaf` per dendrogram leaf.
 */
import { axes, colourBar, escapeXml, fmt, labelColour, legend, px, svgOpen, viridis, type Scale } from '../plot/svg.js';
import type { CondensedTree, SingleLinkageTree } from './types.js';

export interface CondensedTreePlotOptions {
  /** Cluster ids (≥ n) of the selected clusters, by label (ClusterResult.selectedClusters): ringed in label colour. */
  selectedClusters?: ArrayLike<number>;
  /** hdbscan's max_rectangles_per_icicle: most width steps per cluster (default 20). */
  maxRectanglesPerIcicle?: number;
  title?: string;
}

interface Bar {
  x: number;
  top: number;
  bottom: number;
  width: number;
}

/** The condensed tree's icicle plot (hdbscan's `condensed_tree_.plot(select_clusters=True)`). */
export function condensedTreeSvg(tree: CondensedTree, options: CondensedTreePlotOptions = {}): string {
  const n = tree.numPoints;
  const K = Math.max(1, tree.numClusters);
  const rows = tree.parent.length;
  // Rows per parent cluster, in row order.
  const byParent: number[][] = Array.from({ length: K }, () => []);
  for (let r = 0; r < rows; r++) byParent[tree.parent[r] - n].push(r);
  const clusterChildren = (c: number): number[] => byParent[c].filter((r) => tree.childSize[r] > 1);
  // Leaves in the tree's row order (hdbscan's _get_leaves); the root alone when nothing split.
  const leaves: number[] = [];
  for (let r = 0; r < rows; r++) {
    if (tree.childSize[r] > 1 && clusterChildren(tree.child[r] - n).length === 0) leaves.push(tree.child[r] - n);
  }
  if (leaves.length === 0) leaves.push(0);
  const xc = new Float64Array(K).fill(NaN);
  const yc = new Float64Array(K);
  leaves.forEach((c, i) => (xc[c] = i));
  for (let c = K - 1; c >= 0; c--) {
    const split = clusterChildren(c);
    if (split.length === 0) continue;
    let sum = 0;
    for (const r of split) {
      sum += xc[tree.child[r] - n];
      yc[tree.child[r] - n] = tree.lambda[r];
    }
    xc[c] = sum / split.length;
  }
  // λ = ∞ is drawn at `infAt`, a little below the largest finite λ.
  let maxFinite = 0;
  let anyInfinite = false;
  for (let r = 0; r < rows; r++) {
    const l = tree.lambda[r];
    if (Number.isFinite(l)) maxFinite = Math.max(maxFinite, l);
    else anyInfinite = true;
  }
  if (!(maxFinite > 0)) maxFinite = 1;
  const infAt = maxFinite * 1.08;
  const lam = (l: number): number => (Number.isFinite(l) ? l : infAt);

  let scaling = 0;
  for (const r of byParent[0]) scaling += tree.childSize[r];
  scaling = Math.max(1, scaling);
  const maxRect = options.maxRectanglesPerIcicle ?? 20;
  const bars: Bar[][] = Array.from({ length: K }, () => []);
  const bounds = Array.from({ length: K }, () => ({ left: 0, right: 0, bottom: 0, top: 0, size: 0 }));
  for (let c = K - 1; c >= 0; c--) {
    const own = byParent[c].slice().sort((a, b) => lam(tree.lambda[a]) - lam(tree.lambda[b]) || a - b);
    let size = 0;
    for (const r of own) size += tree.childSize[r];
    if (own.length === 0 || !Number.isFinite(xc[c])) continue;
    const maxLambda = lam(tree.lambda[own[own.length - 1]]);
    let minSize = 0;
    for (const r of own) if (lam(tree.lambda[r]) === maxLambda) minSize += tree.childSize[r];
    const step = (size - minSize) / maxRect;
    const x = xc[c] * scaling;
    bounds[c] = { left: x - size / 2, right: x + size / 2, bottom: yc[c], top: maxLambda, size };
    let current = size;
    let currentLambda = yc[c];
    let lastSize = size;
    let lastLambda = yc[c];
    for (const r of own) {
      const l = lam(tree.lambda[r]);
      if (l !== currentLambda && (lastSize - current > step || l === maxLambda)) {
        bars[c].push({ x, top: l, bottom: lastLambda, width: lastSize });
        lastSize = current;
        lastLambda = currentLambda;
      }
      current -= tree.childSize[r];
      currentLambda = l;
    }
  }

  // Layout: icicles left, colour bar and legend right.
  const selected = options.selectedClusters ? Array.from(options.selectedClusters, (id) => id - n) : [];
  const left = 80;
  const top = options.title ? 46 : 24;
  const plotW = 620;
  const plotH = 460;
  const width = left + plotW + 100 + (selected.length ? 170 : 0) + 10;
  const height = top + plotH + 40;
  let xlo = Infinity;
  let xhi = -Infinity;
  for (let c = 0; c < K; c++) {
    if (!Number.isFinite(xc[c]) || bounds[c].size === 0) continue;
    xlo = Math.min(xlo, bounds[c].left);
    xhi = Math.max(xhi, bounds[c].right);
  }
  if (!(xhi > xlo)) [xlo, xhi] = [-0.5, 0.5];
  const pad = 0.04 * (xhi - xlo);
  const xs: Scale = { lo: xlo - pad, hi: xhi + pad, px0: left, px1: left + plotW };
  const ys: Scale = { lo: 0, hi: anyInfinite ? infAt * 1.04 : maxFinite * 1.04, px0: top, px1: top + plotH };
  let maxWidth = 1;
  for (const list of bars) for (const b of list) maxWidth = Math.max(maxWidth, b.width);

  const out = [svgOpen(width, height)];
  if (options.title)
    out.push(
      `<text class="title" x="${fmt(left + plotW / 2)}" y="22" text-anchor="middle" font-size="14">${escapeXml(options.title)}</text>`,
    );
  out.push(`<g id="condensed-tree" class="panel" data-clusters="${K}">`);
  for (let c = 0; c < K; c++) {
    if (bars[c].length === 0) continue;
    const rects = bars[c].map((b) => {
      const x0 = px(b.x - b.width / 2, xs);
      const x1 = px(b.x + b.width / 2, xs);
      const y0 = px(b.bottom, ys);
      const y1 = px(b.top, ys);
      return `<rect x="${fmt(x0)}" y="${fmt(y0)}" width="${fmt(Math.max(0.6, x1 - x0))}" height="${fmt(Math.max(0.6, y1 - y0))}" fill="${viridis(b.width / maxWidth)}"/>`;
    });
    out.push(`<g class="icicle" data-cluster="${c + n}" data-size="${bounds[c].size}">${rects.join('')}</g>`);
  }
  // Lines from each split to its children.
  const lines: string[] = [];
  for (let r = 0; r < rows; r++) {
    if (tree.childSize[r] <= 1) continue;
    const p = tree.parent[r] - n;
    const c = tree.child[r] - n;
    const sign = Math.sign(xc[c] - xc[p]);
    const y = fmt(px(yc[c], ys));
    lines.push(
      `M${fmt(px(xc[p] * scaling, xs))} ${y}H${fmt(px(xc[c] * scaling + (sign * tree.childSize[r]) / 2, xs))}`,
    );
  }
  out.push(`<path class="splits" d="${lines.join('')}" stroke="#000000" stroke-width="1" fill="none"/>`);
  if (anyInfinite) {
    const y = fmt(px(infAt, ys));
    out.push(
      `<g class="infinity"><path d="M${left} ${y}H${left + plotW}" stroke="#888888" stroke-dasharray="5 4" stroke-width="1"/>` +
        `<text x="${left + plotW - 4}" y="${y}" dy="-4" text-anchor="end" font-size="11" fill="#555555">λ = ∞ (duplicate points)</text></g>`,
    );
  }
  selected.forEach((c, label) => {
    if (c < 0 || c >= K) return;
    const b = bounds[c];
    const x0 = px(b.left, xs);
    const x1 = px(b.right, xs);
    const y0 = px(b.bottom, ys);
    const y1 = px(b.top, ys);
    const rx = Math.max(6, (x1 - x0) * 0.6 + 4);
    const ry = Math.max(6, (y1 - y0) * 0.6 + 4);
    out.push(
      `<ellipse class="selected" data-label="${label}" cx="${fmt((x0 + x1) / 2)}" cy="${fmt((y0 + y1) / 2)}" rx="${fmt(rx)}" ry="${fmt(ry)}" fill="none" stroke="${labelColour(label)}" stroke-width="2"/>`,
    );
  });
  out.push('</g>');
  const finiteTicks = (): number[] | undefined => {
    if (!anyInfinite) return undefined;
    const s = axesTicks(maxFinite);
    return s;
  };
  out.push(
    axes(
      { x: left, y: top, w: plotW, h: plotH },
      null,
      { scale: ys, label: 'λ value', ticks: finiteTicks() },
      'axes',
      false,
    ),
  );
  if (anyInfinite) {
    out.push(
      `<text class="infinity-tick" x="${left - 7}" y="${fmt(px(infAt, ys))}" dy="0.35em" text-anchor="end">∞</text>`,
    );
  }
  out.push(colourBar({ x: left + plotW + 20, y: top, w: 14, h: plotH }, 0, maxWidth, 'number of points'));
  if (selected.length) {
    const shown = selected.length > 24 ? 23 : selected.length;
    const entries = selected.slice(0, shown).map((c, label) => ({
      colour: labelColour(label),
      label: `cluster ${label} (${bounds[c]?.size ?? 0})`,
      shape: 'ring' as const,
    }));
    if (shown < selected.length)
      entries.push({ colour: '#ffffff', label: `… ${selected.length - shown} more`, shape: 'ring' as const });
    out.push(legend(left + plotW + 110, top, entries));
  }
  out.push('</svg>');
  return out.join('\n');
}

/** Round ticks on [0, max] (the finite part of a λ axis). */
function axesTicks(max: number): number[] {
  const raw = max / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  const step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
  const ticks: number[] = [];
  for (let k = 0; k * step <= max * (1 + 1e-9); k++) ticks.push(k * step);
  return ticks;
}

export interface DendrogramPlotOptions {
  /** Most leaves drawn (scipy's truncate_mode='lastp' with this p); default 30. */
  p?: number;
  /** y-axis label; default 'distance'. */
  distanceLabel?: string;
  title?: string;
}

/** The single-linkage dendrogram (hdbscan's `single_linkage_tree_.plot()`), truncated to the last p − 1 merges. */
export function dendrogramSvg(tree: SingleLinkageTree, options: DendrogramPlotOptions = {}): string {
  const merges = tree.left.length;
  const n = merges + 1;
  const p = Math.max(2, Math.min(n, Math.floor(options.p ?? 30)));
  const first = n - p; // merges first … merges − 1 are drawn: node ids n + first … 2n − 2
  const isDrawn = (id: number): boolean => id >= n + first;
  const sizeOf = (id: number): number => (id < n ? 1 : tree.size[id - n]);
  // Leaves left to right: depth-first from the root, left child first.
  const leaves: number[] = [];
  if (merges > 0) {
    const stack = [2 * n - 2];
    while (stack.length) {
      const id = stack.pop()!;
      if (isDrawn(id)) stack.push(tree.right[id - n], tree.left[id - n]);
      else leaves.push(id);
    }
  } else leaves.push(0);
  const x = new Map<number, number>();
  leaves.forEach((id, i) => x.set(id, i + 0.5));
  let maxFinite = 0;
  let anyInfinite = false;
  for (let i = first; i < merges; i++) {
    const d = tree.distance[i];
    if (Number.isFinite(d)) maxFinite = Math.max(maxFinite, d);
    else anyInfinite = true;
  }
  if (!(maxFinite > 0)) maxFinite = 1;
  const infAt = maxFinite * 1.08;
  const dist = (d: number): number => (Number.isFinite(d) ? d : infAt);
  const heightOf = (id: number): number => (isDrawn(id) ? dist(tree.distance[id - n]) : 0);

  const left = 80;
  const top = options.title ? 46 : 24;
  const plotW = Math.max(420, Math.min(1100, leaves.length * 18));
  const plotH = 420;
  const rotate = leaves.length > 12;
  const below = rotate ? 64 : 40;
  const width = left + plotW + 110;
  const height = top + plotH + below + 20;
  const xs: Scale = { lo: 0, hi: leaves.length, px0: left, px1: left + plotW };
  const ys: Scale = { lo: 0, hi: (anyInfinite ? infAt : maxFinite) * 1.05, px0: top + plotH, px1: top };
  const logN = Math.log2(Math.max(2, n));
  const out = [svgOpen(width, height)];
  if (options.title)
    out.push(
      `<text class="title" x="${fmt(left + plotW / 2)}" y="22" text-anchor="middle" font-size="14">${escapeXml(options.title)}</text>`,
    );
  out.push(`<g id="dendrogram" class="panel" data-leaves="${leaves.length}" data-links="${merges - first}">`);
  for (let i = first; i < merges; i++) {
    const a = tree.left[i];
    const b = tree.right[i];
    const xa = x.get(a)!;
    const xb = x.get(b)!;
    x.set(n + i, (xa + xb) / 2);
    const y = fmt(px(dist(tree.distance[i]), ys));
    const t = Math.log2(tree.size[i]) / logN;
    out.push(
      `<path class="link" d="M${fmt(px(xa, xs))} ${fmt(px(heightOf(a), ys))}V${y}H${fmt(px(xb, xs))}V${fmt(px(heightOf(b), ys))}" ` +
        `stroke="${viridis(t)}" stroke-width="${fmt(0.8 + 2.2 * t)}" fill="none"/>`,
    );
  }
  const labelY = top + plotH + 14;
  leaves.forEach((id, i) => {
    const lx = fmt(px(i + 0.5, xs));
    const text = id < n ? String(id) : `(${sizeOf(id)})`;
    out.push(
      rotate
        ? `<text class="leaf" x="${lx}" y="${labelY - 6}" font-size="9" text-anchor="end" transform="rotate(-90 ${lx} ${labelY - 6})" dy="0.35em">${text}</text>`
        : `<text class="leaf" x="${lx}" y="${labelY}" font-size="10" text-anchor="middle">${text}</text>`,
    );
  });
  if (anyInfinite) {
    const y = fmt(px(infAt, ys));
    out.push(
      `<path class="infinity" d="M${left} ${y}H${left + plotW}" stroke="#888888" stroke-dasharray="5 4" stroke-width="1"/>`,
    );
  }
  out.push('</g>');
  out.push(
    axes(
      { x: left, y: top, w: plotW, h: plotH },
      null,
      { scale: ys, label: options.distanceLabel ?? 'distance', ticks: anyInfinite ? axesTicks(maxFinite) : undefined },
      'axes',
      false,
    ),
  );
  if (anyInfinite) out.push(`<text x="${left - 7}" y="${fmt(px(infAt, ys))}" dy="0.35em" text-anchor="end">∞</text>`);
  const note = first > 0 ? `last ${merges - first} of ${merges} merges; (k): a subtree of k points` : `${n} points`;
  out.push(
    `<text class="note" x="${fmt(left + plotW)}" y="${fmt(height - 6)}" text-anchor="end" font-size="10" fill="#555555">${escapeXml(note)}</text>`,
  );
  out.push(colourBar({ x: left + plotW + 20, y: top, w: 14, h: plotH }, 1, Math.max(2, n), 'points merged', true));
  out.push('</svg>');
  return out.join('\n');
}
