/**
 * The BVH's prefix sort (src/bvh/prefixsort.ts, shaders/bvh/prefix.wgsl; issue 18) against its CPU twin
 * (prefixsort.cpu.ts) and the full sort (sort.cpu.ts): the same codes and order bit for bit, the same long-run flag;
 * and whole builds with prefixSort on equal the CPU BVH. Ties, duplicates, long runs that switch the guarded full
 * sort on (a small runMax, all-duplicate and clustered clouds, a far outlier), sizes 2, 3 and non-multiples of the
 * workgroup and block sizes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { allocateBvh, createBvhBuilder } from '../../src/bvh/lbvh.js';
import { createCodeEncoder } from '../../src/bvh/codes.js';
import { createPrefixSorter, prefixSortApplies } from '../../src/bvh/prefixsort.js';
import { prefixSortCodesCpu } from '../../src/bvh/prefixsort.cpu.js';
import { buildBvhCpu } from '../../src/bvh/lbvh.cpu.js';
import { mortonCodesCpu, sceneFrameCpu } from '../../src/bvh/morton.cpu.js';
import { sortCodesCpu } from '../../src/bvh/sort.cpu.js';
import { codeBits, FRAME_WORDS } from '../../src/bvh/layout.js';
import { createRadixSorter } from '../../src/primitives/radixsort.js';
import { asBoxFormat, readBvh } from '../helpers/bvh.readback.js';
import { cloud, type CloudKind } from '../helpers/clouds.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { mulberry32 } from '../helpers/random.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

function firstDiff(a: Uint32Array, b: Uint32Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

/** Points with a far outlier: the rest share a few prefixes (long runs). */
function withOutlier(n: number, dim: number, seed: number): Float32Array {
  const r = mulberry32(seed);
  const p = new Float32Array(n * dim);
  for (let i = 0; i < p.length; i++) p[i] = r();
  for (let a = 0; a < dim; a++) p[a] = 1e30;
  return p;
}

function points(kind: CloudKind | 'outlier', n: number, dim: number, seed: number): Float32Array {
  return kind === 'outlier' ? withOutlier(n, dim, seed) : cloud(kind, n, dim, seed);
}

