/**
 * The browser example (examples/browser/) in headless Chromium: Debian's /usr/bin/chromium driven by playwright-core.
 * The page clusters seeded blobs with hdbscan() in a Web Worker from the package's browser bundle; the test checks
 * the canvas is drawn and the labels equal the Node result for the same dataset and parameters, and prints which
 * backend ran.
 *
 * WebGPU first: Chromium is started with the flags that enable WebGPU on Vulkan (Mesa lavapipe offered through
 * VK_DRIVER_FILES), then with WebGPU on Chromium's own SwiftShader; the first that gives an adapter runs the page.
 * The page's 'auto' takes hardware adapters only (as the library's does), so where Chromium offers a software one
 * (SwiftShader, lavapipe) the first case asks for `?backend=gpu`, which takes any adapter.
 * Without any adapter the page runs the CPU backend, which the last case forces anyway (`?backend=cpu`). A third case
 * runs the bundle's graph MSF kernels on Chromium's WebGPU and compares them with its CPU backend, so that the
 * bundled WGSL runs in a browser even where the EMST kernels exceed the browser's limits (README, In the browser).
 *
 * A fourth case uses the page as a person does (issue 15): opened at the README's URL with no query it runs with
 * its defaults; then its controls (n, clusters, minClusterSize, minSamples, backend) are set and "Cluster" pressed,
 * and the result, the legend (one entry per cluster with its colour and size, and one for noise) and the URL follow.
 *
 * Every run also checks the condensed tree beside the scatter (issue 21): an SVG with one ring per selected cluster,
 * ringed in the colour the canvas and the legend give that cluster. A fifth case picks a CSV through the file input
 * (the page clusters it instead of the generated data, with Node's labels), picks a malformed CSV and NPY (the page
 * names the file and what was wrong), drops a float32 NPY of the same points on the page, goes back to the generated
 * data, and screenshots the page with the tree (checked not blank).
 *
 * Skips when Chromium is missing, unless TREELINE_REQUIRE_BROWSER=1 (CI), which makes that a failure.
 * scripts/test.sh installs Debian's chromium when run as root.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blobs, hdbscan } from '../../src/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const CHROMIUM = process.env.TREELINE_CHROMIUM ?? '/usr/bin/chromium';
const REQUIRED = process.env.TREELINE_REQUIRE_BROWSER === '1';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
/** Without Chromium the cases skip, unless it is required: then they fail, naming what is missing. */
const SKIP = !HAVE_CHROMIUM && !REQUIRED;

/** The env notes' flags for this machine's closed network; playwright adds --headless and an empty --user-data-dir. */
const BASE_FLAGS = [
  '--no-sandbox',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const LAVAPIPE_ICD = ['/usr/share/vulkan/icd.d/lvp_icd.json', '/usr/share/vulkan/icd.d/lvp_icd.x86_64.json'].find(
  existsSync,
);

interface Variant {
  name: string;
  args: string[];
  env?: Record<string, string>;
}

/** Tried in order; the first whose navigator.gpu gives an adapter runs the page. */
const WEBGPU_VARIANTS: Variant[] = [
  {
    name: 'WebGPU on Vulkan (lavapipe offered)',
    args: [
      '--enable-unsafe-webgpu',
      '--enable-features=Vulkan',
      '--use-vulkan=native',
      '--use-angle=vulkan',
      '--disable-vulkan-surface',
      '--ignore-gpu-blocklist',
    ],
    env: LAVAPIPE_ICD ? { VK_DRIVER_FILES: LAVAPIPE_ICD, VK_ICD_FILENAMES: LAVAPIPE_ICD } : {},
  },
  { name: 'WebGPU on SwiftShader', args: ['--disable-gpu', '--enable-unsafe-webgpu'] },
];
const CPU_VARIANT: Variant = { name: 'no WebGPU (--disable-gpu)', args: ['--disable-gpu'] };

/** The page's parameters: datasets/blobs2d-2000.csv clustered as in the README's quick start. */
const PARAMS = { n: 2000, clusters: 4, seed: 1, minClusterSize: 15 };

/** What examples/browser/main.js leaves on `window.treeline`. */
interface PageResult {
  done: boolean;
  error?: string;
  backend?: 'gpu' | 'cpu';
  adapter?: { vendor: string; architecture: string; description: string } | null;
  gpuNote?: string | null;
  clusters?: number;
  labels?: number[];
  palette?: string[];
  ms?: number;
  params?: { n: number; source?: string; file?: string; dim?: number };
  fileError?: string;
}

interface AdapterProbe {
  vendor: string;
  architecture: string;
  description: string;
  isFallbackAdapter: boolean;
}

let server: ChildProcess | undefined;
let pageUrl = '';

/** Starts scripts/serve-examples.mjs on a free port and returns the example's URL (its first stdout line). */
async function startServer(): Promise<string> {
  server = spawn(process.execPath, ['scripts/serve-examples.mjs', '--port', '0'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: server.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    server!.once('exit', (code) => reject(new Error(`serve-examples.mjs exited with ${code}`)));
  });
  lines.close();
  return url;
}

async function launch(variant: Variant): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...BASE_FLAGS, ...variant.args],
    env: { ...process.env, ...variant.env } as Record<string, string>,
    timeout: 60_000,
  });
}

