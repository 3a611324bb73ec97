/**
 * Issue 20 (session 11): the 'pair' task's crossing edges and the 'forest' task's keys and reply on worker threads
 * (tasks.threads.ts) equal the one-thread loops value for value — random rows with repeats, sizes 0, 1, 2 and not
 * multiples of the thread count, 2 to 5 threads — and refuse (answer false or null, touching nothing) arrays that are
 * not in shared memory or too few edges. The 'pair' task's union on threads (merge-path split) equals a copy of the
 * one-thread loop it replaced, array for array, at sizes around a word of bits, uneven and empty sides, a pair with
 * itself, with and without cores.
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
  taskThreading,
  unionRows,
  unionSplit,
  unionThreaded,
  type UnionArrays,
} from '../../src/distributed/tasks.threads.js';
import { runPartitionTask } from '../../src/distributed/partition.tasks.js';
import { partitionPoints } from '../../src/distributed/partition.js';
import type { PartitionData, TaskMessage } from '../../src/distributed/types.js';
import { cloud } from '../helpers/clouds.js';
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

/**
 * The 'pair' task's union loop as it was before it went on threads (partition.tasks.ts at f8594b2), the oracle:
 * q === null is a pair with itself (q's lists are p's, and q has no rows).
 */
function unionLoop(
  p: { ids: Uint32Array; points: Float32Array; core2: Float32Array | null },
  q: { ids: Uint32Array; points: Float32Array; core2: Float32Array | null } | null,
  dim: number,
  exponent: number,
) {
  const np = p.ids.length;
  const nq = q === null ? 0 : q.ids.length;
  const n = np + nq;
  const inP = new Uint32Array((n + 31) >>> 5);
  const unionIds = new Uint32Array(n);
  const scaled = new Float32Array(n * dim);
  const core2 = p.core2 !== null ? new Float32Array(n) : null;
  const core2p = p.core2;
  const core2q = q === null ? null : q.core2;
  const f = 2 ** exponent;
  const pIds = p.ids;
  const qIds = q === null ? pIds : q.ids;
  const pPts = p.points;
  const qPts = q === null ? pPts : q.points;
  let a = 0;
  let b = 0;
  let word = 0;
  for (let r = 0, o = 0; r < n; r++, o += dim) {
    if (b >= nq || (a < np && pIds[a] < qIds[b])) {
      word |= 1 << (r & 31);
      unionIds[r] = pIds[a];
      for (let d = 0; d < dim; d++) scaled[o + d] = pPts[a * dim + d] * f;
      if (core2 !== null) core2[r] = core2p![a];
      a++;
    } else {
      unionIds[r] = qIds[b];
      for (let d = 0; d < dim; d++) scaled[o + d] = qPts[b * dim + d] * f;
      if (core2 !== null) core2[r] = core2q![b];
      b++;
    }
    if ((r & 31) === 31) {
      inP[r >>> 5] = word;
      word = 0;
    }
  }
  if ((n & 31) !== 0) inP[n >>> 5] = word;
  return { ids: unionIds, points: scaled, core2, bits: inP };
}

