/**
 * partitionedEmst() (issue 20 §2) in process, on the CPU backend: the partitioned exact EMST and mutual-reachability
 * MST equal the single-process emst() edge for edge (same ids, same float32 weights, same order) on uniform,
 * clustered, duplicate and integer-grid (exact ties) points, for any number of partitions; degenerate sizes; the
 * traffic counters; validation.
 */
import { describe, expect, it } from 'vitest';
import { emst } from '../../src/emst/emst.js';
import { InputError, AbortError } from '../../src/errors.js';
import { InProcessExecutor, messageBytes, partitionInfo, partitionPoints } from '../../src/distributed/partition.js';
import { partitionedEmst } from '../../src/distributed/partition.emst.js';
import { canonicalOrder } from '../../src/distributed/partition.rounds.js';
import {
  canonicalById,
  contractForest,
  contractForestAsync,
  DenseLabels,
  denseEnds,
  forestRecords,
  kruskalDense,
  kruskalSorted,
  mergeAll,
  mergeToTree,
} from '../../src/distributed/partition.pairs.js';
import { orderFromKeyOrder } from '../../src/distributed/partition.emst.js';
import { unionPieces } from '../../src/distributed/partition.tasks.js';
import { sortEdgesCanonical } from '../../src/emst/edges.cpu.js';
import { weightOfKey } from '../../src/emst/distance.cpu.js';
import { mortonCodesCpu, sceneFrameCpu } from '../../src/bvh/morton.cpu.js';
import type {
  PartitionData,
  PartitionedEmstMethod,
  PartitionExecutor,
  PartitionTaskKind,
  TaskMessage,
} from '../../src/distributed/types.js';
import { cloud } from '../helpers/clouds.js';
import { mulberry32 } from '../helpers/random.js';
import { kruskalWithFloors } from '../helpers/kruskalFloors.js';
import { primMst } from '../helpers/prim.js';

const cpu = { backend: 'cpu' as const, threads: 1 };

const METHODS: PartitionedEmstMethod[] = ['pairs', 'pairs-kruskal', 'rounds'];

async function both(
  points: Float32Array,
  dim: number,
  k: number,
  opts: { minSamples?: number; alpha?: number; method?: PartitionedEmstMethod } = {},
) {
  const { method, ...metric } = opts;
  const single = await emst(points, { dim, ...cpu, ...metric });
  const executor = new InProcessExecutor(partitionPoints(points, dim, k), cpu);
  const parted = await partitionedEmst(executor, { dim, ...metric, method });
  return { single, parted };
}

function expectSameTree(
  a: { sources: Uint32Array; targets: Uint32Array; weights: Float32Array },
  b: { sources: Uint32Array; targets: Uint32Array; weights: Float32Array },
) {
  expect(b.sources.length).toBe(a.sources.length);
  // Compared as arrays (bit-equal float32 weights, not approximately equal).
  expect(Array.from(b.sources)).toEqual(Array.from(a.sources));
  expect(Array.from(b.targets)).toEqual(Array.from(a.targets));
  expect(Array.from(new Uint32Array(b.weights.buffer, b.weights.byteOffset, b.weights.length))).toEqual(
    Array.from(new Uint32Array(a.weights.buffer, a.weights.byteOffset, a.weights.length)),
  );
}

/** Uniform points, each repeated 1–3 times at random (exact duplicates across and within partitions). */
function withDuplicates(n: number, dim: number, seed: number): Float32Array {
  const base = cloud('uniform', n, dim, seed);
  const r = mulberry32(seed + 1);
  const rows: number[] = [];
  for (let i = 0; rows.length < n * dim; i++) {
    const times = 1 + Math.floor(r() * 3);
    for (let t = 0; t < times && rows.length < n * dim; t++) rows.push(...base.subarray(i * dim, i * dim + dim));
  }
  // Shuffle the rows so duplicates do not sit at consecutive ids.
  const out = new Float32Array(rows);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    for (let d = 0; d < dim; d++) [out[i * dim + d], out[j * dim + d]] = [out[j * dim + d], out[i * dim + d]];
  }
  return out;
}

