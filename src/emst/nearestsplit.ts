/**
 * Borůvka's traversal on a split BVH (issue 19): the subtree-window traversal planned in gpu/bigarray.ts's header,
 * for BVHs whose arrays exceed one storage binding. emst/nearest.wgsl binds every BVH array whole (and the boxes in
 * 3 parts) beside 15 storage buffers, so parts cannot grow there; instead:
 *
 *   windows  the Morton positions are cut into query windows (the queries' points, order, core distances,
 *            candidates and state) and tree windows (every BVH array: a subtree of the Karras hierarchy over leaves
 *            [a, b] holds only internal nodes of indices in [a, b], so a window's range of each array holds whole
 *            subtrees), each range within one binding at an accepted offset (gpu/bigarray.ts, windows);
 *   roots    once per run, one pass over the internal nodes finds each tree window's roots, the maximal subtrees
 *            inside it (emst/subtree_roots.wgsl: at most 2·96 a window);
 *   search   every round, one dispatch per (query window × tree window), tree windows in order: each query
 *            traverses the window's roots within its radius, and keeps its best candidate so far between dispatches
 *            in cand (emst/nearest_split.wgsl). Only the points that neither keep last round's candidate nor are
 *            bounded above their component's upper bound search (emst/active.wgsl's rule): emst/split_active.wgsl
 *            lists them per query window first (in the changes buffer, free then), so that the traversal's threads
 *            take only them.
 *
 * The candidates of the points that search equal the unsplit traversal's: the exact least (key, min index, max
 * index) over the points of other components within the upper bound, whatever the order of the windows and roots;
 * so the edges come out bit-identical to the unsplit path.
 * The fast path never sees any of this: Boruvka uses it only when a traversal array of this n does not fit one
 * binding, or when asked (tests, and TREELINE_EMST_SPLIT for A/B runs: forced windows of at most that many points).
 *
 * The rounds around it run on split arrays too (roundsplit.ts), so emst() takes what the BVH build's parts allow
 * (bvh/capacity.ts). What is left of issue 19's Borůvka:
 *  - the 4-byte arrays (order, label, ub here; roundsplit.ts's too) are read through generated accessors, in parts
 *    beyond one binding (5.4·10^8 points at the H100's 2 GiB). The search binds 10 windows and roots beside them
 *    (16 with 2 parts each); for mutual reachability 3 more windows (core distances, minCore2: emst::nearestSplit.mr),
 *    which leaves the 4-byte arrays one part each (bvh/capacity.ts);
 *  - the skipping of bounded points (active.wgsl) and issue 18's round shapes are off in the split path: the active
 *    list's points are in Morton order, so a query window's slice of it is a contiguous range (a per-window count
 *    from active.wgsl) — the next step if the split path's speed matters (it runs only above ~1.3·10^8 3D points on
 *    the H100);
 *  - the high-dimensional candidate lists (highdim.ts) do not join it (pipeline.ts drops them where it splits).
 */
import {
  absentArrayWgsl,
  bigArrayWgsl,
  bindParts,
  createUnusedParts,
  planParts,
  windows,
  windowBinding,
  type PartArray,
  type PartPlan,
  type Window,
} from '../gpu/bigarray.js';
import type { GpuContext } from '../gpu/context.js';
import { uniformBytes, type Bindings, type Kernel } from '../gpu/kernel.js';
import type { Binding, Recorder } from '../gpu/recorder.js';
import type { BvhBuffers } from '../bvh/lbvh.js';
import { boxRecordWords, boxRecords, type BoxFormat } from '../bvh/layout.js';
import { InputError } from '../errors.js';
import { WIN } from './roundsplit.js';

/** Words per tree window in the roots buffer: | count | roots … | (emst/subtree_roots.wgsl). */
export const ROOT_STRIDE = 256;
/** Storage buffers the split traversal binds (emst/nearest_split.wgsl). */
export const SPLIT_STORAGE_BUFFERS = 16;

/** Bytes per element of the arrays bound per query window: points, core2, cand, pointBound. */
const queryStrides = (dim: number) => [4 * dim, 4, 8, 4];
/** … and per tree window: links, boxes, childLabel, minCore2, ranges, points, core2. */
const treeStrides = (dim: number, boxes: BoxFormat) => [8, 4 * boxRecordWords(dim, boxes), 8, 8, 4, 4 * dim, 4];

/** How the split traversal cuts n points (maxElements: a smaller cap on a window, for tests and A/B runs). */
export interface SplitWindows {
  queries: Window[];
  trees: Window[];
}

