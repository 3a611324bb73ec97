/**
 * Issue 20: the coordinator's split into partitions on worker threads (partition.threads.ts) gives partitionPoints'
 * partitions array for array — ids and coordinates — for clouds with ties and duplicates, 1D to 5D, k from 1 to
 * n + 3, thread counts that leave uneven ranges, and the same errors for bad coordinates; each partition's `box` (the
 * scatter pass's) gives partitionInfo's bounding box bit for bit, −0 against +0 included; a signal aborted during the
 * split stops it at the next pass (a coordinator's Ctrl-C); partitionWithHashes' block hashes, computed in the split's
 * first pass, are blockHashes' (the input fingerprint of runs before it). minPoints 0 forces the threaded path at these small sizes
 * (by default it starts at 10^6 points).
 */

/** Whether two typed arrays hold the same bytes. */
const sameBytes = (a: ArrayBufferView, b: ArrayBufferView): boolean =>
  Buffer.compare(
    Buffer.from(a.buffer, a.byteOffset, a.byteLength),
    Buffer.from(b.buffer, b.byteOffset, b.byteLength),
  ) === 0;

/** Box values with −0 told from +0. */
const signed = (xs: number[]): string[] => xs.map((x) => (Object.is(x, -0) ? '-0' : String(x)));

/** 3D points of −0, +0 and ±1 in every order (the first of −0 and +0 in index order is the box's). */
function zeros(n: number, seed: number): Float32Array {
  const values = [-0, 0, 0, -0, 1, -1];
  const out = new Float32Array(3 * n);
  let s = seed;
  for (let i = 0; i < out.length; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out[i] = values[(s >>> 16) % values.length];
  }
  return out;
}
import { describe, expect, it } from 'vitest';
import { AbortError } from '../../src/errors.js';
import { partitionInfo, partitionPoints } from '../../src/distributed/partition.js';
import { FINGERPRINT_BLOCK_WORDS } from '../../src/distributed/partition.bounds.js';
import {
  blockHashes,
  partitionPointsThreaded,
  partitionWithHashes,
  sharedPoints,
} from '../../src/distributed/partition.threads.js';
import { cloud } from '../helpers/clouds.js';
import { useBundledWorkerScript } from '../helpers/workers.js';

useBundledWorkerScript('treeline-partition-threads-');

