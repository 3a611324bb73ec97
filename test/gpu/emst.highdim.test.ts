/**
 * Issue 18, high dimensions: the candidate lists of the GPU EMST (src/emst/highdim.ts). Each kernel against its CPU
 * twin (src/emst/highdim.cpu.ts) on seeded inputs with ties (integer coordinates), at degenerate sizes and sizes
 * that are not multiples of the workgroup or the tile; the lists against the CPU backend's BVH k-NN (an independent
 * search); and whole trees in 8D and 16D, with lists from either source, against the CPU backend (identical edge
 * lists on integer data, equal total weight on float data) and brute-force Prim.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { bruteTile, GpuCandidateLists, type CandidateSource } from '../../src/emst/highdim.js';
import { bruteListsCpu, ranksCpu, settleCpu, tileBoxesCpu } from '../../src/emst/highdim.cpu.js';
import { GpuEmst } from '../../src/emst/pipeline.js';
import { metricOf } from '../../src/emst/metric.js';
import { emstCpu } from '../../src/emst/boruvka.cpu.js';
import { buildBvh } from '../../src/bvh/lbvh.js';
import { buildBvhCpu } from '../../src/bvh/lbvh.cpu.js';
import { nearestNeighbours } from '../../src/knn/neighbours.cpu.js';
import type { EdgeList } from '../../src/emst/edges.cpu.js';
import type { GpuContext } from '../../src/gpu/context.js';
import { cloud, type CloudKind } from '../helpers/clouds.js';
import { destroyVariants, gpuVariants } from '../helpers/gpu.js';
import { primMst } from '../helpers/prim.js';
import { mulberry32 } from '../helpers/random.js';

const variants = await gpuVariants();
afterAll(() => destroyVariants(variants));

const NONE = 0xffffffff;

/** The lists of `source` for the GPU BVH of `pts`, read back, with the BVH's order and Morton-ordered points. */
async function gpuLists(
  ctx: GpuContext,
  pts: Float32Array,
  dim: number,
  source: CandidateSource,
  k: number,
  chunk?: number,
  queriesPerThread: 1 | 2 = 1,
  boxes = false,
) {
  const n = pts.length / dim;
  const bvh = await buildBvh(ctx, pts, n, dim);
  const lists = await GpuCandidateLists.create(ctx, n, dim, source, k, queriesPerThread, boxes);
  if (chunk) lists.bruteChunk = chunk;
  try {
    await ctx.submit('test::lists', (rec) => lists.encode(rec, bvh));
    const [keys, pos, order, sorted, tileBoxes] = await Promise.all([
      ctx.read(lists.keys, 0, 4 * n * k),
      ctx.read(lists.pos, 0, 4 * n * k),
      ctx.read(bvh.order, 0, 4 * n),
      ctx.read(bvh.sortedPoints, 0, 4 * n * dim),
      lists.tileBoxes ? ctx.read(lists.tileBoxes, 0, 8 * dim * Math.ceil(n / bruteTile(dim))) : null,
    ]);
    return {
      keys: new Uint32Array(keys),
      pos: new Uint32Array(pos),
      order: new Uint32Array(order),
      sorted: new Float32Array(sorted),
      tileBoxes: tileBoxes ? new Float32Array(tileBoxes) : null,
    };
  } finally {
    lists.destroy();
    bvh.destroy();
  }
}

/** One GPU EMST with the candidate lists forced to `source` (or off). */
async function gpuTree(
  ctx: GpuContext,
  pts: Float32Array,
  dim: number,
  source: CandidateSource | 'off',
  k = 16,
  minEdgeLength?: number,
  minSamples = 1,
): Promise<EdgeList> {
  const n = pts.length / dim;
  const metric = metricOf(minSamples);
  const e = await GpuEmst.create(ctx, Math.max(n, 1), dim, metric, false, { candidates: source, candidatesK: k });
  const buf = ctx.upload('test::points', pts.length ? pts : new Float32Array(dim));
  try {
    return await e.readEdges(await e.run(buf, n, { minEdgeLength }));
  } finally {
    buf.destroy();
    e.destroy();
  }
}

