/**
 * `--plot <file>` (and hdbscan's `--plot-tree`, `--plot-dendrogram`): the figure in the format its extension names
 * (issue 15: "today mst.png receives SVG text"). `.svg` is the SVG that src/stats/plot.ts, src/cluster/plot.ts or
 * src/plot/points.ts draws; `.png` is that SVG rendered by resvg (@resvg/resvg-js: Rust's
 * resvg with prebuilt binaries in npm packages), at the SVG's own size, with the system's fonts. Any other extension
 * is an input error before anything is computed. resvg is imported here only, and lazily: the library and the
 * browser bundle never load it.
 */
import { extname } from 'node:path';
import { InputError } from '../errors.js';

export const PLOT_FORMATS = ['svg', 'png'] as const;
export type PlotFormat = (typeof PLOT_FORMATS)[number];

/** The format `path` names by its extension (case-insensitive); anything else is an InputError naming the path. */
export function plotFormat(path: string, option = '--plot'): PlotFormat {
  const ext = extname(path).slice(1).toLowerCase();
  if (!(PLOT_FORMATS as readonly string[]).includes(ext)) {
    throw new InputError(`${option} ${path}: expected a .svg or .png file, got ${ext ? `'.${ext}'` : 'no extension'}.`);
  }
  return ext as PlotFormat;
}

/** The bytes of the figure `svg` in `format`. */
export async function plotBytes(svg: string, format: PlotFormat): Promise<string | Uint8Array> {
  if (format === 'svg') return svg;
  const { Resvg } = await import('@resvg/resvg-js');
  // A white background is drawn by the SVG itself; system fonts for the axis labels (DejaVu, Liberation, …).
  const png = new Resvg(svg, { font: { loadSystemFonts: true, defaultFontFamily: 'sans-serif' } }).render().asPng();
  return new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
}
