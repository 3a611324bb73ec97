import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { mstPlotSvg } from '../../src/stats/plot.js';
import { STAT_NAMES, type MstHistograms } from '../../src/stats/types.js';
import { fakeHistograms, hist, histograms, linspace } from '../helpers/histograms.js';
import { all, numbersIn, parseXml, type Element } from '../helpers/xml.js';

function panels(svg: Element, kind: 'panel' | 'ratio'): Map<string, Element> {
  const found = new Map<string, Element>();
  for (const e of all(svg)) if (e.name === 'g' && e.attrs.id?.startsWith(`${kind}-`)) found.set(e.attrs.id, e);
  return found;
}

const catalogue = fakeHistograms(1, 0.03);
const realisations = Array.from({ length: 20 }, (_, i) => fakeHistograms(100 + i));

describe('mstPlotSvg', () => {
  it('mstPlotSvg with realisations is well-formed SVG with four histogram panels over four ratio panels', () => {
    const svg = parseXml(mstPlotSvg({ catalogue, realisations }));
    expect(svg.name).toBe('svg');
    expect(svg.attrs.xmlns).toBe('http://www.w3.org/2000/svg');
    const hist = panels(svg, 'panel');
    const ratio = panels(svg, 'ratio');
    expect([...hist.keys()]).toEqual(STAT_NAMES.map((s) => `panel-${s}`));
    expect([...ratio.keys()]).toEqual(STAT_NAMES.map((s) => `ratio-${s}`));
    for (const name of STAT_NAMES) {
      const h = hist.get(`panel-${name}`)!;
      const r = ratio.get(`ratio-${name}`)!;
      expect(h.attrs.class).toBe('panel histogram');
      expect(r.attrs.class).toBe('panel ratio');
      const classes = (g: Element): string[] => all(g).map((e) => e.attrs.class ?? '');
      expect(classes(h)).toEqual(
        expect.arrayContaining(['band-2sigma', 'band-1sigma', 'mean', 'catalogue', 'axes', 'ylabel']),
      );
      expect(classes(r)).toEqual(expect.arrayContaining(['band-2sigma', 'band-1sigma', 'ratio', 'axes', 'xlabel']));
      // The ratio panel sits below its histogram panel.
      const frame = (g: Element): Element => all(g).find((e) => e.attrs.class === 'frame')!;
      expect(Number(frame(r).attrs.y)).toBeGreaterThan(Number(frame(h).attrs.y) + Number(frame(h).attrs.height));
    }
    const ids = all(svg)
      .map((e) => e.attrs.id)
      .filter((id) => id !== undefined);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain('legend');
    expect(numbersIn(svg).every(Number.isFinite)).toBe(true);
  });

  it('mstPlotSvg without realisations draws the four histograms and no ratio panels', () => {
    for (const r of [undefined, []]) {
      const svg = parseXml(mstPlotSvg({ catalogue, realisations: r }));
      expect(panels(svg, 'panel').size).toBe(4);
      expect(panels(svg, 'ratio').size).toBe(0);
      const xlabels = all(svg)
        .filter((e) => e.attrs.class === 'xlabel')
        .map((e) => e.text);
      expect(xlabels).toEqual(['d', 'l', 'b', '√(1 − s)']);
      expect(all(svg).some((e) => e.attrs.class === 'mean')).toBe(false);
    }
  });

  it('mstPlotSvg writes finite coordinates only when bins are NaN, empty, infinite or zero-mean', () => {
    const zero = { degree: [0, 0, 0, 0, 0, 0], edgeLength: [0, 0, 0], branchLength: [0, 0], branchShape: [0, 0] };
    // An empty catalogue, normalised: y is NaN everywhere (0 / 0); the realisations' branch shapes are empty too.
    const empty = histograms(zero, true);
    const mixed = (k: number): MstHistograms => {
      const h = histograms(
        { degree: [5, 3, 1, 0, 0, 0], edgeLength: [k, 0, 2], branchLength: [1, 0], branchShape: [0, 0] },
        true,
      );
      h.edgeLength.y[1] = k === 1 ? NaN : 0; // a NaN in one realisation, a zero mean elsewhere
      h.branchLength.y[0] = k === 2 ? 1e300 : 1; // a huge value
      return h;
    };
    const cat = histograms(
      { degree: [4, 4, 1, 1, 0, 0], edgeLength: [3, 1, 2], branchLength: [2, 2], branchShape: [1, 0] },
      true,
    );
    cat.branchLength.y[1] = Infinity;
    for (const input of [
      { catalogue: empty },
      { catalogue: empty, realisations: [mixed(1), mixed(2), mixed(3)] },
      { catalogue: cat, realisations: [mixed(1), mixed(2), mixed(3)] },
      { catalogue: cat, realisations: [mixed(3)] }, // one realisation: std NaN, no bands
      { catalogue: histograms(zero), realisations: [histograms(zero), histograms(zero)] }, // all zero, unnormalised
    ]) {
      const text = mstPlotSvg(input);
      expect(text).not.toMatch(/NaN|Infinity|undefined/);
      const svg = parseXml(text);
      expect(panels(svg, 'panel').size).toBe(4);
      const nums = numbersIn(svg);
      expect(nums.length).toBeGreaterThan(100);
      expect(nums.filter((v) => !Number.isFinite(v))).toEqual([]);
    }
  });

  it('mstPlotSvg escapes labels and appends units to l and b', () => {
    const text = mstPlotSvg({
      catalogue,
      realisations,
      labels: { catalogue: 'DESI <BGS> & "LRG"', realisations: 'mocks', units: 'h⁻¹ Mpc' },
    });
    const svg = parseXml(text);
    const texts = all(svg).map((e) => e.text);
    expect(texts).toContain('DESI &lt;BGS&gt; &amp; &quot;LRG&quot;');
    expect(texts).toContain('mocks');
    expect(texts).toContain('l [h⁻¹ Mpc]');
    expect(texts).toContain('b [h⁻¹ Mpc]');
  });

  it('mstPlotSvg throws InputError when realisations are on other bins', () => {
    const other = fakeHistograms(5);
    other.branchShape = hist(linspace(0, 2, 50), new Float64Array(50).fill(1));
    expect(() => mstPlotSvg({ catalogue, realisations: [...realisations, other] })).toThrow(InputError);
    expect(() => mstPlotSvg({ catalogue, realisations: [...realisations, other] })).toThrow(
      /realisations\[20\]\.branchShape/,
    );
  });

  it('parseXml (the test helper) rejects what is not well-formed', () => {
    for (const bad of [
      '<a><b></a></b>',
      '<a x="1" x="2"/>',
      '<a x=1/>',
      '<a>&nbsp;</a>',
      '<a/><b/>',
      '<a',
      '<a x="<"/>',
      'x<a/>',
    ]) {
      expect(() => parseXml(bad), bad).toThrow(/not well-formed/);
    }
    expect(parseXml('<?xml version="1.0"?><a b=\'1\'><!-- c --><d/>&amp;&#955;&#x3bb;</a>').children.length).toBe(1);
  });

  it('issue 21: log draws l and b on decade ticks, y per dex; the rest of the figure as before', () => {
    const base = fakeHistograms(3);
    const geo = Float64Array.from({ length: 41 }, (_, i) => 10 ** (-3 + i / 10));
    const logHist = hist(
      geo,
      Array.from({ length: 40 }, (_, i) => Math.round(100 * Math.exp(-((-2 + (i + 0.5) / 10) ** 2)))),
    );
    const h: MstHistograms = { ...base, edgeLength: logHist, branchLength: logHist };
    const root = parseXml(mstPlotSvg({ catalogue: h, log: true }));
    for (const v of numbersIn(root)) expect(Number.isFinite(v)).toBe(true);
    const texts = (id: string): string[] =>
      all(panels(root, 'panel').get(id)!)
        .filter((e) => e.name === 'text')
        .map((e) => e.text);
    for (const id of ['panel-edgeLength', 'panel-branchLength']) {
      expect(texts(id)).toEqual(expect.arrayContaining(['1e−3', '0.01', '0.1', '1', '10', 'N̄ per dex']));
    }
    expect(texts('panel-degree')).toContain('N̄');
    expect(texts('panel-degree')).not.toContain('N̄ per dex');
  });

  it('issue 21: tree adds a first panel with the edges over the points, and shifts the statistics right', () => {
    const points = Float64Array.from([0, 0, 1, 0, 1, 1, 3, 1]);
    const tree = { points, dim: 2, edges: { sources: [0, 1, 2], targets: [1, 2, 3], weights: [1, 1, 2] } };
    const plain = parseXml(mstPlotSvg({ catalogue }));
    const root = parseXml(mstPlotSvg({ catalogue, tree }));
    const panel = all(root).find((e) => e.attrs.id === 'tree')!;
    expect(Number(all(panel).find((e) => e.attrs.class === 'edges')!.attrs['data-count'])).toBe(3);
    expect(all(panel).filter((e) => e.name === 'circle').length).toBe(4);
    expect(Number(root.attrs.width)).toBeGreaterThan(Number(plain.attrs.width));
    expect(panels(root, 'panel').size).toBe(4);
  });
});