describe.skipIf(variants.length === 0).each(variants)('high-dimensional candidate lists ($name)', ({ ctx }) => {
  it.each([
    [2, 8, 16, 0, 1],
    [3, 16, 16, 0, 1],
    [130, 16, 16, 0, 1],
    // Several dispatches of 128 or 100 queries (tiles start at each workgroup's own: wrapping around).
    [301, 16, 8, 128, 1],
    [77, 13, 16, 0, 1],
    [250, 8, 16, 100, 1],
    // Two queries per thread: an odd count leaves one query of a thread idle; dispatches of 300 queries.
    [3, 16, 16, 0, 2],
    [301, 16, 8, 0, 2],
    [77, 13, 16, 0, 2],
    [700, 16, 16, 300, 2],
  ] as [number, number, number, number, 1 | 2][])(
    "brute-force lists n=%i d=%i k=%i (queries per dispatch %i, per thread %i) equal the CPU twin and the CPU backend's BVH k-NN",
    async (n, dim, k, chunk, qpt) => {
      const pts = cloud('grid', n, dim, n + dim);
      const got = await gpuLists(ctx, pts, dim, 'brute', k, chunk, qpt);
      const want = bruteListsCpu(got.sorted, got.order, dim, k);
      expect(got.keys).toEqual(want.keys);
      expect(got.pos).toEqual(want.pos);
      // The independent search: the CPU backend's k-NN over its own BVH, ranked by (key, original index).
      const bvh = buildBvhCpu(pts, dim);
      const kk = Math.min(k, n - 1);
      const oracle = nearestNeighbours(bvh, kk);
      const keyBits = new Uint32Array(new Float32Array(oracle.keys).buffer);
      for (let q = 0; q < n; q++) {
        const j = got.order.indexOf(bvh.order[q]);
        for (let r = 0; r < kk; r++) {
          expect(got.keys[j * k + r]).toBe(keyBits[q * kk + r]);
          expect(got.order[got.pos[j * k + r]]).toBe(bvh.order[oracle.points[q * kk + r]]);
        }
        for (let r = kk; r < k; r++) expect(got.pos[j * k + r]).toBe(NONE);
      }
    },
  );

  it.each([
    ['clustered', 2, 8, 16, 0],
    ['clustered', 900, 8, 16, 0],
    ['grid', 500, 8, 8, 200],
    ['clustered', 700, 16, 16, 300],
    ['normal', 333, 12, 16, 0],
  ] as [CloudKind, number, number, number, number][])(
    "%s n=%i d=%i k=%i (queries per dispatch %i): with tiles skipped by their boxes, the same lists; boxes equal the CPU twin's",
    async (kind, n, dim, k, chunk) => {
      const pts = cloud(kind, n, dim, n + 3 * dim);
      const got = await gpuLists(ctx, pts, dim, 'brute', k, chunk, 1, true);
      const want = bruteListsCpu(got.sorted, got.order, dim, k);
      expect(got.keys).toEqual(want.keys);
      expect(got.pos).toEqual(want.pos);
      expect(got.tileBoxes).toEqual(tileBoxesCpu(got.sorted, n, dim, bruteTile(dim)));
    },
  );

  it.each([
    [2, 8, 16],
    [150, 8, 16],
    [200, 16, 8],
  ])("the 'bvh' source's lists n=%i d=%i k=%i equal the brute-force ones", async (n, dim, k) => {
    const pts = cloud('grid', n, dim, 7 * n + dim);
    const got = await gpuLists(ctx, pts, dim, 'bvh', k);
    const want = bruteListsCpu(got.sorted, got.order, dim, k);
    // Past n − 1 neighbours the k-NN writes +∞ keys where the brute force writes NONE: positions are NONE in both.
    const real = (keys: Uint32Array, pos: Uint32Array) => Array.from(keys, (x, i) => (pos[i] === NONE ? NONE : x));
    expect(got.pos).toEqual(want.pos);
    expect(real(got.keys, got.pos)).toEqual(real(want.keys, want.pos));
  });

  it('ranksCpu maps original indices to Morton positions (the twin of highdim_rank.wgsl)', () => {
    const order = new Uint32Array([2, 0, 3, 1]);
    const entries = new Uint32Array([0, 1, NONE, 2, 3]);
    ranksCpu(order, entries);
    expect([...entries]).toEqual([1, 3, NONE, 0, 2]);
  });

  it.each([
    [1, 16, 0, 0],
    [5, 8, 0, 0],
    [333, 8, 0, 0],
    [1000, 16, 0, 0],
    [700, 8, 0x3f800000, 0],
    // Mutual reachability with 1 / alpha² = 1 (ties at the last key decided by index) and 0.64.
    [5, 8, 0, 1],
    [600, 16, 0, 1],
    [800, 8, 0, 0.64],
  ])(
    'the settle kernel n=%i k=%i cut=%i ia2=%s (0: Euclidean) equals its CPU twin on random labels, candidates and bounds',
    async (n, k, cut, ia2) => {
      const rand = mulberry32(n * 31 + k);
      const int = (m: number) => Math.floor(rand() * m);
      const comps = Math.max(1, Math.floor(n / 7));
      const label = new Uint32Array(n + 2);
      for (let j = 0; j < n; j++) label[j] = int(comps);
      const keys = new Uint32Array(n * k);
      const pos = new Uint32Array(n * k);
      for (let j = 0; j < n; j++) {
        // Ascending keys from a few values (ties), some rows cut short with NONE (fewer than k other points).
        const len = int(5) === 0 ? int(k + 1) : k;
        let key = int(4) * 0x00800000;
        for (let r = 0; r < k; r++) {
          key += int(3) * 0x00400000;
          keys[j * k + r] = r < len ? key + 0x3e000000 : NONE;
          pos[j * k + r] = r < len ? int(n) : NONE;
        }
      }
      const cursor = Uint32Array.from({ length: n }, () => (int(4) === 0 ? int(k + 1) : 0));
      const cand = new Uint32Array(2 * n);
      for (let j = 0; j < n; j++) {
        const has = int(3) === 0;
        cand[2 * j] = has ? 0x3f000000 + int(100) : NONE;
        cand[2 * j + 1] = has ? int(n) : NONE;
      }
      const pointBound = Uint32Array.from({ length: n }, () => (int(2) === 0 ? 0 : 0x3e000000 + int(1 << 26)));
      // Core² from the same few values as the keys (ties between cores and keys), original indices a permutation.
      const core2 = Uint32Array.from({ length: n }, () => 0x3e000000 + int(12) * 0x00400000);
      const order = Uint32Array.from({ length: n }, (_, i) => i);
      for (let i = n - 1; i > 0; i--) {
        const j = int(i + 1);
        [order[i], order[j]] = [order[j], order[i]];
      }
      const mr = ia2 > 0 ? { core2, order, ia2: Math.fround(ia2) } : undefined;
      const kernel = await GpuCandidateLists.create(ctx, n, 8, 'brute', k);
      const up = (label: string, a: Uint32Array) => ctx.upload(label, a.length ? a : new Uint32Array(1));
      const b = {
        label: up('test::label', label),
        cand: up('test::cand', cand),
        pointBound: up('test::pointBound', pointBound),
        core2: up('test::core2', core2),
        order: up('test::order', order),
      };
      try {
        ctx.device.queue.writeBuffer(kernel.keys, 0, keys);
        ctx.device.queue.writeBuffer(kernel.pos, 0, pos);
        ctx.device.queue.writeBuffer(kernel.cursor, 0, cursor);
        const reach = mr ? { core2: b.core2, order: b.order, ia2: mr.ia2 } : undefined;
        await ctx.submit('test::settle', (rec) => kernel.settle(rec, b, n, cut, reach));
        const state = {
          label: label.subarray(0, n),
          cursor: cursor.slice(),
          cand: cand.slice(),
          pointBound: pointBound.slice(),
        };
        settleCpu({ k, keys, pos }, state, cut, mr);
        expect(new Uint32Array(await ctx.read(b.cand, 0, 8 * n))).toEqual(state.cand);
        expect(new Uint32Array(await ctx.read(b.pointBound, 0, 4 * n))).toEqual(state.pointBound);
        expect(new Uint32Array(await ctx.read(kernel.cursor, 0, 4 * n))).toEqual(state.cursor);
      } finally {
        kernel.destroy();
        for (const x of Object.values(b)) x.destroy();
      }
    },
  );

  it('the settle kernel does nothing once the tree is complete (label[n] set)', async () => {
    const n = 4;
    const kernel = await GpuCandidateLists.create(ctx, n, 8, 'brute', 8);
    const label = ctx.upload('test::label', new Uint32Array([0, 1, 0, 1, 1, 0]));
    const cand = ctx.upload('test::cand', new Uint32Array(2 * n).fill(NONE));
    const pointBound = ctx.upload('test::pointBound', new Uint32Array(n));
    try {
      ctx.device.queue.writeBuffer(kernel.pos, 0, new Uint32Array(8 * n).fill(1));
      await ctx.submit('test::settle', (rec) => kernel.settle(rec, { label, cand, pointBound }, n, 0));
      expect([...new Uint32Array(await ctx.read(cand, 0, 8 * n))]).toEqual(new Array(2 * n).fill(NONE));
    } finally {
      kernel.destroy();
      label.destroy();
      cand.destroy();
      pointBound.destroy();
    }
  });
});