describe.each(METHODS)('partitionedEmst() (method %s) equals emst() edge for edge', (method) => {
  const cases: [string, () => Float32Array, number, number][] = [
    ['uniform 3D', () => cloud('uniform', 3000, 3, 11), 3, 6],
    ['clustered (blobs) 3D', () => cloud('clustered', 3000, 3, 12), 3, 7],
    ['duplicates 2D', () => withDuplicates(2500, 2, 13), 2, 6],
    ['integer grid 3D (exact ties)', () => cloud('grid', 1500, 3, 14), 3, 6],
    ['integer grid 2D (exact ties)', () => cloud('grid', 1200, 2, 15), 2, 5],
    ['normal 4D', () => cloud('normal', 1200, 4, 16), 4, 3],
  ];
  for (const [name, make, dim, k] of cases) {
    it(`Euclidean, ${name}, k = ${k}`, async () => {
      const points = make();
      const { single, parted } = await both(points, dim, k, { method });
      expectSameTree(single, parted);
      expect(parted.stats.partitions).toBe(k);
      if (method === 'rounds') expect(parted.stats.rounds).toBeGreaterThan(0);
      else expect(parted.stats.pairs).toBe((k * (k - 1)) / 2);
    });
    it(`minSamples 5, ${name}, k = ${k}`, async () => {
      const points = make();
      const { single, parted } = await both(points, dim, k, { minSamples: 5, method });
      expectSameTree(single, parted);
    });
  }

  it('mutual reachability with alpha ≠ 1 (minSamples 3, alpha 1.5; minSamples 1, alpha 0.75)', async () => {
    const points = cloud('clustered', 1500, 3, 21);
    for (const opts of [
      { minSamples: 3, alpha: 1.5 },
      { minSamples: 1, alpha: 0.75 },
    ]) {
      const { single, parted } = await both(points, 3, 5, { ...opts, method });
      expectSameTree(single, parted);
    }
  });

  it('k = 1, 2, 6 and 7 give the identical tree (Euclidean and minSamples 5)', async () => {
    const points = cloud('grid', 1000, 3, 22);
    for (const minSamples of [1, 5]) {
      const single = await emst(points, { dim: 3, minSamples, ...cpu });
      for (const k of [1, 2, 6, 7]) {
        const parted = await partitionedEmst(new InProcessExecutor(partitionPoints(points, 3, k), cpu), {
          dim: 3,
          minSamples,
          method,
        });
        expectSameTree(single, parted);
      }
    }
  });

  it('matches brute-force Prim on a small cloud (an oracle independent of the BVH)', async () => {
    const points = cloud('uniform', 200, 2, 23);
    for (const minSamples of [1, 4]) {
      const parted = await partitionedEmst(new InProcessExecutor(partitionPoints(points, 2, 4), cpu), {
        dim: 2,
        minSamples,
        method,
      });
      const prim = primMst(points, 2, minSamples > 1 ? { minSamples } : {});
      const total = (w: ArrayLike<number>) => Array.from(w).reduce((s, x) => s + x, 0);
      expect(total(parted.weights)).toBeCloseTo(total(prim.weights), 3);
      expect(parted.sources.length).toBe(199);
    }
  });

  it('degenerate sizes: n = 0, 1, 2, 3, and k > n', async () => {
    for (const n of [0, 1, 2, 3, 5]) {
      const points = cloud('uniform', n, 3, 24 + n);
      for (const k of [1, 2, n + 3]) {
        for (const minSamples of [1, 5]) {
          const { single, parted } = await both(points, 3, k, { minSamples, method });
          expectSameTree(single, parted);
          expect(parted.sources.length).toBe(Math.max(n - 1, 0));
        }
      }
    }
  });

  it('all points identical, spread over partitions', async () => {
    const points = cloud('duplicates', 300, 3, 25);
    for (const minSamples of [1, 5]) {
      const { single, parted } = await both(points, 3, 4, { minSamples, method });
      expectSameTree(single, parted);
    }
  });

  it('coordinates far from unit scale (1e30 and 1e-30) are scaled as emst() scales them', async () => {
    for (const s of [1e30, 1e-30]) {
      const points = cloud('uniform', 500, 3, 26).map((x) => x * s);
      const { single, parted } = await both(points, 3, 3, { method });
      expectSameTree(single, parted);
    }
  });
});

/** Partitions by an arbitrary assignment of points (ids ascending within each), not by space. */
function partitionsBy(points: Float32Array, dim: number, k: number, assign: (i: number) => number): PartitionData[] {
  const n = points.length / dim;
  return Array.from({ length: k }, (_, p) => {
    const ids = Uint32Array.from({ length: n }, (_, i) => i).filter((i) => assign(i) === p);
    const rows = new Float32Array(ids.length * dim);
    ids.forEach((id, r) => rows.set(points.subarray(id * dim, id * dim + dim), r * dim));
    return { id: p, dim, points: rows, ids };
  });
}