/** The adapter navigator.gpu gives on a page of the example's origin (WebGPU needs a secure context), or null. */
async function probeAdapter(browser: Browser): Promise<AdapterProbe | null> {
  const page = await browser.newPage();
  try {
    await page.goto(pageUrl.replace(/examples\/browser\/$/, 'package.json'));
    return await page.evaluate(async () => {
      const gpu = (navigator as Navigator & { gpu?: GPU }).gpu;
      const adapter = gpu ? await gpu.requestAdapter() : null;
      if (!adapter) return null;
      const info = adapter.info as GPUAdapterInfo & { isFallbackAdapter?: boolean };
      return {
        vendor: info.vendor,
        architecture: info.architecture,
        description: info.description,
        isFallbackAdapter: !!info.isFallbackAdapter,
      };
    });
  } finally {
    await page.close();
  }
}

/** Loads the example with `query`, waits for the worker's result and returns it with the canvas's pixel counts. */
async function runPage(
  browser: Browser,
  query: string,
): Promise<{ result: PageResult; nonWhite: number; colours: Record<string, number>; rings: string[] }> {
  const page: Page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    await page.goto(`${pageUrl}?${query}`);
    await page.waitForFunction(() => (window as unknown as { treeline?: PageResult }).treeline?.done, null, {
      timeout: 200_000,
    });
    const result = await page.evaluate(() => (window as unknown as { treeline: PageResult }).treeline);
    expect(errors).toEqual([]);
    // Pixels of the canvas: how many are not white, and how many have each palette colour exactly (point centres).
    const { nonWhite, colours } = await page.evaluate((palette) => {
      const canvas = document.querySelector('canvas')!;
      const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
      const hex = (i: number) =>
        '#' + [data[i], data[i + 1], data[i + 2]].map((v) => v.toString(16).padStart(2, '0')).join('');
      const counts: Record<string, number> = Object.fromEntries(palette.map((c) => [c, 0]));
      let nonWhite = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i] !== 255 || data[i + 1] !== 255 || data[i + 2] !== 255) nonWhite++;
        const c = hex(i);
        if (c in counts) counts[c]++;
      }
      return { nonWhite, colours: counts };
    }, result.palette ?? []);
    return { result, nonWhite, colours, rings: await treeRings(page) };
  } finally {
    await page.close();
  }
}

/** The stroke colour of each ring of the condensed tree beside the canvas, in label order (`data-label`). */
async function treeRings(page: Page): Promise<string[]> {
  return page.$$eval('#tree svg ellipse.selected', (rings) =>
    rings
      .map((e) => ({ label: Number(e.getAttribute('data-label')), colour: e.getAttribute('stroke') ?? '' }))
      .sort((a, b) => a.label - b.label)
      .map((r) => r.colour),
  );
}

/** The tree has one ring per cluster, in the cluster's colour on the canvas and in the legend. */
function checkTree(rings: string[], palette: string[], clusters: number): void {
  expect(rings).toHaveLength(clusters);
  expect(rings).toEqual(palette.slice(0, clusters));
}

/** The Node result for the page's dataset and parameters (CPU backend). */
async function nodeLabels(
  params: { n: number; clusters: number; seed: number; minClusterSize: number; minSamples?: number } = PARAMS,
): Promise<number[]> {
  const points = blobs({ n: params.n, dim: 2, clusters: params.clusters, seed: params.seed });
  const { minClusterSize, minSamples } = params;
  const { labels } = await hdbscan(points, { dim: 2, minClusterSize, minSamples, backend: 'cpu' });
  return Array.from(labels);
}

