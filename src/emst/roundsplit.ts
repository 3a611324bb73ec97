/**
 * Borůvka's rounds on arrays above one storage binding (issue 19), beside the split traversal (nearestsplit.ts):
 * the prelude and the per-round passes of boruvka.ts in the shape before issue 18 (relabel `main`, a separate
 * `changes` pass, node labels from scratch, every point in every minimum: no active list), each kernel bound per
 * window or in parts (gpu/bigarray.ts):
 *
 *   windows  element-wise arrays of 8 or more bytes a point or record — best (relabel), links, ranges and
 *            childLabel (nodelabels: a child's leaves come from its parent's range and split, no child record is
 *            read), points with a halo of 2 and cand (upperbounds), cand (best, bestmax, merge), cand (the fill);
 *   parts    random-access arrays — best (8 B a component, indexed by label: best, bestmax, merge), edges (12 B,
 *            appended: merge), the BVH's parents and minCore2 (the mutual-reachability prelude's climb);
 *   whole    the 4-byte arrays: label, ub, bestMax, union-find, changes and their scan, order, core2, the arrival
 *            flags (up to 5.4·10^8 points at the H100's 2 GiB; beyond that they would need parts too).
 *
 * Kernels: emst/split_relabel, split_nodelabels, split_upperbounds, split_best (`key`, `lo`), split_bestmax,
 * split_merge, split_mincore (uniform block emst/split_common.wgsl), and emst/changes and emst/fill unchanged. Each
 * computes what its unsplit original computes, so the tree is the unsplit one bit for bit (test/gpu/emst.split.test.ts
 * against the unsplit GPU path, the CPU backend and Prim). Boruvka takes this shape only where the traversal splits
 * (nearestsplit.ts: an array of the traversal above one binding, or forced windows): the fast path never sees it.
 */