describe('partitionPointsThreaded', () => {
  it('equals partitionPoints: ties, duplicates, 1D to 5D, k up to n + 3, 2 to 5 threads', async () => {
    for (const [kind, n, dim] of [
      ['uniform', 300_000, 3], // ranges of several 65,536-point pieces
      ['uniform', 30000, 3],
      ['grid', 2500, 3],
      ['duplicates', 7000, 2],
      ['clustered', 2000, 2],
      ['normal', 900, 1],
      ['grid', 600, 5],
      ['uniform', 5, 3],
      ['uniform', 2, 2],
    ] as const) {
      const points = cloud(kind, n, dim, 51);
      for (const [k, threads] of [
        [1, 2],
        [2, 3],
        [7, 4],
        [n + 3, 5],
      ]) {
        const want = partitionPoints(points, dim, k);
        const got = await partitionPointsThreaded(points, dim, k, { threads, minPoints: 0 });
        expect(got.length).toBe(k);
        for (let p = 0; p < k; p++) {
          const what = `${kind} ${dim}D n=${n} k=${k} threads=${threads} partition ${p}`;
          expect(got[p].id, what).toBe(p);
          expect(got[p].dim, what).toBe(dim);
          expect(Array.from(got[p].ids), what).toEqual(Array.from(want[p].ids));
          expect(Array.from(got[p].points), what).toEqual(Array.from(want[p].points));
          const box = partitionInfo(got[p], { cells: false });
          const ref = partitionInfo(want[p], { cells: false });
          expect(want[p].box, what).toBeUndefined();
          expect(signed([...box.lo, ...box.hi, ...(box.cells ?? [])]), what).toEqual(
            signed([...ref.lo, ...ref.hi, ...(ref.cells ?? [])]),
          );
        }
      }
    }
  });

  it("each partition's box equals the one-pass bounding box with −0 and +0 (first in index order)", async () => {
    for (const [n, seed] of [
      [4000, 1],
      [777, 2],
      [50, 3],
    ]) {
      const points = zeros(n, seed);
      for (const [k, threads] of [
        [1, 3],
        [3, 2],
        [5, 4],
      ]) {
        const want = partitionPoints(points, 3, k);
        const got = await partitionPointsThreaded(points, 3, k, { threads, minPoints: 0 });
        for (let p = 0; p < k; p++) {
          const what = `zeros n=${n} k=${k} threads=${threads} partition ${p}`;
          expect(Array.from(got[p].ids), what).toEqual(Array.from(want[p].ids));
          const box = partitionInfo(got[p], { cells: false });
          const ref = partitionInfo(want[p], { cells: false });
          expect(signed([...box.lo, ...box.hi]), what).toEqual(signed([...ref.lo, ...ref.hi]));
        }
      }
    }
  });

  it('a signal aborted during the split stops it after the pass in progress with AbortError; the next split is whole', async () => {
    const points = cloud('uniform', 30000, 3, 53);
    await expect(
      partitionPointsThreaded(points, 3, 4, { threads: 2, minPoints: 0, signal: AbortSignal.abort() }),
    ).rejects.toThrow(AbortError);
    // Aborted as the digits pass ends (its time recorded): the split stops there, before the counts and the scatter.
    const controller = new AbortController();
    const timings: Record<string, number> = new Proxy({} as Record<string, number>, {
      set(target, key: string, value: number) {
        target[key] = value;
        if (key === 'distributed::partition.digits') controller.abort();
        return true;
      },
    });
    const split = partitionPointsThreaded(points, 3, 4, {
      threads: 3,
      minPoints: 0,
      timings,
      signal: controller.signal,
    });
    await expect(split).rejects.toThrow(/aborted after its digits pass/);
    expect(Object.keys(timings)).not.toContain('distributed::partition.count');
    const got = await partitionPointsThreaded(points, 3, 4, {
      threads: 3,
      minPoints: 0,
      signal: new AbortController().signal,
    });
    const want = partitionPoints(points, 3, 4);
    for (let p = 0; p < 4; p++) {
      expect(got[p].ids).toEqual(want[p].ids);
      expect(got[p].points).toEqual(want[p].points);
    }
  });

  it("the fingerprint's block hashes are the same on 1 to 5 threads and change with any one word", async () => {
    // 3 blocks and a partial fourth: ranges of blocks that split unevenly over the threads.
    const n = Math.ceil((3.4 * FINGERPRINT_BLOCK_WORDS) / 3);
    const points = cloud('uniform', n, 3, 55);
    const one = await blockHashes(points, 3, 1, 0);
    expect(one.length).toBe(2 * 4);
    const shared = await sharedPoints(points, 3);
    expect(shared.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(await sharedPoints(shared, 3)).toBe(shared); // already shared: a view, no copy
    for (const threads of [2, 3, 5]) {
      expect(Array.from(await blockHashes(shared, 3, threads, 0)), `threads ${threads}`).toEqual(Array.from(one));
    }
    // One word changed in block 2 (of 0–3) changes that block's hashes and no other's; the last word, the last block's.
    for (const at of [2 * FINGERPRINT_BLOCK_WORDS + 12345, 3 * n - 1]) {
      const other = Float32Array.from(points);
      other[at] = other[at] + 1;
      const got = await blockHashes(await sharedPoints(other, 3), 3, 3, 0);
      const block = Math.floor(at / FINGERPRINT_BLOCK_WORDS);
      for (let b = 0; b < 4; b++) {
        const same = got[2 * b] === one[2 * b] && got[2 * b + 1] === one[2 * b + 1];
        expect(same, `word ${at}, block ${b}`).toBe(b !== block);
      }
    }
    // Float64 points hash their bytes on this thread (no threaded path for them).
    const wide = Float64Array.from(points.subarray(0, 3000));
    expect(Array.from(await blockHashes(wide, 3, 4, 0))).toEqual(
      Array.from(await blockHashes(Float64Array.from(wide), 3, 1, 0)),
    );
  });

  it("partitionWithHashes: blockHashes' values (pinned: what builds before it computed) and the same partitions, rows across block ends, 2D to 5D, 1 to 5 threads", async () => {
    // 2^21 3D points (1.5 blocks) of a fixed sequence: the two blocks' hashes as session 19's build computed them, so
    // a run resumed across the change finds its fingerprint equal.
    const fixed = new Float32Array(3 * 2 ** 21);
    for (let i = 0; i < fixed.length; i++) fixed[i] = (Math.imul(i, 0x9e3779b1) >>> 0) / 2 ** 32 - 0.5;
    const pinned = [0x1161fa8a, 0x90699e76, 0x4cc6643b, 0xd0084ede];
    expect(Array.from(await blockHashes(fixed, 3, 1, 0))).toEqual(pinned);
    for (const threads of [1, 2, 3]) {
      const got = await partitionWithHashes(fixed, 3, 4, { threads, minPoints: 0 });
      expect(Array.from(got.blocks), `threads ${threads}`).toEqual(pinned);
    }
    // 2.4 blocks: a block's 2^22 words are no multiple of 3 or 5, so rows straddle its ends; more threads than blocks.
    for (const dim of [3, 2, 5]) {
      const n = Math.ceil((2.4 * FINGERPRINT_BLOCK_WORDS) / dim);
      const points = cloud('uniform', n, dim, 56 + dim);
      const want = await blockHashes(points, dim, 1, 0);
      const split = partitionPoints(points, dim, 3);
      for (const threads of [2, 5]) {
        const got = await partitionWithHashes(points, dim, 3, { threads, minPoints: 0 });
        expect(Array.from(got.blocks), `dim ${dim}, threads ${threads}`).toEqual(Array.from(want));
        // (Bytes compared: toEqual over arrays of 10^6 elements takes minutes.)
        for (let p = 0; p < 3; p++) {
          expect(sameBytes(got.partitions[p].ids, split[p].ids), `dim ${dim}, threads ${threads}, partition ${p}`).toBe(
            true,
          );
          expect(sameBytes(got.partitions[p].points, split[p].points)).toBe(true);
        }
      }
    }
  });

  it('partitionWithHashes: a bad coordinate in a row across a block end, or anywhere, is found with its row named', async () => {
    const n = Math.ceil((1.2 * FINGERPRINT_BLOCK_WORDS) / 3);
    const points = cloud('uniform', n, 3, 61);
    // Row ⌊2^22 / 3⌋ starts in block 0 and ends in block 1: its z is block 1's second word.
    const row = Math.floor(FINGERPRINT_BLOCK_WORDS / 3);
    for (const [at, bad, message] of [
      [3 * row + 2, NaN, `NaN at row ${row}, column 2`],
      [3 * row, -Infinity, `-Infinity at row ${row}, column 0`],
      [3 * (n - 1) + 1, 2e38, `within ±1e\\+38.*row ${n - 1}, column 1`],
      [4, Infinity, 'Infinity at row 1, column 1'],
    ] as const) {
      const xs = Float32Array.from(points);
      xs[at] = bad;
      await expect(partitionWithHashes(xs, 3, 4, { threads: 3, minPoints: 0 }), message).rejects.toThrow(
        new RegExp(message),
      );
    }
  });

  it('reports each pass under distributed::partition.<pass>', async () => {
    const timings: Record<string, number> = {};
    await partitionPointsThreaded(cloud('uniform', 20000, 3, 54), 3, 4, { threads: 2, minPoints: 0, timings });
    for (const pass of ['copy', 'bounds', 'digits', 'members', 'count', 'scatter']) {
      expect(timings[`distributed::partition.${pass}`], pass).toBeGreaterThanOrEqual(0);
    }
  });

  it('the partitions are views of shared memory; one thread or few points fall back to partitionPoints', async () => {
    const points = cloud('uniform', 5000, 3, 52);
    const got = await partitionPointsThreaded(points, 3, 4, { threads: 3, minPoints: 0 });
    expect(got[0].points.buffer).toBeInstanceOf(SharedArrayBuffer);
    const one = await partitionPointsThreaded(points, 3, 4, { threads: 1, minPoints: 0 });
    expect(one[0].points.buffer).not.toBeInstanceOf(SharedArrayBuffer);
    expect(Array.from(one[3].ids)).toEqual(Array.from(got[3].ids));
  });

  it('rejects bad coordinates and options with partitionPoints errors', async () => {
    const bad = cloud('uniform', 3000, 2, 53);
    bad[2 * 1777 + 1] = NaN;
    await expect(partitionPointsThreaded(bad, 2, 3, { threads: 3, minPoints: 0 })).rejects.toThrow(
      /NaN at row 1777, column 1/,
    );
    bad[2 * 1777 + 1] = 3e38;
    await expect(partitionPointsThreaded(bad, 2, 3, { threads: 3, minPoints: 0 })).rejects.toThrow(
      /within ±1e\+38.*row 1777, column 1/,
    );
    await expect(partitionPointsThreaded(new Float32Array(4), 2, 0, { threads: 2, minPoints: 0 })).rejects.toThrow(
      /partitions to be a positive integer, got 0/,
    );
  });
});