/** The legend's entries: their text and swatch colour (the `data-colour` of each item). */
async function legendEntries(page: Page): Promise<{ text: string; colour: string }[]> {
  return page.$$eval('#legend li', (items) =>
    items.map((li) => ({ text: li.textContent ?? '', colour: (li as HTMLElement).dataset.colour ?? '' })),
  );
}

/** Checks the legend against the labels: one entry per cluster (palette colour, size) and one for noise. */
function checkLegend(entries: { text: string; colour: string }[], labels: number[], palette: string[]): void {
  const clusters = Math.max(-1, ...labels) + 1;
  expect(entries).toHaveLength(clusters + 1);
  for (let c = 0; c < clusters; c++) {
    const size = labels.filter((l) => l === c).length;
    expect(entries[c]).toEqual({ text: `cluster ${c} (${size})`, colour: palette[c % palette.length] });
  }
  expect(entries[clusters].text).toBe(`noise (${labels.filter((l) => l < 0).length})`);
}

function checkDrawn(run: Awaited<ReturnType<typeof runPage>>, expected: number[]): void {
  const { result, nonWhite, colours, rings } = run;
  expect(result.error).toBeUndefined();
  expect(result.labels).toHaveLength(PARAMS.n);
  expect(result.labels).toEqual(expected);
  // Drawn: well above a blank canvas, and every cluster's colour is on it.
  expect(nonWhite).toBeGreaterThan(5_000);
  const clusters = Math.max(...expected) + 1;
  expect(result.clusters).toBe(clusters);
  for (let c = 0; c < clusters; c++) expect(colours[result.palette![c % result.palette!.length]]).toBeGreaterThan(50);
  checkTree(rings, result.palette!, clusters);
}

/** Chromium started with the first WebGPU variant that gives an adapter, or undefined where none does. */
async function launchWithWebGpu(): Promise<{ variant: Variant; adapter: AdapterProbe; browser: Browser } | undefined> {
  for (const variant of WEBGPU_VARIANTS) {
    const browser = await launch(variant);
    const adapter = await probeAdapter(browser).catch(() => null);
    if (adapter) return { variant, adapter, browser };
    await browser.close();
  }
  return undefined;
}

/** Fails the case where Chromium is required but missing (the cases skip where it is not required). */
function requireChromium(): void {
  if (HAVE_CHROMIUM) return;
  throw new Error(
    `No Chromium at ${CHROMIUM} (TREELINE_REQUIRE_BROWSER=1): install Debian's chromium ` +
      '(scripts/test.sh does when run as root) or set TREELINE_CHROMIUM.',
  );
}

const query = new URLSearchParams(Object.entries(PARAMS).map(([k, v]) => [k, String(v)])).toString();