describe.skipIf(variants.length === 0).each(variants)(
  'high-dimensional EMST with candidate lists ($name)',
  ({ ctx }) => {
    const exact: [CloudKind, number, number, CandidateSource, number][] = [
      ['grid', 0, 8, 'brute', 16],
      ['grid', 1, 16, 'brute', 16],
      ['grid', 2, 16, 'brute', 16],
      ['grid', 3, 8, 'bvh', 16],
      ['grid', 400, 8, 'brute', 16],
      ['grid', 400, 8, 'bvh', 8],
      ['grid', 300, 16, 'brute', 16],
      // Lists of 2 run out early: many points traverse, bounded by their last key.
      ['grid', 300, 16, 'brute', 2],
      ['grid', 250, 16, 'bvh', 8],
      ['duplicates', 150, 16, 'brute', 16],
      ['duplicates', 100, 8, 'bvh', 8],
    ];
    it.each(exact)(
      '%s n=%i d=%i lists %s k=%i: identical to the CPU backend and to Prim',
      async (kind, n, dim, source, k) => {
        const pts = cloud(kind, n, dim, 11 + n);
        const got = await gpuTree(ctx, pts, dim, source, k);
        const cpu = emstCpu(pts, dim);
        expect([...got.sources]).toEqual([...cpu.sources]);
        expect([...got.targets]).toEqual([...cpu.targets]);
        expect([...got.weights]).toEqual([...cpu.weights]);
        if (n < 2) return;
        const want = primMst(pts, dim);
        const key = (a: number, b: number) => `${a}-${b}`;
        expect(new Set([...got.sources].map((s, i) => key(s, got.targets[i])))).toEqual(
          new Set([...want.sources].map((s, i) => key(s, want.targets[i]))),
        );
      },
    );

    it.each([
      ['normal', 500, 16, 'brute'],
      ['normal', 500, 8, 'bvh'],
      ['clustered', 400, 16, 'brute'],
    ] as [CloudKind, number, number, CandidateSource][])(
      "%s n=%i d=%i lists %s: the CPU backend's total weight, and the plain rounds' tree",
      async (kind, n, dim, source) => {
        const pts = cloud(kind, n, dim, 5);
        const got = await gpuTree(ctx, pts, dim, source);
        const plain = await gpuTree(ctx, pts, dim, 'off');
        const cpu = emstCpu(pts, dim);
        expect(got.sources.length).toBe(n - 1);
        const sum = (w: Float32Array) => w.reduce((s, x) => s + x, 0);
        expect(sum(got.weights)).toBe(sum(cpu.weights));
        expect([...got.sources]).toEqual([...plain.sources]);
        expect([...got.targets]).toEqual([...plain.targets]);
      },
    );

    it("a scale cut (the median weight): the tree of the pairs at least that long equals the plain rounds' and the CPU's", async () => {
      const pts = cloud('grid', 300, 8, 21);
      const uncut = emstCpu(pts, 8);
      const cut = uncut.weights[150];
      const got = await gpuTree(ctx, pts, 8, 'brute', 16, cut);
      const plain = await gpuTree(ctx, pts, 8, 'off', 16, cut);
      const cpu = emstCpu(pts, 8, { minEdgeLength: cut });
      // Entries below the cut were skipped: every weight is at least the cut, unlike the uncut tree's.
      expect(Math.min(...got.weights)).toBeGreaterThanOrEqual(cut);
      expect(uncut.weights[0]).toBeLessThan(cut);
      expect([...got.sources]).toEqual([...plain.sources]);
      expect([...got.targets]).toEqual([...plain.targets]);
      expect([...got.sources]).toEqual([...cpu.sources]);
      expect([...got.weights]).toEqual([...cpu.weights]);
    });

    it.each([
      ['grid', 300, 16, 'brute', 16, 5],
      ['grid', 300, 8, 'bvh', 8, 16],
      ['grid', 200, 16, 'brute', 4, 3],
      ['grid', 2, 16, 'brute', 16, 5],
      ['duplicates', 120, 8, 'brute', 8, 4],
      ['normal', 400, 16, 'brute', 16, 10],
    ] as [CloudKind, number, number, CandidateSource, number, number][])(
      '%s n=%i d=%i lists %s k=%i, mutual reachability minSamples=%i: identical to the CPU backend and to Prim',
      async (kind, n, dim, source, k, ms) => {
        const pts = cloud(kind, n, dim, 13 + n);
        const got = await gpuTree(ctx, pts, dim, source, k, undefined, ms);
        const cpu = emstCpu(pts, dim, { metric: metricOf(ms) });
        expect([...got.weights]).toEqual([...cpu.weights]);
        if (kind === 'normal') return; // float data: the same weights (ties are rare but not excluded)
        expect([...got.sources]).toEqual([...cpu.sources]);
        expect([...got.targets]).toEqual([...cpu.targets]);
        const want = primMst(pts, dim, { minSamples: ms });
        const key = (a: number, b: number) => `${a}-${b}`;
        expect(new Set([...got.sources].map((s, i) => key(s, got.targets[i])))).toEqual(
          new Set([...want.sources].map((s, i) => key(s, want.targets[i]))),
        );
      },
    );
  },
);
