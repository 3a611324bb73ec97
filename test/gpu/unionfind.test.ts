// The GPU union-find against its CPU twin: identical label arrays (not just equal partitions) under heavy
// contention. Lavapipe runs two CPU threads and cannot expose most races: run this suite on the H100 too.
import { afterAll, describe, expect, it } from 'vitest';
import { createUnionFind, unionFindLabels } from '../../src/unionfind/unionfind.js';
import { UnionFind, unionFindLabelsCpu } from '../../src/unionfind/unionfind.cpu.js';
import { InputError } from '../../src/errors.js';
import type { GpuContext } from '../../src/gpu/index.js';
import { MIN_BINDING_BYTES } from '../../src/gpu/context.js';
import { destroyVariants, gpuVariants, tryGpuContext } from '../helpers/gpu.js';
import { mulberry32 } from '../helpers/random.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

function shuffle(x: Uint32Array, seed: number): Uint32Array {
  const r = mulberry32(seed);
  for (let i = x.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    const t = x[i];
    x[i] = x[j];
    x[j] = t;
  }
  return x;
}

const iota = (n: number) => Uint32Array.from({ length: n }, (_, i) => i);

/** Pairs (perm[i], perm[i + 1]): one set, linked in random order. */
function chainPairs(n: number, seed: number): { a: Uint32Array; b: Uint32Array } {
  const perm = shuffle(iota(n), seed);
  return { a: perm.slice(0, Math.max(0, n - 1)), b: perm.slice(1) };
}

/** Pairs (center, i) and (i, center) for every i, shuffled. */
function starPairs(n: number, center: number, seed: number): { a: Uint32Array; b: Uint32Array } {
  const k = shuffle(iota(2 * n), seed);
  const a = new Uint32Array(2 * n);
  const b = new Uint32Array(2 * n);
  k.forEach((v, i) => {
    const leaf = v >> 1;
    a[i] = v & 1 ? center : leaf;
    b[i] = v & 1 ? leaf : center;
  });
  return { a, b };
}

function randomPairs(n: number, m: number, seed: number): { a: Uint32Array; b: Uint32Array } {
  const r = mulberry32(seed);
  const a = new Uint32Array(m);
  const b = new Uint32Array(m);
  for (let i = 0; i < m; i++) {
    a[i] = Math.floor(r() * n);
    b[i] = Math.floor(r() * n);
  }
  return { a, b };
}

/** Index of the first difference, or -1 (a readable failure for million-element arrays). */
function firstDiff(got: Uint32Array, want: Uint32Array): string {
  if (got.length !== want.length) return `length ${got.length} vs ${want.length}`;
  for (let i = 0; i < got.length; i++) if (got[i] !== want[i]) return `labels[${i}] = ${got[i]}, CPU twin ${want[i]}`;
  return 'equal';
}

/** Runs init, unions (with merged flags) and flatten in one submission; returns labels and flags. */
async function runWithMerged(
  ctx: GpuContext,
  n: number,
  a: Uint32Array,
  b: Uint32Array,
  workgroupSize?: number,
): Promise<{ labels: Uint32Array; merged: Uint32Array; roots: number }> {
  const uf = await createUnionFind(ctx, n, { workgroupSize });
  const ga = ctx.upload('test::pairsA', a);
  const gb = ctx.upload('test::pairsB', b);
  const gm = ctx.createBuffer('test::merged', a.length * 4);
  const gr = ctx.createBuffer('test::roots', 4);
  await ctx.submit('test::unionfind', (rec) => {
    uf.encodeInit(rec, n);
    uf.encodeUnionPairs(rec, ga, gb, a.length, gm);
    uf.encodeFlatten(rec, n);
    uf.encodeCountRoots(rec, n, gr);
  });
  const labels = new Uint32Array(await ctx.read(uf.parent, 0, n * 4));
  const merged = new Uint32Array(await ctx.read(gm, 0, a.length * 4));
  const roots = new Uint32Array(await ctx.read(gr))[0];
  for (const buf of [ga, gb, gm, gr]) buf.destroy();
  uf.destroy();
  return { labels, merged, roots };
}

