/**
 * Every kernel's declared bindings and uniform layout agree with its WGSL (issue 16 §3). The kernels are created
 * through their own modules' create functions against a stub context whose `kernel()` only composes the WGSL and
 * checks it (`composeChecked`), so no GPU is needed; each optional-feature variant is created once.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GpuContext, GpuFeatures } from '../../src/gpu/context.js';
import { composeChecked, resolveBindings, writeUniforms, type KernelSpec } from '../../src/gpu/kernel.js';
import { createScanner } from '../../src/primitives/scan.js';
import { createCompactor } from '../../src/primitives/compact.js';
import { createReducer } from '../../src/primitives/reduce.js';
import { createRadixSorter } from '../../src/primitives/radixsort.js';
import { createUnionFind } from '../../src/unionfind/unionfind.js';
import { createBvhBuilder } from '../../src/bvh/lbvh.js';
import { createPointScatterer } from '../../src/bvh/scatter.js';
import { createKnnSearcher } from '../../src/knn/knn.js';
import { Boruvka } from '../../src/emst/boruvka.js';
import { createGatherer } from '../../src/emst/gather.js';
import { createGraphMsf, type GpuGraph } from '../../src/graph/eclmst.js';
import { GpuBranches } from '../../src/stats/branches.js';
import { GpuBinning } from '../../src/stats/binning.js';
import { benchCopy } from '../../src/bench/copy.js';
import { createExemplarDistanceKernel } from '../../src/cluster/exemplars.distance.js';
import { createCanonicalSort, createCanonicalSplit } from '../../src/emst/canonical.js';
import { GpuDendrogram } from '../../src/cluster/dendrogram.js';
import { GpuCondenser } from '../../src/cluster/condense.rows.js';
import { createPointChecker } from '../../src/emst/pointcheck.js';
import { GpuCandidateLists } from '../../src/emst/highdim.js';

const LIMITS: Record<string, number> = {
  maxStorageBuffersPerShaderStage: 16,
  maxComputeInvocationsPerWorkgroup: 1024,
  maxComputeWorkgroupSizeX: 1024,
  maxComputeWorkgroupStorageSize: 32768,
  maxComputeWorkgroupsPerDimension: 65535,
  minStorageBufferOffsetAlignment: 256,
  minUniformBufferOffsetAlignment: 256,
  maxStorageBufferBindingSize: 2 ** 31 - 4,
  maxBufferSize: 2 ** 32,
};

/** A context that composes and checks kernels but has no device; buffers are inert stand-ins. */
function stubContext(features: GpuFeatures): { ctx: GpuContext; specs: KernelSpec[] } {
  const specs: KernelSpec[] = [];
  const limits = new Proxy(LIMITS, { get: (t, k) => (typeof k === 'string' && k in t ? t[k] : 2 ** 30) });
  const buffer = (label: string, size: number) => ({ label, size, usage: 0, destroy() {} });
  const ctx = {
    features,
    limits,
    maxWorkgroupsPerDimension: 65535,
    device: { limits, adapterInfo: { subgroupMinSize: 32, subgroupMaxSize: 32 }, queue: { writeBuffer() {} } },
    check() {},
    kernel(spec: KernelSpec) {
      specs.push(spec);
      const { bindings } = composeChecked(spec);
      return Promise.resolve({ spec, bindings, pipeline: null, layout: null });
    },
    createBuffer: buffer,
    upload: (label: string, data: ArrayBufferView) => buffer(label, data.byteLength),
  };
  return { ctx: ctx as unknown as GpuContext, specs };
}

const VARIANTS: GpuFeatures[] = [
  { subgroups: false, timestampQuery: false, atomicVec2uMinMax: false },
  { subgroups: true, timestampQuery: true, atomicVec2uMinMax: true },
];

