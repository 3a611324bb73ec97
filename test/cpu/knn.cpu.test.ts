import { describe, expect, it } from 'vitest';
import { buildBvhCpu } from '../../src/bvh/lbvh.cpu.js';
import { knnCpu, kthSquaredDistancesCpu } from '../../src/knn/knn.cpu.js';
import { knn } from '../../src/knn/knn.js';
import { coreDistances } from '../../src/knn/core.js';
import { InputError } from '../../src/errors.js';
import { cloud, type CloudKind } from '../helpers/clouds.js';
import { compareWithOracle, sampleQueries } from '../helpers/bruteforce.js';

function againstOracle(kind: CloudKind, n: number, dim: number, k: number, queries = 150) {
  const pts = cloud(kind, n, dim, 31 * dim + k);
  const res = knnCpu(buildBvhCpu(pts, dim), k);
  // The f32 sum runs in axis order (the EMST's keys, so that core distances are edge keys bit for bit: issue 15):
  // within 2 ulps up to 8 dimensions, a little more beyond (2.2 seen at d = 16 and 33).
  const cmp = compareWithOracle(pts, dim, res, sampleQueries(n, queries), dim <= 8 ? 2 : 3);
  if (cmp.failures.length) expect.fail(`${kind} n=${n} d=${dim} k=${k}:\n${cmp.failures.join('\n')}`);
  return cmp;
}

describe('knnCpu', () => {
  for (const dim of [2, 3, 5, 16]) {
    it(`matches the float64 brute force within 2 ulps (3 beyond d = 8), d = ${dim}, k = 1, 5, 16, 64`, () => {
      for (const k of [1, 5, 16, 64]) {
        const kinds =
          dim === 16 ? (['normal', 'clustered'] as const) : (['uniform', 'normal', 'clustered', 'grid'] as const);
        for (const kind of kinds) againstOracle(kind, dim === 16 ? 800 : 3000, dim, k, 100);
      }
    });
  }

  it('matches the brute force at n = 20,000 (sampled shapes, d and k)', () => {
    const cases: [CloudKind, number, number][] = [
      ['normal', 3, 16],
      ['clustered', 2, 5],
      ['uniform', 5, 1],
      ['grid', 3, 64],
      ['collinear', 2, 16],
    ];
    for (const [kind, dim, k] of cases) {
      const cmp = againstOracle(kind, 20000, dim, k, 200);
      if (kind !== 'grid') expect(cmp.setsChecked).toBeGreaterThan(150);
    }
  });

  it('matches the brute force in 1, 8 and 33 dimensions', () => {
    for (const k of [1, 16]) {
      againstOracle('normal', 3000, 1, k, 100);
      againstOracle('grid', 3000, 1, k, 100);
      againstOracle('clustered', 1500, 8, k, 60);
      againstOracle('uniform', 300, 33, k, 30);
    }
  });

  it('collinear points and all-duplicate points match the brute force', () => {
    for (const dim of [2, 3, 5, 16])
      for (const k of [1, 16, 64]) {
        againstOracle('collinear', dim === 16 ? 600 : 2000, dim, k, 60);
        againstOracle('duplicates', 500, dim, k, 60);
      }
  });

  it('duplicates are neighbours at distance 0, ties broken by the smaller index', () => {
    const n = 300;
    const pts = cloud('duplicates', n, 3, 4);
    const k = 7;
    const res = knnCpu(buildBvhCpu(pts, 3), k);
    for (let q = 0; q < n; q++) {
      const want = [...Array(k + 1).keys()].filter((j) => j !== q).slice(0, k);
      expect([...res.indices.subarray(q * k, q * k + k)]).toEqual(want);
      expect([...res.squaredDistances.subarray(q * k, q * k + k)]).toEqual(Array(k).fill(0));
    }
    // Each point repeated three times: the two copies come first, at 0.
    const base = cloud('uniform', 200, 2, 5);
    const tripled = new Float32Array(600 * 2);
    for (let i = 0; i < 600; i++) tripled.set(base.subarray((i % 200) * 2, (i % 200) * 2 + 2), i * 2);
    const r3 = knnCpu(buildBvhCpu(tripled, 2), 3);
    for (let q = 0; q < 600; q++) {
      const copies = [q % 200, (q % 200) + 200, (q % 200) + 400].filter((j) => j !== q);
      expect([...r3.indices.subarray(q * 3, q * 3 + 2)]).toEqual(copies);
      expect(r3.squaredDistances[q * 3 + 1]).toBe(0);
      expect(r3.squaredDistances[q * 3 + 2]).toBeGreaterThan(0);
    }
  });

  it('pads with NONE and +Infinity when n − 1 < k (n = 0, 1, 2, 3)', () => {
    expect(knnCpu(buildBvhCpu(new Float32Array(0), 2), 3).indices.length).toBe(0);
    const one = knnCpu(buildBvhCpu(new Float32Array([1, 2]), 2), 2);
    expect([...one.indices]).toEqual([0xffffffff, 0xffffffff]);
    expect([...one.squaredDistances]).toEqual([Infinity, Infinity]);
    const three = knnCpu(buildBvhCpu(new Float32Array([0, 0, 3, 0, 0, 4]), 2), 3);
    expect([...three.indices]).toEqual([1, 2, 0xffffffff, 0, 2, 0xffffffff, 0, 1, 0xffffffff]);
    expect([...three.squaredDistances]).toEqual([9, 16, Infinity, 9, 25, Infinity, 16, 25, Infinity]);
  });

  it('the answer does not depend on the Morton window', () => {
    const pts = cloud('clustered', 4000, 3, 8);
    const bvh = buildBvhCpu(pts, 3);
    const a = knnCpu(bvh, 9, { window: 0 });
    const b = knnCpu(bvh, 9, { window: 40 });
    expect(a.indices).toEqual(b.indices);
    expect(a.squaredDistances).toEqual(b.squaredDistances);
    expect(kthSquaredDistancesCpu(bvh, 9)).toEqual(
      Float32Array.from({ length: 4000 }, (_, i) => a.squaredDistances[i * 9 + 8]),
    );
  });

  it('knn() validates k and backend, naming the value', async () => {
    const pts = cloud('uniform', 10, 2);
    await expect(knn(pts, { dim: 2, k: 0 })).rejects.toThrow(/k to be an integer in \[1, 64\], got 0/);
    await expect(knn(pts, { dim: 2, k: 65 })).rejects.toThrow(InputError);
    await expect(knn(pts, { dim: 3, k: 1 })).rejects.toThrow(/multiple of dim=3/);
    await expect(knn(pts, { dim: 2, k: 1, backend: 'tpu' as 'cpu' })).rejects.toThrow(/backend/);
  });
});