/** The query and tree windows of n points on a device with these limits. */
export function splitWindows(
  limits: GpuContext['limits'],
  n: number,
  dim: number,
  maxElements = Number.POSITIVE_INFINITY,
  boxes: BoxFormat = 'f32',
): SplitWindows {
  return {
    queries: windows(limits, n, queryStrides(dim), maxElements),
    trees: windows(limits, n, treeStrides(dim, boxes), maxElements),
  };
}

/**
 * Whether the unsplit traversal (nearest.wgsl) cannot bind n points' arrays: one of the sorted points, links,
 * childLabel, minCore2 or the candidates (8 B) exceeds one binding. The boxes are in parts there (bvh/boxparts.ts).
 * Still at 16 bytes a point, what links took before they lost their minIndex words (bvh/layout.ts, issue 19): the
 * rounds' edges (12 B) are bound whole too, and the split path's range is left as it was measured.
 */
export function traversalSplits(limits: GpuContext['limits'], n: number, dim: number): boolean {
  const binding = limits.maxStorageBufferBindingSize;
  return Math.max(16, 4 * dim) * n > binding;
}

/** `TREELINE_EMST_SPLIT`: unset or '' (none), or the most points a forced window holds (a positive integer). */
export function splitFromEnv(
  value = typeof process !== 'undefined' ? process.env?.TREELINE_EMST_SPLIT : undefined,
): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const v = Number(value.trim());
  if (!Number.isInteger(v) || v < 1) {
    throw new InputError(
      `Expected TREELINE_EMST_SPLIT to be the most points of a window (a positive integer), got '${value}'.`,
    );
  }
  return v;
}

const ROOTS = {
  bindings: { p: 'uniform', links: 'read', ranges: 'read', roots: 'read_write' },
  uniforms: { n: 'u32', step: 'u32', first: 'u32', count: 'u32' },
} as const;
const SEARCH = {
  bindings: {
    u: 'uniform',
    pointsQ: 'read',
    pointsT: 'read',
    links: 'read',
    boxes: 'read',
    childLabel: 'read',
    roots: 'read',
    cand: 'read_write',
    pointBound: 'read_write',
    list: 'read',
    counts: 'read',
  },
  uniforms: {
    n: 'u32',
    mr: 'u32',
    ia2: 'f32',
    skip: 'u32',
    cut: 'u32',
    one: 'f32',
    tLast: 'u32',
    qWindow: 'u32',
    period: 'array<vec4f, 4>',
    qFirst: 'u32',
    qCount: 'u32',
    tFirst: 'u32',
    tWindow: 'u32',
  },
} as const;
const ACTIVE = {
  u: 'uniform',
  pointBound: 'read',
  cand: 'read_write',
  list: 'read_write',
  counts: 'read_write',
} as const;
/**
 * The 4-byte arrays the search and split_active read at any point (issue 19: whole, or in parts beyond one binding —
 * 5.4·10^8 points at the H100's 2 GiB): order, label (n labels and the "tree complete" flag) and the upper bounds.
 */
const WORDS: PartArray[] = [
  { name: 'order', type: 'u32', stride: 4, length: (n) => n, access: 'read' },
  { name: 'label', type: 'u32', stride: 4, length: (n) => n + 2, access: 'read' },
  { name: 'ub', type: 'u32', stride: 4, length: (n) => n, access: 'read' },
];
/** The mutual reachability's windowed arrays of the search, one binding each from binding 11 on (nearest_split.wgsl). */
const CORES = [
  { name: 'core2Q', type: 'f32' },
  { name: 'core2T', type: 'f32' },
  { name: 'minCore2', type: 'vec2f' },
] as const;

/** A kernel with generated 4-byte arrays: its plan and the buffer its empty slots bind. */
interface Planned<B extends Bindings, U extends typeof WIN | typeof SEARCH.uniforms> {
  kernel: Kernel<B, U>;
  plan: PartPlan;
  unused: GPUBuffer | null;
}
type Search = Planned<Bindings, typeof SEARCH.uniforms>;
/** Workgroups (of 32) of a search dispatch at most, as nearest.wgsl's grid (boruvka.ts, NEAREST_GROUPS). */
const SEARCH_GROUPS = 8192;

/** The arrays of one run (by the names Boruvka keeps them under). */
export interface SplitRunArrays {
  bvh: BvhBuffers;
  /** n squared core distances in Morton order, or any small buffer (Euclidean). */
  core2: GPUBuffer;
  mr: boolean;
  /** Per record (vec2f), or any small buffer (Euclidean). */
  minCore2: GPUBuffer;
  childLabel: GPUBuffer;
  label: GPUBuffer;
  ub: GPUBuffer;
  cand: GPUBuffer;
  /** 4 B per point: the final radius of each point's last search (nearest.wgsl). */
  pointBound: GPUBuffer;
  /** 4 B per point, free during the search: the searching points' lists (Boruvka's changes buffer). */
  list: GPUBuffer;
}