describe.skipIf(variants.length === 0).each(variants)('bvh prefix sort on the GPU ($name)', ({ ctx }) => {
  it('codes, order and the long-run flag equal the CPU twin and the full sort', async () => {
    const cases: [CloudKind | 'outlier', number, number, number][] = [
      ['uniform', 2, 3, 32],
      ['uniform', 3, 2, 32],
      ['normal', 1000, 3, 32],
      ['normal', 2049, 2, 32],
      ['uniform', 5000, 3, 3],
      ['grid', 3000, 3, 32],
      ['grid', 777, 2, 3],
      ['duplicates', 600, 3, 32],
      ['clustered', 4099, 3, 32],
      ['outlier', 1500, 3, 32],
      ['outlier', 513, 2, 32],
      ['normal', 1200, 4, 32],
      ['normal', 1100, 5, 32],
    ];
    // One sorter per (dim, runMax), reused across its cases (as a builder reuses it).
    const sorters = new Map<string, Awaited<ReturnType<typeof makeSorter>>>();
    const maxCount = Math.max(...cases.map((c) => c[1]));
    const makeSorter = async (dim: number, runMax: number) => {
      const full = await createRadixSorter(ctx, { maxCount, keyWords: 2 });
      expect(prefixSortApplies(dim, full.shape.radixBits)).toBe(true);
      const encoder = await createCodeEncoder(ctx, dim);
      const sorter = await createPrefixSorter(ctx, dim, full, encoder, { runMax });
      return { full, encoder, sorter };
    };
    let seed = 1;
    for (const [kind, n, dim, runMax] of cases) {
      const what = `${kind} n=${n} dim=${dim} runMax=${runMax}`;
      const pts = points(kind, n, dim, seed++);
      const frame = sceneFrameCpu(pts, n, dim);
      const unsorted = mortonCodesCpu(pts, n, dim, frame);
      const bits = codeBits(dim);
      const twin = prefixSortCodesCpu(unsorted, n, bits, runMax);
      const oracle = sortCodesCpu(unsorted, n, bits);
      expect(firstDiff(twin.codes, oracle.codes), `${what}: twin codes`).toBe(-1);
      expect(firstDiff(twin.order, oracle.order), `${what}: twin order`).toBe(-1);

      const key = `${dim}/${runMax}`;
      if (!sorters.has(key)) sorters.set(key, await makeSorter(dim, runMax));
      const { sorter } = sorters.get(key)!;
      const input = ctx.upload('test::points', pts);
      const frameBuf = ctx.createBuffer('test::frame', 4 * FRAME_WORDS(dim));
      const codes = ctx.createBuffer('test::codes', 8 * n);
      const order = ctx.createBuffer('test::order', 4 * n);
      const sorted = ctx.createBuffer('test::sorted', 4 * dim * n);
      await ctx.submit('test::prefixSort', (rec) =>
        sorter.encode(rec, { points: input, n, frame: frameBuf, codes, order, sorted }),
      );
      const [c, o, f, sp] = await Promise.all([
        ctx.read(codes, 0, 8 * n),
        ctx.read(order, 0, 4 * n),
        ctx.read(sorter.flag, 0, 4),
        ctx.read(sorted, 0, 4 * dim * n),
      ]);
      // The gather: the points' bit patterns in the oracle's order.
      const bitsIn = new Uint32Array(pts.buffer, pts.byteOffset, n * dim);
      const wantSorted = new Uint32Array(n * dim);
      for (let k = 0; k < n; k++)
        for (let a = 0; a < dim; a++) wantSorted[k * dim + a] = bitsIn[oracle.order[k] * dim + a];
      const g = firstDiff(new Uint32Array(sp), wantSorted);
      if (g !== -1) expect.fail(`${what}: sorted[${g}] = ${new Uint32Array(sp)[g]}, want ${wantSorted[g]}`);
      const i = firstDiff(new Uint32Array(c), oracle.codes);
      if (i !== -1) expect.fail(`${what}: codes[${i}] = ${new Uint32Array(c)[i]}, want ${oracle.codes[i]}`);
      const j = firstDiff(new Uint32Array(o), oracle.order);
      if (j !== -1) expect.fail(`${what}: order[${j}] = ${new Uint32Array(o)[j]}, want ${oracle.order[j]}`);
      expect(new Uint32Array(f)[0], `${what}: flag (longest run ${twin.longestRun})`).toBe(twin.long ? 1 : 0);
      for (const b of [input, frameBuf, codes, order, sorted]) b.destroy();
    }
    for (const { full, encoder, sorter } of sorters.values()) {
      sorter.destroy();
      encoder.destroy();
      full.destroy();
    }
  });

  it('the short-run and the fall-back paths are both exercised by the cases above', () => {
    const long = (kind: CloudKind | 'outlier', n: number, dim: number, runMax: number) => {
      const pts = points(kind, n, dim, 99);
      const codes = mortonCodesCpu(pts, n, dim, sceneFrameCpu(pts, n, dim));
      return prefixSortCodesCpu(codes, n, codeBits(dim), runMax);
    };
    expect(long('normal', 1000, 3, 32).long).toBe(false);
    expect(long('grid', 3000, 3, 32).longestRun).toBeGreaterThan(1);
    expect(long('grid', 3000, 3, 32).long).toBe(false);
    expect(long('duplicates', 600, 3, 32).long).toBe(true);
    expect(long('outlier', 1500, 3, 32).long).toBe(true);
  });

  it.each([false, true])(
    'whole builds with prefixSort equal the CPU BVH (in place: %s; reused builder, sizes 0 … non-multiples)',
    async (inPlace) => {
      for (const dim of [2, 3]) {
        const maxCount = 3000;
        const builder = await createBvhBuilder(ctx, { maxCount, dim, prefixSort: true });
        const bvh = allocateBvh(ctx, maxCount, dim, { inPlace });
        let seed = 7;
        for (const [kind, n] of [
          ['normal', 0],
          ['normal', 1],
          ['uniform', 2],
          ['normal', 257],
          ['duplicates', 300],
          ['clustered', 2999],
          ['outlier', 1000],
          ['grid', 3000],
        ] as const) {
          const pts = points(kind, n, dim, seed++);
          const input = ctx.upload('test::points', n > 0 ? pts : new Float32Array(dim));
          // In place (allocateBvh's inPlace): the build leaves the points in Morton order in their own buffer.
          if (inPlace) bvh.sortedPoints = input;
          await ctx.submit('test::build', (rec) => builder.encode(rec, input, n, bvh));
          const got = await readBvh(ctx, bvh);
          const want = asBoxFormat(buildBvhCpu(pts, dim), got.boxFormat);
          for (const key of ['codes', 'order', 'sortedPoints', 'links', 'boxes', 'ranges', 'parents'] as const) {
            const a = new Uint32Array(got[key].buffer, got[key].byteOffset, got[key].length);
            const b = new Uint32Array(want[key].buffer, want[key].byteOffset, want[key].length);
            const i = firstDiff(a, b);
            if (i !== -1) expect.fail(`${kind} n=${n} dim=${dim}: ${key}[${i}] = ${a[i]}, CPU has ${b[i]}`);
          }
          input.destroy();
        }
        bvh.destroy();
        builder.destroy();
      }
    },
  );
});
