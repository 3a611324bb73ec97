/**
 * MiSTree's degree, edge lengths and branches on the GPU, from a tree's edge list; CPU twins: branches.cpu.ts and
 * lengths.ts (same definitions, same branch order: by the smaller end edge id). Steps:
 *
 *   stats::degree   degree and XOR link of every node (atomics)                      shaders/stats/degree.wgsl
 *   stats::lengths  every edge's length from the coordinates                         shaders/stats/lengths.wgsl
 *   stats::walk     one walk per end edge; the one from the smaller end node reports,  shaders/stats/walk.wgsl
 *                   at the smaller end edge id
 *   (compaction)    the reporting edges, in edge order                                src/primitives/compact.ts
 *   stats::binning  MiSTree's histograms, counted where the values are (optional)      src/stats/binning.ts
 *   stats::gather   their records, read back: edge count, ends, length, end-to-end      shaders/stats/gather.wgsl
 *                   (only when the arrays are asked for: otherwise only counts and histograms cross the bus)
 *
 * The edges are two u32 arrays or the EMST's own | source | target | key | records in the order Borůvka found
 * them (pipeline.ts `afterGpu`): degrees, lengths and branches do not depend on the order (each branch is summed
 * from its smaller end node), so neither do the histograms.
 *
 * The walks read memory at random wherever node ids are not spatially ordered — on the GPU tens of millions run
 * at once, which is what makes the statistics of 10^8 points take milliseconds instead of the CPU's seconds.
 * Lengths are float32, measured from the coordinates (minimum image without cancellation: shaders/stats/image.wgsl);
 * the CPU twins measure in float64, so they agree to float32 rounding per edge.
 *
 * Big arrays (issue 19, gpu/bigarray.ts): the element-wise steps (degree over edges, lengths, the gather) run in
 * windows where their arrays exceed one binding, and every array read or written at random (degrees, links, points,
 * the walks' edges and records) is bound in parts, planned for maxN at creation; whole where it fits (the kernels of
 * before). The compaction's flags and the walk's parts must fit (bvh/capacity.ts lists them).
 *
 * Create once per (maxN, dim, periodic), run many.
 */
import type { GpuContext } from '../gpu/context.js';
import { uniformBytes, type Bindings, type Kernel, type UniformLayout } from '../gpu/kernel.js';
import {
  bindParts,
  createUnusedParts,
  planParts,
  windowBinding,
  windows,
  type PartArray,
  type PartPlan,
} from '../gpu/bigarray.js';
import type { Recorder } from '../gpu/recorder.js';
import { createCompactor, type Compactor } from '../primitives/compact.js';
import { InputError } from '../errors.js';
import { gpuMstHistograms, type GpuBinning } from './binning.js';
import { mstHistograms, type MstBins } from './histogram.js';
import type { MstHistograms } from './types.js';

export interface GpuBranchesResult {
  /** Per node: its degree. */
  degree: Uint32Array;
  /** Per edge: its float32 length (minimum image in a periodic box). */
  edgeLengths: Float32Array;
  /** Per branch (ordered by its smaller end edge id): the float32 sum of its edge lengths. */
  lengths: Float32Array;
  /** Per branch: its number of edges (≥ 2). */
  edgeCounts: Uint32Array;
  /** Per branch b: ends[2b] (the end of its smaller end edge) and ends[2b + 1]. */
  ends: Uint32Array;
  /** Per branch: the end-to-end distance (straight line; summed minimum-image displacements in a periodic box). */
  endToEnd: Float32Array;
}

function noBranches() {
  return {
    lengths: new Float32Array(0),
    edgeCounts: new Uint32Array(0),
    ends: new Uint32Array(0),
    endToEnd: new Float32Array(0),
  };
}

/** A tree's m edges on the GPU: two u32 arrays, or the EMST's records | source | target | key | (boruvka.ts). */
export type GpuEdges = { sources: GPUBuffer; targets: GPUBuffer } | { records: GPUBuffer };

/** What a run reads back besides the counts: the per-item arrays, and/or the histograms counted on the GPU. */
export interface GpuBranchesRunOptions {
  period?: Float32Array;
  /** Read the per-node, per-edge and per-branch arrays back (default true); false leaves them empty. */
  arrays?: boolean;
  /** Count MiSTree's histograms on the GPU (binning.ts); lengths on the GPU are the host's divided by `scale`. */
  histograms?: { binning: GpuBinning; bins?: MstBins; normalised?: boolean; scale?: number };
  /** Per-phase wall times (`stats::…`) are added here. */
  timings?: Record<string, number>;
}

/**
 * Each kernel's own bindings and uniform block (shaders/stats/<name>.wgsl, StatsParams in image.wgsl), by WGSL name;
 * the arrays of `partArrays` follow, generated (whole or in parts).
 */
