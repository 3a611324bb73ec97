/**
 * Issue 19's bench at 4–6·10^8 points: the 'uniform' and 'normal' generators on host threads (generate.threads.ts)
 * give generate()'s values exactly (incl. a Box–Muller pair that redraws a 0, which shifts every later range's
 * draws), and the EMST bench's threaded checks (bench/check.threads.ts) accept the CPU backend's trees and reject a
 * cycle, a missing edge, an end out of range, a wrong weight and an edge its half's EMST lacks — on 1 to 5 threads.
 */
import { describe, expect, it } from 'vitest';
import { generate } from '../../src/datasets/generate.js';
import { generateThreaded } from '../../src/datasets/generate.threads.js';
import { checkSpanningTree, compareHalves, splitHalves, type CheckedEdges } from '../../src/bench/check.threads.js';
import { emstCpu } from '../../src/emst/boruvka.cpu.js';
import { useBundledWorkerScript } from '../helpers/workers.js';

useBundledWorkerScript('treeline-bench-check-');

const THREADS = [1, 2, 3, 5];

/** A seed whose draw k (0-based) is mulberry32's one zero (state 0): draw k uses state seed + (k + 1) · step. */
const zeroAt = (k: number) => Math.imul(-(k + 1), 0x6d2b79f5) >>> 0;

const copy = (e: CheckedEdges): CheckedEdges => ({
  sources: e.sources.slice(),
  targets: e.targets.slice(),
  weights: e.weights.slice(),
});

describe('generateThreaded', () => {
  it('equals generate(): uniform and normal, odd and even value counts, 2 to 5 threads', async () => {
    for (const kind of ['uniform', 'normal'] as const) {
      for (const [n, dim, seed] of [
        [1001, 3, 1],
        [999, 2, 7],
        [10, 1, 3],
        [3, 1, 5],
        [0, 3, 1],
        [1, 3, 1],
      ]) {
        const want = generate(kind, { n, dim, seed });
        for (const threads of THREADS) {
          const got = await generateThreaded(kind, { n, dim, seed }, { threads, minValues: 0 });
          expect(Array.from(got), `${kind} n=${n} dim=${dim} threads=${threads}`).toEqual(Array.from(want));
        }
      }
    }
  });

  it('normal: a pair that redraws its 0 in an early range shifts the later ranges, as one thread does', async () => {
    // Draw 1000 is pair 500's first uniform (value 1000), in range 0 or 1 of 4 at 3000 values; draw 2 in range 0.
    for (const [k, n] of [
      [1000, 1000],
      [2, 1000],
      [1000, 1001],
    ]) {
      const seed = zeroAt(k);
      const want = generate('normal', { n, dim: 3, seed });
      expect(want.every(Number.isFinite)).toBe(true);
      for (const threads of THREADS) {
        const got = await generateThreaded('normal', { n, dim: 3, seed }, { threads, minValues: 0 });
        expect(Array.from(got), `zero at draw ${k}, threads=${threads}`).toEqual(Array.from(want));
      }
    }
    // The shifted draws are really taken: without the redraw the values after it would differ.
    const seed = zeroAt(1000);
    const shifted = generate('normal', { n: 1000, dim: 3, seed });
    const plain = generate('normal', { n: 1000, dim: 3, seed: (seed + 0x6d2b79f5) >>> 0 });
    expect(shifted[2000]).not.toBe(plain[2000 - 2]);
  });

  it('the other generators and bad options answer as generate() does', async () => {
    const blobs = await generateThreaded('blobs', { n: 500, dim: 2, seed: 2 }, { threads: 3, minValues: 0 });
    expect(Array.from(blobs)).toEqual(Array.from(generate('blobs', { n: 500, dim: 2, seed: 2 })));
    await expect(generateThreaded('normal', { n: -1, dim: 3 }, { threads: 2, minValues: 0 })).rejects.toThrow(
      /non-negative integer, got -1/,
    );
    await expect(generateThreaded('normal', { n: 10, dim: 3 }, { threads: 0, minValues: 0 })).rejects.toThrow(
      /threads to be an integer >= 1, got 0/,
    );
    const shared = await generateThreaded('uniform', { n: 5000, dim: 3, seed: 1 }, { threads: 3, minValues: 0 });
    expect(shared.buffer).toBeInstanceOf(SharedArrayBuffer);
  });
});

describe('checkSpanningTree', () => {
  const points = generate('uniform', { n: 6000, dim: 3, seed: 11 });
  const tree = emstCpu(points, 3);
  const total = Array.from(tree.weights).reduce((s, w) => s + w, 0);

  it("accepts the CPU backend's tree and answers its total weight; degenerate sizes", async () => {
    for (const threads of THREADS) {
      expect(await checkSpanningTree(6000, copy(tree), threads)).toBeCloseTo(total, 6);
      const none = { sources: new Uint32Array(0), targets: new Uint32Array(0), weights: new Float32Array(0) };
      expect(await checkSpanningTree(0, none, threads)).toBe(0);
      expect(await checkSpanningTree(1, none, threads)).toBe(0);
      const one = { sources: Uint32Array.of(1), targets: Uint32Array.of(0), weights: Float32Array.of(2) };
      expect(await checkSpanningTree(2, one, threads)).toBe(2);
    }
  });

  it('rejects a cycle, a missing edge and an end out of range', async () => {
    for (const threads of THREADS) {
      // A cycle: edge 4000 replaced by a copy of edge 17 (reversed), so one part is cut off and one pair joined twice.
      const cycle = copy(tree);
      cycle.sources[4000] = tree.targets[17];
      cycle.targets[4000] = tree.sources[17];
      await expect(checkSpanningTree(6000, cycle, threads), `threads ${threads}`).rejects.toThrow(/closes a cycle/);
      // A self-loop is a cycle too.
      const loop = copy(tree);
      loop.targets[5998] = loop.sources[5998];
      await expect(checkSpanningTree(6000, loop, threads)).rejects.toThrow(/closes a cycle/);
      const missing = {
        sources: tree.sources.slice(1),
        targets: tree.targets.slice(1),
        weights: tree.weights.slice(1),
      };
      await expect(checkSpanningTree(6000, missing, threads)).rejects.toThrow(/5998 edges for n=6000/);
      const outside = copy(tree);
      outside.targets[3000] = 6000;
      await expect(checkSpanningTree(6000, outside, threads)).rejects.toThrow(/edge 3000 .* has an end ≥ n = 6000/);
    }
  });
});