/** Creates every kernel of the project under `features`; returns the specs composed. */
async function createEveryKernel(features: GpuFeatures): Promise<KernelSpec[]> {
  const { ctx, specs } = stubContext(features);
  await createScanner(ctx, 1 << 20);
  await createScanner(ctx, 1 << 20, { strategy: 'lookback' });
  await createCompactor(ctx, 1 << 20);
  await createReducer(ctx, 1 << 20);
  await createRadixSorter(ctx, { maxCount: 1 << 20, keyWords: 1 });
  await createRadixSorter(ctx, { maxCount: 1 << 20, keyWords: 2 });
  await createUnionFind(ctx, 1 << 20);
  await createGatherer(ctx, 1000);
  // src in 4 parts (bigarray.ts): the generated declarations and accessor checked like any kernel's.
  await createGatherer(ctx, 1000, { partElements: 256 });
  await GpuBranches.create(ctx, 1000, 3);
  await GpuBranches.create(ctx, 1000, 2, true);
  await GpuBinning.create(ctx);
  await benchCopy(ctx, 1 << 10);
  await createCanonicalSort(ctx);
  await createCanonicalSplit(ctx);
  await createPointChecker(ctx);
  await GpuCandidateLists.create(ctx, 1000, 16, 'brute', 16);
  await GpuCandidateLists.create(ctx, 1000, 16, 'brute', 16, 2);
  await GpuCandidateLists.create(ctx, 1000, 8, 'brute', 16, 1, true);
  await GpuCandidateLists.create(ctx, 1000, 8, 'bvh', 8);
  await GpuDendrogram.create(ctx, 1 << 20);
  await GpuCondenser.create(ctx, 1 << 20);
  const buf = ctx.createBuffer('test::graph', 4096);
  for (const kind of ['edges', 'csr'] as const) {
    const graph: GpuGraph = { kind, numVertices: 100, slots: 300, capacity: 300, weightKind: 'f32', weights: buf };
    Object.assign(graph, kind === 'edges' ? { sources: buf, targets: buf } : { offsets: buf, neighbours: buf });
    await createGraphMsf(ctx, graph);
    // Issue 18's options: read-only parents (graph/parent_ro), tagged guards, row minima, fill resets.
    const options = { finds: 'plain', guard: 'tagged', rowMinima: true, fillResets: true } as const;
    await createGraphMsf(ctx, { ...graph, sortedRows: true }, options);
    // Issue 19: the kernels on split arrays (graph/split_*).
    await createGraphMsf(ctx, graph, { split: true });
  }
  for (const dim of [2, 3, 5]) {
    await createBvhBuilder(ctx, { maxCount: 1 << 20, dim });
    // Issue 18's build variants: the refit by chunks of leaves in workgroup memory (bvh/refit_chunk).
    await createBvhBuilder(ctx, { maxCount: 1 << 20, dim, refitChunk: true });
    // Issue 18's prefix sort of the Morton codes (bvh/prefix: prefix, runs; the 32-bit and guarded sorters).
    await createBvhBuilder(ctx, { maxCount: 1 << 20, dim, prefixSort: true });
    // Issue 19's memory: the scatter that undoes an in-place build's gather (GpuEmst.restorePoints).
    await createPointScatterer(ctx, 1 << 20, dim);
    await createPointScatterer(ctx, 500, dim, { partElements: 256 });
    await createKnnSearcher(ctx, { dim, k: 16 });
    await createExemplarDistanceKernel(ctx, dim);
    await createKnnSearcher(ctx, { dim, k: 40, output: 'kth', rows: 'morton' });
    // Issue 19: the BVH's arrays in parts, the outputs in windows moved to original rows (knn/permute).
    await createKnnSearcher(ctx, { dim, k: 16, maxCount: 1 << 16, partElements: 1 << 17, maxWindow: 1 << 12 });
    for (const periodic of [false, true]) {
      for (const lean of [false, true]) {
        await (await Boruvka.create(ctx, 1 << 20, dim, periodic, undefined, lean)).compileReachability();
      }
      // Issue 19: the split traversal (emst/subtree_roots, emst/nearest_split).
      await Boruvka.create(ctx, 1 << 20, dim, periodic, undefined, false, {}, { split: 1 << 12 });
    }
    // Issue 18's shapes of the round passes besides the default (the old entries, relabel.fused, the first round's).
    const first = { firstRound: true, firstTraversal: true, queryRegs: true, lazyOrder: true };
    for (const rounds of [{}, { holders: true, fusedLabels: true, groupMin: true }, first]) {
      await Boruvka.create(ctx, 1 << 20, dim, false, undefined, false, {}, { rounds });
    }
  }
  return specs;
}

