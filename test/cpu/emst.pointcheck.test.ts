/**
 * Issue 17 §4: emst()'s coordinate check and power-of-two scaling on the GPU (src/emst/pointcheck.ts). Here, without
 * a GPU: the kernels' CPU twins (pointcheck.cpu.ts) against independent oracles — validate.ts's host check for the
 * first bad word and the largest magnitude, Math.fround(x · 2^e) for the scaling — on seeded random bit patterns
 * with subnormals, ties and every exponent; validation's deferral; and a deferred input falling back to the CPU
 * (the same messages as the host check). The kernels against the twins: test/gpu/emst.pointcheck.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { emst } from '../../src/emst/emst.js';
import { checkDeferred, checkCoordinates, rejectBadCoordinate, validateEmstInput } from '../../src/emst/validate.js';
import { checkLimit } from '../../src/emst/pointcheck.js';
import { checkPointsCpu, MAX_COORDINATE_BITS, scaleBitsCpu, scalePointsCpu } from '../../src/emst/pointcheck.cpu.js';
import { MAX_COORDINATE } from '../../src/bvh/layout.js';
import { GpuUnavailableError, InputError } from '../../src/errors.js';
import { edgeCaseKeys } from '../helpers/floatBits.js';
import { mulberry32, randomU32 } from '../helpers/random.js';

// This file runs in the CPU project: every GPU context request fails as it does on a machine without an adapter.
vi.mock('../../src/gpu/context.js', () => ({
  createGpuContext: async () => {
    throw new GpuUnavailableError('No WebGPU adapter was found (mocked in this CPU test).');
  },
}));

afterEach(() => {
  vi.restoreAllMocks();
});

const f32 = (bits: number) => new Float32Array(new Uint32Array([bits]).buffer)[0];
const bitsOf = (x: number) => new Uint32Array(new Float32Array([x]).buffer)[0];
/** Random words: a quarter plain floats in ±100, the rest raw bit patterns (NaNs, infinities, subnormals, huge). */
function words(n: number, seed: number): Uint32Array {
  const raw = randomU32(n, seed);
  const r = mulberry32(seed + 1);
  for (let i = 0; i < n; i++) if (r() < 0.25) raw[i] = bitsOf(r() * 200 - 100);
  return raw;
}
/** The host rule on float32 values: the first index with !(|x| ≤ 1e38), and max |x| over the others. */
function oracle(bits: Uint32Array): { first: number; top: number } {
  const xs = new Float32Array(bits.buffer, bits.byteOffset, bits.length);
  let first = -1;
  let top = 0;
  xs.forEach((x, i) => {
    if (!(Math.abs(x) <= MAX_COORDINATE)) {
      if (first < 0) first = i;
    } else top = Math.max(top, Math.abs(x));
  });
  return { first, top };
}

