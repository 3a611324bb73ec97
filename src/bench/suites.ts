/**
 * The benchmark suites `treeline bench` knows: each makes a BenchCase for a size and derives its rates from the
 * GPU time. Sizes default to the ones the issues' acceptance figures name.
 */
import type { GpuContext } from '../gpu/context.js';
import type { BenchCase } from './harness.js';
import type { GeneratorName } from '../datasets/generate.js';
import { readFile } from 'node:fs/promises';
import { benchCopy } from './copy.js';
import { benchGraphMst } from './graph.js';
import type { GraphMsfOptions } from '../graph/eclmst.js';
import { benchBvh } from './bvh.js';
import { benchKnn } from './knn.js';
import { benchBoruvka } from './emst.boruvka.js';
import { benchEmst } from './emst.js';
import { benchScan } from './primitives.scan.js';
import { benchReduce } from './primitives.reduce.js';
import { benchRadixSort } from './primitives.radixsort.js';
import { benchMembership } from './membership.js';
import { benchDendrogram, benchDendrogramPath } from './dendrogram.js';
import { benchUpload } from './upload.js';
import { benchCompile } from './compile.js';
import { UPLOAD_METHODS } from '../gpu/upload.js';
import { benchReadback } from './readback.js';
import { READBACK_METHODS } from '../gpu/readback.js';

export interface BenchSuite {
  description: string;
  defaultSizes: number[];
  make: (ctx: GpuContext, n: number) => Promise<BenchCase>;
  /** Suites that run on input files (`--input`) instead of sizes: n is then what the file reports. */
  fromFile?: (ctx: GpuContext, path: string) => Promise<BenchCase & { n: number; notes?: () => string }>;
  rates: (n: number, gpuMs: number) => Record<string, number>;
}

const perSecond = (count: number, ms: number) => count / (ms / 1e3);


const mfeat = (dim: number) => (n: number, ms: number) => ({ 'MFeatures/s': (dim * n) / (ms / 1e3) / 1e6 });
const emstSuite = (
  description: string,
  kind: GeneratorName,
  dim: number,
  sizes: number[],
  options: { minSamples?: number; skipBounded?: boolean } = {},
): BenchSuite => ({
  description,
  defaultSizes: sizes,
  make: (ctx, n) => benchEmst(ctx, n, dim, kind, options),
  rates: mfeat(dim),
});

/** EMST rows of issue 4 (construction + Borůvka, GPU-resident), named after their data. */
export const emstSuites: Record<string, BenchSuite> = {
  'emst-normal3d': emstSuite('EMST, normal 3D (ArborX: 10^7 0.059 s, 3.7·10^7 0.224 s)', 'normal', 3, [1e6, 1e7, 3.7e7]),
  'emst-uniform3d': emstSuite('EMST, uniform 3D (ArborX: 10^7 0.069 s)', 'uniform', 3, [1e6, 1e7]),
  'emst-visualvar3d': emstSuite('EMST, Gan & Tao visual var 3D (ArborX: 10^7 0.062 s)', 'visualvar', 3, [1e7]),
  'emst-uniform2d': emstSuite('EMST, uniform 2D (ArborX: 10^7 0.047 s)', 'uniform', 2, [1e6, 1e7]),
  'emst-normal2d': emstSuite('EMST, normal 2D (ArborX: 10^8 0.427 s)', 'normal', 2, [1e6, 1e7]),
  'emst-mr5-normal3d': emstSuite('mutual reachability MST, minSamples 5, normal 3D (ArborX: 10^7 0.080 s)', 'normal', 3, [1e7], { minSamples: 5 }),
  'emst-mr16-normal3d': emstSuite('mutual reachability MST, minSamples 16, normal 3D (ArborX: 10^7 0.153 s)', 'normal', 3, [1e7], { minSamples: 16 }),
  // Issue 18's high-dimensional rows (TREELINE_HIGHDIM=off|brute|bvh picks the rounds' candidate lists, highdim.ts).
  'emst-normal8d': emstSuite('EMST, normal 8D (issue 18: 10^6 Must ≤ 0.200 s, Goal ≤ 0.100 s)', 'normal', 8, [1e6]),
  'emst-normal16d': emstSuite('EMST, normal 16D (issue 18: 10^6 Must ≤ 10 s, Goal ≤ 3 s)', 'normal', 16, [1e6]),
  // Between and below them, for choosing the candidate lists' source by dimension (highdim.ts).
  'emst-normal4d': emstSuite('EMST, normal 4D (ArborX: 10^7 0.121 s)', 'normal', 4, [1e7]),
  'emst-normal5d': emstSuite('EMST, normal 5D (ArborX: 10^7 0.264 s)', 'normal', 5, [1e7]),
  'emst-normal6d': emstSuite('EMST, normal 6D (ArborX: 10^7 0.578 s)', 'normal', 6, [1e6, 1e7]),
  'emst-normal12d': emstSuite('EMST, normal 12D', 'normal', 12, [1e6]),
  'emst-mr5-normal16d': emstSuite('mutual reachability MST, minSamples 5, normal 16D', 'normal', 16, [1e6], {
    minSamples: 5,
  }),
  'emst-normal3d-noskip': emstSuite('ablation: emst-normal3d without skipping bounded points', 'normal', 3, [1e7], { skipBounded: false }),
  'emst-uniform2d-noskip': emstSuite('ablation: emst-uniform2d without skipping bounded points', 'uniform', 2, [1e7], { skipBounded: false }),
};

