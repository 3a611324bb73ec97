/**
 * Issue 20 (sessions 18–19): the 'forest' task's contraction on threads (contractForestThreaded: the terminals'
 * Steiner tree peeled on 2–7 threads, contract.threads.ts, then a Kruskal over its edges) against a plain Kruskal with
 * floors — the safe and open edges exactly, and the labels of the rows the coordinator asks about (terminals, open
 * edges' ends) grouping them as the oracle's components do — on long paths (peeling chains that cross the blocks and
 * the threads' ranges), trees local in row numbers, stars, random trees with tied keys, EMSTs of points with
 * duplicates in Morton and in random row order, and 0, 1, a few and all rows with a floor; the peel by hand in blocks
 * of 2^16 rows; and the cases it leaves to the one-thread loop (null: records untouched) or refuses (a cycle).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { contractForestThreaded, forestRecords, type ContractStats } from '../../src/distributed/partition.pairs.js';
import {
  blockBits,
  contractDegree,
  contractPeel,
  contractScatter,
  contractTally,
  contractThreading,
  PEELED,
  tallyToCursors,
} from '../../src/distributed/contract.threads.js';
import { emst } from '../../src/emst/emst.js';
import { mortonCodesCpu, sceneFrameCpu } from '../../src/bvh/morton.cpu.js';
import { sortCodesCpu } from '../../src/bvh/sort.cpu.js';
import { codeBits } from '../../src/bvh/layout.js';
import { kruskalWithFloors } from '../helpers/kruskalFloors.js';
import { mulberry32 } from '../helpers/random.js';
import { sharedOf } from '../helpers/shared.js';
import { useBundledWorkerScript } from '../helpers/workers.js';

useBundledWorkerScript('treeline-contract-threads-');
const touchDefault = contractThreading.touch;

type Tree = { lo: Uint32Array; hi: Uint32Array; keys: Float32Array };

const sharedU32 = (length: number) => new Uint32Array(new SharedArrayBuffer(4 * Math.max(length, 1)), 0, length);

/** Edges [key, a, b] in canonical (key, lo, hi) order, in shared memory. */
function treeOf(edges: number[][]): Tree {
  const e = edges
    .map(([k, a, b]) => [Math.fround(k), Math.min(a, b), Math.max(a, b)])
    .sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2]);
  return {
    lo: sharedOf(Uint32Array.from(e, (x) => x[1])),
    hi: sharedOf(Uint32Array.from(e, (x) => x[2])),
    keys: sharedOf(Float32Array.from(e, (x) => x[0])),
  };
}

/**
 * The passes up to the peel on this thread, range after range as `threads` threads would split them (the
 * ranges as steinerEdgesThreaded's: whole blocks of 2^shift rows; the edges in equal ranges).
 */
function peelHere(
  records: Uint32Array,
  tree: Tree,
  n: number,
  threads: number,
  touch: boolean,
  shift = blockBits(n, threads),
): void {
  const m = tree.lo.length;
  const blocks = Math.ceil(n / 2 ** shift);
  const tally = sharedU32(2 * blocks * threads);
  const edgeJob = (part: number) => ({
    lo: tree.lo,
    hi: tree.hi,
    shift,
    blocks,
    tally,
    at: 2 * blocks * part,
    start: Math.floor((part * m) / threads),
    end: Math.floor(((part + 1) * m) / threads),
  });
  for (let part = 0; part < threads; part++) contractTally(edgeJob(part));
  const { bounds, far } = tallyToCursors(tally, blocks);
  const entries = { near: sharedU32(m), far: sharedU32(2 * far) };
  for (let part = 0; part < threads; part++) contractScatter({ ...edgeJob(part), ...entries });
  const owned = (part: number) => ({
    first: Math.floor((part * blocks) / threads),
    last: Math.floor(((part + 1) * blocks) / threads),
  });
  for (let part = 0; part < threads; part++) {
    contractDegree({ records, bounds, shift, blocks, n, ...entries, ...owned(part) });
  }
  for (let part = 0; part < threads; part++) {
    const { first, last } = owned(part);
    contractPeel({ records, touch, start: Math.min(n, first * 2 ** shift), end: Math.min(n, last * 2 ** shift) });
  }
}