describe('emst::check twin (pointcheck.cpu.ts)', () => {
  it('MAX_COORDINATE_BITS is fround(1e38): |x| ≤ 1e38 ⇔ |bits| ≤ it, for float32 x', () => {
    expect(f32(MAX_COORDINATE_BITS)).toBe(Math.fround(MAX_COORDINATE));
    expect(f32(MAX_COORDINATE_BITS)).toBeLessThanOrEqual(MAX_COORDINATE);
    expect(f32(MAX_COORDINATE_BITS + 1)).toBeGreaterThan(MAX_COORDINATE);
  });

  it.each([0, 1, 2, 255, 256, 257, 5000])(
    'finds the first bad word and the largest magnitude of %i seeded words',
    (n) => {
      for (let seed = 1; seed <= 6; seed++) {
        const bits = words(n, 17 * n + seed);
        // Mostly good rows with a few planted bad ones, and the raw mix itself.
        const planted = new Uint32Array(n).map((_, i) => bitsOf(Math.sin(i + seed) * 10 ** (seed % 5)));
        if (n > 0 && seed % 2 === 0) planted[(seed * 7919) % n] = [0x7fc00000, 0x7f800000, 0xff800000][seed % 3];
        for (const b of [bits, planted]) {
          const got = checkPointsCpu(b, MAX_COORDINATE_BITS);
          const want = oracle(b);
          expect(got.first).toBe(want.first);
          expect(f32(got.topBits)).toBe(want.top);
        }
      }
    },
  );

  it('edge-case patterns: subnormals, ±0, the limit and one above, infinities, NaN payloads', () => {
    const bits = new Uint32Array([...edgeCaseKeys(), MAX_COORDINATE_BITS, MAX_COORDINATE_BITS + 1, 0xffc00001]);
    for (let start = 0; start < bits.length; start += 97) {
      const b = bits.slice(start);
      const got = checkPointsCpu(b, MAX_COORDINATE_BITS);
      expect(got.first).toBe(oracle(b).first);
      expect(f32(got.topBits)).toBe(oracle(b).top);
    }
  });

  it('the float64 limit flags fround(1e38) itself as a candidate; the host then decides in float64', () => {
    const band = new Float64Array([1, 1e38, 2, 1.00000001e38, 3]);
    const converted = new Uint32Array(new Float32Array(band).buffer);
    expect(converted[1]).toBe(MAX_COORDINATE_BITS);
    expect(converted[3]).toBe(MAX_COORDINATE_BITS); // rounded down into range: only float64 sees it is out
    expect(checkPointsCpu(converted, MAX_COORDINATE_BITS).first).toBe(-1);
    expect(checkPointsCpu(converted, checkLimit(band)).first).toBe(1);
    // From the first candidate (a legitimate 1e38) on, the host finds row 1, column 1 of dim 2.
    expect(() => rejectBadCoordinate(band, 2, 1)).toThrow(
      /within ±1e\+38 \(float32 range\), got 1\.00000001e\+38 at row 1, column 1\./,
    );
    expect(() => rejectBadCoordinate(band.subarray(0, 3), 1, 1)).not.toThrow();
  });
});

describe('emst::scale twin (pointcheck.cpu.ts)', () => {
  const exponents = [-149, -140, -127, -126, -100, -64, -33, -1, 0, 1, 33, 64, 100, 126, 127, 140, 149];

  it('scaleBitsCpu equals Math.fround(x · 2^e) on edge-case patterns for every exponent that keeps them finite', () => {
    for (const bits of edgeCaseKeys()) {
      const x = f32(bits);
      if (!Number.isFinite(x)) continue;
      for (const e of exponents) {
        const want = Math.fround(x * 2 ** e);
        if (!Number.isFinite(want)) continue;
        const got = scaleBitsCpu(bits, e);
        expect(got, `bits ${bits.toString(16)} · 2^${e}`).toBe(bitsOf(want));
      }
    }
  });

  it('scaleBitsCpu equals Math.fround(x · 2^e) on seeded random words (subnormal results rounded half to even)', () => {
    const bits = randomU32(20000, 99);
    const r = mulberry32(5);
    let subnormal = 0;
    for (const b of bits) {
      const x = f32(b);
      if (!Number.isFinite(x)) continue;
      const e = Math.floor(r() * 300) - 150;
      const want = Math.fround(x * 2 ** e);
      if (!Number.isFinite(want)) continue;
      if (want !== 0 && Math.abs(want) < 2 ** -126) subnormal++;
      expect(scaleBitsCpu(b, e)).toBe(bitsOf(want));
    }
    expect(subnormal).toBeGreaterThan(100);
  });

  it('ties at the subnormal boundary round to even, both ways', () => {
    // 1.5 · 2^-149 → 2 · 2^-149; 2.5 · 2^-149 → 2 · 2^-149; 0.5 · 2^-149 → 0.
    expect(scaleBitsCpu(bitsOf(1.5 * 2 ** -100), -49)).toBe(2);
    expect(scaleBitsCpu(bitsOf(2.5 * 2 ** -100), -49)).toBe(2);
    expect(scaleBitsCpu(bitsOf(2 ** -100), -50)).toBe(0);
    expect(scaleBitsCpu(bitsOf(-(2 ** -100)), -50)).toBe(0x80000000);
    const a = new Uint32Array([bitsOf(3), bitsOf(-0.75)]);
    scalePointsCpu(a, 2);
    expect([...new Float32Array(a.buffer)]).toEqual([12, -3]);
  });
});

