/**
 * GPU → host read-back of n × 16 bytes (issue 17 §3/§4), timed on the host from the call to the bytes in a host
 * typed array (`GpuContext.readInto`), one suite per method of src/gpu/readback.ts so that one machine start
 * compares them: 'ring' (the context's staging pool, treeline's default), 'fresh' (a new MAP_READ buffer per read:
 * what treeline did before); 'readback-ring2' and 'readback-ring32' run the pool with 2 and 32 MiB chunks.
 *
 * The harness's figure reads into one destination array touched beforehand (the transfer alone, staging warm after
 * the warm-up). The notes give what the figure leaves out, each measured once on the same data: the first read
 * through a freshly made pool (what a process's first read pays), a read into a new array (its pages faulted in
 * while copying: what callers that allocate their output pay), and the data read as 4 quarters started together
 * (Promise.all) and one after another, the host's share of a read (its copies out of the mapped chunks), and for
 * 'fresh' one read step by step (freshAnatomy) — those the fastest of 3. `check` compares the last read with the data.
 */
import type { GpuContext } from '../gpu/context.js';
import { DEFAULT_READBACK_CHUNK_BYTES, type ReadbackMethod } from '../gpu/readback.js';
import { MapMode, Usage } from '../gpu/usage.js';
import type { BenchCase } from './harness.js';

const RECORD_BYTES = 16;

export async function benchReadback(
  ctx: GpuContext,
  n: number,
  method: ReadbackMethod,
  /** The staging pool's chunk size (default: readback.ts's). */
  chunkBytes?: number,
): Promise<BenchCase> {
  const words = new Uint32Array((n * RECORD_BYTES) / 4);
  // Seeded and cheap: distinct values, so a misplaced chunk shows in the check.
  for (let i = 0; i < words.length; i++) words[i] = Math.imul(i, 0x9e3779b1) ^ (i >>> 7);
  const bytes = words.byteLength;
  const source = await ctx.uploadAsync('bench::readbackSource', words);
  await ctx.onDone();
  const dest = new Uint32Array(words.length).fill(1); // touched: the figure is the transfer, not page faults
  const read = (into: ArrayBufferView, at = 0, length = bytes) => ctx.readInto(source, at, length, into, { method });
  const timed = async (fn: () => Promise<unknown>) => {
    const t0 = performance.now();
    await fn();
    return performance.now() - t0;
  };
  /** The fastest of 3 runs (the notes' figures are single measurements otherwise, and the host is noisy). */
  const best = async (fn: () => Promise<unknown>) => Math.min(await timed(fn), await timed(fn), await timed(fn));
  // A fresh pool (the default shape but for chunkBytes): the first read pays for its staging, as a process's does.
  ctx.configureReadback({ chunkBytes });
  const firstMs = await timed(() => read(dest));
  const freshDestMs = await best(() => read(new Uint32Array(words.length)));
  const quarter = Math.ceil(words.length / 16) * 4; // words, a multiple of 4 (16-byte records)
  const parts = [0, 1, 2, 3].map((q) => ({ at: q * quarter, length: Math.max(0, Math.min(quarter, words.length - q * quarter)) }));
  const part = (p: { at: number; length: number }) => read(dest.subarray(p.at, p.at + p.length), 4 * p.at, 4 * p.length);
  const concurrentMs = await best(() => Promise.all(parts.map(part)));
  const sequentialMs = await best(async () => {
    for (const p of parts) await part(p);
  });
  // Where a read's time goes: the host's copies out of the mapped chunks vs waiting (GPU copies, maps, mapping).
  let hostMs = 0;
  let splitMs = Number.POSITIVE_INFINITY;
  for (let r = 0; r < 3; r++) {
    let host = 0;
    const bytes8 = new Uint8Array(dest.buffer);
    const total = await timed(() =>
      ctx.readChunks(
        source,
        0,
        bytes,
        (chunk, at) => {
          const t0 = performance.now();
          bytes8.set(new Uint8Array(chunk), at);
          host += performance.now() - t0;
        },
        { method },
      ),
    );
    if (total < splitMs) [splitMs, hostMs] = [total, host];
  }
  const anatomy = method === 'fresh' ? await freshAnatomy(ctx, source, new Uint8Array(dest.buffer)) : '';
  const gbps = (ms: number) => (bytes / 1e6 / ms).toFixed(2);
  const ms = (label: string, t: number) => `${label} ${t.toFixed(1)} ms (${gbps(t)} GB/s)`;
  return {
    run: async () => {
      await read(dest);
    },
    check: async () => {
      for (let i = 0; i < words.length; i++) {
        if (dest[i] !== words[i]) {
          throw new Error(`bench::readback(${method}): word ${i} is ${dest[i]}, expected ${words[i]}`);
        }
      }
    },
    destroy: () => {
      source.destroy();
      ctx.configureReadback({});
    },
    notes: () =>
      `${method}${method === 'ring' ? ` (chunks of ${((chunkBytes ?? DEFAULT_READBACK_CHUNK_BYTES) / 2 ** 20).toFixed(0)} MiB)` : ''}: ` +
      `${(bytes / 2 ** 20).toFixed(1)} MiB; ${ms('first read through a fresh pool', firstMs)}; ` +
      `${ms('into a new array', freshDestMs)}; 4 quarters ${ms('together', concurrentMs)}, ${ms('one after another', sequentialMs)}; ` +
      `host copying ${hostMs.toFixed(1)} of ${splitMs.toFixed(1)} ms; ${anatomy}` +
      `staging held ${(ctx.readbackBytes / 2 ** 20).toFixed(0)} MiB`,
  };
}

/**
 * One fresh read step by step (the fastest of 3), to see where 'fresh' loses: creating the staging buffer (on a
 * discrete GPU: allocating and pinning host memory), the GPU copy and the map, getMappedRange (dawn.node wraps the
 * mapped pointer in an external ArrayBuffer: no copy, but V8 counts it as external memory, and large ones start
 * garbage collections), the host copy out of freshly mapped pages, and the destroy.
 */
async function freshAnatomy(ctx: GpuContext, source: GPUBuffer, dest: Uint8Array): Promise<string> {
  const size = dest.byteLength;
  let best: number[] | null = null;
  for (let r = 0; r < 3; r++) {
    const t = [performance.now()];
    const staging = ctx.device.createBuffer({ label: 'bench::readbackFresh', size, usage: Usage.MAP_READ | Usage.COPY_DST });
    t.push(performance.now());
    try {
      await ctx.submit('bench::readbackFresh', (rec) => rec.copy(source, 0, staging, 0, size));
      await staging.mapAsync(MapMode.READ);
      t.push(performance.now());
      const mapped = staging.getMappedRange();
      t.push(performance.now());
      dest.set(new Uint8Array(mapped));
      t.push(performance.now());
    } finally {
      staging.destroy();
    }
    t.push(performance.now());
    const steps = t.slice(1).map((x, i) => x - t[i]);
    if (!best || t[t.length - 1] - t[0] < best.reduce((a, b) => a + b, 0)) best = steps;
  }
  const [create, map, range, copy, destroy] = best!.map((x) => x.toFixed(2));
  return `one fresh read: createBuffer ${create} ms, copy + mapAsync ${map}, getMappedRange ${range}, host copy ${copy}, destroy ${destroy}; `;
}
