/**
 * Issue 20 (the partitioned EMST's tail): NpyEdgeSink (io/write.sink.ts), the three .npy files the 'pairs' method's
 * threaded merge writes as it merges (merge.threads.ts). Byte for byte writeNpyDir's files of the merged arrays, on 2
 * and 3 threads, with runs of equal weight across the threads' cuts (written again once put in order); through the
 * run's AtomicOutputs (no target before commit; discard or abandon removes the temporaries); every file fsynced before
 * finish() resolves, with writeback rounds while the merge ran; a merging thread's failed write (ENOSPC: /dev/full) is
 * the InputError naming the file. mergeRange's flushes: contiguous, each ending at a run's start, their elements final.
 */
import { existsSync, mkdtempSync, openSync, closeSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mergeRange, mergeToTreeThreaded } from '../../src/distributed/merge.threads.js';
import { mergeToTree } from '../../src/distributed/partition.pairs.js';
import type { EdgeList } from '../../src/emst/edges.cpu.js';
import { InputError } from '../../src/errors.js';
import { AtomicOutputs, writeNpyDir } from '../../src/io/write.js';
import { NpyEdgeSink } from '../../src/io/write.sink.js';
import { mulberry32 } from '../helpers/random.js';
import { useBundledWorkerScript } from '../helpers/workers.js';

useBundledWorkerScript('treeline-sink-threads-');

