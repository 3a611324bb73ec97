/**
 * Issue 15 §4.1: extreme coordinate scales. Keys are float32 squared distances, so coordinates ×1e30 overflowed
 * every weight to Infinity and ×1e-30 underflowed them to 0. emst() now scales the points by a power of two before
 * any distance is formed (src/emst/scale.ts): the tree is the unscaled data's tree, its weights those weights
 * scaled — bit for bit for a power-of-two factor, within rounding for any other.
 */
import { describe, expect, it } from 'vitest';
import { emst } from '../../src/emst/emst.js';
import { hdbscan } from '../../src/hdbscan.js';
import { mstStats } from '../../src/stats/mstStats.js';
import { InputError } from '../../src/errors.js';
import { cloud } from '../helpers/clouds.js';
import { runCliProcess } from '../helpers/cli.process.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const times = (pts: Float32Array, f: number) => pts.map((x) => x * f);
const pairs = (t: { sources: Uint32Array; targets: Uint32Array }) =>
  [...t.sources].map((s, i) => `${s}-${t.targets[i]}`);

describe('emst() at extreme coordinate scales (CPU backend)', () => {
  const pts = cloud('uniform', 600, 2, 3);

  it.each([2 ** 100, 2 ** -100, 2 ** 126, 2 ** -110])(
    'issue 15: emst(points × %d) is the unscaled tree, weights scaled exactly',
    async (f) => {
      const want = await emst(pts, { dim: 2, backend: 'cpu' });
      const got = await emst(times(pts, f), { dim: 2, backend: 'cpu' });
      expect(pairs(got)).toEqual(pairs(want));
      expect([...got.weights]).toEqual([...want.weights].map((w) => Math.fround(w * f)));
    },
  );

  it.each([1e30, 1e-30, 3e37, 1e-36])(
    'issue 15: emst(points × %d) gives the unscaled tree with finite, non-zero weights',
    async (f) => {
      for (const minSamples of [1, 5]) {
        const want = await emst(pts, { dim: 2, minSamples, backend: 'cpu' });
        const got = await emst(times(pts, f), { dim: 2, minSamples, backend: 'cpu' });
        expect(pairs(got)).toEqual(pairs(want));
        got.weights.forEach((w, i) => {
          expect(w).toBeGreaterThan(0);
          // The factor is no power of two: the scaled coordinates are rounded, so the weights agree within rounding.
          expect(Math.abs(w / f - want.weights[i]) / want.weights[i]).toBeLessThan(1e-4);
        });
      }
    },
  );

  it('issue 15: a periodic box and a scale cut are scaled with the points', async () => {
    const f = 2 ** -110;
    const box = [1, 1];
    const want = await emst(pts, { dim: 2, box, backend: 'cpu' });
    const got = await emst(times(pts, f), { dim: 2, box: box.map((L) => L * f), backend: 'cpu' });
    expect(pairs(got)).toEqual(pairs(want));
    expect([...got.weights]).toEqual([...want.weights].map((w) => Math.fround(w * f)));
    const cutWant = await emst(pts, { dim: 2, minEdgeLength: 0.03, backend: 'cpu' });
    const cutGot = await emst(times(pts, f), { dim: 2, minEdgeLength: 0.03 * f, backend: 'cpu' });
    expect(Math.min(...cutWant.weights)).toBeGreaterThanOrEqual(Math.fround(0.03));
    expect(pairs(cutGot)).toEqual(pairs(cutWant));
  });

  it("issue 15: weights near float32's maximum are right; a weight beyond it is an InputError naming it", async () => {
    const two = new Float32Array([-1e38, -1e38, 1e38, 1e38, 0, 0]);
    const t = await emst(two, { dim: 2, backend: 'cpu' });
    expect([...t.weights]).toEqual([Math.fround(Math.SQRT2 * 1e38), Math.fround(Math.SQRT2 * 1e38)]);
    const far = new Float32Array([-1e38, -1e38, -1e38, 1e38, 1e38, 1e38]);
    await expect(emst(far, { dim: 3, backend: 'cpu' })).rejects.toThrow(InputError);
    await expect(emst(far, { dim: 3, backend: 'cpu' })).rejects.toThrow(/3\.464e\+38/);
  });

  it('issue 15: hdbscan(points × 1e30) and (× 1e-30) give the unscaled labels; mstStats the scaled lengths', async () => {
    const blobs = cloud('clustered', 800, 2, 4);
    const want = await hdbscan(blobs, { dim: 2, minClusterSize: 15, backend: 'cpu' });
    expect(new Set(want.labels).size).toBeGreaterThan(2);
    for (const f of [1e30, 1e-30]) {
      const got = await hdbscan(times(blobs, f), { dim: 2, minClusterSize: 15, backend: 'cpu' });
      expect([...got.labels]).toEqual([...want.labels]);
    }
    const s0 = await mstStats(blobs, { dim: 2, backend: 'cpu' });
    const s1 = await mstStats(times(blobs, 2 ** 100), { dim: 2, backend: 'cpu' });
    expect([...s1.edgeSources]).toEqual([...s0.edgeSources]);
    s1.edgeLengths.forEach((l, i) => expect(l / 2 ** 100).toBeCloseTo(s0.edgeLengths[i], 12));
  });

  it('issue 15: treeline emst on coordinates × 1e30 writes finite weights (CLI)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'treeline-scale-'));
    const file = join(dir, 'big.csv');
    const rows = [];
    for (let i = 0; i < 200; i++) rows.push(`${pts[2 * i] * 1e30},${pts[2 * i + 1] * 1e30}`);
    writeFileSync(file, `x,y\n${rows.join('\n')}\n`);
    const r = await runCliProcess(['emst', file, '--backend', 'cpu', '--format', 'json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.weights.length).toBe(199);
    for (const w of out.weights) {
      expect(Number.isFinite(w)).toBe(true);
      expect(w).toBeGreaterThan(1e26);
    }
  });
});