/** The oracle's peel: which rows are off the terminals' Steiner tree (leaves without a floor, from a queue). */
function peeledOf(tree: Tree, floor: Float32Array): boolean[] {
  const n = floor.length;
  const degree = new Uint32Array(n);
  const other = new Uint32Array(n);
  for (let e = 0; e < tree.lo.length; e++) {
    degree[tree.lo[e]]++;
    degree[tree.hi[e]]++;
    other[tree.lo[e]] ^= tree.hi[e];
    other[tree.hi[e]] ^= tree.lo[e];
  }
  const peeled = new Array<boolean>(n).fill(false);
  const queue: number[] = [];
  for (let r = 0; r < n; r++) if (degree[r] === 1 && floor[r] === Infinity) queue.push(r);
  while (queue.length > 0) {
    const x = queue.pop()!;
    peeled[x] = true;
    const p = other[x];
    other[p] ^= x;
    if (--degree[p] === 1 && floor[p] === Infinity) queue.push(p);
  }
  return peeled;
}

/** The rows with a floor (the forest task's terminals). */
const terminalsOf = (floor: Float32Array) =>
  Uint32Array.from(Array.from(floor.keys()).filter((r) => floor[r] !== Infinity));

function recordsWith(floor: Float32Array): Uint32Array {
  const n = floor.length;
  const records = forestRecords(n, sharedU32(4 * n));
  const f32 = new Float32Array(records.buffer, 0, 4 * n);
  for (let r = 0; r < n; r++) f32[4 * r + 1] = floor[r];
  return records;
}

async function expectOracle(tree: Tree, floor: Float32Array, threads: number, what: string): Promise<void> {
  const n = floor.length;
  const want = kruskalWithFloors(tree, floor, n);
  const stats = { steinerEdges: -1 } as ContractStats;
  const terminals = terminalsOf(floor);
  const got = await contractForestThreaded(
    threads,
    tree,
    n,
    recordsWith(floor),
    sharedU32(tree.keys.length),
    terminals,
    stats,
  );
  expect(got, what).not.toBeNull();
  // Exactly the Steiner tree (a larger subtree would give the same split: this checks the peel itself).
  const peeled = peeledOf(tree, floor);
  const steiner = peeled.reduce((k, p) => k + (p ? 0 : 1), 0) - 1;
  expect(stats.steinerEdges, what).toBe(terminals.length === 0 ? -1 : steiner);
  expect([...got!.safe], what).toEqual(want.safe);
  expect([...got!.open], what).toEqual(want.open);
  // The rows asked about: terminals and open edges' ends; their labels must group them as the oracle's do.
  const asked = new Set<number>();
  for (let r = 0; r < n; r++) if (floor[r] !== Infinity) asked.add(r);
  for (const e of want.open) asked.add(tree.lo[e]).add(tree.hi[e]);
  const toWant = new Map<number, number>();
  const toGot = new Map<number, number>();
  for (const r of asked) {
    const g = got!.label(r);
    const w = want.label(r);
    expect(toWant.get(g) ?? w, `${what}: row ${r}`).toBe(w);
    expect(toGot.get(w) ?? g, `${what}: row ${r}`).toBe(g);
    toWant.set(g, w);
    toGot.set(w, g);
  }
}

/** Row labels shuffled (rows of a partition are in no spatial order). */
function shuffled(n: number, rand: () => number): Uint32Array {
  const perm = Uint32Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [perm[i], perm[j]] = [perm[j], perm[i]];
  }
  return perm;
}

function shapes(n: number, rand: () => number): [string, number[][]][] {
  const perm = shuffled(n, rand);
  const key = () => Math.floor(rand() * 50) / 4; // ties
  const path = Array.from({ length: n - 1 }, (_, i) => [key(), i, i + 1]);
  const shuffledPath = Array.from({ length: n - 1 }, (_, i) => [key(), perm[i], perm[i + 1]]);
  const star = Array.from({ length: n - 1 }, (_, i) => [key(), perm[0], perm[i + 1]]);
  const random = Array.from({ length: n - 1 }, (_, i) => [key(), perm[i + 1], perm[Math.floor(rand() * (i + 1))]]);
  // Long arms: each row hangs off one of the last few rows (deep chains and branches).
  const arms = Array.from({ length: n - 1 }, (_, i) => [
    key(),
    perm[i + 1],
    perm[Math.max(0, i - Math.floor(rand() * 3))],
  ]);
  // Local in row numbers, as a tree of Morton-ordered rows is: each row hangs off one of the 40 rows before it, and
  // one row in 50 off any row before it (edges across blocks and threads' ranges).
  const local = Array.from({ length: n - 1 }, (_, i) => [
    key(),
    i + 1,
    rand() < 0.02 ? Math.floor(rand() * (i + 1)) : Math.max(0, i - Math.floor(rand() * 40)),
  ]);
  return [
    ['path', path],
    ['local', local],
    ['shuffled path', shuffledPath],
    ['star', star],
    ['random', random],
    ['arms', arms],
  ];
}