describe('coreDistances (CPU backend)', () => {
  it('is the distance to the minSamples-th other point, self excluded, clamped to n − 1', async () => {
    const pts = cloud('normal', 2000, 3, 12);
    const res = knnCpu(buildBvhCpu(pts, 3), 5);
    const core = await coreDistances(pts, { dim: 3, minSamples: 5, backend: 'cpu' });
    for (let i = 0; i < 2000; i++) expect(core[i]).toBe(Math.fround(Math.sqrt(res.squaredDistances[i * 5 + 4])));
    const four = new Float32Array([0, 1, 3, 7]);
    expect([...(await coreDistances(four, { dim: 1, minSamples: 10 }))]).toEqual([7, 6, 4, 7]);
    expect([...(await coreDistances(four, { dim: 1, minSamples: 1 }))]).toEqual([1, 1, 2, 4]);
    expect([...(await coreDistances(four, { dim: 1, minSamples: 0 }))]).toEqual([0, 0, 0, 0]);
    expect([...(await coreDistances(new Float32Array([5]), { dim: 1, minSamples: 3 }))]).toEqual([0]);
  });

  it('is 0 for a point with at least minSamples duplicates', async () => {
    const pts = new Float32Array([1, 1, 1, 1, 1, 1, 4, 5]);
    expect([...(await coreDistances(pts, { dim: 2, minSamples: 2 }))]).toEqual([0, 0, 0, 5]);
  });

  it('rejects minSamples that is not an integer >= 0', async () => {
    await expect(coreDistances(new Float32Array(4), { dim: 2, minSamples: -1 })).rejects.toThrow(
      /minSamples .* got -1/,
    );
    await expect(coreDistances(new Float32Array(4), { dim: 2, minSamples: 1.5 })).rejects.toThrow(InputError);
  });

  it('issue 15: coreDistances(points, { minSamples: 100 }) is the 100th neighbour (no limit of 64)', async () => {
    const pts = cloud('clustered', 1500, 3, 8);
    const core = await coreDistances(pts, { dim: 3, minSamples: 100 });
    for (const q of [0, 17, 400, 1499]) {
      const d: number[] = [];
      for (let j = 0; j < 1500; j++) {
        if (j === q) continue;
        let s = 0;
        for (let a = 0; a < 3; a++) s = Math.fround(s + Math.fround(Math.fround(pts[q * 3 + a] - pts[j * 3 + a]) ** 2));
        d.push(s);
      }
      d.sort((a, b) => a - b);
      expect(core[q]).toBe(Math.fround(Math.sqrt(d[99])));
    }
  });
});