const STATS_PARAMS = { m: 'u32', stride: 'u32', toff: 'u32', p2: 'u32', period: 'array<vec4f, 4>' } as const;
const DEGREE = {
  bindings: { u: 'uniform', sources: 'read', targets: 'read' },
  uniforms: { m: 'u32', stride: 'u32', toff: 'u32', base: 'u32' },
} as const;
const LENGTHS = {
  bindings: { u: 'uniform', sources: 'read', targets: 'read', lengths: 'read_write' },
  uniforms: STATS_PARAMS,
} as const;
const WALK = { bindings: { u: 'uniform' }, uniforms: STATS_PARAMS } as const;
const GATHER = {
  bindings: { u: 'uniform', kept: 'read', outRec: 'read_write', outE2e: 'read_write' },
  uniforms: { count: 'u32', p0: 'u32', p1: 'u32', p2: 'u32' },
} as const;
type Name = 'degree' | 'walk' | 'gather' | 'lengths';
type StatsKernel = Kernel<Bindings, typeof STATS_PARAMS>;

/** The arrays each kernel reaches at random, for n points and up to n − 1 edges (records: 3 words an edge). */
function partArrays(dim: number): Record<Name, PartArray[]> {
  const m = (n: number) => Math.max(n - 1, 1);
  const words = (name: string): PartArray => ({
    name,
    type: 'u32',
    stride: 4,
    length: (n) => 3 * m(n),
    access: 'read',
  });
  const node = (name: string, access: 'read' | 'read_write', atomic = false): PartArray => {
    return { name, type: 'u32', stride: 4, length: (n) => Math.max(n, 1), access, atomic };
  };
  const points: PartArray = {
    name: 'points',
    type: 'f32',
    stride: 4,
    length: (n) => Math.max(n * dim, 1),
    access: 'read',
  };
  const rec = (access: 'read' | 'read_write'): PartArray => {
    return { name: 'rec', type: 'vec4u', stride: 16, length: m, access };
  };
  const e2e = (access: 'read' | 'read_write'): PartArray => ({
    name: 'e2e',
    type: 'f32',
    stride: 4,
    length: m,
    access,
  });
  return {
    degree: [node('deg', 'read_write', true), node('link', 'read_write', true)],
    lengths: [points],
    walk: [
      words('sources'),
      words('targets'),
      node('deg', 'read'),
      node('link', 'read'),
      points,
      rec('read_write'),
      e2e('read_write'),
      { name: 'flags', type: 'u32', stride: 4, length: m, access: 'read_write' },
    ],
    gather: [rec('read'), e2e('read')],
  };
}

/** The first binding of each kernel's generated arrays (after its own, above). */
const FIRST_PART: Record<Name, number> = { degree: 3, lengths: 4, walk: 1, gather: 4 };

export class GpuBranches {
  private constructor(
    private readonly ctx: GpuContext,
    readonly maxN: number,
    readonly dim: number,
    readonly periodic: boolean,
    private readonly k: Record<Name, Kernel>,
    private readonly plans: Record<Name, PartPlan>,
    /** What slots beyond an array's last part bind (null: every array whole). */
    private readonly unused: GPUBuffer | null,
    private readonly compactor: Compactor,
  ) {}

  static async create(ctx: GpuContext, maxN: number, dim: number, periodic = false): Promise<GpuBranches> {
    const arrays = partArrays(dim);
    const names: Name[] = ['degree', 'lengths', 'walk', 'gather'];
    const plans = Object.fromEntries(
      names.map((name) => [
        name,
        planParts(ctx.limits, `stats::${name}`, arrays[name], Math.max(maxN, 2), FIRST_PART[name]),
      ]),
    ) as Record<Name, PartPlan>;
    const spec = (name: Name, { bindings, uniforms }: { bindings: Bindings; uniforms: UniformLayout }) =>
      ctx.kernel({
        label: `stats::${name}`,
        shader: `stats/${name}`,
        entry: 'main',
        bindings: { ...bindings, ...plans[name].bindings } as Bindings,
        uniforms,
        workgroupSize: name === 'walk' ? 64 : 256,
        include: name === 'walk' || name === 'lengths' ? ['common/grid', 'stats/image'] : ['common/grid'],
        constants: { D: dim, PERIODIC: periodic ? 1 : 0 },
        generated: plans[name].generated,
      });
    const k = {
      degree: await spec('degree', DEGREE),
      lengths: await spec('lengths', LENGTHS),
      walk: await spec('walk', WALK),
      gather: await spec('gather', GATHER),
    };
    const slots = Math.max(...names.map((name) => plans[name].slots));
    const split = names.some((name) => plans[name].slots > plans[name].arrays.length);
    const unused = split ? createUnusedParts(ctx, 'stats::branches', slots) : null;
    const compactor = await createCompactor(ctx, Math.max(maxN, 2));
    return new GpuBranches(ctx, maxN, dim, periodic, k, plans, unused, compactor);
  }