describe.each(['pairs', 'rounds'] as const)(
  'partitionedEmst() (method %s) does not depend on how the points are partitioned',
  (method) => {
    it('random, striped and lopsided partitions give the tree of emst() (Euclidean and minSamples 5)', async () => {
      const points = cloud('clustered', 1200, 3, 51);
      const r = mulberry32(52);
      const random = Array.from({ length: 1200 }, () => Math.floor(r() * 5));
      const splits: [string, number, (i: number) => number][] = [
        ['random', 5, (i) => random[i]],
        ['striped by id', 3, (i) => i % 3],
        ['lopsided', 4, (i) => (i < 1100 ? 0 : i < 1190 ? 1 : i < 1199 ? 2 : 3)],
      ];
      for (const minSamples of [1, 5]) {
        const single = await emst(points, { dim: 3, minSamples, ...cpu });
        for (const [, k, assign] of splits) {
          const parted = await partitionedEmst(new InProcessExecutor(partitionsBy(points, 3, k, assign), cpu), {
            dim: 3,
            minSamples,
            method,
          });
          expectSameTree(single, parted);
        }
      }
    });

    it('cores whose m-th neighbour lies in other partitions (minSamples 10, partitions of about 4 points)', async () => {
      const points = cloud('uniform', 40, 2, 53);
      const single = await emst(points, { dim: 2, minSamples: 10, ...cpu });
      const parted = await partitionedEmst(new InProcessExecutor(partitionPoints(points, 2, 10), cpu), {
        dim: 2,
        minSamples: 10,
        method,
      });
      expectSameTree(single, parted);
    });

    it('one dimension, and five', async () => {
      for (const dim of [1, 5]) {
        const points = cloud('grid', 600, dim, 54);
        for (const minSamples of [1, 3]) {
          const { single, parted } = await both(points, dim, 4, { minSamples, method });
          expectSameTree(single, parted);
        }
      }
    });
  },
);

describe('partitionedEmst() contracts safe local-tree edges before the rounds', () => {
  it("most edges of a partition interior are contracted, and the tree is still emst()'s (uniform and blobs, k = 2 and 5)", async () => {
    for (const [kind, k] of [
      ['uniform', 2],
      ['clustered', 5],
    ] as const) {
      const points = cloud(kind, 6000, 3, 61);
      const { single, parted } = await both(points, 3, k, { method: 'rounds' });
      expectSameTree(single, parted);
      // Every contracted edge is one of the n − 1 MST edges; interior points (no other partition near) dominate.
      expect(parted.stats.contracted).toBeLessThanOrEqual(5999);
      expect(parted.stats.contracted).toBeGreaterThan(0.5 * 5999);
    }
  });

  it('k = 1 contracts the whole tree (no other partition: every floor is +∞) and asks nothing', async () => {
    const points = cloud('uniform', 500, 3, 62);
    const { single, parted } = await both(points, 3, 1, { minSamples: 4, method: 'rounds' });
    expectSameTree(single, parted);
    expect(parted.stats.contracted).toBe(499);
    expect(parted.stats.queries).toBe(0);
  });

  it('canonicalOrder sorts by (key, min id, max id) whatever the input order (ties, shuffled runs, lattices)', () => {
    const r = mulberry32(63);
    // Presorted by key (ties in random id order, as partitions' ties are): the insertion sort alone; otherwise
    // mostly the comparison sort it gives way to.
    for (const [m, distinct, presorted] of [
      [0, 1, false],
      [1, 1, false],
      [2, 1, false],
      [37, 3, false],
      [500, 40, false],
      [3000, 2, false],
      [400, 100, true],
      [2000, 900, true],
    ] as const) {
      const slots = 2 * m + 2;
      // gid is a random permutation, so slot order is not id order.
      const gid = Uint32Array.from({ length: slots }, (_, i) => i);
      for (let i = slots - 1; i > 0; i--) {
        const j = Math.floor(r() * (i + 1));
        [gid[i], gid[j]] = [gid[j], gid[i]];
      }
      const u = Uint32Array.from({ length: m }, () => Math.floor(r() * slots));
      const v = Uint32Array.from(u, (a) => (a + 1 + Math.floor(r() * (slots - 1))) % slots);
      const keys = Float32Array.from({ length: m }, () => Math.floor(r() * distinct) / 4);
      if (presorted) keys.sort();
      const order = Array.from(canonicalOrder(u, v, keys, gid));
      const lo = (e: number) => Math.min(gid[u[e]], gid[v[e]]);
      const hi = (e: number) => Math.max(gid[u[e]], gid[v[e]]);
      const expected = Array.from({ length: m }, (_, e) => e).sort(
        (a, b) => keys[a] - keys[b] || lo(a) - lo(b) || hi(a) - hi(b) || a - b,
      );
      // Equal (key, lo, hi) triples (the same pair twice) may come in either order: compare the triples.
      const triple = (e: number) => [keys[e], lo(e), hi(e)];
      expect(order.map(triple)).toEqual(expected.map(triple));
      expect([...order].sort((a, b) => a - b)).toEqual(Array.from({ length: m }, (_, e) => e));
      // A range (one partition's edges): only its indices, in the same order as the range's reference sort.
      const [from, to] = [Math.floor(m / 3), Math.floor((2 * m) / 3)];
      const part = Array.from(canonicalOrder(u, v, keys, gid, from, to));
      expect(part.map(triple)).toEqual(expected.filter((e) => e >= from && e < to).map(triple));
      expect([...part].sort((a, b) => a - b)).toEqual(Array.from({ length: to - from }, (_, t) => from + t));
    }
  });
});

