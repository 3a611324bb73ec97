/**
 * The 4-panel SVG as a picture: rendered by headless Chromium (Debian's /usr/bin/chromium through playwright-core),
 * screenshotted, and each panel's pixels checked for content. Skips when Chromium is absent, unless
 * TREELINE_REQUIRE_BROWSER is set (then a missing browser fails). TREELINE_PLOT_PNG=path keeps the screenshot.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mstPlotSvg, type MstPlotInput } from '../../src/stats/plot.js';
import { fakeHistograms } from '../helpers/histograms.js';

const executablePath = '/usr/bin/chromium';
const present = existsSync(executablePath);
const required = Boolean(process.env.TREELINE_REQUIRE_BROWSER);

interface PanelPixels {
  id: string;
  width: number;
  height: number;
  /** Distinct RGB colours inside the panel's box. */
  colours: number;
  /** Fraction of pixels that are not white. */
  inked: number;
  /** Fraction of pixels clearly blue (the realisations' mean and bands). */
  blue: number;
}

/** Renders the SVG, takes a screenshot, and measures each `g.panel` (and the legend) in the screenshot's pixels. */
async function renderPanels(browser: Browser, input: MstPlotInput, keep?: string): Promise<PanelPixels[]> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 600 }, deviceScaleFactor: 1 });
  try {
    await page.setContent(
      `<!doctype html><html><body style="margin:0;background:#fff">${mstPlotSvg(input)}</body></html>`,
    );
    const boxes = await page.evaluate(() =>
      Array.from(document.querySelectorAll('g.panel, g#legend')).map((g) => {
        const r = g.getBoundingClientRect();
        return { id: g.id, x: Math.round(r.x), y: Math.round(r.y), w: Math.round(r.width), h: Math.round(r.height) };
      }),
    );
    const png = await page.screenshot({ fullPage: true, type: 'png' });
    if (keep) writeFileSync(keep, png);
    // Decode the screenshot where a PNG decoder exists: back in the page, through a canvas.
    const dataUrl = `data:image/png;base64,${png.toString('base64')}`;
    return await page.evaluate(
      async ({ dataUrl, boxes }) => {
        const img = new Image();
        img.src = dataUrl;
        await img.decode();
        const canvas = document.createElement('canvas');
        canvas.width = img.width;
        canvas.height = img.height;
        const ctx = canvas.getContext('2d', { willReadFrequently: true })!;
        ctx.drawImage(img, 0, 0);
        return boxes.map((b) => {
          const px = ctx.getImageData(b.x, b.y, Math.max(1, b.w), Math.max(1, b.h)).data;
          const colours = new Set<number>();
          let inked = 0;
          let blue = 0;
          for (let i = 0; i < px.length; i += 4) {
            const [r, g, bl] = [px[i], px[i + 1], px[i + 2]];
            colours.add((r << 16) | (g << 8) | bl);
            if (r < 250 || g < 250 || bl < 250) inked++;
            if (bl > r + 15 && bl > g + 5) blue++; // the 2σ band on white is about (221, 235, 244)
          }
          const n = px.length / 4;
          return { id: b.id, width: b.w, height: b.h, colours: colours.size, inked: inked / n, blue: blue / n };
        });
      },
      { dataUrl, boxes },
    );
  } finally {
    await page.close();
  }
}

describe.skipIf(!present && !required)('mstPlotSvg rendered in headless Chromium', () => {
  let browser: Browser;

  beforeAll(async () => {
    expect(present, `TREELINE_REQUIRE_BROWSER is set but ${executablePath} is missing`).toBe(true);
    browser = await chromium.launch({
      executablePath,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('mstPlotSvg with realisations renders eight non-blank panels with blue bands and a legend', async () => {
    const catalogue = fakeHistograms(1, 0.03);
    const realisations = Array.from({ length: 30 }, (_, i) => fakeHistograms(100 + i));
    const got = await renderPanels(browser, { catalogue, realisations }, process.env.TREELINE_PLOT_PNG);
    expect(got.map((p) => p.id).sort()).toEqual(
      [
        'legend',
        ...['degree', 'edgeLength', 'branchLength', 'branchShape'].flatMap((s) => [`panel-${s}`, `ratio-${s}`]),
      ].sort(),
    );
    for (const p of got) {
      expect(p.width, p.id).toBeGreaterThan(100);
      expect(p.height, p.id).toBeGreaterThan(p.id === 'legend' ? 10 : 60);
      expect(p.colours, p.id).toBeGreaterThan(20); // antialiased lines, bands, text: never a flat fill
      expect(p.inked, p.id).toBeGreaterThan(0.03);
      expect(p.inked, p.id).toBeLessThan(0.95);
      expect(p.blue, p.id).toBeGreaterThan(0.01);
    }
  });

  it('mstPlotSvg without realisations renders four non-blank histogram panels and no blue', async () => {
    const got = await renderPanels(browser, { catalogue: fakeHistograms(2) });
    expect(got.filter((p) => p.id.startsWith('panel-')).length).toBe(4);
    expect(got.filter((p) => p.id.startsWith('ratio-')).length).toBe(0);
    for (const p of got.filter((q) => q.id !== 'legend')) {
      expect(p.colours, p.id).toBeGreaterThan(10);
      expect(p.inked, p.id).toBeGreaterThan(0.02);
      expect(p.blue, p.id).toBe(0);
    }
  });
});
