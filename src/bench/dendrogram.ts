/**
 * Dendrogram benchmark (issue 17 §1), GPU-resident: from Borůvka's raw MST edges in a GPU buffer to the
 * single-linkage rows and parents in GPU buffers — the canonical order (emst/canonical.ts) and the dendrogram
 * (cluster/dendrogram.ts) — timed per kernel label; the MST is computed once beforehand. ArborX's dendrogram of
 * 10^7 normal 3D points (core 16) takes 4 ms on the H100 (DESIGN.md, anchors); treeline's host singleLinkage
 * 350–570 ms on 16 threads. `check` reads the rows back and compares them with singleLinkage of readEdges' edge
 * list (the host path), whole; the notes give the host's single-thread singleLinkage time on the same tree.
 */
import type { GpuContext } from '../gpu/context.js';
import type { BenchCase } from './harness.js';
import { GpuEmst } from '../emst/pipeline.js';
import { createCanonicalSort } from '../emst/canonical.js';
import { GpuDendrogram, readDendrogram, type DendrogramBuffers } from '../cluster/dendrogram.js';
import { singleLinkage } from '../cluster/linkage.js';
import { createRadixSorter } from '../primitives/radixsort.js';
import { generate, type GeneratorName } from '../datasets/generate.js';
import { metricOf } from '../emst/metric.js';
import { sortEdgesCanonical, type EdgeList } from '../emst/edges.cpu.js';

/**
 * The same on a synthetic tree instead of an EMST: a random path (points in random order, keys from `levels`
 * values; 0: all distinct) — the deepest dendrogram there is, the worst case of pointer chasing. `check` as above.
 */
export async function benchDendrogramPath(ctx: GpuContext, n: number, levels = 0): Promise<BenchCase> {
  const m = Math.max(0, n - 1);
  const order = Uint32Array.from({ length: n }, (_, i) => i);
  let state = 12345;
  const rand = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const raw = new Uint32Array(3 * Math.max(m, 1));
  const key = new Float32Array(1);
  const keyBits = new Uint32Array(key.buffer);
  for (let e = 0; e < m; e++) {
    raw[3 * e] = order[e];
    raw[3 * e + 1] = order[e + 1];
    key[0] = levels > 0 ? 1 + Math.floor(rand() * levels) : 1 + rand();
    raw[3 * e + 2] = keyBits[0];
  }
  const edges = ctx.upload('bench::pathEdges', raw);
  return treeCase(ctx, n, edges, m, async () => {
    const sources = new Uint32Array(m);
    const targets = new Uint32Array(m);
    const weights = new Float32Array(m);
    for (let e = 0; e < m; e++) {
      sources[e] = Math.min(raw[3 * e], raw[3 * e + 1]);
      targets[e] = Math.max(raw[3 * e], raw[3 * e + 1]);
      keyBits[0] = raw[3 * e + 2];
      weights[e] = Math.sqrt(key[0]);
    }
    return sortEdgesCanonical({ sources, targets, weights });
  }, () => edges.destroy(), `random path, ${levels ? `${levels} key levels` : 'random keys'}`);
}

export async function benchDendrogram(
  ctx: GpuContext,
  n: number,
  dim: number,
  kind: GeneratorName,
  minSamples = 1,
): Promise<BenchCase> {
  const points = generate(kind, { n, dim, seed: 1 });
  const buffer = ctx.upload('bench::points', points);
  const e = await GpuEmst.create(ctx, n, dim, metricOf(minSamples));
  const result = await e.run(buffer, n);
  buffer.destroy();
  const host = () => e.readEdges(result);
  return treeCase(ctx, n, result.edges, result.count, host, () => e.destroy(), `minSamples ${minSamples}`);
}

/** The timed case on raw MST edges (a, b, key) in a GPU buffer; `host` gives the host path's edge list. */
async function treeCase(
  ctx: GpuContext,
  n: number,
  edges: GPUBuffer,
  count: number,
  host: () => Promise<EdgeList>,
  free: () => void,
  what: string,
): Promise<BenchCase> {
  const [canonical, sorter] = await Promise.all([
    createCanonicalSort(ctx),
    createRadixSorter(ctx, { maxCount: Math.max(n, 1), keyWords: 2 }),
  ]);
  const dendrogram = await GpuDendrogram.create(ctx, Math.max(n, 1), { sorter });
  const keys = ctx.createBuffer('bench::canonicalKeys', 8 * Math.max(n, 1));
  const targets = ctx.createBuffer('bench::canonicalTargets', 4 * Math.max(n, 1));
  let out: DendrogramBuffers | null = null;
  let hostMs = 0;
  return {
    encode: (rec) => {
      canonical.encode(rec, { edges, count, n, sorter, keys, values: targets });
      out = dendrogram.encode(rec, { keys, targets, n });
    },
    check: async () => {
      const got = await readDendrogram(ctx, out!, keys);
      const list = await host();
      const t0 = performance.now();
      const want = singleLinkage(list, n);
      hostMs = performance.now() - t0;
      for (let i = 0; i < n - 1; i++) {
        if (
          got.left[i] !== want.left[i] ||
          got.right[i] !== want.right[i] ||
          got.size[i] !== want.size[i] ||
          got.distance[i] !== want.distance[i]
        ) {
          throw new Error(
            `bench::dendrogram: row ${i} is (${got.left[i]}, ${got.right[i]}, ${got.distance[i]}, ${got.size[i]}), ` +
              `singleLinkage's (${want.left[i]}, ${want.right[i]}, ${want.distance[i]}, ${want.size[i]})`,
          );
        }
      }
    },
    notes: () => `${what}; host singleLinkage (1 thread) on the host path's edges ${hostMs.toFixed(1)} ms`,
    destroy: () => {
      keys.destroy();
      targets.destroy();
      dendrogram.destroy();
      sorter.destroy();
      free();
    },
  };
}