describe('splitHalves and compareHalves', () => {
  for (const dim of [2, 3]) {
    const n = 5000;
    // Integer coordinates: ties in weight, and points on the middle plane itself.
    const points = generate('uniform', { n, dim, seed: 20 + dim }).map((x) => Math.round(x * 40));
    const whole = emstCpu(points, dim);

    it(`${dim}D: the split is the one-thread split; every inside edge is found in its half's EMST`, async () => {
      let lo = Infinity;
      let hi = -Infinity;
      for (let i = 0; i < n; i++) {
        lo = Math.min(lo, points[i * dim]);
        hi = Math.max(hi, points[i * dim]);
      }
      const mid = lo + (hi - lo) / 2;
      const low: number[] = [];
      const high: number[] = [];
      for (let i = 0; i < n; i++) (points[i * dim] < mid ? low : high).push(i);
      const trees = [low, high].map((ids) => {
        const half = new Float32Array(ids.length * dim);
        ids.forEach((i, j) => half.set(points.subarray(i * dim, (i + 1) * dim), j * dim));
        return { ids, half, tree: emstCpu(half, dim) };
      });
      for (const threads of THREADS) {
        const split = await splitHalves(points, n, dim, threads);
        expect(split.mid).toBe(mid);
        expect(split.counts).toEqual([low.length, high.length]);
        for (let h = 0; h < 2; h++) {
          expect(Array.from(split.halves[h]), `half ${h} threads ${threads}`).toEqual(Array.from(trees[h].half));
          trees[h].ids.forEach((i, j) => expect(split.code[i]).toBe((h ? 0x80000000 | j : j) >>> 0));
        }
        const both: [CheckedEdges, CheckedEdges] = [trees[0].tree, trees[1].tree];
        const inside = await compareHalves(split, copy(whole), both, threads);
        const want = [0, 0];
        for (let i = 0; i < n - 1; i++) {
          const low = points[whole.sources[i] * dim] < mid;
          if (low === points[whole.targets[i] * dim] < mid) want[low ? 0 : 1]++;
        }
        expect(inside).toEqual(want);
        expect(inside[0] + inside[1]).toBeGreaterThan(n / 2);

        // Broken trees: the first inside edge of weight > 0 of a half, after the first tenth of the list.
        const ids = (h: number) => (i: number) => points[i * dim] < mid === (h === 0);
        const first = (h: number) => {
          for (let i = Math.floor(n / 10); i < n - 1; i++)
            if (whole.weights[i] > 0 && ids(h)(whole.sources[i]) && ids(h)(whole.targets[i])) return i;
          throw new Error('no inside edge');
        };
        const i0 = first(0);
        // A wrong weight (still in order: the same as its predecessor's, which is no larger).
        const weight = copy(whole);
        weight.weights[i0] = Math.fround(weight.weights[i0] * (1 - 1e-6));
        await expect(compareHalves(split, weight, both, threads), `threads ${threads}`).rejects.toThrow(
          new RegExp(`edge ${i0} .* lies in half 0 but is not an edge of that half's own EMST`),
        );
        // An edge of the half that its EMST lacks: the inside edge's end moved to another point of the half.
        const moved = copy(whole);
        const other = low.find((i) => i !== whole.sources[i0] && i !== whole.targets[i0])!;
        moved.targets[i0] = other;
        await expect(compareHalves(split, moved, both, threads)).rejects.toThrow(/not an edge/);
        // The half's EMST missing one of the whole tree's inside edges (the high half).
        const i1 = first(1);
        const t1 = trees[1].tree;
        const lu = split.code[whole.sources[i1]] & 0x7fffffff;
        const lv = split.code[whole.targets[i1]] & 0x7fffffff;
        const at = Array.from(t1.weights).findIndex(
          (w, k) =>
            w === whole.weights[i1] &&
            Math.min(t1.sources[k], t1.targets[k]) === Math.min(lu, lv) &&
            Math.max(t1.sources[k], t1.targets[k]) === Math.max(lu, lv),
        );
        expect(at).toBeGreaterThanOrEqual(0);
        const lacking = {
          sources: Uint32Array.from([...t1.sources.slice(0, at), ...t1.sources.slice(at + 1)]),
          targets: Uint32Array.from([...t1.targets.slice(0, at), ...t1.targets.slice(at + 1)]),
          weights: Float32Array.from([...t1.weights.slice(0, at), ...t1.weights.slice(at + 1)]),
        };
        await expect(compareHalves(split, copy(whole), [both[0], lacking], threads)).rejects.toThrow(
          new RegExp(`edge ${i1} .* lies in half 1`),
        );
        // A half under 2 points (null) holds no edge: any inside edge of it is missing.
        await expect(compareHalves(split, copy(whole), [null, both[1]], threads)).rejects.toThrow(/lies in half 0/);
      }
    });
  }
});
