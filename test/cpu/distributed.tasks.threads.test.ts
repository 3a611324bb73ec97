/**
 * Issue 20 (session 11): the 'pair' task's crossing edges and the 'forest' task's keys and reply on worker threads
 * (tasks.threads.ts) equal the one-thread loops value for value — random rows with repeats, sizes 0, 1, 2 and not
 * multiples of the thread count, 2 to 5 threads — and refuse (answer false or null, touching nothing) arrays that are
 * not in shared memory or too few edges.
 */
import { describe, expect, it } from 'vitest';
import {
  crossingEdges,
  crossingEdgesThreaded,
  forestKeys,
  forestKeysThreaded,
  forestReply,
  forestReplyThreaded,
  shared,
} from '../../src/distributed/tasks.threads.js';
import { firstUnsorted, firstUnsortedThreaded, mergeToTreeThreaded } from '../../src/distributed/merge.threads.js';
import { mergeToTree } from '../../src/distributed/partition.pairs.js';
import { mulberry32 } from '../helpers/random.js';
import { useBundledWorkerScript } from '../helpers/workers.js';

useBundledWorkerScript('treeline-task-threads-');

const sharedCopy = <T extends Uint32Array | Float32Array>(a: T): T => {
  const out = new (a.constructor as new (b: SharedArrayBuffer) => T)(new SharedArrayBuffer(a.byteLength));
  out.set(a);
  return out;
};

