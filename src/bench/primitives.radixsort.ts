/**
 * Benchmark case: a stable radix sort of n seeded (key, value) pairs, GPU-resident. Keys are random with all
 * bits significant (32 or 64 bits), values are 0 … n − 1. Each repetition first copies the pristine pairs into
 * the working buffers (so every repetition sorts the same unsorted input; the copy is recorded but not a
 * kernel, so the timer's per-label phases show only the sort's kernels), then sorts them in place.
 * `check` reads the result back and compares it with the CPU twin.
 *
 * Tuning: `options` (or, when none are given, the JSON object in the environment variable
 * `TREELINE_RADIX_OPTIONS`, e.g. `{"keysPerThread":12,"workgroupSize":256,"radixBits":8,"subgroups":true}`)
 * override the sorter's default shape, so that shapes can be swept on the GPU machine without a rebuild.
 */
import type { GpuContext } from '../gpu/context.js';
import type { Recorder } from '../gpu/recorder.js';
import { createRadixSorter, type RadixSorterOptions } from '../primitives/radixsort.js';
import { sortPairsCpu } from '../primitives/radixsort.cpu.js';
import { seededU32 } from './primitives.scan.js';

function optionsFromEnv(): Partial<RadixSorterOptions> {
  const env = typeof process !== 'undefined' ? process.env?.TREELINE_RADIX_OPTIONS : undefined;
  return env ? (JSON.parse(env) as Partial<RadixSorterOptions>) : {};
}

export async function benchRadixSort(
  ctx: GpuContext,
  n: number,
  keyWords: 1 | 2,
  options?: Partial<Omit<RadixSorterOptions, 'maxCount' | 'keyWords'>>,
): Promise<{ encode: (rec: Recorder) => void; check: () => Promise<void>; destroy: () => void; pairs: number }> {
  const sorter = await createRadixSorter(ctx, { ...(options ?? optionsFromEnv()), maxCount: n, keyWords });
  const keys = seededU32(n * keyWords, 0x50a7ed + keyWords);
  const values = Uint32Array.from({ length: n }, (_, i) => i);
  const pristineKeys = ctx.upload('bench::radixSortPristineKeys', keys);
  const pristineValues = ctx.upload('bench::radixSortPristineValues', values);
  const workKeys = ctx.createBuffer('bench::radixSortKeys', n * 4 * keyWords);
  const workValues = ctx.createBuffer('bench::radixSortValues', n * 4);
  return {
    pairs: n,
    encode: (rec) => {
      rec.copy(pristineKeys, 0, workKeys, 0, n * 4 * keyWords);
      rec.copy(pristineValues, 0, workValues, 0, n * 4);
      sorter.encode(rec, { keys: workKeys, values: workValues, count: n });
    },
    check: async () => {
      const gotKeys = new Uint32Array(await ctx.read(workKeys, 0, n * 4 * keyWords));
      const gotValues = new Uint32Array(await ctx.read(workValues, 0, n * 4));
      const want = sortPairsCpu(keys, values, keyWords);
      for (let i = 0; i < n; i++) {
        if (gotValues[i] !== want.values[i]) {
          throw new Error(`bench::radixSort: values[${i}] = ${gotValues[i]}, expected ${want.values[i]} (n=${n}, keyWords=${keyWords})`);
        }
      }
      for (let i = 0; i < n * keyWords; i++) {
        if (gotKeys[i] !== want.keys[i]) {
          throw new Error(`bench::radixSort: key word ${i} = ${gotKeys[i]}, expected ${want.keys[i]} (n=${n}, keyWords=${keyWords})`);
        }
      }
    },
    destroy: () => {
      pristineKeys.destroy();
      pristineValues.destroy();
      workKeys.destroy();
      workValues.destroy();
      sorter.destroy();
    },
  };
}
