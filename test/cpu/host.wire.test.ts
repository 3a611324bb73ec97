/**
 * Issue 19 (session 13): typed arrays over SharedArrayBuffers reach worker threads whole (host/wire.ts). Node 20's
 * structured clone keeps a view's byteOffset and length modulo 2^32 bytes, so the bench's threaded generation of
 * 4·10^8 3D points (4.8·10^9 bytes) left most of them at (0, 0, 0). The worker test writes through a view of a
 * SharedArrayBuffer of 2^32 + 8 KiB bytes at values past 2^32 bytes (the buffer's pages are only touched there).
 */
import { describe, expect, it } from 'vitest';
import { fromWire, toWire } from '../../src/host/wire.js';
import { nextMessageId, splitOnWorkers, type WorkerReply } from '../../src/host/threads.js';
import { Random } from '../../src/datasets/random.js';
import { useBundledWorkerScript } from '../helpers/workers.js';

useBundledWorkerScript('treeline-wire-');

describe('toWire / fromWire', () => {
  it('rebuilds shared views of every type at their offsets, leaves the rest and the caller message as they were', () => {
    const sab = new SharedArrayBuffer(1024);
    const f = new Float32Array(sab, 16, 10);
    const u = new Uint32Array(sab, 64, 3);
    const b = new BigInt64Array(sab, 128, 2);
    const plain = new Float64Array(4);
    const message = { id: 7, kind: 'x', f, nested: { list: [u, 3, 'a'], b }, plain, n: null };
    const wire = toWire(message);
    expect(message.f).toBe(f); // not changed
    expect(message.nested.list[0]).toBe(u);
    expect(ArrayBuffer.isView(wire.f)).toBe(false);
    expect(wire.plain).toBe(plain);
    const back = structuredClone(wire) as typeof message; // what a worker receives (the buffer is shared)
    const got = fromWire(back);
    expect(got.f).toBeInstanceOf(Float32Array);
    expect([got.f.byteOffset, got.f.length, got.f.buffer]).toEqual([16, 10, sab]);
    const gu = got.nested.list[0] as Uint32Array;
    expect([gu.constructor, gu.byteOffset, gu.length]).toEqual([Uint32Array, 64, 3]);
    expect(got.nested.list.slice(1)).toEqual([3, 'a']);
    expect([got.nested.b.constructor, got.nested.b.byteOffset, got.nested.b.length]).toEqual([BigInt64Array, 128, 2]);
    got.f[0] = 5; // the same memory
    expect(f[0]).toBe(5);
    expect(toWire(3)).toBe(3);
    const noShared = { a: [1, 2], p: plain };
    expect(toWire(noShared)).toBe(noShared);
    // A long array is data, passed as it is (MAX_WALKED).
    const long = { values: Array.from({ length: 5000 }, (_, i) => i) };
    expect(toWire(long).values).toBe(long.values);
  });
});

describe('shared views past 2^32 bytes in worker threads', () => {
  it("a worker's generate-range writes values 2^30 … 2^30 + 2048 of a view over 2^32 + 8 KiB bytes", async () => {
    const values = 2 ** 30 + 2048;
    const out = new Float32Array(new SharedArrayBuffer(4 * values));
    const start = 2 ** 30;
    const seed = 11;
    const done = await splitOnWorkers(1, false, 'wire test', async (pass) =>
      pass<WorkerReply>(() => ({
        kind: 'generate-range',
        id: nextMessageId(),
        generator: 'uniform',
        seed,
        out,
        start,
        end: values,
        draw: start,
      })),
    );
    expect(done).not.toBeNull(); // the worker script is there
    const r = new Random(seed);
    r.skip(start);
    const want = Float32Array.from({ length: values - start }, () => r.next());
    expect(Array.from(out.subarray(start))).toEqual(Array.from(want));
    expect(out[start - 1]).toBe(0);
  }, 60_000);
});