import {
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
import { InputError } from '../errors.js';
import type { SplitParams } from './nearestsplit.js';

const NONE = 0xffffffff;

/** emst/split_common.wgsl's WinParams. */
export const WIN = {
  n: 'u32',
  mr: 'u32',
  ia2: 'f32',
  skip: 'u32',
  cut: 'u32',
  one: 'f32',
  pad1: 'u32',
  pad2: 'u32',
  period: 'array<vec4f, 4>',
  first: 'u32',
  count: 'u32',
  p0: 'u32',
  p1: 'u32',
} as const;
/** emst/common.wgsl's Params (the unchanged `changes` kernel). */
const PARAMS = {
  n: 'u32',
  mr: 'u32',
  ia2: 'f32',
  skip: 'u32',
  cut: 'u32',
  one: 'f32',
  pad1: 'u32',
  pad2: 'u32',
  period: 'array<vec4f, 4>',
} as const;
const FILL = {
  bindings: { f: 'uniform', out: 'read_write' },
  uniforms: { count: 'u32', value: 'u32', p0: 'u32', p1: 'u32' },
} as const;
const INCLUDE = ['common/grid', 'knn/distance', 'emst/common', 'emst/split_common', 'bvh/range'];

/** The arrays in parts, as u32 words (so that the accessors may be atomic). */
const BEST = (access: 'read' | 'read_write'): PartArray => ({
  name: 'best',
  type: 'u32',
  stride: 4,
  length: (n) => 2 * n,
  access,
  atomic: access === 'read_write',
});
const EDGES: PartArray = { name: 'edges', type: 'u32', stride: 4, length: (n) => 3 * n, access: 'read_write' };
const PARENTS: PartArray = { name: 'parents', type: 'u32', stride: 4, length: (n) => 2 * n - 1, access: 'read' };
const MIN_CORE: PartArray = { name: 'minCore2', type: 'u32', stride: 4, length: (n) => 2 * n, access: 'read_write' };

/** A kernel whose arrays are partly in parts: its plan and the unused buffer its empty slots bind. */
interface Planned {
  kernel: Kernel<Bindings, typeof WIN>;
  plan: PartPlan | null;
  unused: GPUBuffer | null;
}

/** Boruvka's buffers of a run, by the names it keeps them under. */
export interface SplitRoundArrays {
  bvh: BvhBuffers;
  label: GPUBuffer;
  chg: GPUBuffer;
  childLabel: GPUBuffer;
  ub: GPUBuffer;
  best: GPUBuffer;
  bestMax: GPUBuffer;
  cand: GPUBuffer;
  pointBound: GPUBuffer;
  edges: GPUBuffer;
  edgeCount: GPUBuffer;
  ufParent: GPUBuffer;
  core2: GPUBuffer;
  mr: boolean;
  /** 8 B per record (mutual reachability), else any small buffer. */
  minCore2: GPUBuffer;
}

/** What Boruvka records itself: the union-find's initialisation and the scan of the changes (n words, in place). */
export interface SplitRoundHooks {
  ufInit(rec: Recorder): void;
  scan(rec: Recorder): void;
}

export class SplitRounds {
  private constructor(
    private readonly ctx: GpuContext,
    readonly dim: number,
    private readonly maxN: number,
    private readonly maxElements: number | undefined,
    private readonly k: Record<'relabel' | 'nodelabels' | 'upperbounds', Kernel<Bindings, typeof WIN>>,
    private readonly changes: Kernel<Bindings, typeof PARAMS>,
    private readonly fill: Kernel<Bindings, typeof FILL.uniforms>,
    private readonly p: Record<'bestKey' | 'bestLo' | 'bestmax' | 'merge' | 'mincore', Planned>,
  ) {}

  /**
   * Compiles the kernels for up to maxN points; `maxElements`: windows of at most that many points, and parts of
   * about maxN elements (forced splits, tests: every windowed and part-bound path runs at small n).
   */
  static async create(
    ctx: GpuContext,
    maxN: number,
    dim: number,
    periodic: boolean,
    maxElements?: number,
  ): Promise<SplitRounds> {
    const n = Math.max(maxN, 2);
    const constants = { D: dim, PERIODIC: periodic ? 1 : 0 };
    const partElements = maxElements === undefined ? undefined : Math.max(n, 64);
    const win = (name: string, bindings: Bindings, extra: string[] = []) =>
      ctx.kernel({
        label: `emst::${name}`,
        shader: `emst/${name}`,
        entry: 'main',
        bindings,
        uniforms: WIN,
        workgroupSize: 256,
        include: [...INCLUDE, ...extra],
        constants,
      }) as Promise<Kernel<Bindings, typeof WIN>>;
    const planned = async (
      name: string,
      entry: string,
      fixed: Bindings,
      arrays: PartArray[],
      extra: string[] = [],
    ): Promise<Planned> => {
      const plan = planParts(ctx.limits, `emst::${name}`, arrays, n, Object.keys(fixed).length, partElements);
      const kernel = (await ctx.kernel({
        label: `emst::${name}${entry === 'main' ? '' : `.${entry}`}`,
        shader: `emst/${name}`,
        entry,
        bindings: { ...fixed, ...plan.bindings } as Bindings,
        uniforms: WIN,
        workgroupSize: 256,
        include: [...INCLUDE, ...extra],
        constants,
        generated: plan.generated,
      })) as Kernel<Bindings, typeof WIN>;
      const unused = plan.slots > plan.arrays.length ? createUnusedParts(ctx, `emst::${name}`, plan.slots) : null;
      return { kernel, plan, unused };
    };
    const bestFixed = { u: 'uniform', label: 'read', cand: 'read', order: 'read' } as const;
    const made = await Promise.allSettled([
      win(
        'split_relabel',
        {
          u: 'uniform',
          uf_parent: 'read_write',
          label: 'read_write',
          ub: 'read_write',
          best: 'read_write',
        },
        ['unionfind/unionfind'],
      ),
      win('split_nodelabels', {
        u: 'uniform',
        label: 'read',
        prefix: 'read',
        links: 'read',
        ranges: 'read',
        childLabel: 'read_write',
      }),
      win('split_upperbounds', {
        u: 'uniform',
        points: 'read',
        core2: 'read',
        label: 'read',
        ub: 'read_write',
        cand: 'read',
      }),
      ctx.kernel({
        label: 'emst::split.changes',
        shader: 'emst/changes',
        entry: 'main',
        bindings: { u: 'uniform', label: 'read', chg: 'read_write' },
        uniforms: PARAMS,
        workgroupSize: 256,
        include: ['common/grid', 'knn/distance', 'emst/common'],
        constants,
      }),
      ctx.kernel({ label: 'emst::split.fill', shader: 'emst/fill', entry: 'main', ...FILL, workgroupSize: 256 }),
      planned('split_best', 'key', bestFixed, [BEST('read_write')]),
      planned('split_best', 'lo', bestFixed, [BEST('read_write')]),
      planned(
        'split_bestmax',
        'main',
        { u: 'uniform', label: 'read', cand: 'read', bestMax: 'read_write', order: 'read' },
        [BEST('read')],
      ),
      planned(
        'split_merge',
        'main',
        {
          u: 'uniform',
          label: 'read',
          order: 'read',
          cand: 'read',
          bestMax: 'read',
          uf_parent: 'read_write',
          edgeCount: 'read_write',
        },
        [BEST('read'), EDGES],
        ['unionfind/unionfind'],
      ),
      planned('split_mincore', 'main', { u: 'uniform', core2: 'read', arrive: 'read_write' }, [PARENTS, MIN_CORE]),
    ]);
    const failed = made.find((r) => r.status === 'rejected');
    const value = (i: number) => (made[i] as PromiseFulfilledResult<unknown>).value;
    if (failed) {
      for (const r of made.slice(5)) if (r.status === 'fulfilled') (r.value as Planned).unused?.destroy();
      throw (failed as PromiseRejectedResult).reason;
    }
    return new SplitRounds(
      ctx,
      dim,
      n,
      maxElements,
      {
        relabel: value(0) as Kernel<Bindings, typeof WIN>,
        nodelabels: value(1) as Kernel<Bindings, typeof WIN>,
        upperbounds: value(2) as Kernel<Bindings, typeof WIN>,
      },
      value(3) as Kernel<Bindings, typeof PARAMS>,
      value(4) as Kernel<Bindings, typeof FILL.uniforms>,
      {
        bestKey: value(5) as Planned,
        bestLo: value(6) as Planned,
        bestmax: value(7) as Planned,
        merge: value(8) as Planned,
        mincore: value(9) as Planned,
      },
    );
  }

  /** The windows of n items whose arrays have these strides (maxElements: a further cap). */
  private windows(n: number, strides: number[], most = Number.POSITIVE_INFINITY): Window[] {
    return windows(this.ctx.limits, n, strides, Math.min(most, this.maxElements ?? Number.POSITIVE_INFINITY));
  }

  private uniforms(p: SplitParams, w: Window): Uint8Array {
    const { relabel } = this.k;
    return uniformBytes(relabel, {
      n: p.n,
      mr: p.mr,
      ia2: p.ia2,
      skip: 0,
      cut: p.cut,
      one: 1,
      period: p.period,
      first: w.first,
      count: w.count,
    });
  }

  /** Dispatches a planned kernel over the windows of the candidates (8 B a point), its parts bound for n. */
  private perCandidate(rec: Recorder, k: Planned, p: SplitParams, fixed: Record<string, Binding>, a: SplitRoundArrays) {
    const parts = k.plan ? bindParts(this.ctx.limits, k.plan, this.partBuffers(a), p.n, k.unused) : {};
    for (const w of this.windows(p.n, [8])) {
      rec.dispatch(k.kernel, {
        buffers: { ...fixed, cand: windowBinding(this.ctx.limits, a.cand, 8, w), ...parts },
        uniforms: this.uniforms(p, w),
        threads: w.count,
      });
    }
  }

  private partBuffers(a: SplitRoundArrays): Record<string, Binding> {
    return { best: a.best, edges: a.edges, parents: a.bvh.parents, minCore2: a.minCore2 };
  }

  private checkN(n: number): void {
    if (!Number.isInteger(n) || n < 2 || n > this.maxN) {
      throw new InputError(`emst::splitRounds: expected n to be an integer in [2, ${this.maxN}], got ${n}.`);
    }
  }

  /** Boruvka's prelude (after the BVH build): core minima, cleared counters, no candidates, singletons, labels. */
  prelude(rec: Recorder, p: SplitParams, a: SplitRoundArrays, hooks: SplitRoundHooks): void {
    const { n } = p;
    this.checkN(n);
    const limits = this.ctx.limits;
    if (a.mr) {
      // The arrival flags in pointBound's buffer (cleared below), as boruvka.ts keeps them.
      rec.dispatch(this.fill, { buffers: { out: a.pointBound }, uniforms: { count: n, value: NONE }, threads: n });
      const k = this.p.mincore;
      rec.dispatch(k.kernel, {
        buffers: {
          core2: a.core2,
          arrive: a.pointBound,
          ...bindParts(limits, k.plan!, this.partBuffers(a), n, k.unused),
        },
        uniforms: this.uniforms(p, { first: 0, count: n }),
        threads: n,
      });
    }
    rec.clear(a.edgeCount);
    rec.clear(a.label, 4 * n, 8); // the "tree complete" flag and plan.wgsl's previous edge count
    rec.clear(a.pointBound, 0, 4 * n);
    for (const w of this.windows(n, [8])) {
      rec.dispatch(this.fill, {
        buffers: { out: windowBinding(limits, a.cand, 8, w) },
        uniforms: { count: 2 * w.count, value: NONE },
        threads: 2 * w.count,
      });
    }
    hooks.ufInit(rec);
    this.relabel(rec, p, a);
  }

  private relabel(rec: Recorder, p: SplitParams, a: SplitRoundArrays): void {
    for (const w of this.windows(p.n, [8])) {
      rec.dispatch(this.k.relabel, {
        buffers: {
          uf_parent: a.ufParent,
          label: a.label,
          ub: a.ub,
          best: windowBinding(this.ctx.limits, a.best, 8, w),
        },
        uniforms: this.uniforms(p, w),
        threads: w.count,
      });
    }
  }

  /** One round after plan.wgsl's flag: labels, bounds, the split traversal (`search`), minima, merge, relabel. */
  round(rec: Recorder, p: SplitParams, a: SplitRoundArrays, hooks: SplitRoundHooks, search: (rec: Recorder) => void) {
    const { n } = p;
    const limits = this.ctx.limits;
    const dim = this.dim;
    rec.dispatch(this.changes, {
      buffers: { label: a.label, chg: a.chg },
      uniforms: uniformBytes(this.changes, { n, mr: p.mr, ia2: p.ia2, skip: 0, cut: p.cut, one: 1, period: p.period }),
      threads: n,
    });
    hooks.scan(rec);
    // Records [0, n): links, childLabel (n records, the header last) and ranges (n − 1; the header has none).
    for (const w of this.windows(n, [8, 4, 8])) {
      const ranges =
        w.first < n - 1
          ? { first: w.first, count: Math.min(w.first + w.count, n - 1) - w.first }
          : { first: 0, count: 1 };
      rec.dispatch(this.k.nodelabels, {
        buffers: {
          label: a.label,
          prefix: a.chg,
          links: windowBinding(limits, a.bvh.links, 8, w),
          ranges: windowBinding(limits, a.bvh.ranges, 4, ranges),
          childLabel: windowBinding(limits, a.childLabel, 8, w),
        },
        uniforms: this.uniforms(p, w),
        threads: w.count,
      });
    }
    // The points with a halo of 2 after the window: a window of at most (one binding's points − 2).
    const pointsFit = Math.floor(limits.maxStorageBufferBindingSize / (4 * dim)) - 2;
    for (const w of this.windows(n, [4 * dim, 8], pointsFit)) {
      const halo = { first: w.first, count: Math.min(w.count + 2, n - w.first) };
      rec.dispatch(this.k.upperbounds, {
        buffers: {
          points: windowBinding(limits, a.bvh.sortedPoints, 4 * dim, halo),
          core2: a.core2,
          label: a.label,
          ub: a.ub,
          cand: windowBinding(limits, a.cand, 8, w),
        },
        uniforms: this.uniforms(p, w),
        threads: w.count,
      });
    }
    search(rec);
    const order = a.bvh.order;
    this.perCandidate(rec, this.p.bestKey, p, { label: a.label, order }, a);
    this.perCandidate(rec, this.p.bestLo, p, { label: a.label, order }, a);
    this.perCandidate(rec, this.p.bestmax, p, { label: a.label, bestMax: a.bestMax, order }, a);
    this.perCandidate(
      rec,
      this.p.merge,
      p,
      { label: a.label, order, bestMax: a.bestMax, uf_parent: a.ufParent, edgeCount: a.edgeCount },
      a,
    );
    this.relabel(rec, p, a);
  }

  destroy(): void {
    for (const k of Object.values(this.p)) k.unused?.destroy();
  }
}