describe('validateEmstInput defers the coordinates to the GPU', () => {
  const bad = new Float32Array([0, 0, 1, NaN]);

  it('only with deferCoordinates, a backend that may be the GPU, an open box and no scale cut', () => {
    const defer = { deferCoordinates: true };
    expect(validateEmstInput(bad, { dim: 2 }, defer).deferred).toBe(true);
    expect(validateEmstInput(bad, { dim: 2, backend: 'gpu' }, defer).maxAbs).toBeNaN();
    expect(() => validateEmstInput(bad, { dim: 2 })).toThrow(/NaN at row 1, column 1/);
    expect(() => validateEmstInput(bad, { dim: 2, backend: 'cpu' }, defer)).toThrow(/NaN at row 1, column 1/);
    expect(() => validateEmstInput(bad, { dim: 2, box: [2, 2] }, defer)).toThrow(/NaN at row 1, column 1/);
    expect(() => validateEmstInput(bad, { dim: 2, minEdgeLength: 0.1 }, defer)).toThrow(/NaN at row 1, column 1/);
  });

  it('a deferred Float64Array is uploaded as it is (rounded in staging); checkDeferred converts it and gives maxAbs', () => {
    const p = new Float64Array([0.1, -3, 2 ** 40, 1]);
    const v = validateEmstInput(p, { dim: 2 }, { deferCoordinates: true });
    expect(v.upload).toBe(p);
    expect(v.points.length).toBe(0);
    const c = checkDeferred(v, p);
    expect(c.points).toEqual(new Float32Array(p));
    expect(c.upload).toBe(c.points);
    expect(c.maxAbs).toBe(checkCoordinates(p, 2));
    expect(c.deferred).toBe(false);
    const q = new Float32Array(p);
    const w = validateEmstInput(q, { dim: 2 }, { deferCoordinates: true });
    expect(w.points).toBe(q);
    expect(w.upload).toBe(q);
    // Host-checked inputs upload their float32 points.
    const h = validateEmstInput(p, { dim: 2, backend: 'cpu' }, { deferCoordinates: true });
    expect(h.upload).toBe(h.points);
    expect(h.points).toEqual(new Float32Array(p));
  });
});

describe('a deferred input that falls back to the CPU is checked there, with the same messages', () => {
  const cases: [string, Float32Array | Float64Array, RegExp][] = [
    ['NaN in the first row', new Float32Array([NaN, 0, 1, 1, 2, 2]), /got NaN at row 0, column 0\./],
    ['Inf in the last row', new Float32Array([0, 0, 1, 1, 2, Infinity]), /got Infinity at row 2, column 1\./],
    ['1e39 in a Float64Array', new Float64Array([0, 0, -1e39, 1, 2, 2]), /got -1e\+39 at row 1, column 0\./],
    [
      'several bad values',
      new Float64Array([0, 0, 1, 2e38, NaN, 2]),
      /within ±1e\+38 \(float32 range\), got 2e\+38 at row 1, column 1\./,
    ],
  ];
  it.each(cases)('%s', async (_name, points, message) => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    await expect(emst(points, { dim: 2 })).rejects.toBeInstanceOf(InputError);
    await expect(emst(points, { dim: 2 })).rejects.toThrow(message);
    await expect(emst(points, { dim: 2, backend: 'cpu' })).rejects.toThrow(message);
  });

  it('scaled inputs give the host-scaled tree', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const r = mulberry32(3);
    const p = new Float32Array(300).map(() => (r() - 0.5) * 2 ** 60);
    const auto = await emst(p, { dim: 3 });
    const cpu = await emst(p, { dim: 3, backend: 'cpu' });
    expect(auto.backend).toBe('cpu');
    expect([...auto.weights]).toEqual([...cpu.weights]);
    expect([...auto.sources]).toEqual([...cpu.sources]);
    expect(auto.timings?.['emst::validate']).toBeGreaterThanOrEqual(0);
  });
});