/** The merged flags: exactly n − sets ones, and the flagged pairs form a spanning forest of the pair graph. */
function checkMerged(n: number, a: Uint32Array, b: Uint32Array, merged: Uint32Array, sets: number): void {
  const uf = new UnionFind(n);
  let ones = 0;
  for (let i = 0; i < merged.length; i++) {
    if (merged[i] > 1) expect.fail(`merged[${i}] = ${merged[i]}`);
    if (merged[i] === 1) {
      ones++;
      if (!uf.union(a[i], b[i])) expect.fail(`pair ${i} (${a[i]}, ${b[i]}) reported merged but closes a cycle`);
    }
  }
  expect(ones).toBe(n - sets);
  expect(uf.countSets()).toBe(sets);
}

const countSets = (labels: Uint32Array) => labels.reduce((c, v, i) => c + (v === i ? 1 : 0), 0);

describe.skipIf(variants.length === 0).each(variants)('unionfind ($name)', ({ ctx }) => {
  it('unionFindLabels equals the CPU twin for n = 0, 1, 2, self-pairs and no pairs', async () => {
    const cases: [number, number[], number[]][] = [
      [0, [], []],
      [1, [], []],
      [1, [0], [0]],
      [2, [], []],
      [2, [1, 0, 1], [1, 0, 1]],
      [2, [1], [0]],
      [2, [0, 1, 1], [1, 0, 1]],
      [5, [4, 4, 3, 2], [4, 3, 3, 2]],
    ];
    for (const [n, pa, pb] of cases) {
      const a = Uint32Array.from(pa);
      const b = Uint32Array.from(pb);
      const got = await unionFindLabels(ctx, n, a, b);
      expect(got, `n=${n} pairs=${pa}|${pb}`).toEqual(unionFindLabelsCpu(n, a, b));
    }
  });

  it('one set linked in random order (a 2^20 chain) gives all labels 0', async () => {
    const n = 1 << 20;
    const { a, b } = chainPairs(n, 1);
    const got = await unionFindLabels(ctx, n, a, b);
    expect(firstDiff(got, new Uint32Array(n))).toBe('equal');
  });

  it('star patterns (center, i) and (i, center), shuffled, around the smallest and the largest element', async () => {
    const n = 1 << 16;
    for (const center of [0, n - 1, n >> 1]) {
      const { a, b } = starPairs(n, center, center + 5);
      const { labels, merged, roots } = await runWithMerged(ctx, n, a, b);
      expect(firstDiff(labels, new Uint32Array(n)), `center ${center}`).toBe('equal');
      expect(roots).toBe(1);
      checkMerged(n, a, b, merged, 1);
    }
  });

  it('random unions at several densities give the CPU twin labels and n − sets merged pairs', async () => {
    const n = 1 << 16;
    let seed = 100;
    for (const density of [0.25, 0.5, 0.75, 1, 2, 4]) {
      const { a, b } = randomPairs(n, Math.round(n * density), seed++);
      const want = unionFindLabelsCpu(n, a, b);
      const { labels, merged, roots } = await runWithMerged(ctx, n, a, b);
      expect(firstDiff(labels, want), `density ${density}`).toBe('equal');
      const sets = countSets(want);
      expect(roots, `density ${density}`).toBe(sets);
      checkMerged(n, a, b, merged, sets);
    }
  });

  it('random unions with duplicate pairs and self-pairs at n = 2^20', async () => {
    const n = 1 << 20;
    const { a, b } = randomPairs(n, n, 7);
    // Every 16th pair a self-pair, every 16th (offset 8) a duplicate of the previous pair.
    for (let i = 0; i < a.length; i += 16) b[i] = a[i];
    for (let i = 9; i < a.length; i += 16) {
      a[i] = a[i - 1];
      b[i] = b[i - 1];
    }
    const got = await unionFindLabels(ctx, n, a, b);
    expect(firstDiff(got, unionFindLabelsCpu(n, a, b))).toBe('equal');
  });

  it('dispatches of more than 65535 workgroups (workgroup size 8) cover every element and pair', async () => {
    const n = (1 << 20) + 7; // 131073 workgroups of 8 threads: a 2D grid
    const { a, b } = randomPairs(n, n, 21);
    const want = unionFindLabelsCpu(n, a, b);
    const { labels, merged, roots } = await runWithMerged(ctx, n, a, b, 8);
    expect(firstDiff(labels, want)).toBe('equal');
    const sets = countSets(want);
    expect(roots).toBe(sets);
    checkMerged(n, a, b, merged, sets);
  });

  it('create once, run many: several union batches per submission, re-init to a smaller n, countRoots between', async () => {
    const maxCount = 40_000;
    const uf = await createUnionFind(ctx, maxCount);
    const roots = ctx.createBuffer('test::roots', 512);
    for (const [n, seed] of [
      [maxCount, 1],
      [1234, 2],
      [maxCount, 3],
    ] as const) {
      const { a, b } = randomPairs(n, Math.round(n * 0.9), seed);
      const third = Math.floor(a.length / 3 / 64) * 64; // binding offsets are multiples of 256 bytes
      const ga = ctx.upload('test::pairsA', a);
      const gb = ctx.upload('test::pairsB', b);
      // Before init the parent array holds the previous run: init must reset it.
      await ctx.submit('test::unionfind', (rec) => {
        uf.encodeInit(rec, n);
        uf.encodeCountRoots(rec, n, roots, 0);
        uf.encodeUnionPairs(rec, ga, gb, third);
        uf.encodeUnionPairs(rec, { buffer: ga, offset: third * 4 }, { buffer: gb, offset: third * 4 }, third);
        uf.encodeUnionPairs(
          rec,
          { buffer: ga, offset: 2 * third * 4 },
          { buffer: gb, offset: 2 * third * 4 },
          a.length - 2 * third,
        );
        uf.encodeFlatten(rec, n);
        uf.encodeCountRoots(rec, n, roots, 256);
      });
      const want = unionFindLabelsCpu(n, a, b);
      const got = new Uint32Array(await ctx.read(uf.parent, 0, n * 4));
      expect(firstDiff(got, want), `n=${n}`).toBe('equal');
      const r = new Uint32Array(await ctx.read(roots));
      expect([r[0], r[64]], `n=${n}`).toEqual([n, countSets(want)]);
      ga.destroy();
      gb.destroy();
    }
    roots.destroy();
    uf.destroy();
  });

  it('frees what it creates and validates its inputs with InputErrors naming the value', async () => {
    const before = ctx.memory.liveBuffers;
    await unionFindLabels(ctx, 100, Uint32Array.of(1, 2), Uint32Array.of(3, 4));
    expect(ctx.memory.liveBuffers).toBe(before);
    await expect(unionFindLabels(ctx, 3, Uint32Array.of(0), Uint32Array.of(3))).rejects.toThrow(
      /pairsB\[0\] < n=3, got 3/,
    );
    await expect(createUnionFind(ctx, -1)).rejects.toThrow(InputError);
    const uf = await createUnionFind(ctx, 10);
    const small = ctx.createBuffer('test::small', 8);
    await expect(ctx.submit('test::bad', (rec) => uf.encodeInit(rec, 11))).rejects.toThrow(/got 11/);
    await expect(ctx.submit('test::bad', (rec) => uf.encodeUnionPairs(rec, small, small, 3))).rejects.toThrow(
      /count=3/,
    );
    await expect(ctx.submit('test::bad', (rec) => uf.encodeCountRoots(rec, 10, small, 4))).rejects.toThrow(/got 4/);
    await expect(
      ctx.submit('test::bad', (rec) => uf.encodeUnionPairs(rec, { buffer: small, offset: 4 }, small, 1)),
    ).rejects.toThrow(/offset to be a multiple of \d+, got 4/);
    small.destroy();
    uf.destroy();
    expect(ctx.memory.liveBuffers).toBe(before);
  });
});

describe.skipIf(variants.length === 0)('unionfind above one storage binding (issue 19)', () => {
  it('encodeInit at a 64 KiB binding limit (16,384 u32) initialises 16,385 and 40,001 parents by windows', async () => {
    const low = (await tryGpuContext({ maxBindingBytes: MIN_BINDING_BYTES }))!;
    try {
      const uf = await createUnionFind(low, 40_001, { initOnly: true });
      for (const n of [16_384, 16_385, 40_001]) {
        // Garbage first, so that a parent the init skips shows.
        await low.writeBuffer(uf.parent, 0, new Uint32Array(40_001).fill(0xdeadbeef));
        await low.submit('test::ufInit', (rec) => uf.encodeInit(rec, n));
        const got = new Uint32Array(await low.read(uf.parent, 0, 4 * 40_001));
        expect(got.subarray(0, n), `n=${n}`).toEqual(iota(n));
        expect(
          got.subarray(n).every((w) => w === 0xdeadbeef),
          `n=${n}: nothing beyond`,
        ).toBe(true);
      }
      uf.destroy();
      expect(low.memory.liveBuffers).toBe(0);
    } finally {
      await low.destroy();
    }
  });
});