/** The graph suite's --input occurrences so far per path, and the last file read (see its fromFile). */
const graphInputs = new Map<string, number>();
let graphBytes: { path: string; bytes: Uint8Array } | undefined;

export const suites: Record<string, BenchSuite> = {
  ...emstSuites,
  // Issue 17 §1: canonical order + dendrogram on the GPU, from Borůvka's edges to the rows (GPU-resident).
  'dendrogram-normal3d': {
    description: 'canonical edge order + single-linkage dendrogram of the EMST of normal 3D points (GPU-resident)',
    defaultSizes: [1e6, 1e7],
    make: (ctx, n) => benchDendrogram(ctx, n, 3, 'normal'),
    rates: (n, ms) => ({ 'M points/s': n / (ms / 1e3) / 1e6 }),
  },
  'dendrogram-blobs2d': {
    description: 'canonical edge order + single-linkage dendrogram of the EMST of 2D blobs (GPU-resident)',
    defaultSizes: [1e6, 1e7],
    make: (ctx, n) => benchDendrogram(ctx, n, 2, 'blobs'),
    rates: (n, ms) => ({ 'M points/s': n / (ms / 1e3) / 1e6 }),
  },
  'dendrogram-mr15-normal3d': {
    description: 'canonical order + dendrogram of the mutual-reachability MST (minSamples 15), normal 3D (ArborX: 10^7 4 ms)',
    defaultSizes: [1e6, 1e7],
    make: (ctx, n) => benchDendrogram(ctx, n, 3, 'normal', 15),
    rates: (n, ms) => ({ 'M points/s': n / (ms / 1e3) / 1e6 }),
  },
  'dendrogram-path': {
    description: 'canonical order + dendrogram of a random path with random keys: the deepest tree (GPU-resident)',
    defaultSizes: [1e6, 1e7],
    make: (ctx, n) => benchDendrogramPath(ctx, n),
    rates: (n, ms) => ({ 'M points/s': n / (ms / 1e3) / 1e6 }),
  },
  'dendrogram-path-ties': {
    description: 'canonical order + dendrogram of a random path with keys from 4 values (long runs of equal weights)',
    defaultSizes: [1e6, 1e7],
    make: (ctx, n) => benchDendrogramPath(ctx, n, 4),
    rates: (n, ms) => ({ 'M points/s': n / (ms / 1e3) / 1e6 }),
  },
  membership: {
    description:
      'allPointsMembershipVectors end to end on a fitted model of 3D blobs, GPU backend (host-timed; notes: the CPU backend)',
    defaultSizes: [1e6],
    make: (ctx, n) => benchMembership(ctx, n),
    rates: (n, ms) => ({ 'M points/s': n / (ms / 1e3) / 1e6 }),
  },
  // Host → GPU upload of n × 3 f32 by each method of src/gpu/upload.ts (host-timed; notes: the first upload).
  ...Object.fromEntries(
    UPLOAD_METHODS.map((method) => [
      method === 'staged' ? 'upload' : `upload-${method}`,
      {
        description: `host → GPU upload of n × 3 f32, ${method === 'staged' ? "the staging ring (treeline's default)" : `method '${method}'`} (host-timed)`,
        defaultSizes: [1e6, 1e7],
        make: (ctx: GpuContext, n: number) => benchUpload(ctx, n, method),
        rates: (n: number, ms: number) => ({ 'GB/s': (12 * n) / (ms / 1e3) / 1e9 }),
      } satisfies BenchSuite,
    ]),
  ),
  ...Object.fromEntries(
    [2, 32].map((mib) => [
      `upload-ring${mib}`,
      {
        description: `host → GPU upload of n × 3 f32 through the staging ring in ${mib} MiB chunks (host-timed)`,
        defaultSizes: [1e6, 1e7],
        make: (ctx: GpuContext, n: number) => benchUpload(ctx, n, 'staged', mib << 20),
        rates: (n: number, ms: number) => ({ 'GB/s': (12 * n) / (ms / 1e3) / 1e9 }),
      } satisfies BenchSuite,
    ]),
  ),
  // GPU → host read-back of n × 16 bytes by each method of src/gpu/readback.ts (host-timed; notes: first read,
  // a new destination, 4 reads together vs one after another).
  ...Object.fromEntries(
    READBACK_METHODS.map((method) => [
      method === 'ring' ? 'readback' : `readback-${method}`,
      {
        description: `GPU → host read-back of n × 16 bytes, ${method === 'ring' ? "the staging pool (treeline's default)" : `method '${method}'`} (host-timed)`,
        defaultSizes: [1e6, 1e7],
        make: (ctx: GpuContext, n: number) => benchReadback(ctx, n, method),
        rates: (n: number, ms: number) => ({ 'GB/s': (16 * n) / (ms / 1e3) / 1e9 }),
      } satisfies BenchSuite,
    ]),
  ),
  ...Object.fromEntries(
    [2, 32].map((mib) => [
      `readback-ring${mib}`,
      {
        description: `GPU → host read-back of n × 16 bytes through the staging pool in ${mib} MiB chunks (host-timed)`,
        defaultSizes: [1e6, 1e7],
        make: (ctx: GpuContext, n: number) => benchReadback(ctx, n, 'ring', mib << 20),
        rates: (n: number, ms: number) => ({ 'GB/s': (16 * n) / (ms / 1e3) / 1e9 }),
      } satisfies BenchSuite,
    ]),
  ),
  // Compilation on fresh contexts (issue 17 §5): the EMST's pipelines, as a first call creates them.
  'compile-emst3d': {
    description: 'GpuEmst.create (Euclidean, 3D) on a fresh GPU context per repetition (host-timed; notes: compile alone)',
    defaultSizes: [1e6],
    make: (ctx, n) => benchCompile(ctx, n, 3, 1),
    rates: () => ({}),
  },
  'compile-mr15-3d': {
    description: "GpuEmst.create (mutual reachability, minSamples 15: hdbscan's default) on a fresh GPU context per repetition",
    defaultSizes: [1e6],
    make: (ctx, n) => benchCompile(ctx, n, 3, 15),
    rates: () => ({}),
  },
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
  'scan-lookback': {
    description: 'exclusive scan of u32, single pass (decoupled look-back with fallback)',
    defaultSizes: [1 << 28],
    make: (ctx, n) => benchScan(ctx, n, { strategy: 'lookback' }),
    rates: (n, ms) => ({ 'Gelem/s': perSecond(n, ms) / 1e9, '% of 375 G/s copy rate': (100 * perSecond(n, ms)) / 375e9 }),
  },
  bvh: {
    description: 'linear BVH build of normal 3D points (ArborX: 10^7 4 ms, 3.7·10^7 12 ms)',
    defaultSizes: [1e7, 3.7e7],
    make: (ctx, n) => benchBvh(ctx, n),
    rates: mfeat(3),
  },
  // Issue 18: the prefix sort's worst case (one far outlier: every other point in one run of equal prefixes).
  'bvh-outlier': {
    description: 'bvh with point 0 moved to 10^6 on every axis (the prefix sort falls back to the full sort)',
    defaultSizes: [1e7, 3.7e7],
    make: (ctx, n) => benchBvh(ctx, n, { outlier: true }),
    rates: mfeat(3),
  },
  // Ablation of the refit's direct scans (lbvh.ts refitDirect; default 32): 1 = the atomic walk from every leaf.
  ...Object.fromEntries(
    [1, 8, 64].map((k) => [
      `bvh-direct${k}`,
      {
        description: `ablation: bvh with the refit scanning subtrees of ≤ ${k} leaves directly (default 32)`,
        defaultSizes: [1e7, 3.7e7],
        make: (ctx: GpuContext, n: number) => benchBvh(ctx, n, { refitDirect: k }),
        rates: mfeat(3),
      } satisfies BenchSuite,
    ]),
  ),
  knn1: {
    description: 'all-points 1-NN of normal 3D points (BVH built beforehand)',
    defaultSizes: [1e7],
    make: (ctx, n) => benchKnn(ctx, n, { k: 1 }),
    rates: (n, ms) => ({ 'M queries/s': n / (ms / 1e3) / 1e6 }),
  },
  'knn-core16': {
    description: 'all-points 16-NN core distances (k-th only) of normal 3D points (ArborX: 10^7 73 ms)',
    defaultSizes: [1e7],
    make: (ctx, n) => benchKnn(ctx, n, { k: 16, output: 'kth' }),
    rates: (n, ms) => ({ 'M queries/s': n / (ms / 1e3) / 1e6 }),
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
      // TREELINE_GRAPH_OPTIONS (JSON GraphMsfOptions) tunes the GPU algorithm in benchmark sweeps. An array of
      // option sets A/B-tests in one machine start: the k-th --input of the same file runs set k mod length
      // (`--input g.egr g.egr g.egr g.egr` alternates two sets twice), the file read and checked once.
      const env = process.env.TREELINE_GRAPH_OPTIONS;
      const sets: GraphMsfOptions[] = env ? [JSON.parse(env)].flat() : [{}];
      const seen = graphInputs.get(path) ?? 0;
      graphInputs.set(path, seen + 1);
      const options = sets[seen % sets.length];
      if (graphBytes?.path !== path) graphBytes = { path, bytes: new Uint8Array(await readFile(path)) };
      const c = await benchGraphMst(ctx, graphBytes.bytes, options);
      return {
        ...c,
        n: c.undirectedEdges,
        notes: () =>
          `${path} options ${JSON.stringify(options)}: ${c.numVertices} vertices, ${c.undirectedEdges} undirected edges; scratch beyond the CSR ` +
          `${(c.scratchBytes / 2 ** 20).toFixed(1)} MiB = ${c.scratchBytesPerEdge.toFixed(1)} B/edge; ${c.notes?.() ?? ''}`,
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