const dir = mkdtempSync(join(tmpdir(), 'treeline-sink-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NAMES = ['sources.npy', 'targets.npy', 'weights.npy'];

/** Temporary files (`.<name>.<pid>.<hex>.tmp`) left under `folder`. */
const temporaries = (folder: string): string[] =>
  existsSync(folder) ? readdirSync(folder).filter((f) => /\.tmp$/.test(f)) : [];

/**
 * m distinct edges in canonical order, keys from `distinct` values a few ulps apart (runs of equal weight holding
 * unequal keys, some across any cut), dealt into `count` lists (one lopsided), each in shared memory.
 */
function sharedLists(m: number, count: number, distinct: number, seed: number) {
  const rand = mulberry32(seed);
  const all = Array.from({ length: m }, (_, e) => {
    const key = 1 + Math.floor(rand() * distinct) * 2 ** -23;
    return [Math.fround(key), e, e + 1 + Math.floor(rand() * 1000)] as [number, number, number];
  });
  const pieces = Array.from({ length: count }, (_, c) =>
    all.filter((_, e) => (c === 0 ? e % 7 === 0 : e % 7 !== 0 && e % (count - 1) === c - 1)),
  ).map((edges) => {
    edges.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
    const column = <T extends Uint32Array | Float32Array>(C: new (b: SharedArrayBuffer) => T, i: number): T => {
      const out = new C(new SharedArrayBuffer(4 * edges.length));
      edges.forEach((x, j) => (out[j] = x[i]));
      return out;
    };
    return { lo: column(Uint32Array, 1), hi: column(Uint32Array, 2), keys: column(Float32Array, 0) };
  });
  return {
    pieces,
    lists: { lo: pieces.map((p) => p.lo), hi: pieces.map((p) => p.hi), keys: pieces.map((p) => p.keys) },
  };
}

const sharedOut = (m: number): EdgeList => ({
  sources: new Uint32Array(new SharedArrayBuffer(4 * m)),
  targets: new Uint32Array(new SharedArrayBuffer(4 * m)),
  weights: new Float32Array(new SharedArrayBuffer(4 * m)),
});

describe('NpyEdgeSink: the .npy files written while the merge runs', () => {
  it("the threaded merge's files equal writeNpyDir's of the merged arrays (2 and 3 threads); renamed on commit; fsynced", async () => {
    const m = 240_000;
    const { pieces, lists } = sharedLists(m, 5, 300, 2020);
    const want = mergeToTree(pieces);
    const oracle = join(dir, 'oracle');
    await writeNpyDir(oracle, { sources: want.sources, targets: want.targets, weights: want.weights });
    for (const threads of [2, 3]) {
      const folder = join(dir, `threads-${threads}`, 'tree'); // two folders to create
      const outputs = new AtomicOutputs();
      const sink = new NpyEdgeSink(outputs, folder);
      const files = await sink.open(m);
      expect(files).not.toBeNull();
      const out = sharedOut(m);
      expect(await mergeToTreeThreaded(lists, out, threads, undefined, files!)).toBe(true);
      // The API's arrays are the result as before (compared as bytes: toEqual on 10^5 elements is slow).
      const bytes = (a: Uint32Array | Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
      expect(bytes(out.sources).equals(bytes(want.sources))).toBe(true);
      expect(bytes(out.weights).equals(bytes(want.weights))).toBe(true);
      expect(sink.written).toBe(true);
      await sink.finish();
      expect(sink.counts.fsyncs).toBe(1);
      expect(sink.counts.datasyncs).toBeGreaterThan(0);
      // Before the commit only the temporaries are there.
      expect(readdirSync(folder).filter((f) => f.endsWith('.npy'))).toEqual([]);
      expect(temporaries(folder)).toHaveLength(3);
      await outputs.commit();
      for (const name of NAMES) {
        expect(readFileSync(join(folder, name)).equals(readFileSync(join(oracle, name))), name).toBe(true);
      }
      expect(temporaries(folder)).toEqual([]);
    }
  });

  it("a merging thread's failed write is the InputError naming the file; the run's discard leaves nothing behind", async () => {
    const m = 140_000;
    const { lists } = sharedLists(m, 3, 50, 2021);
    const folder = join(dir, 'failing', 'tree');
    const outputs = new AtomicOutputs();
    const sink = new NpyEdgeSink(outputs, folder);
    const files = (await sink.open(m))!;
    // The weights go to /dev/full: every write there fails with ENOSPC.
    const full = openSync('/dev/full', 'w');
    try {
      const failing = { ...files, files: [files.files[0], files.files[1], { fd: full, at: files.files[2].at }] };
      const err = await mergeToTreeThreaded(lists, sharedOut(m), 2, undefined, failing).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect((err as Error).message).toBe(`${join(folder, 'weights.npy')}: cannot write (ENOSPC).`);
      expect(sink.written).toBe(false);
    } finally {
      closeSync(full);
    }
    await sink.close();
    expect(temporaries(folder)).toHaveLength(3);
    outputs.discard();
    // The temporaries and the folders the run created are gone.
    expect(existsSync(join(dir, 'failing'))).toBe(false);
  });

  it('abandoned (the merge ran on one thread), its temporaries are removed and writeNpyDir writes the targets', async () => {
    const folder = join(dir, 'abandoned');
    const outputs = new AtomicOutputs();
    const sink = new NpyEdgeSink(outputs, folder);
    const files = (await sink.open(1000))!;
    expect(temporaries(folder)).toHaveLength(3);
    await files.abandon();
    expect(temporaries(folder)).toEqual([]);
    expect(sink.written).toBe(false);
    const tree = { sources: Uint32Array.of(0, 1), targets: Uint32Array.of(1, 2), weights: Float32Array.of(0.5, 2) };
    await writeNpyDir(folder, tree, {}, outputs);
    await outputs.commit();
    expect(readdirSync(folder).sort()).toEqual(NAMES);
  });

  it('finish() before every element is written, or a second open(), throws; no edges opens nothing', async () => {
    const outputs = new AtomicOutputs();
    const sink = new NpyEdgeSink(outputs, join(dir, 'misuse'));
    expect(await new NpyEdgeSink(outputs, join(dir, 'empty')).open(0)).toBeNull();
    expect(existsSync(join(dir, 'empty'))).toBe(false);
    const files = (await sink.open(10))!;
    await expect(sink.finish()).rejects.toThrow(/is not written/);
    await expect(sink.open(10)).rejects.toThrow(/opened twice/);
    await files.abandon();
    outputs.discard();
  });
});

describe("mergeRange's flushes", () => {
  it('cover the range in order, each ending where a run of equal weight starts, their elements already final', () => {
    const m = 20_000;
    const { pieces, lists } = sharedLists(m, 4, 40, 2022);
    const want = mergeToTree(pieces);
    const out = sharedOut(m);
    const seen: [number, number][] = [];
    const snapshot = { sources: new Uint32Array(m), targets: new Uint32Array(m) };
    mergeRange(
      lists,
      lists.keys.map(() => 0),
      lists.keys.map((k) => k.length),
      out,
      0,
      (a, b) => {
        seen.push([a, b]);
        snapshot.sources.set(out.sources.subarray(a, b), a);
        snapshot.targets.set(out.targets.subarray(a, b), a);
      },
      1000,
    );
    expect(seen.length).toBeGreaterThan(5);
    expect(seen[0][0]).toBe(0);
    expect(seen[seen.length - 1][1]).toBe(m);
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i][0]).toBe(seen[i - 1][1]);
      expect(want.weights[seen[i][0] - 1]).not.toBe(want.weights[seen[i][0]]);
    }
    expect(snapshot.sources).toEqual(want.sources);
    expect(snapshot.targets).toEqual(want.targets);
  });
});
