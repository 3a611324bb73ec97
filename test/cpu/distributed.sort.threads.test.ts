/**
 * Issue 20 (session 18): the 'forest' task's canonical sort on threads (sort.threads.ts canonicalByIdThreaded: ranges
 * cut at weight changes, each sorted apart, the cuts checked) equals canonicalById on one thread — edges in emst()'s
 * order (weight fround(√key), then ids) with runs of one weight over several keys, across the cuts; and input not
 * in that order (the cuts' check sends it to one thread: still sorted); and arrays not shared stay on this thread.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalById } from '../../src/distributed/partition.pairs.js';
import { canonicalByIdThreaded, sortCuts, sortThreading } from '../../src/distributed/sort.threads.js';
import { taskThreading } from '../../src/distributed/tasks.threads.js';
import { mulberry32 } from '../helpers/random.js';
import { sharedOf } from '../helpers/shared.js';
import { useBundledWorkerScript } from '../helpers/workers.js';

useBundledWorkerScript('treeline-sort-threads-');
const minEdges = taskThreading.minEdges;
beforeAll(() => {
  taskThreading.minEdges = 0;
});
afterAll(() => {
  taskThreading.minEdges = minEdges;
});

/**
 * m edges in emst()'s order: by weight = fround(√key), then (lo, hi); keys drawn so that one weight holds several
 * keys (adjacent float32 values share a square root's rounding), lo < hi row ids with repeats.
 */
function emstOrder(m: number, rand: () => number, weightOrdered = true) {
  const base = Array.from({ length: 40 }, (_, i) => Math.fround((1 + i) * 0.37));
  const edges = Array.from({ length: m }, () => {
    const k0 = base[Math.floor(rand() * base.length)];
    // 0–3 ulps above a base key: the same weight mostly, another key.
    const bits = new Uint32Array(new Float32Array([k0]).buffer)[0] + Math.floor(rand() * 4);
    const key = new Float32Array(new Uint32Array([bits]).buffer)[0];
    const a = Math.floor(rand() * 500);
    const b = a + 1 + Math.floor(rand() * 500);
    return [key, a, b];
  });
  const weight = (k: number) => Math.fround(Math.sqrt(k));
  if (weightOrdered) edges.sort((x, y) => weight(x[0]) - weight(y[0]) || x[1] - y[1] || x[2] - y[2]);
  return {
    lo: sharedOf(Uint32Array.from(edges, (e) => e[1])),
    hi: sharedOf(Uint32Array.from(edges, (e) => e[2])),
    keys: sharedOf(Float32Array.from(edges, (e) => e[0])),
  };
}

describe('canonicalByIdThreaded', () => {
  it('equals canonicalById on one thread (emst() order with runs of one weight over several keys, 2–5 threads)', async () => {
    const rand = mulberry32(1808);
    for (const m of [0, 1, 2, 7, 100, 4097, 50_000]) {
      for (const threads of [2, 3, 5]) {
        const input = emstOrder(m, rand);
        const want = canonicalById(input.lo, input.hi, input.keys);
        // Some edges must move (several keys a weight), else the test shows nothing.
        if (m >= 100) expect([...want.keys]).not.toEqual([...input.keys]);
        const runs = taskThreading.runs;
        const fallbacks = sortThreading.fallbacks;
        const got = await canonicalByIdThreaded(threads, input);
        // On threads, its cuts in order (no whole sort after it).
        if (m >= 2 * threads) expect(taskThreading.runs - runs, `m=${m} threads=${threads}`).toBe(1);
        expect(sortThreading.fallbacks).toBe(fallbacks);
        expect([...got.keys], `m=${m} threads=${threads}`).toEqual([...want.keys]);
        expect([...got.lo]).toEqual([...want.lo]);
        expect([...got.hi]).toEqual([...want.hi]);
      }
    }
  });

  it('cuts only where the weight changes', () => {
    const keys = Float32Array.from([1, 1, 1, 4, 4, 9, 9, 9, 9, 16]);
    const cuts = sortCuts(keys, 4);
    expect(cuts[0]).toBe(0);
    expect(cuts[cuts.length - 1]).toBe(keys.length);
    for (const c of cuts.slice(1, -1)) {
      if (c > 0 && c < keys.length) expect(Math.sqrt(keys[c - 1])).toBeLessThan(Math.sqrt(keys[c]));
    }
    expect(sortCuts(new Float32Array(5).fill(2), 3)).toEqual([0, 5, 5, 5]);
  });

  it('sorts input not in weight order too (a cut out of order: the whole on this thread), and plain arrays here', async () => {
    const rand = mulberry32(1809);
    const input = emstOrder(20_000, rand, false);
    const want = canonicalById(input.lo, input.hi, input.keys);
    const fallbacks = sortThreading.fallbacks;
    const got = await canonicalByIdThreaded(3, input);
    expect(sortThreading.fallbacks).toBe(fallbacks + 1);
    expect([...got.keys]).toEqual([...want.keys]);
    expect([...got.lo]).toEqual([...want.lo]);
    expect([...got.hi]).toEqual([...want.hi]);
    const plain = emstOrder(1000, rand);
    const p = { lo: Uint32Array.from(plain.lo), hi: Uint32Array.from(plain.hi), keys: Float32Array.from(plain.keys) };
    const wantPlain = canonicalById(p.lo, p.hi, p.keys);
    const runs = taskThreading.runs;
    const gotPlain = await canonicalByIdThreaded(3, p);
    expect(taskThreading.runs).toBe(runs);
    expect([...gotPlain.keys]).toEqual([...wantPlain.keys]);
  });
});