describe('tasks.threads', () => {
  it("the 'pair' union on 2–5 threads and in pieces equals the one-thread loop (n = 0 … 12345, uneven sides, itself, dim 2, 3, 5)", async () => {
    const rand = mulberry32(2017);
    for (const n of [0, 1, 2, 31, 32, 33, 1000, 12_345]) {
      // p's share of the rows: none, all, a few, half, most; and p with itself (q === null).
      const cases = ([0, 1, 0.03, 0.5, 0.9, 'itself'] as const).flatMap((s) => [2, 3, 5].map((d) => [s, d] as const));
      for (const [share, dim] of cases) {
        const mr = rand() < 0.5;
        const exponent = [0, 3, -7][Math.floor(rand() * 3)];
        // Distinct ascending ids with gaps, dealt to p or q; coordinates with full mantissas.
        const ids = new Uint32Array(n);
        for (let r = 0, id = Math.floor(rand() * 5); r < n; r++, id += 1 + Math.floor(rand() * 4)) ids[r] = id;
        const inP = Array.from(ids, () => share === 'itself' || rand() < share);
        const rowsP = [...ids].filter((_, r) => inP[r]);
        const rowsQ = share === 'itself' ? [] : [...ids].filter((_, r) => !inP[r]);
        const list = (rows: number[]) => ({
          ids: sharedCopy(Uint32Array.from(rows)),
          points: sharedCopy(Float32Array.from({ length: rows.length * dim }, () => rand() * 200 - 100)),
          core2: mr ? sharedCopy(Float32Array.from(rows, () => rand())) : null,
        });
        const p = list(rowsP);
        const q = share === 'itself' ? null : list(rowsQ);
        const want = unionLoop(p, q, dim, exponent);
        const m = want.ids.length;
        const out = () => ({
          ids: sharedCopy(new Uint32Array(m).fill(7)),
          points: sharedCopy(new Float32Array(m * dim).fill(-3)),
          core2: mr ? sharedCopy(new Float32Array(m).fill(-1)) : null,
          bits: sharedCopy(new Uint32Array((m + 31) >>> 5).fill(0xdeadbeef)),
        });
        const j = (o: ReturnType<typeof out>): UnionArrays => ({
          pIds: p.ids,
          pPoints: p.points,
          qIds: q?.ids ?? p.ids.subarray(0, 0),
          qPoints: q?.points ?? p.points.subarray(0, 0),
          dim,
          scale: 2 ** exponent,
          core2p: p.core2,
          core2q: q?.core2 ?? null,
          ...o,
        });
        const same = (got: ReturnType<typeof out>, what: string) => {
          expect([...got.ids], what).toEqual([...want.ids]);
          // Bit for bit (-0 and NaN included): the words under the floats.
          expect([...new Uint32Array(got.points.buffer)], what).toEqual([...new Uint32Array(want.points.buffer)]);
          expect(got.core2 === null ? null : [...got.core2], what).toEqual(
            want.core2 === null ? null : [...want.core2],
          );
          expect([...got.bits], what).toEqual([...want.bits]);
        };
        const what = `n=${n} share=${share} dim=${dim} mr=${mr} exponent=${exponent}`;
        // The merge path: a row's split is the loop's count of p's rows before it.
        for (const r of [0, 1, Math.floor(m / 3), m - 1, m].filter((r) => r >= 0 && r <= m)) {
          let a = 0;
          for (let t = 0; t < r; t++) a += (want.bits[t >>> 5] >>> (t & 31)) & 1;
          expect(unionSplit(p.ids, q?.ids ?? p.ids.subarray(0, 0), r), `${what} r=${r}`).toBe(a);
        }
        // One thread in pieces (the task's loop between turns of the event loop), a piece not a multiple of 32.
        const pieces = out();
        let at = { a: 0, b: 0 };
        for (let start = 0; start < m; start += 37) {
          at = unionRows({ ...j(pieces), ...at, start, end: Math.min(m, start + 37) });
        }
        same(pieces, `${what} pieces`);
        for (const threads of [2, 3, 4, 5]) {
          const threaded = out();
          expect(await unionThreaded(threads, j(threaded), m), `${what} threads=${threads}`).toBe(true);
          same(threaded, `${what} threads=${threads}`);
        }
      }
    }
  });

  it("the 'pair' task on shared partitions merges its union on threads and answers as on plain ones (itself too)", async () => {
    const minRows = taskThreading.minRows;
    try {
      for (const [dim, minSamples] of [
        [3, 1],
        [2, 4],
      ] as const) {
        const parts = partitionPoints(cloud('clustered', 3000, dim, 77), dim, 3);
        const sharedParts: PartitionData[] = parts.map((d) => ({
          ...d,
          ids: sharedCopy(d.ids),
          points: sharedCopy(d.points),
        }));
        const env = { backend: 'cpu' as const, threads: 3 };
        const base = { exponent: 2, minSamples, alpha: 1 };
        const core2 = (d: PartitionData) => Float32Array.from(d.ids, (id) => (id % 17) / 16);
        for (const [pi, qi] of [
          [0, 1],
          [2, 0],
          [1, 1],
        ]) {
          const msg = (): TaskMessage => ({
            meta: { ...base, partner: qi, within: [pi === qi, false] },
            arrays: minSamples > 1 ? { core2: core2(parts[pi]), core2q: core2(parts[qi]) } : {},
          });
          taskThreading.minRows = Infinity;
          const plain = await runPartitionTask('pair', parts[pi], msg(), env, async (x) => parts[x]);
          taskThreading.minRows = 0;
          const runs = taskThreading.runs;
          const threaded = await runPartitionTask('pair', sharedParts[pi], msg(), env, async (x) => sharedParts[x]);
          // (Under 2^18 edges: the crossing edges on this thread, so the run is the union's.)
          expect(taskThreading.runs, `${pi}+${qi}`).toBeGreaterThan(runs);
          for (const name of ['lo', 'hi', 'keys', 'side']) {
            expect([...threaded.arrays[name]], `${pi}+${qi} ${name}`).toEqual([...plain.arrays[name]]);
          }
        }
      }
    } finally {
      taskThreading.minRows = minRows;
    }
  });

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
