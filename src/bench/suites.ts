/**
 * The benchmark suites `treeline bench` knows: each makes a BenchCase for a size and derives its rates from the
 * GPU time. Sizes default to the ones the issues' acceptance figures name.
 */
import type { GpuContext } from '../gpu/context.js';
import type { BenchCase } from './harness.js';
import { readFile } from 'node:fs/promises';
import { benchCopy } from './copy.js';
import { benchGraphMst } from './graph.js';
import { benchBoruvka } from './emst.boruvka.js';
import { benchScan } from './primitives.scan.js';
import { benchReduce } from './primitives.reduce.js';
import { benchRadixSort } from './primitives.radixsort.js';

export interface BenchSuite {
  description: string;
  defaultSizes: number[];
  make: (ctx: GpuContext, n: number) => Promise<BenchCase>;
  /** Suites that run on input files (`--input`) instead of sizes: n is then what the file reports. */
  fromFile?: (ctx: GpuContext, path: string) => Promise<BenchCase & { n: number; notes?: () => string }>;
  rates: (n: number, gpuMs: number) => Record<string, number>;
}

const perSecond = (count: number, ms: number) => count / (ms / 1e3);

export const suites: Record<string, BenchSuite> = {
  copy: {
    description: 'plain u32 copy (vec4 per thread): the bandwidth baseline',
    defaultSizes: [1 << 28],
    make: benchCopy,
    rates: (n, ms) => ({ 'Gelem/s': perSecond(n, ms) / 1e9, 'TB/s (read+write)': perSecond(8 * n, ms) / 1e12 }),
  },
  scan: {
    description: 'exclusive scan of u32 (rate counted as a copy: one read and one write per element)',
    defaultSizes: [1 << 28],
    make: (ctx, n) => benchScan(ctx, n),
    rates: (n, ms) => ({ 'Gelem/s': perSecond(n, ms) / 1e9, '% of 375 G/s copy rate': (100 * perSecond(n, ms)) / 375e9 }),
  },
  'reduce-sum-u32': {
    description: 'sum of u32',
    defaultSizes: [1 << 28],
    make: (ctx, n) => benchReduce(ctx, n, { op: 'sum', type: 'u32' }),
    rates: (n, ms) => ({ 'Gelem/s': perSecond(n, ms) / 1e9, 'TB/s read': perSecond(4 * n, ms) / 1e12 }),
  },
  'reduce-min-f32': {
    description: 'min of f32',
    defaultSizes: [1 << 28],
    make: (ctx, n) => benchReduce(ctx, n, { op: 'min', type: 'f32' }),
    rates: (n, ms) => ({ 'Gelem/s': perSecond(n, ms) / 1e9, 'TB/s read': perSecond(4 * n, ms) / 1e12 }),
  },
  radix32: {
    description: 'stable radix sort of (u32 key, u32 value) pairs, all 32 key bits',
    defaultSizes: [1 << 25],
    make: (ctx, n) => benchRadixSort(ctx, n, 1),
    rates: (n, ms) => ({ 'G pairs/s': perSecond(n, ms) / 1e9 }),
  },
  radix64: {
    description: 'stable radix sort of (64-bit key, u32 value) pairs, all 64 key bits',
    defaultSizes: [1 << 25],
    make: (ctx, n) => benchRadixSort(ctx, n, 2),
    rates: (n, ms) => ({ 'G pairs/s': perSecond(n, ms) / 1e9 }),
  },
  graph: {
    description: 'graph MSF (ECL-MST style) of .egr files given with --input; timed like ECL-MST (CSR resident)',
    defaultSizes: [],
    make: () => Promise.reject(new Error('the graph suite needs --input FILE.egr')),
    fromFile: async (ctx, path) => {
      const c = await benchGraphMst(ctx, new Uint8Array(await readFile(path)));
      return {
        ...c,
        n: c.undirectedEdges,
        notes: () =>
          `${path}: ${c.numVertices} vertices, ${c.undirectedEdges} undirected edges; scratch beyond the CSR ` +
          `${(c.scratchBytes / 2 ** 20).toFixed(1)} MiB = ${c.scratchBytesPerEdge.toFixed(1)} B/edge`,
      };
    },
    rates: (m, ms) => ({ 'M edges/s': m / (ms / 1e3) / 1e6 }),
  },
  'boruvka-normal3d': {
    description: 'GPU Borůvka phase only (BVH from the CPU twin), normal 3D points',
    defaultSizes: [1_000_000, 10_000_000],
    make: (ctx, n) => benchBoruvka(ctx, n, 3, 'normal'),
    rates: (n, ms) => ({ 'MFeatures/s': (3 * n) / (ms / 1e3) / 1e6 }),
  },
  'boruvka-normal3d-noskip': {
    description: 'ablation: boruvka-normal3d without skipping bounded points',
    defaultSizes: [10_000_000],
    make: (ctx, n) => benchBoruvka(ctx, n, 3, 'normal', { skipBounded: false }),
    rates: (n, ms) => ({ 'MFeatures/s': (3 * n) / (ms / 1e3) / 1e6 }),
  },
  'boruvka-uniform2d': {
    description: 'GPU Borůvka phase only (BVH from the CPU twin), uniform 2D points',
    defaultSizes: [1_000_000, 10_000_000],
    make: (ctx, n) => benchBoruvka(ctx, n, 2, 'uniform'),
    rates: (n, ms) => ({ 'MFeatures/s': (2 * n) / (ms / 1e3) / 1e6 }),
  },
};