/** The round kernels' uniform values the search shares (boruvka.ts, EMST_PARAMS). */
export interface SplitParams {
  n: number;
  /** 1: points that keep their candidate or are bounded skip the search (BoruvkaRunOptions.skipBounded). */
  skip: number;
  mr: number;
  ia2: number;
  cut: number;
  period?: Float32Array;
}

export class SplitTraversal {
  private constructor(
    private readonly ctx: GpuContext,
    readonly dim: number,
    /** The most points a window holds (undefined: as many as the binding limit allows). */
    readonly maxElements: number | undefined,
    private readonly rootsKernel: Kernel<typeof ROOTS.bindings, typeof ROOTS.uniforms>,
    /** The search for Euclidean runs and for mutual reachability (compiled as runs need them: prepare). */
    private readonly searches: { euclidean?: Search; reachability?: Search },
    private readonly makeSearch: (mr: boolean) => Promise<Search>,
    private readonly active: Planned<Bindings, typeof WIN>,
    /** One count of searching points per query window (emst/split_active.wgsl). */
    private readonly counts: GPUBuffer,
    /**
     * ROOT_STRIDE words per tree window (emst/subtree_roots.wgsl; tests read it), then room for the u16 boxes' frame
     * (2·dim words, copied there by encodeRoots: a window of box records does not reach it).
     */
    readonly roots: GPUBuffer,
    private readonly maxN: number,
    /** The box format of the BVHs it traverses (bvh/layout.ts). */
    readonly boxes: BoxFormat,
  ) {}