  /** The bindings of kernel `name`'s part-bound arrays (`buffers` by WGSL name) for n points. */
  private parts(name: Name, buffers: Record<string, GPUBuffer>, n: number) {
    return bindParts(this.ctx.limits, this.plans[name], buffers, Math.max(n, 2), this.unused);
  }

  /**
   * Degree, edge lengths and branches of the tree or forest whose m edges are `edges` over the n points in `points`
   * (n × dim f32, wrapped into the box when periodic); with `histograms`, MiSTree's histograms of them counted on the
   * GPU. Without `arrays` only the counts and the histograms cross the bus.
   */
  async run(
    points: GPUBuffer,
    n: number,
    edges: GpuEdges,
    m: number,
    options: GpuBranchesRunOptions = {},
  ): Promise<GpuBranchesResult & { numBranches: number; histograms: MstHistograms | null }> {
    const { ctx, k } = this;
    if (n > this.maxN)
      throw new InputError(`stats::branches: n=${n} exceeds the maxN=${this.maxN} it was created for.`);
    if (this.periodic !== (options.period !== undefined)) {
      throw new InputError(
        `stats::branches: created ${this.periodic ? '' : 'non-'}periodic, run with period=${options.period}.`,
      );
    }
    const arrays = options.arrays ?? true;
    const h = options.histograms;
    let t = performance.now();
    const lap = (label: string) => {
      const now = performance.now();
      if (options.timings) options.timings[label] = now - t;
      t = now;
    };
    if (m === 0 || n === 0) {
      // No edge: every degree is 0 and nothing runs on the GPU.
      const degree = new Uint32Array(n);
      const none = new Float64Array(0);
      const values = { degree, edgeLengths: none, branchLengths: none, branchShapes: none };
      const histograms = h ? mstHistograms(values, h.bins, h.normalised ?? true) : null;
      if (h) lap('stats::histograms');
      const result = { degree: arrays ? degree : new Uint32Array(0), edgeLengths: new Float32Array(0) };
      return { ...result, ...noBranches(), numBranches: 0, histograms };
    }
    const buf = (name: string, bytes: number) => ctx.createBuffer(`stats::${name}`, Math.max(bytes, 4));
    const deg = buf('degree', 4 * n);
    const link = buf('link', 4 * n);
    const rec = buf('walkRecords', 16 * m);
    const e2e = buf('walkEndToEnd', 4 * m);
    const flags = buf('walkFlags', 4 * m);
    const kept = buf('kept', 4 * m);
    const count = buf('keptCount', 4);
    const lengths = buf('edgeLengths', 4 * m);
    const made: GPUBuffer[] = [deg, link, rec, e2e, flags, kept, count, lengths];
    try {
      const [sources, targets] = 'records' in edges ? [edges.records, edges.records] : [edges.sources, edges.targets];
      const layout = 'records' in edges ? { stride: 3, toff: 1 } : { stride: 1, toff: 0 };
      const walkParams = { m, ...layout, p2: 0, period: options.period };
      const statsParams = uniformBytes(k.walk as StatsKernel, walkParams);
      const limits = ctx.limits;
      const edgeBytes = 4 * layout.stride;
      await ctx.submit('stats::branches', (r: Recorder) => {
        r.clear(deg, 0, 4 * n);
        r.clear(link, 0, 4 * n);
        r.clear(flags, 0, 4 * m);
        // Element-wise over edges: one window, the whole arrays, where they fit one binding.
        const degreeParts = this.parts('degree', { deg, link }, n);
        const lengthParts = this.parts('lengths', { points }, n);
        for (const w of windows(limits, m, [edgeBytes, 4])) {
          const ends = {
            sources: windowBinding(limits, sources, edgeBytes, w),
            targets: windowBinding(limits, targets, edgeBytes, w),
          };
          r.dispatch(k.degree, {
            buffers: { ...ends, ...degreeParts },
            uniforms: { m: w.count, ...layout, base: w.first },
            threads: w.count,
          });
          const lengthsAt = windowBinding(limits, lengths, 4, w);
          const params =
            w.count === m ? statsParams : uniformBytes(k.walk as StatsKernel, { ...walkParams, m: w.count });
          r.dispatch(k.lengths, {
            buffers: { ...ends, lengths: lengthsAt, ...lengthParts },
            uniforms: params,
            threads: w.count,
          });
        }
        r.dispatch(k.walk, {
          buffers: this.parts('walk', { sources, targets, deg, link, points, rec, e2e, flags }, n),
          uniforms: statsParams,
          threads: m,
        });
        this.compactor.encode(r, flags, flags, kept, count, m);
      });
      if (options.timings) {
        await ctx.onDone();
        lap('stats::branches');
      }
      let histograms: MstHistograms | null = null;
      if (h) {
        const walks = { words: rec, count: m, stride: 4, offset: 3, mask: flags };
        histograms = await gpuMstHistograms(
          ctx,
          h.binning,
          {
            degree: { words: deg, count: n },
            edgeLengths: { words: lengths, count: m },
            branchLengths: walks,
            branchShapes: { ...walks, other: e2e },
          },
          { ...h, timings: options.timings },
        );
        lap('stats::histograms');
      }
      const b = new Uint32Array(await ctx.read(count, 0, 4))[0];
      if (!arrays) {
        lap('stats::count');
        return {
          degree: new Uint32Array(0),
          edgeLengths: new Float32Array(0),
          ...noBranches(),
          numBranches: b,
          histograms,
        };
      }
      const [db, lb] = await Promise.all([ctx.read(deg, 0, 4 * n), ctx.read(lengths, 0, 4 * m)]);
      const degree = new Uint32Array(db);
      const edgeLengths = new Float32Array(lb);
      if (b === 0) {
        lap('stats::readback');
        return { degree, edgeLengths, ...noBranches(), numBranches: 0, histograms };
      }
      const outRec = buf('branchRecords', 16 * b);
      const outE2e = buf('branchEndToEnd', 4 * b);
      made.push(outRec, outE2e);
      await ctx.submit('stats::gather', (r: Recorder) => {
        const parts = this.parts('gather', { rec, e2e }, n);
        for (const w of windows(ctx.limits, b, [4, 16, 4])) {
          const at = (buffer: GPUBuffer, stride: number) => windowBinding(ctx.limits, buffer, stride, w);
          r.dispatch(k.gather, {
            buffers: { kept: at(kept, 4), outRec: at(outRec, 16), outE2e: at(outE2e, 4), ...parts },
            uniforms: { count: w.count },
            threads: w.count,
          });
        }
      });
      const [rb, eb] = await Promise.all([ctx.read(outRec, 0, 16 * b), ctx.read(outE2e, 0, 4 * b)]);
      const words = new Uint32Array(rb);
      const floats = new Float32Array(rb);
      const out = {
        degree,
        edgeLengths,
        lengths: new Float32Array(b),
        edgeCounts: new Uint32Array(b),
        ends: new Uint32Array(2 * b),
        endToEnd: new Float32Array(eb),
        numBranches: b,
        histograms,
      };
      for (let i = 0; i < b; i++) {
        out.edgeCounts[i] = words[4 * i];
        out.ends[2 * i] = words[4 * i + 1];
        out.ends[2 * i + 1] = words[4 * i + 2];
        out.lengths[i] = floats[4 * i + 3];
      }
      lap('stats::readback');
      return out;
    } finally {
      for (const x of made) x.destroy();
    }
  }