describe('partitionedEmst() traffic and protocol', () => {
  it('counts every message a transport would move, and only boundary points ask (rounds)', async () => {
    const points = cloud('uniform', 4000, 3, 31);
    const inner = new InProcessExecutor(partitionPoints(points, 3, 6), cpu);
    let sent = 0;
    let received = 0;
    let messages = 0;
    const kinds = new Set<string>();
    const counting: PartitionExecutor = {
      partitions: () => inner.partitions(),
      async run(partition: number, kind: PartitionTaskKind, msg: TaskMessage) {
        messages++;
        kinds.add(kind);
        sent += messageBytes(msg);
        const reply = await inner.run(partition, kind, msg);
        received += messageBytes(reply);
        return reply;
      },
    };
    const parted = await partitionedEmst(counting, { dim: 3, method: 'rounds' });
    expect(parted.stats.messages).toBe(messages);
    expect(parted.stats.bytesSent).toBe(sent);
    expect(parted.stats.bytesReceived).toBe(received);
    expect([...kinds].sort()).toEqual(['nearest', 'rows', 'tree']);
    // The local trees alone come back as 12 bytes an edge plus ids and bounds (8 bytes a point).
    expect(received).toBeGreaterThan(19 * 4000);
    expect(Object.keys(parted.timings)).toEqual(
      expect.arrayContaining([
        'distributed::trees',
        'distributed::rounds',
        'distributed::rounds.wait',
        'distributed::total',
      ]),
    );
    // The owners' share of the rounds (in process: their searches) is part of the rounds' wall time.
    expect(parted.timings['distributed::rounds.wait']).toBeGreaterThan(0);
    expect(parted.timings['distributed::rounds.wait']).toBeLessThanOrEqual(parted.timings['distributed::rounds']);
  });

  it('runMany, when the executor has it, carries every batch', async () => {
    const points = cloud('clustered', 1500, 3, 32);
    const inner = new InProcessExecutor(partitionPoints(points, 3, 4), cpu);
    let batches = 0;
    const batching: PartitionExecutor = {
      partitions: () => inner.partitions(),
      run: () => Promise.reject(new Error('run() should not be called when runMany exists')),
      async runMany(tasks) {
        batches++;
        return Promise.all(tasks.map((t) => inner.run(t.partition, t.kind, t.msg)));
      },
    };
    const single = await emst(points, { dim: 3, minSamples: 5, ...cpu });
    const parted = await partitionedEmst(batching, { dim: 3, minSamples: 5 });
    expectSameTree(single, parted);
    expect(batches).toBeGreaterThan(2);
  });

  it('pairs: one pair task per two live partitions (then one forest per partition), kept edges ≥ n − 1', async () => {
    const points = cloud('uniform', 4000, 3, 35);
    const inner = new InProcessExecutor(partitionPoints(points, 3, 6), cpu);
    const single = await emst(points, { dim: 3, ...cpu });
    for (const method of ['pairs', 'pairs-kruskal'] as const) {
      const kinds: string[] = [];
      let sent = 0;
      const counting: PartitionExecutor = {
        partitions: () => inner.partitions(),
        async run(partition: number, kind: PartitionTaskKind, msg: TaskMessage) {
          kinds.push(kind);
          sent += messageBytes(msg);
          return inner.run(partition, kind, msg);
        },
      };
      const parted = await partitionedEmst(counting, { dim: 3, method });
      expectSameTree(single, parted);
      const forests = method === 'pairs' ? 6 : 0;
      expect(kinds).toEqual([...new Array(15).fill('pair'), ...new Array(forests).fill('forest')]);
      expect(parted.stats.pairs).toBe(15);
      expect(parted.stats.bytesSent).toBe(sent);
      if (method === 'pairs-kruskal') {
        // Euclidean pair requests carry no arrays: their meta alone.
        expect(sent).toBeLessThan(15 * 200);
        expect(parted.stats.candidates).toBeGreaterThanOrEqual(3999);
        expect(parted.stats.candidates).toBeLessThan(1.5 * 3999);
      } else {
        // Most of each partition's tree is proven before the coordinator's Kruskal; the rest is the border's.
        expect(parted.stats.contracted).toBeGreaterThan(0.5 * 3999);
        expect(parted.stats.contracted).toBeLessThan(3999);
      }
      expect(Object.keys(parted.timings)).toEqual(
        expect.arrayContaining([
          'distributed::pairs',
          'distributed::pairs.wait',
          'distributed::pairs.work',
          'distributed::kruskal',
          'distributed::merge',
          'pair::mst',
          'distributed::total',
        ]),
      );
      // Waiting counts once where calls overlap (forests are sent while pairs compute): never above the lap's wall.
      for (const lap of ['distributed::pairs', 'distributed::pairs.cross', 'distributed::pairs.forests']) {
        if (method === 'pairs-kruskal' && lap === 'distributed::pairs.forests') continue;
        expect(parted.timings[`${lap}.wait`], lap).toBeGreaterThan(0);
        expect(parted.timings[`${lap}.wait`], lap).toBeLessThanOrEqual(parted.timings[lap]);
      }
    }
  });

  it("pairs: the pair task's union in pieces with turns of the event loop between them (37 rows, 1 row) gives the same tree", async () => {
    const rows = unionPieces.rows;
    try {
      for (const [piece, make, dim, k, minSamples] of [
        [37, () => cloud('grid', 1500, 3, 14), 3, 4, 1],
        [37, () => withDuplicates(1200, 2, 13), 2, 3, 5],
        [1, () => cloud('clustered', 300, 3, 12), 3, 3, 1],
      ] as const) {
        unionPieces.rows = piece;
        const { single, parted } = await both(make(), dim, k, { method: 'pairs', minSamples });
        expectSameTree(single, parted);
      }
      // One pair of 2000 rows in pieces of 64: 31 turns of the event loop between them.
      unionPieces.rows = 64;
      const before = unionPieces.turns;
      const executor = new InProcessExecutor(partitionPoints(cloud('uniform', 2000, 3, 31), 3, 2), cpu);
      const reply = await executor.run(0, 'pair', {
        meta: { exponent: 0, minSamples: 1, alpha: 1, partner: 1, within: [false, false] },
        arrays: {},
      });
      expect(reply.arrays.keys).toBeInstanceOf(Float32Array);
      expect(unionPieces.turns - before).toBe(Math.ceil(2000 / 64) - 1);
    } finally {
      unionPieces.rows = rows;
    }
  });

  it('pairs: empty partitions are skipped; a lone live partition is its own pair (pairs-kruskal) or forest (pairs)', async () => {
    const points = cloud('clustered', 500, 2, 36);
    const single = await emst(points, { dim: 2, ...cpu });
    for (const method of ['pairs', 'pairs-kruskal'] as const) {
      for (const [k, assign, pairs] of [
        [4, (i: number) => (i % 2 === 0 ? 1 : 3), 1],
        [3, () => 2, method === 'pairs' ? 0 : 1],
      ] as const) {
        const parted = await partitionedEmst(new InProcessExecutor(partitionsBy(points, 2, k, assign), cpu), {
          dim: 2,
          method,
        });
        expectSameTree(single, parted);
        expect(parted.stats.pairs).toBe(pairs);
      }
    }
  });

  it('canonicalById and mergeAll give the canonical order; kruskalSorted names a set that does not span; orderFromKeyOrder and mergeToTree equal the canonical sort', () => {
    const two = { lo: Uint32Array.from([0, 2]), hi: Uint32Array.from([1, 3]), keys: Float32Array.from([1, 1]) };
    expect(() => kruskalSorted(4, two)).toThrow(/span 2 of 3 MST edges/);
    // Lists with ties on keys (and on lo), nearly sorted or shuffled, dealt into three pieces, merged back.
    const rand = mulberry32(65);
    for (const [m, distinct, presorted] of [
      [0, 1, true],
      [1, 1, true],
      [500, 7, false],
      [3000, 300, true],
    ] as const) {
      const lo = Uint32Array.from({ length: m }, () => Math.floor(rand() * 50));
      const hi = Uint32Array.from(lo, (a) => a + 1 + Math.floor(rand() * 50));
      const keys = Float32Array.from({ length: m }, () => Math.floor(rand() * distinct) / 8);
      if (presorted) keys.sort();
      const expected = Array.from({ length: m }, (_, e) => e)
        .sort((a, b) => keys[a] - keys[b] || lo[a] - lo[b] || hi[a] - hi[b])
        .map((e) => [keys[e], lo[e], hi[e]]);
      const sorted = canonicalById(lo, hi, keys);
      const triples = (l: { lo: Uint32Array; hi: Uint32Array; keys: Float32Array }) =>
        Array.from(l.keys, (k, e) => [k, l.lo[e], l.hi[e]]);
      expect(triples(sorted)).toEqual(expected);
      const pieces = [0, 1, 2].map((c) => {
        const idx = Array.from({ length: m }, (_, e) => e).filter((e) => e % 3 === c);
        return canonicalById(
          Uint32Array.from(idx, (e) => lo[e]),
          Uint32Array.from(idx, (e) => hi[e]),
          Float32Array.from(idx, (e) => keys[e]),
        );
      });
      expect(triples(mergeAll(pieces))).toEqual(expected);
    }
    // Keys a few ulps apart share a weight (sqrt halves the spacing): runs of equal weight with unequal keys — long
    // runs (40 keys over 3000 edges: the sort path) and short ones (1500 keys: the insertion path, runs ≤ 32).
    const r = mulberry32(64);
    const m = 3000;
    for (const distinct of [40, 1500]) {
      const keys = Float32Array.from({ length: m }, () => 1 + Math.floor(r() * distinct) * 2 ** -23);
      const lo = Uint32Array.from({ length: m }, () => Math.floor(r() * 500));
      const hi = Uint32Array.from(lo, (a) => a + 1 + Math.floor(r() * 500));
      const order = Array.from({ length: m }, (_, e) => e).sort(
        (a, b) => keys[a] - keys[b] || lo[a] - lo[b] || hi[a] - hi[b],
      );
      const edges = {
        sources: Uint32Array.from(order, (e) => lo[e]),
        targets: Uint32Array.from(order, (e) => hi[e]),
        weights: Float32Array.from(order, (e) => weightOfKey(keys[e])),
      };
      const expected = sortEdgesCanonical(edges);
      const got = orderFromKeyOrder({
        sources: edges.sources.slice(),
        targets: edges.targets.slice(),
        weights: edges.weights.slice(),
      });
      expectSameTree(expected, got);
      // The input was not already in that order (the runs were reordered).
      expect(Array.from(edges.sources)).not.toEqual(Array.from(expected.sources));
      // mergeToTree: the same edges dealt into 0–5 canonical lists (one empty, one lopsided) give the same tree.
      for (const lists of [1, 2, 5]) {
        const pieces = Array.from({ length: lists + 1 }, (_, c) => {
          const idx = order.filter((e) => (lists === 1 ? c === 0 : e % lists === c && (c > 0 || e % 7 !== 0)));
          if (c === lists) idx.splice(0, idx.length); // an empty list
          return {
            lo: Uint32Array.from(idx, (e) => lo[e]),
            hi: Uint32Array.from(idx, (e) => hi[e]),
            keys: Float32Array.from(idx, (e) => keys[e]),
          };
        });
        if (lists > 1) {
          // The edges of list 0 left out above (e % 7 === 0) go to the last non-empty list, in canonical order.
          const left = order.filter((e) => e % lists === 0 && e % 7 === 0);
          const last = pieces[lists - 1];
          const all = [...Array.from(last.keys, (_, i) => [last.keys[i], last.lo[i], last.hi[i]])];
          for (const e of left) all.push([keys[e], lo[e], hi[e]]);
          all.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
          pieces[lists - 1] = {
            lo: Uint32Array.from(all, (x) => x[1]),
            hi: Uint32Array.from(all, (x) => x[2]),
            keys: Float32Array.from(all, (x) => x[0]),
          };
        }
        expectSameTree(expected, mergeToTree(pieces));
      }
    }
    expect(mergeToTree([]).weights.length).toBe(0);
  });

  it("the coordinator's Kruskal on dense label ids (DenseLabels, denseEnds, kruskalDense) chooses the edges a union-find over the labels themselves chooses", () => {
    // The oracle: the loop it replaced (partition.pairs.ts before the dense ids), parents over the labels (global ids).
    const overLabels = (lo: Uint32Array, hi: Uint32Array, labelOf: Uint32Array, n: number): number[] => {
      const parent = new Uint32Array(n);
      const root = (g: number): number => {
        let i = labelOf[g] - 1;
        while (parent[i] !== 0) i = parent[i] - 1;
        return i;
      };
      const chosen: number[] = [];
      for (let e = 0; e < lo.length; e++) {
        const a = root(lo[e]);
        const b = root(hi[e]);
        if (a === b) continue;
        if (a < b) parent[b] = a + 1;
        else parent[a] = b + 1;
        chosen.push(e);
      }
      return chosen;
    };
    const rand = mulberry32(66);
    for (const [n, m, labels] of [
      [10, 0, 3],
      [50, 30, 1],
      [2000, 3000, 40],
      [100_000, 20_000, 5000],
    ]) {
      // Points with labels (1 + a label drawn from `labels` point ids: contracted components), edges between them.
      const labelIds = Array.from({ length: labels }, () => Math.floor(rand() * n));
      const labelOf = new Uint32Array(n);
      for (let g = 0; g < n; g++) labelOf[g] = 1 + labelIds[Math.floor(rand() * labels)];
      const lo = new Uint32Array(m);
      const hi = new Uint32Array(m);
      for (let e = 0; e < m; e++) {
        lo[e] = Math.floor(rand() * (n - 1));
        hi[e] = lo[e] + 1 + Math.floor(rand() * (n - 1 - lo[e]));
      }
      // The intake: each point's label numbered as it arrives (points in a shuffled order).
      const dense = new DenseLabels(n);
      const denseOf = new Uint32Array(n);
      const order = Array.from({ length: n }, (_, g) => g).sort(() => rand() - 0.5);
      for (const g of order) denseOf[g] = dense.of(labelOf[g] - 1, 'a test');
      expect(dense.count).toBeLessThanOrEqual(labels);
      const ends = denseEnds({ lo, hi, keys: new Float32Array(m) }, denseOf);
      expect([...kruskalDense(ends, dense.count)]).toEqual(overLabels(lo, hi, labelOf, n));
    }
    // A label ≥ n, and an end without a label, are errors naming them.
    expect(() => new DenseLabels(4).of(4, "partition 1's forest")).toThrow(
      "partitionedEmst: partition 1's forest answered label 4 (n = 4)",
    );
    const noLabel = Uint32Array.of(1, 0, 0, 0);
    const one = { lo: Uint32Array.of(0), hi: Uint32Array.of(3), keys: Float32Array.of(1) };
    expect(() => denseEnds(one, noLabel)).toThrow(/point 3, an end of a crossing or open edge/);
  });

  it('contractForest proves an edge only below every floor of one side (strict), and labels by proven components', () => {
    // A path 0 – 1 – 2 – 3 with keys 1, 2, 3 (canonical order); row 3 has a crossing edge of key 2.5.
    const path = {
      lo: Uint32Array.from([0, 1, 2]),
      hi: Uint32Array.from([1, 2, 3]),
      keys: Float32Array.from([1, 2, 3]),
    };
    const floor = Float32Array.from([Infinity, Infinity, Infinity, 2.5]);
    const { safe, open, label } = contractForest(path, floor, 4);
    // 0–1 and 1–2: the side {0, …} has no crossing edge; 2–3 (key 3): {0, 1, 2} still has none (+∞ > 3): proven too.
    expect(Array.from(safe)).toEqual([0, 1, 2]);
    expect(Array.from(open)).toEqual([]);
    // Two crossing ends on both sides of the heaviest edge: it stays open; the lighter ones are proven.
    const both = contractForest(path, Float32Array.from([2.5, Infinity, Infinity, 2.5]), 4);
    expect(Array.from(both.safe)).toEqual([0, 1]);
    expect(Array.from(both.open)).toEqual([2]);
    expect([0, 1, 2].map(both.label)).toEqual([0, 0, 0]);
    expect(both.label(3)).toBe(3);
    // A floor equal to the key does not prove it (a crossing edge at an equal key may win the tie on ids).
    const tie = contractForest(path, Float32Array.from([1, 1, Infinity, Infinity]), 4);
    expect(Array.from(tie.open)).toEqual([0]);
    expect(Array.from(tie.safe)).toEqual([1, 2]);
  });

  it('contractForestAsync (turns of the event loop between blocks) and contractForest equal a plain Kruskal with floors, over many blocks', async () => {
    // A random tree of n rows in canonical (key, lo, hi) order, keys with ties; 1 % of the rows with a floor.
    const n = 150_001;
    const rand = mulberry32(71);
    const perm = Uint32Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [perm[i], perm[j]] = [perm[j], perm[i]];
    }
    const edges = Array.from({ length: n - 1 }, (_, i) => {
      const a = perm[i + 1];
      const b = perm[Math.floor(rand() * (i + 1))];
      return [Math.fround(Math.floor(rand() * 5000) / 7), Math.min(a, b), Math.max(a, b)];
    }).sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2]);
    const tree = {
      lo: Uint32Array.from(edges, (e) => e[1]),
      hi: Uint32Array.from(edges, (e) => e[2]),
      keys: Float32Array.from(edges, (e) => e[0]),
    };
    const floor = Float32Array.from({ length: n }, () => (rand() < 0.01 ? Math.fround(rand() * 800) : Infinity));
    // The oracle: Kruskal in that order, each component's least floor (labels: each component's smallest row).
    const { safe, open, label } = kruskalWithFloors(tree, floor, n);
    expect(safe.length).toBeGreaterThan(1000);
    expect(open.length).toBeGreaterThan(10);
    const rows = Array.from({ length: n }, (_, r) => r);
    const expected = { safe, open, labels: rows.map(label) };
    const sync = contractForest(tree, floor, n);
    expect({ safe: [...sync.safe], open: [...sync.open], labels: rows.map(sync.label) }).toEqual(expected);
    // The async one (floors in its records, as the forest task writes them), a turn after every block.
    const records = forestRecords(n);
    const f32 = new Float32Array(records.buffer);
    for (let r = 0; r < n; r++) f32[4 * r + 1] = floor[r];
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    const contracted = await contractForestAsync(tree, n, records, new Uint32Array(n - 1), 0);
    clearInterval(ticking);
    expect({
      safe: [...contracted.safe],
      open: [...contracted.open],
      labels: rows.map(contracted.label),
    }).toEqual(expected);
    expect(turns).toBeGreaterThan(0);
  });

  it('a task that fails fails the run with its error', async () => {
    const inner = new InProcessExecutor(partitionPoints(cloud('uniform', 300, 2, 33), 2, 3), cpu);
    for (const [method, bad] of [
      ['rounds', 'nearest'],
      ['pairs-kruskal', 'pair'],
      ['pairs', 'pair'],
      ['pairs', 'forest'],
    ] as const) {
      const failing: PartitionExecutor = {
        partitions: () => inner.partitions(),
        run: (p, kind, msg) => (kind === bad ? Promise.reject(new Error('worker died')) : inner.run(p, kind, msg)),
      };
      await expect(partitionedEmst(failing, { dim: 2, method })).rejects.toThrow('worker died');
    }
  });

  it('an aborted signal rejects with AbortError', async () => {
    const inner = new InProcessExecutor(partitionPoints(cloud('uniform', 300, 2, 34), 2, 3), cpu);
    const controller = new AbortController();
    controller.abort();
    await expect(partitionedEmst(inner, { dim: 2, signal: controller.signal })).rejects.toBeInstanceOf(AbortError);
  });
});