describe('tasks.threads', () => {
  it('crossing edges, keys and reply on 2–5 threads equal the one-thread loops (n rows, m edges, ties and repeated rows)', async () => {
    const rand = mulberry32(2011);
    for (const [rows, m, dim] of [
      [1, 0, 3],
      [2, 1, 3],
      [3, 2, 2],
      [50, 37, 3],
      [1000, 999, 3],
      [4000, 12_345, 5],
    ] as const) {
      const points = Float32Array.from({ length: rows * dim }, () => Math.floor(rand() * 8) / 4);
      const ids = Uint32Array.from({ length: rows }, (_, r) => 3 * r + Math.floor(rand() * 3));
      const lo = Uint32Array.from({ length: m }, () => Math.floor(rand() * rows));
      const hi = Uint32Array.from(lo, () => Math.floor(rand() * rows));
      const want = new Float32Array(m);
      forestKeys({ points, dim, lo, hi, keys: want, start: 0, end: m });
      const safe = Uint32Array.from({ length: Math.floor(m / 2) }, () => Math.floor(rand() * m));
      const wantLo = new Uint32Array(safe.length);
      const wantHi = new Uint32Array(safe.length);
      const wantKeys = new Float32Array(safe.length);
      const proven = { rowLo: lo, rowHi: hi, sortedKeys: want, safe };
      forestReply({ ids, ...proven, lo: wantLo, hi: wantHi, keys: wantKeys, start: 0, end: safe.length });
      // The pair's crossing edges: rows in p where their bit is 1 (random), in edge order.
      const bits = Uint32Array.from({ length: (rows + 31) >>> 5 }, () => Math.floor(rand() * 2 ** 32));
      const inP = (r: number) => (bits[r >>> 5] >>> (r & 31)) & 1;
      const crossing = Array.from({ length: m }, (_, e) => e).filter((e) => inP(lo[e]) !== inP(hi[e]));
      const counted = crossingEdges({ bits, sources: lo, targets: hi, start: 0, end: m });
      expect(counted.count).toBe(crossing.length);
      for (const threads of [2, 3, 5]) {
        const what = `rows=${rows} m=${m} dim=${dim} threads=${threads}`;
        const cross = { bits: sharedCopy(bits), sources: sharedCopy(lo), targets: sharedCopy(hi) };
        const listed = await crossingEdgesThreaded(threads, cross, m);
        expect(listed === null, what).toBe(m < 2 * threads);
        if (listed !== null) expect([...listed], what).toEqual(crossing);
        const s = {
          points: sharedCopy(points),
          lo: sharedCopy(lo),
          hi: sharedCopy(hi),
          keys: sharedCopy(new Float32Array(m).fill(-1)),
        };
        const ran = await forestKeysThreaded(threads, { dim, ...s }, m);
        // Fewer than 2 edges a thread: the caller's loop (nothing written here).
        expect(ran, what).toBe(m >= 2 * threads);
        if (ran) expect([...s.keys], what).toEqual([...want]);
        const out = {
          lo: sharedCopy(new Uint32Array(safe.length)),
          hi: sharedCopy(new Uint32Array(safe.length)),
          keys: sharedCopy(new Float32Array(safe.length)),
        };
        const sp = { rowLo: s.lo, rowHi: s.hi, sortedKeys: sharedCopy(want), safe: sharedCopy(safe) };
        const replied = await forestReplyThreaded(threads, { ids: sharedCopy(ids), ...sp, ...out }, safe.length);
        expect(replied, what).toBe(safe.length >= 2 * threads);
        if (replied) {
          expect([...out.lo], what).toEqual([...wantLo]);
          expect([...out.hi], what).toEqual([...wantHi]);
          expect([...out.keys], what).toEqual([...wantKeys]);
        }
      }
    }
  });

  it("the 'pairs' merge on 2–5 threads equals mergeToTree: ties, runs of equal weight across the cuts, a long run of weight 0", async () => {
    const rand = mulberry32(2012);
    for (const [m, lists, distinct] of [
      [300_000, 5, 2000],
      [200_000, 3, 100],
      [150_000, 2, 1],
    ] as const) {
      // Distinct edges (lo, hi), keys from few values a few ulps apart (equal weights with unequal keys), dealt into
      // lists (one lopsided), each in canonical order.
      const all = Array.from({ length: m }, (_, e) => {
        const lo = e;
        const hi = e + 1 + Math.floor(rand() * 1000);
        const key = distinct === 1 ? 0 : 1 + Math.floor(rand() * distinct) * 2 ** -23;
        return [Math.fround(key), lo, hi] as [number, number, number];
      });
      const pieces = Array.from({ length: lists }, (_, c) =>
        all.filter((_, e) => (c === 0 ? e % 7 === 0 : e % 7 !== 0 && e % (lists - 1) === c - 1)),
      ).map((edges) => {
        edges.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
        const toShared = <T extends Uint32Array | Float32Array>(
          C: new (b: SharedArrayBuffer) => T,
          f: (x: [number, number, number]) => number,
        ) => {
          const out = new C(new SharedArrayBuffer(4 * edges.length));
          edges.forEach((x, i) => (out[i] = f(x)));
          return out;
        };
        return {
          lo: toShared(Uint32Array, (x) => x[1]),
          hi: toShared(Uint32Array, (x) => x[2]),
          keys: toShared(Float32Array, (x) => x[0]),
        };
      });
      const want = mergeToTree(pieces);
      for (const threads of [2, 3, 5]) {
        const out = {
          sources: new Uint32Array(new SharedArrayBuffer(4 * m)),
          targets: new Uint32Array(new SharedArrayBuffer(4 * m)),
          weights: new Float32Array(new SharedArrayBuffer(4 * m)),
        };
        const what = `m=${m} lists=${lists} distinct=${distinct} threads=${threads}`;
        const lo = pieces.map((p) => p.lo);
        const hi = pieces.map((p) => p.hi);
        const keys = pieces.map((p) => p.keys);
        // 2^16 edges a thread at least: 5 threads want 327,680 (the caller's merge then).
        const ran = await mergeToTreeThreaded({ lo, hi, keys }, out, threads);
        expect(ran, what).toBe(m >= threads << 16);
        if (!ran) continue;
        expect([...out.sources], what).toEqual([...want.sources]);
        expect([...out.targets], what).toEqual([...want.targets]);
        expect([...out.weights], what).toEqual([...want.weights]);
      }
    }
  });

  it("a list's first unsorted or invalid edge on 2–5 threads is the one-thread scan's (a defect at the ranges' seams too)", async () => {
    const rand = mulberry32(2016);
    const m = 10_000;
    const n = 50_000;
    const keys = sharedCopy(Float32Array.from({ length: m }, () => Math.floor(rand() * 400) / 8).sort());
    const lo = sharedCopy(Uint32Array.from({ length: m }, () => Math.floor(rand() * (n - 1))));
    const hi = sharedCopy(Uint32Array.from(lo, (l) => l + 1 + Math.floor(rand() * (n - 1 - l))));
    // Equal keys ordered by (lo, hi), so the list is canonical.
    const order = Array.from({ length: m }, (_, e) => e).sort(
      (a, b) => keys[a] - keys[b] || lo[a] - lo[b] || hi[a] - hi[b] || a - b,
    );
    const [k0, l0, h0] = [keys.slice(), lo.slice(), hi.slice()];
    order.forEach((e, t) => {
      keys[t] = k0[e];
      lo[t] = l0[e];
      hi[t] = h0[e];
    });
    for (let e = 1; e < m; e++) if (keys[e] === keys[e - 1] && lo[e] === lo[e - 1] && hi[e] === hi[e - 1]) hi[e]++;
    const list = { lo, hi, keys };
    expect(firstUnsorted(lo, hi, keys, n, 0, m)).toBe(-1);
    for (const threads of [2, 3, 5]) expect(await firstUnsortedThreaded(list, n, threads), `${threads}`).toBe(-1);
    // Defects: a key below the one before, an end ≥ n, lo = hi, a negative key, at the start, a seam and the end.
    const defects: [number, () => void][] = [
      [0, () => (hi[0] = lo[0])],
      [1, () => (keys[1] = keys[0] - 1)],
      [2000, () => (keys[2000] = -0.5)],
      [3333, () => (hi[3333] = n)],
      [5000, () => (keys[5000] = keys[4999] - 1 / 16)],
      [m - 1, () => (keys[m - 1] = 0)],
    ];
    for (const [at, spoil] of defects) {
      const saved = [keys[at], lo[at], hi[at]] as const;
      spoil();
      const want = firstUnsorted(lo, hi, keys, n, 0, m);
      expect(want, `defect at ${at}`).toBe(at);
      for (const threads of [2, 3, 4, 5]) {
        expect(await firstUnsortedThreaded(list, n, threads), `defect at ${at}, ${threads} threads`).toBe(want);
      }
      [keys[at], lo[at], hi[at]] = saved;
    }
    expect(await firstUnsortedThreaded({ lo: l0, hi: h0, keys: k0 }, n, 4)).toBeNull(); // not shared: the caller's
  });

  it('refuses arrays outside shared memory (they would be copied to the threads and the answers lost)', async () => {
    const m = 1000;
    const plain = {
      points: new Float32Array(3 * m),
      dim: 3,
      lo: new Uint32Array(m),
      hi: new Uint32Array(m),
      keys: new Float32Array(m).fill(-1),
    };
    expect(shared(plain.lo)).toBe(false);
    expect(shared(sharedCopy(plain.lo))).toBe(true);
    expect(await forestKeysThreaded(4, plain, m)).toBe(false);
    expect(await forestKeysThreaded(4, { ...plain, lo: sharedCopy(plain.lo), hi: sharedCopy(plain.hi) }, m)).toBe(
      false,
    );
    expect(plain.keys[0]).toBe(-1);
    expect(await forestKeysThreaded(1, { ...plain, points: sharedCopy(plain.points) }, m)).toBe(false);
    const bits = new Uint32Array(m / 32);
    expect(
      await crossingEdgesThreaded(4, { bits, sources: sharedCopy(plain.lo), targets: sharedCopy(plain.hi) }, m),
    ).toBe(null);
  });
});