  destroy(): void {
    this.compactor.destroy();
    this.unused?.destroy();
  }
}

/**
 * Degree and branches of a host edge list on the GPU: uploads the points (float32, wrapped into the box when
 * periodic) and the edges, runs GpuBranches, frees everything. `ctx` stays alive.
 */
export async function branchesGpu(
  ctx: GpuContext,
  points: Float32Array,
  dim: number,
  tree: { sources: Uint32Array; targets: Uint32Array },
  period?: Float32Array,
): Promise<GpuBranchesResult> {
  const p = ctx.upload('stats::points', points.length > 0 ? points : new Float32Array(1));
  try {
    return await branchesOnGpu(ctx, p, points.length / dim, dim, tree, period);
  } finally {
    p.destroy();
  }
}

/** As branchesGpu, with the points already in a GPU buffer (n × dim f32): only the edges are uploaded. */
export async function branchesOnGpu(
  ctx: GpuContext,
  points: GPUBuffer,
  n: number,
  dim: number,
  tree: { sources: Uint32Array; targets: Uint32Array },
  period?: Float32Array,
): Promise<GpuBranchesResult> {
  const m = tree.sources.length;
  const g = await GpuBranches.create(ctx, Math.max(n, 1), dim, period !== undefined);
  const up = (name: string, a: Uint32Array) => ctx.upload(`stats::${name}`, a.length > 0 ? a : new Uint32Array(1));
  const bufs = [up('sources', tree.sources), up('targets', tree.targets)];
  try {
    const [sources, targets] = bufs;
    return await g.run(points, n, { sources, targets }, m, { period });
  } finally {
    for (const b of bufs) b.destroy();
    g.destroy();
  }
}