describe('partitionPoints() and partitionInfo()', () => {
  it('splits along the Z-curve into k near-equal parts with ascending global ids covering every point once', () => {
    const points = cloud('uniform', 1001, 3, 41);
    const parts = partitionPoints(points, 3, 6);
    expect(parts.map((p) => p.ids.length)).toEqual([166, 167, 167, 167, 167, 167]);
    const seen = new Uint8Array(1001);
    for (const p of parts) {
      for (let r = 0; r < p.ids.length; r++) {
        if (r > 0) expect(p.ids[r]).toBeGreaterThan(p.ids[r - 1]);
        seen[p.ids[r]]++;
        expect(Array.from(p.points.subarray(r * 3, r * 3 + 3))).toEqual(
          Array.from(points.subarray(p.ids[r] * 3, p.ids[r] * 3 + 3)),
        );
      }
      const info = partitionInfo(p);
      // Every point lies in the box and in one of the cells.
      for (let r = 0; r < p.ids.length; r++) {
        const x = p.points.subarray(r * 3, r * 3 + 3);
        for (let d = 0; d < 3; d++) expect(x[d] >= info.lo[d] && x[d] <= info.hi[d]).toBe(true);
        const cells = info.cells!;
        let inside = false;
        for (let c = 0; c < cells.length && !inside; c += 6) {
          inside = [0, 1, 2].every((d) => x[d] >= cells[c + d] && x[d] <= cells[c + 3 + d]);
        }
        expect(inside).toBe(true);
      }
    }
    expect(seen.every((s) => s === 1)).toBe(true);
  });

  it('equals the cut of the full (Morton code, index) sort: ties, duplicates, 1D to 5D, k up to n + 3', () => {
    for (const [kind, n, dim] of [
      ['uniform', 3000, 3],
      ['grid', 2500, 3],
      ['duplicates', 700, 2],
      ['clustered', 2000, 2],
      ['normal', 900, 1],
      ['grid', 600, 5],
      ['uniform', 5, 3],
      ['uniform', 0, 3],
    ] as const) {
      const points = cloud(kind, n, dim, 43);
      const codes = mortonCodesCpu(points, n, dim, sceneFrameCpu(points, n, dim));
      const order = Array.from({ length: n }, (_, i) => i).sort(
        (x, y) => codes[2 * x + 1] - codes[2 * y + 1] || codes[2 * x] - codes[2 * y] || x - y,
      );
      for (const k of [1, 2, 3, 7, n + 3]) {
        const parts = partitionPoints(points, dim, k);
        expect(parts.length).toBe(k);
        for (let p = 0; p < k; p++) {
          const want = order.slice(Math.floor((p * n) / k), Math.floor(((p + 1) * n) / k)).sort((a, b) => a - b);
          expect(Array.from(parts[p].ids), `${kind} ${dim}D n=${n} k=${k} partition ${p}`).toEqual(want);
        }
      }
    }
  });

  it('rejects bad input, naming the value', () => {
    expect(() => partitionPoints(new Float32Array([0, 0, NaN, 1]), 2, 2)).toThrow(/NaN at row 1, column 0/);
    expect(() => partitionPoints(new Float32Array([0, 0, 1]), 2, 2)).toThrow(InputError);
    expect(() => partitionPoints(new Float32Array(4), 2, 0)).toThrow(/partitions to be a positive integer, got 0/);
  });

  it('partitionedEmst rejects bad options', async () => {
    const inner = new InProcessExecutor(partitionPoints(cloud('uniform', 10, 2, 42), 2, 2), cpu);
    await expect(partitionedEmst(inner, { dim: 2, minSamples: 0 })).rejects.toThrow(/minSamples/);
    await expect(partitionedEmst(inner, { dim: 2, alpha: -1 })).rejects.toThrow(/alpha/);
    await expect(partitionedEmst(inner, { dim: 3 })).rejects.toThrow(/dim=3/);
    await expect(
      partitionedEmst(inner, { dim: 2, method: 'boruvka' as unknown as PartitionedEmstMethod }),
    ).rejects.toThrow(/method to be 'pairs', 'pairs-kruskal' or 'rounds', got boruvka/);
  });
});