  /**
   * Compiles the two kernels and allocates the roots for up to maxN points (`maxElements`: windows of at most that
   * many points, forcing the split even where the arrays fit).
   */
  static async create(
    ctx: GpuContext,
    maxN: number,
    dim: number,
    periodic: boolean,
    maxElements?: number,
    boxes: BoxFormat = 'f32',
    /** Compile the mutual-reachability search now (else on the first run that needs it: prepare). */
    reachability = false,
  ): Promise<SplitTraversal> {
    const stage = ctx.limits.maxStorageBuffersPerShaderStage;
    if (stage < SPLIT_STORAGE_BUFFERS) {
      throw new InputError(
        `emst: ${maxN} points need Borůvka's split traversal, which binds ${SPLIT_STORAGE_BUFFERS} storage buffers; this device binds ${stage} per stage.`,
      );
    }
    const include = ['common/grid', 'knn/distance', 'emst/common', 'bvh/range'];
    const n = Math.max(maxN, 2);
    // Forced windows (tests): the 4-byte arrays in two halves where the stage holds them (Euclidean: 10 + 6; the
    // mutual reachability's 3 windowed arrays leave room for one part each).
    const half = maxElements === undefined ? undefined : Math.ceil((n + 2) / 2 / 64) * 64;
    const words = (forced: boolean) => WORDS.map((w) => (forced && half ? { ...w, partElements: half } : w));
    const makeSearch = async (mr: boolean): Promise<Search> => {
      const label = mr ? 'emst::nearestSplit.mr' : 'emst::nearestSplit';
      const first = Object.keys(SEARCH.bindings).length;
      const cores = CORES.map((c, i) =>
        mr
          ? bigArrayWgsl({ ...c, access: 'read', binding: first + i, slots: 1, partElements: 1 })
          : absentArrayWgsl({ ...c, access: 'read' }),
      );
      const plan = planParts(ctx.limits, label, words(!mr), n, first + (mr ? CORES.length : 0));
      // planParts counts the parts only: with the windows beside them (bvh/capacity.ts refuses such n before).
      const slots = first - 1 + (mr ? CORES.length : 0) + plan.slots;
      if (slots > stage) {
        throw new InputError(
          `${label}: ${maxN} points need ${slots} storage buffers (${plan.arrays.map((a) => `${a.parts.parts} ${a.name}`).join(', ')} in parts); this device binds ${stage} per stage.`,
        );
      }
      const kernel = (await ctx.kernel({
        label,
        shader: 'emst/nearest_split',
        entry: 'main',
        bindings: {
          ...SEARCH.bindings,
          ...(mr ? Object.fromEntries(CORES.map((c) => [c.name, 'read'])) : {}),
          ...plan.bindings,
        } as Bindings,
        uniforms: SEARCH.uniforms,
        workgroupSize: 32,
        // Box records through bvh/boxget.wgsl, in the BVH's format (u16: the frame after the roots).
        include: [...include, 'bvh/boxget'],
        constants: {
          D: dim,
          PERIODIC: periodic ? 1 : 0,
          BOX16: boxes === 'u16' ? 1 : 0,
          BOXW: boxRecordWords(dim, boxes),
        },
        generated: [...cores, ...plan.generated],
      })) as Kernel<Bindings, typeof SEARCH.uniforms>;
      const unused = plan.slots > plan.arrays.length ? createUnusedParts(ctx, label, plan.slots) : null;
      return { kernel, plan, unused };
    };
    const activePlan = planParts(ctx.limits, 'emst::split_active', words(true).slice(1), n, Object.keys(ACTIVE).length);
    const [rootsKernel, search, active] = await Promise.all([
      ctx.kernel({
        label: 'emst::subtreeRoots',
        shader: 'emst/subtree_roots',
        entry: 'main',
        ...ROOTS,
        workgroupSize: 256,
        include: ['common/grid', 'bvh/range'],
      }),
      makeSearch(reachability),
      ctx.kernel({
        label: 'emst::split_active',
        shader: 'emst/split_active',
        entry: 'main',
        bindings: { ...ACTIVE, ...activePlan.bindings } as Bindings,
        uniforms: WIN,
        workgroupSize: 256,
        include: [...include, 'emst/split_common'],
        constants: { D: dim, PERIODIC: periodic ? 1 : 0 },
        generated: activePlan.generated,
      }),
    ]);
    const activeUnused =
      activePlan.slots > activePlan.arrays.length
        ? createUnusedParts(ctx, 'emst::split_active', activePlan.slots)
        : null;
    const shape = splitWindows(ctx.limits, Math.max(maxN, 1), dim, maxElements, boxes);
    const roots = ctx.createBuffer('emst::subtreeRoots', 4 * ROOT_STRIDE * Math.max(shape.trees.length, 1) + 8 * dim);
    const counts = ctx.createBuffer('emst::splitCounts', 16 * Math.ceil(Math.max(shape.queries.length, 1) / 4));
    return new SplitTraversal(
      ctx,
      dim,
      maxElements,
      rootsKernel as Kernel<typeof ROOTS.bindings, typeof ROOTS.uniforms>,
      reachability ? { reachability: search } : { euclidean: search },
      makeSearch,
      { kernel: active as Kernel<Bindings, typeof WIN>, plan: activePlan, unused: activeUnused },
      counts,
      roots,
      maxN,
      boxes,
    );
  }

  /** Compiles the search a run needs (Euclidean, or mutual reachability: `mr`) where it is not compiled yet. */
  async prepare(mr: boolean): Promise<void> {
    const key = mr ? 'reachability' : 'euclidean';
    this.searches[key] ??= await this.makeSearch(mr);
  }

  /** Whether a run of n points takes the split traversal: forced windows, or arrays that do not fit. */
  applies(n: number): boolean {
    return this.maxElements !== undefined || traversalSplits(this.ctx.limits, n, this.dim);
  }

  /** The windows of n points. */
  windows(n: number): SplitWindows {
    return splitWindows(this.ctx.limits, n, this.dim, this.maxElements, this.boxes);
  }

  /** Records the roots pass of a BVH of n ≥ 2 points (once per run, after the build). */
  encodeRoots(rec: Recorder, bvh: BvhBuffers, n: number): void {
    this.checkN(n);
    if (bvh.boxFormat !== this.boxes) {
      throw new InputError(`emst: the split traversal was made for ${this.boxes} boxes, got ${bvh.boxFormat}.`);
    }
    const { trees } = this.windows(n);
    const step = trees[0].count;
    rec.clear(this.roots, 0, 4 * ROOT_STRIDE * trees.length);
    // u16 boxes: the frame (bvh/layout.ts, after the last record) after the roots, where nearest_split.wgsl reads it
    // (its windows of box records do not reach it).
    if (this.boxes === 'u16') {
      const frame = 4 * boxRecordWords(this.dim, 'u16') * boxRecords(n);
      rec.copy(bvh.boxes, frame, this.roots, 4 * ROOT_STRIDE * trees.length, 8 * this.dim);
    }
    for (const w of trees) {
      // The window's internal nodes [first, min(end, n − 1)): none in a last window of leaf n − 1 alone.
      const nodes = { first: w.first, count: Math.min(w.first + w.count, n - 1) - w.first };
      if (nodes.count <= 0) continue;
      rec.dispatch(this.rootsKernel, {
        buffers: {
          links: windowBinding(this.ctx.limits, bvh.links, 8, nodes),
          ranges: windowBinding(this.ctx.limits, bvh.ranges, 4, nodes),
          roots: this.roots,
        },
        uniforms: { n, step, first: nodes.first, count: nodes.count },
        threads: nodes.count,
      });
    }
  }

