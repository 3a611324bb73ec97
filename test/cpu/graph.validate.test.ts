import { describe, expect, it } from 'vitest';
import { graphMst, graphMstCpu } from '../../src/graph/mst.js';
import { InputError } from '../../src/errors.js';
import { keyOfBits, weightOfKey } from '../../src/graph/keys.js';
import { filterPlan, sampleHash, sampleThreshold } from '../../src/graph/threshold.js';
import { sortIdsByKey } from '../../src/graph/order.js';
import { mulberry32 } from '../helpers/random.js';
import { validateGraph } from '../../src/graph/validate.js';

const edges = (n: number, s: number[], t: number[], w: ArrayLike<number> & { constructor: unknown }) => ({
  numVertices: n,
  sources: Uint32Array.from(s),
  targets: Uint32Array.from(t),
  weights: w as Float32Array,
});

describe('graphMst validates its input and names the bad value', () => {
  const ok = edges(3, [0, 1], [1, 2], Float32Array.from([1, 2]));
  const cases: [string, unknown, RegExp][] = [
    ['numVertices', { ...ok, numVertices: -1 }, /numVertices .* got -1/],
    ['sources type', { ...ok, sources: [0, 1] }, /sources to be a Uint32Array, got Array/],
    ['lengths', { ...ok, targets: Uint32Array.from([1]) }, /targets.length = sources.length = 2, got 1/],
    ['vertex range', { ...ok, targets: Uint32Array.from([1, 3]) }, /targets\[1\] < numVertices = 3, got 3/],
    [
      'weights type',
      { ...ok, weights: Float64Array.from([1, 2]) },
      /Float32Array, Int32Array or Uint32Array, got Float64Array/,
    ],
    ['weights length', { ...ok, weights: Float32Array.from([1]) }, /weights.length = sources.length = 2, got 1/],
    ['NaN', { ...ok, weights: Float32Array.from([1, NaN]) }, /weights\[1\] = NaN/],
    [
      'issue 15: +Infinity weight',
      { ...ok, weights: Float32Array.from([Infinity, 2]) },
      /finite weights .* got weights\[0\] = Infinity/,
    ],
    [
      'issue 15: -Infinity weight',
      { ...ok, weights: Float32Array.from([1, -Infinity]) },
      /finite weights .* got weights\[1\] = -Infinity/,
    ],
    [
      'issue 15: -Infinity in a CSR',
      {
        offsets: Uint32Array.from([0, 1, 2]),
        neighbours: Uint32Array.from([1, 0]),
        weights: Float32Array.from([-Infinity, -Infinity]),
      },
      /finite weights .* got weights\[0\] = -Infinity/,
    ],
    [
      'offsets[0]',
      { offsets: Uint32Array.from([1, 1]), neighbours: new Uint32Array(0), weights: new Float32Array(0) },
      /offsets\[0\] = 0, got 1/,
    ],
    [
      'offsets order',
      {
        offsets: Int32Array.from([0, 2, 1, 2]),
        neighbours: Uint32Array.from([1, 2]),
        weights: Float32Array.from([1, 1]),
      },
      /offsets\[1\] = 2 > offsets\[2\] = 1/,
    ],
    [
      'offsets end',
      {
        offsets: Uint32Array.from([0, 1, 1]),
        neighbours: Uint32Array.from([1, 0]),
        weights: Float32Array.from([1, 1]),
      },
      /offsets\[2\] = neighbours.length = 2, got 1/,
    ],
    [
      'neighbour range',
      {
        offsets: Uint32Array.from([0, 1, 2]),
        neighbours: Uint32Array.from([1, 2]),
        weights: Float32Array.from([1, 1]),
      },
      /neighbours\[1\] \(row 1\) < numVertices = 2, got 2/,
    ],
    [
      'mirror missing',
      { offsets: Uint32Array.from([0, 1, 1]), neighbours: Uint32Array.from([1]), weights: Float32Array.from([1]) },
      /entry 0 \(row 0, neighbour 1, weight 1\) has no mirror in row 1/,
    ],
    [
      'mirror weight',
      {
        offsets: Uint32Array.from([0, 1, 2, 2]),
        neighbours: Uint32Array.from([1, 0]),
        weights: Int32Array.from([4, 5]),
      },
      /has no mirror/,
    ],
    [
      'mirror elsewhere',
      {
        offsets: Uint32Array.from([0, 1, 1, 2]),
        neighbours: Uint32Array.from([1, 1]),
        weights: Int32Array.from([4, 4]),
      },
      /entry 0 \(row 0, neighbour 1, weight 4\) has no mirror in row 1/,
    ],
  ];
  for (const [name, g, message] of cases) {
    it(`rejects: ${name}`, async () => {
      expect(() => graphMstCpu(g as never)).toThrow(InputError);
      expect(() => graphMstCpu(g as never)).toThrow(message);
      await expect(graphMst(g as never, { backend: 'cpu' })).rejects.toThrow(message);
    });
  }
  it('rejects an unknown backend', async () => {
    await expect(graphMst(ok, { backend: 'tpu' as never })).rejects.toThrow(/'auto', 'gpu' or 'cpu', got 'tpu'/);
  });
});

