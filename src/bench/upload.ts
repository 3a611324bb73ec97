/**
 * Host → GPU upload of n × 3 f32 (issue 17 §4), timed on the host from the typed array to the data on the GPU
 * (`GpuContext.uploadAsync` → `onSubmittedWorkDone`), one suite per method of src/gpu/upload.ts, so that one
 * machine start compares them: 'staged' (the context's staging ring, treeline's default), 'write' (one
 * queue.writeBuffer), 'write-chunked' (writeBuffer in chunks of the ring's size) and 'mapped' (the destination
 * created mappedAtCreation: what treeline did before); 'upload-ring2' and 'upload-ring32' run the ring with 2 and
 * 32 MiB chunks. Every repetition uploads into a new buffer, as emstGpu does.
 *
 * The harness's figure is the warm one (after its warm-up: staging pages already touched). The notes give the
 * first upload through a freshly made staging ring, what the first `hdbscan()` of a process pays, and the GB/s of
 * both. `check` reads the last upload back whole and compares it with the data.
 */
import type { GpuContext } from '../gpu/context.js';
import { DEFAULT_CHUNK_BYTES, type UploadMethod } from '../gpu/upload.js';
import type { BenchCase } from './harness.js';

export async function benchUpload(
  ctx: GpuContext,
  n: number,
  method: UploadMethod,
  /** The staging ring's chunk size (default: upload.ts's). */
  chunkBytes?: number,
  dim = 3,
): Promise<BenchCase> {
  const data = new Float32Array(n * dim);
  // Seeded and cheap: distinct values, so a misplaced chunk shows in the check.
  for (let i = 0; i < data.length; i++) data[i] = (i % 1_000_003) * 0.5 - i / data.length;
  // A fresh staging ring (the default shape): the first upload below pays for its pages, as a process's first does.
  ctx.configureStaging({ chunkBytes });
  const t0 = performance.now();
  let last: GPUBuffer = await ctx.uploadAsync('bench::uploadPoints', data, 0, { method });
  await ctx.onDone();
  const firstMs = performance.now() - t0;
  const gbps = (ms: number) => data.byteLength / 1e6 / ms;
  return {
    run: async () => {
      last.destroy();
      last = await ctx.uploadAsync('bench::uploadPoints', data, 0, { method });
    },
    check: async () => {
      await ctx.readChunks(last, 0, data.byteLength, (mapped, at) => {
        const got = new Float32Array(mapped);
        for (let j = 0, i = at / 4; j < got.length; j++, i++) {
          if (got[j] !== data[i] && !(Number.isNaN(got[j]) && Number.isNaN(data[i]))) {
            throw new Error(`bench::upload(${method}): element ${i} is ${got[j]}, expected ${data[i]}`);
          }
        }
      });
    },
    destroy: () => {
      last.destroy();
      ctx.configureStaging({});
    },
    notes: () =>
      `${method}${method === 'staged' ? ` (chunks of ${((chunkBytes ?? DEFAULT_CHUNK_BYTES) / 2 ** 20).toFixed(0)} MiB)` : ''}: ${(data.byteLength / 2 ** 20).toFixed(1)} MiB; first upload through a fresh staging ring ` +
      `${firstMs.toFixed(1)} ms (${gbps(firstMs).toFixed(2)} GB/s); staging held ${(ctx.stagingBytes / 2 ** 20).toFixed(0)} MiB`,
  };
}
