/**
 * The canonical edge order (weight, min, max) on the GPU, in place (issue 17): Borůvka's raw edges (a, b, key bits)
 * become the edge list the host has produced so far (pipeline.ts readEdges + edges.cpu.ts) — weights exactly
 * Math.fround(Math.sqrt(key)), equal weights by (source, target) — without leaving the GPU, so the dendrogram
 * (src/cluster/dendrogram.ts) can start from it. Shader: shaders/emst/canonical.wgsl (its header draws the two
 * maps and two sorts); CPU twin: canonical.cpu.ts.
 *
 * Result layout (in the caller's `keys` and `values`, count m):
 * | keys[i].x: source (min end) | keys[i].y: f32 bits of the weight | values[i]: target (max end) |
 * Non-negative f32 bit patterns order like u32, so comparisons may stay on the bits.
 *
 * Memory: none of its own. The sorts borrow the caller's sorter (64-bit keys; its ping-pong scratch) and the
 * caller gives 8m + 4m bytes of scratch that hold the result (pipeline.ts: the BVH's codes and parents, dead once
 * Borůvka has run).
 *
 * Big arrays (issue 19): both maps and the split are element-wise, so where the edges, keys or values exceed one
 * binding they are dispatched once per window (gpu/bigarray.ts, windows), each binding its window's ranges with the
 * window's count as `m`; the WGSL is unchanged, and one window is the whole arrays bound as before.
 */
import type { GpuContext } from '../gpu/context.js';
import type { Kernel } from '../gpu/kernel.js';
import type { Binding, Recorder } from '../gpu/recorder.js';
import type { RadixSorter } from '../primitives/radixsort.js';
import { InputError } from '../errors.js';
import { windowBinding, windows } from '../gpu/bigarray.js';
import { endBits } from './canonical.cpu.js';

/** canonical.wgsl's bindings and uniform block, by their WGSL names (both entry points bind all four). */
const CANONICAL = {
  bindings: { u: 'uniform', edges: 'read', keys: 'read_write', values: 'read_write' },
  uniforms: { m: 'u32', bits: 'u32', p0: 'u32', p1: 'u32' },
} as const;

type CanonicalKernel = Kernel<typeof CANONICAL.bindings, typeof CANONICAL.uniforms>;

export interface CanonicalArgs {
  /** m raw edges, 3 u32 each: (a, b, f32 bits of the squared length) (emst/merge.wgsl's layout). */
  edges: Binding;
  /** Number of edges. */
  count: number;
  /** Number of points (ids are < n). */
  n: number;
  /** A sorter of 64-bit keys with maxCount ≥ count (its scratch is used during the sorts). */
  sorter: RadixSorter;
  /** ≥ 8 · count bytes: the result's (source, weight bits) pairs. */
  keys: GPUBuffer;
  /** ≥ 4 · count bytes: the result's targets. */
  values: GPUBuffer;
}

export interface CanonicalSort {
  /** Records the canonical order of `args.edges` into args.keys / args.values (layout above). */
  encode(rec: Recorder, args: CanonicalArgs): void;
}

/**
 * Compiles the two maps (cached per device by the context). `maxWindow`: edges per window at most (tests: several
 * windows with few edges); default: as many as the binding limit lets through.
 */
export async function createCanonicalSort(
  ctx: GpuContext,
  maxWindow = Number.POSITIVE_INFINITY,
): Promise<CanonicalSort> {
  const spec = (entry: string) =>
    ctx.kernel({
      label: `emst::canonical.${entry}`,
      shader: 'emst/canonical',
      entry,
      ...CANONICAL,
      workgroupSize: 256,
    });
  const [pairs, weights]: CanonicalKernel[] = await Promise.all([spec('pairs'), spec('weights')]);
  return {
    encode(rec, args) {
      const { count: m, n, sorter, keys, values } = args;
      if (m === 0) return;
      if (m >= Math.max(n, 1)) throw new InputError(`emst::canonical: ${m} edges for ${n} points (a forest has < n).`);
      if (sorter.keyWords !== 2 || sorter.maxCount < m) {
        throw new InputError(
          `emst::canonical: expected a sorter of 64-bit keys for ≥ ${m} pairs, got keyWords=${sorter.keyWords}, maxCount=${sorter.maxCount}.`,
        );
      }
      if (keys.size < 8 * m || values.size < 4 * m) {
        throw new InputError(
          `emst::canonical: ${m} edges need keys of ≥ ${8 * m} and values of ≥ ${4 * m} bytes, got ${keys.size} and ${values.size}.`,
        );
      }
      const bits = endBits(n);
      const limits = ctx.limits;
      // One window (the whole arrays) where everything fits one binding; else each window's ranges.
      const map = (kernel: CanonicalKernel) => {
        for (const w of windows(limits, m, [12, 8, 4], maxWindow)) {
          const buffers = {
            edges: windowBinding(limits, args.edges, 12, w),
            keys: windowBinding(limits, keys, 8, w),
            values: windowBinding(limits, values, 4, w),
          };
          rec.dispatch(kernel, { buffers, uniforms: { m: w.count, bits }, threads: w.count });
        }
      };
      map(pairs);
      sorter.encode(rec, { keys, values, count: m, bitsLo: 0, bitsHi: 2 * bits });
      map(weights);
      sorter.encode(rec, { keys, values, count: m, bitsLo: 32, bitsHi: 64 });
    },
  };
}

const SPLIT = {
  bindings: { u: 'uniform', keys: 'read', sources: 'read_write', weights: 'read_write' },
  uniforms: { m: 'u32', p0: 'u32', p1: 'u32', p2: 'u32' },
} as const;

/** Splits the result's m (source, weight bits) pairs into two u32 arrays (canonical_split.wgsl). */
export interface CanonicalSplit {
  encode(rec: Recorder, args: { keys: GPUBuffer; count: number; sources: Binding; weights: Binding }): void;
}

/**
 * The split of the canonical pairs into sources and weights, so that a read-back copies each straight into the
 * caller's array (pipeline.ts readEdges into shared arrays: no host pass). Compiled once per device; windowed as
 * the maps are (`maxWindow` likewise).
 */
export async function createCanonicalSplit(
  ctx: GpuContext,
  maxWindow = Number.POSITIVE_INFINITY,
): Promise<CanonicalSplit> {
  const split = await ctx.kernel({
    label: 'emst::canonical.split',
    shader: 'emst/canonical_split',
    entry: 'main',
    ...SPLIT,
    workgroupSize: 256,
  });
  return {
    encode(rec, { keys, count: m, sources, weights }) {
      if (m === 0) return;
      const limits = ctx.limits;
      for (const w of windows(limits, m, [8, 4, 4], maxWindow)) {
        const buffers = {
          keys: windowBinding(limits, keys, 8, w),
          sources: windowBinding(limits, sources, 4, w),
          weights: windowBinding(limits, weights, 4, w),
        };
        rec.dispatch(split, { buffers, uniforms: { m: w.count }, threads: w.count });
      }
    },
  };
}
