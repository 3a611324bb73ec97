/**
 * The public entry point emst(): validation at the door (InputError naming the value, row and column), backends,
 * degenerate inputs, Float64Array conversion, progress and abort.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { emst } from '../../src/emst/emst.js';
import { emstCpu } from '../../src/emst/boruvka.cpu.js';
import { checkSpanningTree } from '../../src/emst/check.js';
import { AbortError, GpuUnavailableError, InputError } from '../../src/errors.js';
import { uniform } from '../../src/datasets/generate.js';
import { primMst } from '../helpers/prim.js';

const cpu = { backend: 'cpu' } as const;

// This file runs in the CPU project: every GPU context request fails as it does on a machine without an adapter.
// (The GPU backend itself is tested against the CPU backend in test/gpu/emst.pipeline.test.ts.)
vi.mock('../../src/gpu/context.js', () => ({
  createGpuContext: async () => {
    throw new GpuUnavailableError('No WebGPU adapter was found (mocked in this CPU test).');
  },
}));

afterEach(() => {
  vi.restoreAllMocks();
});

describe('emst(points) validates its input', () => {
  const p = new Float32Array([0, 0, 1, 0, 0, 1]);
  const rejects = async (points: unknown, options: unknown, message: RegExp) => {
    const call = emst(points as Float32Array, options as { dim: number });
    await expect(call).rejects.toBeInstanceOf(InputError);
    await expect(emst(points as Float32Array, options as { dim: number })).rejects.toThrow(message);
  };

  it('rejects NaN and infinite coordinates, naming the row and column', async () => {
    await rejects(new Float32Array([0, 0, 1, NaN, 2, 2]), { dim: 2, ...cpu }, /NaN at row 1, column 1/);
    await rejects(new Float64Array([0, 0, 1, 1, -Infinity, 2]), { dim: 2, ...cpu }, /-Infinity at row 2, column 0/);
    await rejects(new Float64Array([1e300, 0]), { dim: 2, ...cpu }, /1e\+300 at row 0, column 0/);
    // float32 is scanned four at a time: the first offender inside a later block, and one in the tail.
    const late = Float32Array.from({ length: 10 }, (_, i) => i);
    late[6] = NaN;
    late[9] = Infinity;
    await rejects(late, { dim: 2, ...cpu }, /NaN at row 3, column 0/);
    late[6] = 6;
    await rejects(late, { dim: 2, ...cpu }, /Infinity at row 4, column 1/);
  });

  it('rejects a dim that does not divide the array, dim < 1 and non-integer dim', async () => {
    await rejects(new Float32Array(10), { dim: 3, ...cpu }, /multiple of dim=3, got 10/);
    await rejects(p, { dim: 0, ...cpu }, /dim to be a positive integer, got 0/);
    await rejects(p, { dim: 1.5, ...cpu }, /got 1\.5/);
    await rejects(p, undefined, /options object/);
  });

  it('rejects minSamples < 1, alpha <= 0, unknown backends and non-typed-array points', async () => {
    await rejects(p, { dim: 2, minSamples: 0, ...cpu }, /minSamples to be an integer >= 1, got 0/);
    await rejects(p, { dim: 2, minSamples: 2.5, ...cpu }, /got 2\.5/);
    await rejects(p, { dim: 2, alpha: 0, ...cpu }, /alpha to be a finite number > 0, got 0/);
    await rejects(p, { dim: 2, alpha: -1, ...cpu }, /got -1/);
    await rejects(p, { dim: 2, backend: 'cuda' }, /backend to be one of 'auto', 'gpu', 'cpu', got cuda/);
    await rejects([0, 0, 1, 1], { dim: 2, ...cpu }, /Float32Array or Float64Array.*got Array/);
  });
});

describe('emst(points) backends', () => {
  const p = uniform({ n: 200, dim: 3, seed: 1 });

  it("backend 'gpu' rejects with GpuUnavailableError where no adapter exists", async () => {
    await expect(emst(p, { dim: 3, backend: 'gpu' })).rejects.toBeInstanceOf(GpuUnavailableError);
  });

  it("backend 'auto' falls back to the CPU and says so once on stderr", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const a = await emst(p, { dim: 3 });
    const b = await emst(p, { dim: 3, backend: 'auto' });
    expect(a.backend).toBe('cpu');
    expect(Array.from(a.targets)).toEqual(Array.from(b.targets));
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toMatch(/CPU backend/);
  });

  it("backend 'cpu' returns the canonical tree with per-phase timings", async () => {
    const r = await emst(p, { dim: 3, ...cpu });
    expect(checkSpanningTree(200, r).problems).toEqual([]);
    expect(Object.keys(r.timings ?? {})).toEqual(
      expect.arrayContaining(['emst::bvh', 'emst::neighbours', 'emst::boruvka', 'emst::sort', 'emst::total']),
    );
  });
});

describe('emst(points) on degenerate inputs', () => {
  it('returns no edges for n = 0 and n = 1', async () => {
    for (const points of [new Float32Array(0), new Float32Array([3, 4])]) {
      const r = await emst(points, { dim: 2, ...cpu });
      expect([r.sources.length, r.targets.length, r.weights.length]).toEqual([0, 0, 0]);
    }
  });

  it('returns the one edge for n = 2, also with minSamples above n − 1', async () => {
    for (const minSamples of [1, 2, 15]) {
      const r = await emst(new Float32Array([3, 4, 0, 0]), { dim: 2, minSamples, ...cpu });
      expect([Array.from(r.sources), Array.from(r.targets), Array.from(r.weights)]).toEqual([[0], [1], [5]]);
    }
  });

  it('returns n − 1 edges of weight 0 for all-identical points, chained to the smallest index', async () => {
    const n = 3000;
    const r = await emst(new Float32Array(3 * n).fill(0.25), { dim: 3, minSamples: 5, ...cpu });
    expect(checkSpanningTree(n, r).problems).toEqual([]);
    expect(r.weights.every((w) => w === 0)).toBe(true);
    // (0, 0, j) precedes every other tie, so the canonical tree is the star around point 0.
    expect(r.sources.every((s) => s === 0)).toBe(true);
  });

  it('returns the path along the line for collinear points', async () => {
    const n = 500;
    const p = new Float32Array(2 * n);
    for (let i = 0; i < n; i++) [p[2 * i], p[2 * i + 1]] = [(i * 37) % n, 2 * ((i * 37) % n)];
    const r = await emst(p, { dim: 2, ...cpu });
    expect(checkSpanningTree(n, r).problems).toEqual([]);
    const prim = primMst(p, 2);
    expect(Array.from(r.weights)).toEqual(Array.from(prim.weights, Math.fround));
    expect(Array.from(r.sources)).toEqual(Array.from(prim.sources));
    expect(Array.from(r.targets)).toEqual(Array.from(prim.targets));
  });

  it('accepts Float64Array input, rounding it to float32', async () => {
    const p64 = Float64Array.from(uniform({ n: 300, dim: 2, seed: 2 }), (x) => x + 1e-12);
    const r64 = await emst(p64, { dim: 2, ...cpu });
    const r32 = emstCpu(new Float32Array(p64), 2);
    expect(Array.from(r64.targets)).toEqual(Array.from(r32.targets));
    expect(Array.from(r64.weights)).toEqual(Array.from(r32.weights));
  });
});

describe('emst(points) reports progress and can be aborted', () => {
  const p = uniform({ n: 20000, dim: 2, seed: 5 });

  it('calls onProgress once per Borůvka round with increasing fractions ending at 1', async () => {
    const seen: number[] = [];
    await emst(p, { dim: 2, ...cpu, onProgress: (f) => seen.push(f) });
    expect(seen.length).toBeGreaterThan(2);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThan(seen[i - 1]);
    expect(seen[seen.length - 1]).toBe(1);
  });

  it('rejects with AbortError when the signal aborts between rounds, or before the start', async () => {
    const controller = new AbortController();
    const run = emst(p, { dim: 2, ...cpu, signal: controller.signal, onProgress: () => controller.abort() });
    await expect(run).rejects.toBeInstanceOf(AbortError);
    await expect(emst(p, { dim: 2, ...cpu, signal: AbortSignal.abort() })).rejects.toBeInstanceOf(AbortError);
  });
});