describe('contractForestThreaded', () => {
  it('equals a plain Kruskal with floors: paths, stars, random trees, 0 / 1 / few / all floors, 2–5 threads', async () => {
    const rand = mulberry32(1818);
    for (const n of [10, 37, 2000, 30_001]) {
      for (const [shape, edges] of shapes(n, rand)) {
        const tree = treeOf(edges);
        const floors: [string, Float32Array][] = [
          ['none', new Float32Array(n).fill(Infinity)],
          ['one', Float32Array.from({ length: n }, (_, r) => (r === Math.floor(n / 3) ? 2 : Infinity))],
          ['few', Float32Array.from({ length: n }, () => (rand() < 0.01 ? Math.floor(rand() * 50) / 4 : Infinity))],
          ['many', Float32Array.from({ length: n }, () => (rand() < 0.3 ? Math.floor(rand() * 50) / 4 : Infinity))],
          ['all', Float32Array.from({ length: n }, () => Math.floor(rand() * 50) / 4)],
        ];
        for (const [which, floor] of floors) {
          for (const threads of [2, 3, 5]) {
            if (n < 2 * threads) continue;
            // Both forms of the passes: plain loops, and loads ahead with chains peeled together (contractThreading).
            for (const touch of [false, true]) {
              contractThreading.touch = touch;
              const what = `n=${n} ${shape} floors=${which} threads=${threads} touch=${touch}`;
              await expectOracle(tree, floor, threads, what);
            }
          }
        }
      }
    }
  });

  it('equals a plain Kruskal with floors on EMSTs of points in Morton and in random row order, with duplicates', async () => {
    const rand = mulberry32(1919);
    for (const n of [3000, 40_000]) {
      // Integer coordinates on a small grid: duplicates (zero keys) and many tied keys.
      const points = Float32Array.from({ length: 3 * n }, () => Math.floor(rand() * 40));
      const frame = sceneFrameCpu(points, n, 3);
      const { order } = sortCodesCpu(mortonCodesCpu(points, n, 3, frame), n, codeBits(3));
      const rank = new Uint32Array(n);
      order.forEach((row, i) => (rank[row] = i));
      const tree = await emst(points, { dim: 3, backend: 'cpu' });
      const key = (a: number, b: number) =>
        (points[3 * a] - points[3 * b]) ** 2 +
        (points[3 * a + 1] - points[3 * b + 1]) ** 2 +
        (points[3 * a + 2] - points[3 * b + 2]) ** 2;
      const perm = shuffled(n, rand);
      for (const [rows, label] of [
        ['morton', (r: number) => rank[r]],
        ['random', (r: number) => perm[r]],
      ] as const) {
        const edges = Array.from(tree.sources, (s, e) => [key(s, tree.targets[e]), label(s), label(tree.targets[e])]);
        // Terminals: a slab across the cloud (a partition's border) and a few anywhere.
        const floor = new Float32Array(n).fill(Infinity);
        for (let r = 0; r < n; r++) {
          if (points[3 * r] === 20 || rand() < 0.001) floor[label(r)] = Math.floor(rand() * 8);
        }
        for (const threads of [2, 3, 7]) {
          await expectOracle(treeOf(edges), floor, threads, `n=${n} ${rows} rows threads=${threads}`);
        }
      }
    }
  });

  it('peels exactly the rows off the Steiner tree in blocks of 2^16 rows (16-bit offsets), by hand', () => {
    // 300,000 rows, each hanging off one of the 60 rows before it (one in 100 off any row): 5 blocks of 2^16 rows on
    // 1 and 3 ranges; the oracle peels leaves from a queue.
    const rand = mulberry32(2020);
    const n = 300_000;
    const edges = Array.from({ length: n - 1 }, (_, i) => [
      1,
      i + 1,
      rand() < 0.01 ? Math.floor(rand() * (i + 1)) : Math.max(0, i - Math.floor(rand() * 60)),
    ]);
    const floor = Float32Array.from({ length: n }, () => (rand() < 0.002 ? 1 : Infinity));
    // Also with the rows numbered backwards: chains then run towards later blocks too.
    const backwards = edges.map(([k, a, b]) => [k, n - 1 - a, n - 1 - b]);
    const floorBackwards = floor.slice().reverse();
    expect(blockBits(n, 1)).toBe(16);
    for (const [rows, tree, f] of [
      ['forwards', treeOf(edges), floor],
      ['backwards', treeOf(backwards), floorBackwards],
    ] as const) {
      const want = peeledOf(tree, f);
      for (const threads of [1, 3]) {
        const records = recordsWith(f);
        peelHere(records, tree, n, threads, true, 16);
        const peeled = Array.from({ length: n }, (_, r) => records[4 * r] >= PEELED);
        expect(peeled, `${rows} threads=${threads}`).toEqual(want);
      }
    }
  });

  afterEach(() => {
    contractThreading.touch = touchDefault;
  });

  it('peels exactly the rows off the terminals’ Steiner tree (one thread’s passes, by hand)', () => {
    // 0 – 1 – 2 – 3 – 4 with a branch 2 – 5 – 6; terminals 1 and 3: the Steiner tree is 1 – 2 – 3.
    const tree = treeOf([
      [1, 0, 1],
      [2, 1, 2],
      [3, 2, 3],
      [4, 3, 4],
      [5, 2, 5],
      [6, 5, 6],
    ]);
    const floor = Float32Array.from([Infinity, 1, Infinity, 1, Infinity, Infinity, Infinity]);
    for (const touch of [false, true]) {
      const records = recordsWith(floor);
      peelHere(records, tree, 7, 1, touch);
      const peeled = Array.from({ length: 7 }, (_, r) => records[4 * r] >= PEELED);
      expect(peeled).toEqual([true, false, false, false, true, true, true]);
    }
  });

  it('leaves to the one-thread loop what it cannot run (null, records untouched) and refuses a cycle', async () => {
    const tree = treeOf([
      [1, 0, 1],
      [2, 1, 2],
      [3, 2, 3],
    ]);
    const floor = Float32Array.from([1, Infinity, Infinity, 1]);
    const records = recordsWith(floor);
    const before = records.slice();
    const ends = Uint32Array.from([0, 3]);
    expect(await contractForestThreaded(1, tree, 4, records, sharedU32(3), ends)).toBeNull();
    expect(await contractForestThreaded(2, tree, 5, recordsWith(new Float32Array(5)), sharedU32(3), ends)).toBeNull();
    const plain = { lo: Uint32Array.from(tree.lo), hi: Uint32Array.from(tree.hi), keys: Float32Array.from(tree.keys) };
    expect(await contractForestThreaded(2, plain, 4, records, sharedU32(3), ends)).toBeNull();
    // A row asked about without a floor (it could be peeled off the Steiner tree and keep its own label).
    expect(await contractForestThreaded(2, tree, 4, records, sharedU32(3), Uint32Array.from([0, 1]))).toBeNull();
    expect(records).toEqual(before);
    // n = 2 × threads runs (4 rows, 2 threads): the path with its two ends as terminals.
    const four = await contractForestThreaded(2, tree, 4, records, sharedU32(3), ends);
    expect(four).not.toBeNull();
    expect([...four!.open]).toEqual([2]);
    expect(four!.label(0)).not.toBe(four!.label(3));
    // A cycle 0 – 1 – 2 – 0 and a lone row 3 (m = n − 1, not a tree): its edges are never peeled, and the Kruskal
    // over them finds the cycle.
    const cycle = treeOf([
      [1, 0, 1],
      [2, 1, 2],
      [3, 0, 2],
    ]);
    await expect(contractForestThreaded(2, cycle, 4, recordsWith(floor), sharedU32(3), ends)).rejects.toThrow(
      /closes a cycle/,
    );
  });
});