describe('weight keys, threshold sampling and the canonical sort', () => {
  it('keys order every weight type as numbers', () => {
    const r = mulberry32(5);
    for (const kind of ['f32', 'i32', 'u32'] as const) {
      const n = 2000;
      const w = kind === 'f32' ? new Float32Array(n) : kind === 'i32' ? new Int32Array(n) : new Uint32Array(n);
      for (let i = 0; i < n; i++)
        w[i] =
          kind === 'f32' ? (r() - 0.5) * 10 ** Math.floor(r() * 80 - 40) : (r() - (kind === 'i32' ? 0.5 : 0)) * 2 ** 32;
      if (kind === 'f32') w.set([0, -0, Infinity, -Infinity, 1e-45, -1e-45], 0);
      const bits = new Uint32Array(w.buffer);
      for (let i = 0; i < n; i++) {
        const ki = keyOfBits(kind, bits[i]);
        expect(weightOfKey(kind, ki)).toBe(w[i] === 0 ? 0 : w[i]);
        for (let j = i + 1; j < Math.min(n, i + 20); j++) {
          const kj = keyOfBits(kind, bits[j]);
          expect(Math.sign(ki - kj)).toBe(Math.sign(w[i] - w[j]));
        }
      }
    }
  });

  it('sortIdsByKey is a stable sort by key', () => {
    const r = mulberry32(6);
    for (const n of [0, 1, 10, 63, 64, 5000]) {
      const ids = Uint32Array.from({ length: n }, (_, i) => i * 3);
      const keys = Uint32Array.from(
        { length: n },
        () => (r() < 0.5 ? Math.floor(r() * 5) : Math.floor(r() * 2 ** 32)) >>> 0,
      );
      const want = Array.from(ids)
        .map((id, i) => [keys[i], id])
        .sort((a, b) => a[0] - b[0] || a[1] - b[1])
        .map((p) => p[1]);
      expect(Array.from(sortIdsByKey(ids, keys))).toEqual(want);
    }
  });

  it('the filter plan follows ECL-MST: average degree ≥ 4, c = 3, 20 samples', () => {
    expect(filterPlan(1000, 1000, 2000)).toEqual({ filter: false, samples: 20, pick: 19 });
    expect(filterPlan(1000, 4000, 4000)).toEqual({ filter: true, samples: 20, pick: 15 });
    expect(filterPlan(1000, 16000, 16000).pick).toBe(3);
    expect(filterPlan(1000, 16000, 16000, 'off').filter).toBe(false);
    expect(filterPlan(1000, 10, 20, 'on')).toEqual({ filter: true, samples: 10, pick: 9 });
    // Issue 18: c moves the pick (c·n·samples / directed), not the decision.
    expect(filterPlan(1000, 16000, 16000, 'auto', 1.5)).toEqual({ filter: true, samples: 20, pick: 1 });
    expect(filterPlan(1000, 16000, 16000, 'auto', 6).pick).toBe(7);
    expect(sampleHash(0)).toBe(0);
    expect(sampleHash(1)).toBe(824515495); // ECL-MST's hash(1)
    const keys = Uint32Array.from({ length: 100 }, (_, i) => 1000 - i);
    const plan = { filter: true, samples: 20, pick: 0 };
    expect(sampleThreshold(keys, plan)).toBe(
      Math.min(...Array.from({ length: 20 }, (_, i) => keys[sampleHash(i) % 100])),
    );
  });

  it('issue 18: validateGraph reports whether every CSR row is sorted by neighbour (equal neighbours allowed)', () => {
    const csr = (neighbours: number[], offsets: number[], weights: number[]) => ({
      offsets: Uint32Array.from(offsets),
      neighbours: Uint32Array.from(neighbours),
      weights: Float32Array.from(weights),
    });
    const sorted = (g: ReturnType<typeof csr>) => {
      const v = validateGraph(g);
      return v.kind === 'csr' && v.sortedRows;
    };
    // Triangle 0-1-2 plus a parallel edge 0-1: rows [1, 1, 2], [0, 0, 2], [0, 1].
    expect(sorted(csr([1, 1, 2, 0, 0, 2, 0, 1], [0, 3, 6, 8], [1, 5, 2, 1, 5, 3, 2, 3]))).toBe(true);
    expect(sorted(csr([2, 1, 1, 0, 0, 2, 0, 1], [0, 3, 6, 8], [2, 1, 5, 1, 5, 3, 2, 3]))).toBe(false);
    // Only the last row out of order.
    expect(sorted(csr([1, 1, 2, 0, 0, 2, 1, 0], [0, 3, 6, 8], [1, 5, 2, 1, 5, 3, 3, 2]))).toBe(false);
    expect(sorted(csr([], [0], []))).toBe(true);
  });
});