/** `shader:entry` of every `@compute` entry point under shaders/ (test shaders aside). */
function everyEntryPoint(): Set<string> {
  const root = join(__dirname, '../../shaders');
  const out = new Set<string>();
  for (const dir of readdirSync(root)) {
    if (dir === 'test') continue;
    for (const file of readdirSync(join(root, dir))) {
      const code = readFileSync(join(root, dir, file), 'utf8');
      for (const m of code.matchAll(/@compute[^\n]*\n?\s*fn\s+(\w+)/g))
        out.add(`${dir}/${file.replace(/\.wgsl$/, '')}:${m[1]}`);
    }
  }
  return out;
}

describe('typed GPU bindings', () => {
  it('every kernel of the project declares the bindings and uniform fields its WGSL declares', async () => {
    const seen = new Set<string>();
    const positional = new Set<string>();
    for (const features of VARIANTS) {
      for (const spec of await createEveryKernel(features)) {
        seen.add(`${spec.shader}:${spec.entry}`);
        if (Array.isArray(spec.bindings) || !spec.uniforms) positional.add(spec.label);
      }
    }
    // Every kernel declares its bindings by name and its uniform fields by type.
    expect([...positional]).toEqual([]);
    const missing = [...everyEntryPoint()].filter((e) => !seen.has(e));
    expect(missing).toEqual([]);
  });

  it('composing a kernel whose binding name disagrees with the WGSL throws, naming the kernel and both sides', () => {
    const spec: KernelSpec = {
      label: 'test::mismatch',
      shader: 'primitives/reduce',
      entry: 'reduce',
      bindings: { u: 'uniform', source: 'read', dst: 'read_write' },
      workgroupSize: 256,
      include: ['common/grid', 'primitives/reduce_wg_shared'],
      constants: { ITEMS: 4 },
    };
    expect(() => composeChecked(spec)).toThrow(
      /test::mismatch: binding 1 is declared as source: 'read' in the kernel spec, but the WGSL declares var<storage, read> src at @binding\(1\)/,
    );
  });

  it('composing a kernel whose binding access disagrees with the WGSL throws', () => {
    const spec: KernelSpec = {
      label: 'test::access',
      shader: 'unionfind/roots',
      entry: 'countRoots',
      bindings: { roots_u: 'uniform', roots_parent: 'read_write', roots_total: 'read_write' },
      workgroupSize: 64,
    };
    expect(() => composeChecked(spec)).toThrow(
      /test::access: binding 1 is declared as roots_parent: 'read_write'.*var<storage, read> roots_parent/,
    );
  });

  it('composing a kernel whose uniform fields disagree with the WGSL struct throws, naming both layouts', () => {
    const spec: KernelSpec = {
      label: 'test::uniforms',
      shader: 'unionfind/roots',
      entry: 'countRoots',
      bindings: { roots_u: 'uniform', roots_parent: 'read', roots_total: 'read_write' },
      uniforms: { n: 'f32', pad0: 'u32', pad1: 'u32', pad2: 'u32' },
      workgroupSize: 64,
    };
    expect(() => composeChecked(spec)).toThrow(
      /test::uniforms: uniform layout \{ n: f32, pad0: u32, pad1: u32, pad2: u32 \} in the kernel spec, but the WGSL's struct RootsParams is \{ n: u32, pad0: u32, pad1: u32, pad2: u32 \}/,
    );
  });

  it('the uniform writer puts each field through its declared type and refuses a float in a u32 field', () => {
    const spec: KernelSpec = {
      label: 'test::writer',
      shader: 'x',
      entry: 'main',
      bindings: { u: 'uniform' },
      uniforms: { n: 'u32', eps: 'f32', shift: 'i32', pad: 'u32', box: 'array<vec4f, 2>' },
      workgroupSize: 1,
    };
    const r = resolveBindings(spec);
    expect(r.uniformSize).toBe(48);
    const bytes = writeUniforms(spec.label, r, { n: 7, eps: 0.5, shift: -1, box: [1, 2, 3, 4, 5] });
    const u32 = new Uint32Array(bytes.buffer);
    const f32 = new Float32Array(bytes.buffer);
    expect([u32[0], f32[1], u32[2], u32[3]]).toEqual([7, 0.5, 0xffffffff, 0]);
    expect(Array.from(f32.subarray(4, 9))).toEqual([1, 2, 3, 4, 5]);
    expect(() => writeUniforms(spec.label, r, { n: 0.5 })).toThrow(/test::writer: uniform field n is u32, got 0.5/);
    expect(() => writeUniforms(spec.label, r, { m: 1 })).toThrow(/test::writer: no uniform field m/);
  });
});