  /** Records one round's search: every point's candidate into `cand` (as nearest_lite.wgsl writes them). */
  encode(rec: Recorder, params: SplitParams, a: SplitRunArrays): void {
    const { n } = params;
    this.checkN(n);
    const limits = this.ctx.limits;
    const { queries, trees } = this.windows(n);
    const dim = this.dim;
    const search = this.searches[a.mr ? 'reachability' : 'euclidean'];
    if (!search) {
      throw new InputError(
        `emst::nearestSplit: the ${a.mr ? 'mutual-reachability' : 'Euclidean'} search is not compiled (prepare).`,
      );
    }
    const words = { order: a.bvh.order, label: a.label, ub: a.ub };
    const parts = bindParts(limits, search.plan, words, n, search.unused);
    const activeParts = bindParts(limits, this.active.plan, words, n, this.active.unused);
    if (params.skip) rec.clear(this.counts);
    queries.forEach((q, qIndex) => {
      const query = {
        pointsQ: windowBinding(limits, a.bvh.sortedPoints, 4 * dim, q),
        cand: windowBinding(limits, a.cand, 8, q),
        pointBound: windowBinding(limits, a.pointBound, 4, q),
      };
      const list = windowBinding(limits, a.list, 4, q);
      if (params.skip) {
        rec.dispatch(this.active.kernel, {
          buffers: {
            pointBound: query.pointBound,
            cand: query.cand,
            list,
            counts: this.counts,
            ...activeParts,
          },
          uniforms: uniformBytes(this.active.kernel, {
            n,
            mr: params.mr,
            ia2: params.ia2,
            skip: params.skip,
            cut: params.cut,
            one: 1,
            period: params.period,
            first: q.first,
            count: q.count,
            p0: qIndex,
          }),
          threads: q.count,
        });
      }
      const groups = Math.min(Math.ceil(q.count / 32), SEARCH_GROUPS);
      trees.forEach((t, index) => {
        // Records [first, first + count): links, childLabel and minCore2 have n records (the header last), boxes
        // n − 1 (a last window of leaf n − 1 alone has none, and binds the first record, never read).
        const boxes = t.first < n - 1 ? { first: t.first, count: Math.min(t.first + t.count, n - 1) - t.first } : null;
        const cores: Record<string, Binding> = a.mr
          ? {
              core2Q: windowBinding(limits, a.core2, 4, q),
              core2T: windowBinding(limits, a.core2, 4, t),
              minCore2: windowBinding(limits, a.minCore2, 8, t),
            }
          : {};
        rec.dispatch(search.kernel, {
          buffers: {
            ...query,
            ...cores,
            ...parts,
            pointsT: windowBinding(limits, a.bvh.sortedPoints, 4 * dim, t),
            links: windowBinding(limits, a.bvh.links, 8, t),
            boxes: boxes
              ? windowBinding(limits, a.bvh.boxes, 4 * boxRecordWords(dim, this.boxes), boxes)
              : { buffer: a.bvh.boxes, offset: 0, size: 4 * boxRecordWords(dim, this.boxes) },
            childLabel: windowBinding(limits, a.childLabel, 8, t),
            roots: this.roots,
            list,
            counts: this.counts,
          },
          uniforms: uniformBytes(search.kernel, {
            n,
            mr: params.mr,
            ia2: params.ia2,
            skip: params.skip,
            cut: params.cut,
            one: 1,
            tLast: trees.length - 1,
            qWindow: qIndex,
            period: params.period,
            qFirst: q.first,
            qCount: q.count,
            tFirst: t.first,
            tWindow: index,
          }),
          groups,
        });
      });
    });
  }

  private checkN(n: number): void {
    if (!Number.isInteger(n) || n < 2 || n > this.maxN) {
      throw new InputError(`emst::nearestSplit: expected n to be an integer in [2, ${this.maxN}], got ${n}.`);
    }
  }

  destroy(): void {
    this.roots.destroy();
    this.counts.destroy();
    this.active.unused?.destroy();
    for (const k of Object.values(this.searches)) k?.unused?.destroy();
  }
}