describe.skipIf(SKIP)('examples/browser in headless Chromium', () => {
  let expected: number[] = [];

  beforeAll(async () => {
    if (!HAVE_CHROMIUM) return; // each case fails on its own (TREELINE_REQUIRE_BROWSER=1)
    // The page imports dist/browser/treeline.js: build it from the current sources (esbuild, well under a second).
    execFileSync(process.execPath, ['scripts/build-browser.mjs'], { cwd: root, stdio: 'inherit' });
    pageUrl = await startServer();
    expected = await nodeLabels();
  });

  afterAll(() => {
    server?.kill();
  });

  it('the page clusters in a worker on WebGPU where Chromium gives an adapter, and matches Node', async () => {
    requireChromium();
    const chosen = (await launchWithWebGpu()) ?? {
      variant: CPU_VARIANT,
      adapter: null,
      browser: await launch(CPU_VARIANT),
    };
    try {
      const run = await runPage(chosen.browser, chosen.adapter ? `${query}&backend=gpu` : query);
      const { backend, adapter, gpuNote, ms } = run.result;
      const adapterText = (a: { vendor: string; architecture: string; description: string } | null | undefined) =>
        a ? [a.vendor, a.architecture, a.description].filter(Boolean).join(' ') : 'none';
      // The record of what ran, in the test output.
      console.log(
        `browser example: Chromium flags "${chosen.variant.name}", adapter ${adapterText(chosen.adapter)}; ` +
          `hdbscan ran on ${backend === 'gpu' ? `WebGPU (${adapterText(adapter)})` : 'the CPU backend'}` +
          `${gpuNote ? ` — ${gpuNote.split('\n')[0]}` : ''}; ${ms?.toFixed(0)} ms in the page.`,
      );
      checkDrawn(run, expected);
    } finally {
      await chosen.browser.close();
    }
  });

  it("the bundle's WGSL runs on Chromium's WebGPU: graphMst on the GPU gives the CPU's forest", async (ctx) => {
    requireChromium();
    const chosen = await launchWithWebGpu();
    if (!chosen) {
      console.log('browser bundle on WebGPU: no adapter in Chromium with any of the WebGPU flags; skipped.');
      ctx.skip();
      return;
    }
    const page = await chosen.browser.newPage();
    try {
      await page.goto(pageUrl.replace(/examples\/browser\/$/, 'package.json'));
      const bundleUrl = new URL('/dist/browser/treeline.js', pageUrl).href;
      // Passed as text: vitest rewrites import() in functions, and this one must run in the page.
      const r = (await page.evaluate(`(async () => {
        const m = await import(${JSON.stringify(bundleUrl)});
        // A seeded random multigraph with integer weights (ties, self loops, parallel edges).
        const n = 500;
        const edges = 3000;
        let state = 7;
        const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
        const graph = {
          numVertices: n,
          sources: new Uint32Array(edges),
          targets: new Uint32Array(edges),
          weights: new Float32Array(edges),
        };
        for (let i = 0; i < edges; i++) {
          graph.sources[i] = Math.floor(next() * n);
          graph.targets[i] = Math.floor(next() * n);
          graph.weights[i] = Math.floor(next() * 100);
        }
        const gpu = await m.graphMst(graph, { backend: 'gpu' });
        const cpu = await m.graphMst(graph, { backend: 'cpu' });
        return { gpu: Array.from(gpu.edgeIds), cpu: Array.from(cpu.edgeIds), components: gpu.components };
      })()`)) as { gpu: number[]; cpu: number[]; components: number };
      console.log(
        `browser bundle on WebGPU (${chosen.adapter.vendor} ${chosen.adapter.architecture}): graphMst ran on the GPU, ` +
          `${r.gpu.length} forest edges, ${r.components} components.`,
      );
      expect(r.gpu.length).toBeGreaterThan(0);
      expect(r.gpu).toEqual(r.cpu);
    } finally {
      await chosen.browser.close();
    }
  });

  it('issue 15: the page at the README URL runs with its defaults; its controls and legend work without a query', async () => {
    requireChromium();
    const browser = await launch(CPU_VARIANT);
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const done = (n: number) =>
      page.waitForFunction(
        (n) => {
          const t = (window as unknown as { treeline?: PageResult & { params: { n: number } } }).treeline;
          return t?.done && t.params.n === n;
        },
        n,
        { timeout: 200_000 },
      );
    try {
      // As the README says: http://localhost:8080/examples/browser/, nothing in the query.
      await page.goto(pageUrl);
      await done(PARAMS.n);
      const first = await page.evaluate(() => (window as unknown as { treeline: PageResult }).treeline);
      expect(first.error).toBeUndefined();
      expect(first.labels).toEqual(expected);
      const form = await page.$$eval('#controls [name]', (els) =>
        Object.fromEntries(els.map((e) => [(e as HTMLInputElement).name, (e as HTMLInputElement).value])),
      );
      expect(form).toEqual({
        n: '2000',
        clusters: '4',
        minClusterSize: '15',
        minSamples: '',
        backend: 'auto',
        seed: '1',
      });
      checkLegend(await legendEntries(page), expected, first.palette!);
      checkTree(await treeRings(page), first.palette!, first.clusters!);

      // Set every control and press "Cluster".
      const next = { n: 1200, clusters: 3, seed: 1, minClusterSize: 10, minSamples: 4 };
      await page.fill('input[name=n]', String(next.n));
      await page.fill('input[name=clusters]', String(next.clusters));
      await page.fill('input[name=minClusterSize]', String(next.minClusterSize));
      await page.fill('input[name=minSamples]', String(next.minSamples));
      await page.selectOption('select[name=backend]', 'cpu');
      await page.click('#controls button[type=submit]');
      await done(next.n);
      const second = await page.evaluate(() => (window as unknown as { treeline: PageResult }).treeline);
      expect(second.error).toBeUndefined();
      expect(second.backend).toBe('cpu');
      const labels = await nodeLabels(next);
      expect(second.labels).toEqual(labels);
      expect(second.clusters).toBe(Math.max(...labels) + 1);
      expect(second.clusters).toBeGreaterThan(1);
      checkLegend(await legendEntries(page), labels, second.palette!);
      const legendClusters = (await legendEntries(page)).length - 1;
      checkTree(await treeRings(page), second.palette!, legendClusters);
      // The parameters are kept in the URL (a reload or a shared link gives the same page).
      const url = new URL(page.url());
      expect(Object.fromEntries(url.searchParams)).toEqual({
        n: '1200',
        clusters: '3',
        seed: '1',
        minClusterSize: '10',
        minSamples: '4',
        backend: 'cpu',
      });
      expect(await page.textContent('#status')).toMatch(/^1200 points: \d+ clusters, \d+ noise — on the CPU backend/);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it('issue 21: a CSV picked with the file input is clustered instead of the generated data; bad files are named; a screenshot shows the tree', async () => {
    requireChromium();
    const browser = await launch(CPU_VARIANT);
    const page = await browser.newPage({ viewport: { width: 1680, height: 1100 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const dir = mkdtempSync(join(tmpdir(), 'treeline-browser-'));
    const result = () => page.evaluate(() => (window as unknown as { treeline: PageResult }).treeline);
    try {
      await page.goto(pageUrl);
      await page.waitForFunction(() => (window as unknown as { treeline?: PageResult }).treeline?.done, null, {
        timeout: 200_000,
      });
      const first = await result();
      expect(first.labels).toEqual(expected);

      // The demo with the tree: a screenshot of the page, not blank (decoded in the page: inked, many colours).
      const shot = join(dir, 'demo.png');
      await page.screenshot({ path: shot, fullPage: true });
      expect(statSync(shot).size).toBeGreaterThan(20_000);
      const { width, height, inked, distinct } = await page.evaluate(async (b64) => {
        const img = new Image();
        img.src = `data:image/png;base64,${b64}`;
        await img.decode();
        const c = document.createElement('canvas');
        c.width = img.width;
        c.height = img.height;
        const ctx = c.getContext('2d')!;
        ctx.drawImage(img, 0, 0);
        const { data } = ctx.getImageData(0, 0, c.width, c.height);
        let inked = 0;
        const seen = new Set<number>();
        for (let i = 0; i < data.length; i += 4) {
          if (data[i] < 250 || data[i + 1] < 250 || data[i + 2] < 250) inked++;
          seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
        }
        return { width: c.width, height: c.height, inked, distinct: seen.size };
      }, readFileSync(shot).toString('base64'));
      expect(width).toBe(1680);
      expect(height).toBeGreaterThanOrEqual(1100);
      expect(inked).toBeGreaterThan(0.03 * width * height);
      expect(distinct).toBeGreaterThan(50);
      // The tree sits beside the canvas (same row), not under it.
      const [canvasBox, treeBox] = await Promise.all([
        page.locator('canvas').boundingBox(),
        page.locator('#tree svg').boundingBox(),
      ]);
      expect(treeBox!.x).toBeGreaterThan(canvasBox!.x + canvasBox!.width - 1);
      expect(treeBox!.y).toBeLessThan(canvasBox!.y + canvasBox!.height);

      // A CSV with a header, three numeric columns and a text one (left out), picked through the file input.
      const data = blobs({ n: 300, dim: 3, clusters: 3, seed: 5 });
      const rows = ['x,y,z,tag'];
      for (let i = 0; i < 300; i++) rows.push(`${data[3 * i]},${data[3 * i + 1]},${data[3 * i + 2]},p${i}`);
      await page.selectOption('select[name=backend]', 'cpu');
      await page.setInputFiles('#file', {
        name: 'blobs3d.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(rows.join('\n') + '\n'),
      });
      await page.waitForFunction(
        () => {
          const t = (window as unknown as { treeline?: PageResult }).treeline;
          return t?.done && t.params?.source === 'file';
        },
        null,
        { timeout: 200_000 },
      );
      const fromFile = await result();
      expect(fromFile.error).toBeUndefined();
      expect(fromFile.params).toMatchObject({ source: 'file', file: 'blobs3d.csv', n: 300, dim: 3 });
      const { labels } = await hdbscan(Float64Array.from(data), { dim: 3, minClusterSize: 15, backend: 'cpu' });
      expect(fromFile.labels).toEqual(Array.from(labels));
      expect(fromFile.clusters).toBe(Math.max(...labels) + 1);
      expect(fromFile.clusters).toBeGreaterThan(1);
      checkLegend(await legendEntries(page), Array.from(labels), fromFile.palette!);
      checkTree(await treeRings(page), fromFile.palette!, fromFile.clusters!);
      expect(await page.textContent('#status')).toMatch(
        /^blobs3d\.csv: 300 points × 3 columns: \d+ clusters, \d+ noise/,
      );
      expect(await page.textContent('#file-note')).toContain('clustered on 3 columns (x, y, z); drawn: x against y');
      expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({
        source: 'file',
        file: 'blobs3d.csv',
        n: '300',
        minClusterSize: '15',
        backend: 'cpu',
      });

      // Malformed files: the page names the file and what was wrong, and keeps the last result.
      await page.setInputFiles('#file', {
        name: 'bad.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from('x,y\n1,2\n3,abc\n'),
      });
      await page.waitForFunction(() => document.querySelector('#file-error')?.textContent !== '');
      expect(await page.textContent('#file-error')).toBe(
        'bad.csv: line 3, column 2 ("y"): "abc" is not a decimal number.',
      );
      const header = "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }";
      const npy = Buffer.concat([
        Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length + 1, 0]),
        Buffer.from(header + '\n', 'latin1'),
        Buffer.alloc(16),
      ]);
      await page.setInputFiles('#file', { name: 'ints.npy', mimeType: 'application/octet-stream', buffer: npy });
      await page.waitForFunction(() => document.querySelector('#file-error')?.textContent?.startsWith('ints.npy'));
      expect(await page.textContent('#file-error')).toBe(
        "ints.npy: dtype '<i4' is not supported (float32 '<f4' or float64 '<f8', little endian).",
      );
      expect((await result()).labels).toEqual(Array.from(labels));

      // A float32 NPY of the same points (Fortran order) dropped on the page replaces the CSV: the same labels.
      const f32 = Float32Array.from(data);
      const fortran = new Float32Array(900);
      for (let i = 0; i < 300; i++) for (let j = 0; j < 3; j++) fortran[j * 300 + i] = f32[3 * i + j];
      let h = "{'descr': '<f4', 'fortran_order': True, 'shape': (300, 3), }";
      h = h.padEnd(128 - 10 - 1, ' ') + '\n';
      const good = Buffer.concat([
        Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, h.length, 0]),
        Buffer.from(h, 'latin1'),
        Buffer.from(fortran.buffer),
      ]);
      // Dropped on the page, as a person drags it from a file manager.
      const dropped = await page.evaluateHandle((b64) => {
        const transfer = new DataTransfer();
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        transfer.items.add(new File([bytes], 'blobs3d.npy', { type: 'application/octet-stream' }));
        return transfer;
      }, good.toString('base64'));
      await page.dispatchEvent('body', 'drop', { dataTransfer: dropped });
      await page.waitForFunction(
        () => {
          const t = (window as unknown as { treeline?: PageResult }).treeline;
          return t?.done && t.params?.file === 'blobs3d.npy';
        },
        null,
        { timeout: 200_000 },
      );
      expect(await page.textContent('#file-error')).toBe('');
      const fromNpy = await result();
      const f32labels = (await hdbscan(Float64Array.from(f32), { dim: 3, minClusterSize: 15, backend: 'cpu' })).labels;
      expect(fromNpy.labels).toEqual(Array.from(f32labels));

      // "Use generated data": the blobs again, with the form's n, and no source in the URL.
      await page.click('#generated');
      await page.waitForFunction(
        () => {
          const t = (window as unknown as { treeline?: PageResult }).treeline;
          return t?.done && t.params?.source === undefined;
        },
        null,
        { timeout: 200_000 },
      );
      expect((await result()).labels).toEqual(expected);
      expect(new URL(page.url()).searchParams.get('source')).toBeNull();
      expect(await page.isHidden('#generated')).toBe(true);

      // A link made from a file cannot bring its points: the page asks for the file and runs nothing.
      await page.goto(`${pageUrl}?source=file&file=blobs3d.csv&n=300&minClusterSize=15&backend=cpu`);
      expect(await page.textContent('#status')).toMatch(/^This link was made from a file \(source=file\)/);
      expect(await page.evaluate(() => (window as unknown as { treeline?: PageResult }).treeline)).toBeUndefined();
      expect(errors).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await browser.close();
    }
  });

  it('the page with ?backend=cpu runs the CPU backend in the worker and matches Node', async () => {
    requireChromium();
    const browser = await launch(CPU_VARIANT);
    try {
      const run = await runPage(browser, `${query}&backend=cpu`);
      expect(run.result.backend).toBe('cpu');
      checkDrawn(run, expected);
    } finally {
      await browser.close();
    }
  });
});
