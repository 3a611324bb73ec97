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
 *            appended: merge), the BVH's parents and minCore2 (the mutual-reachability prelude's climb), and the
 *            4-byte arrays: label (with its two flag words), ub and bestMax (one buffer: boruvka.ts), the union-find's
 *            parents (graph/split_uf.wgsl), the changes and their prefix sums, order and core2 — one part each up to
 *            5.4·10^8 points at the H100's 2 GiB (the accessor is then a plain index), two beyond (issue 19's
 *            6·10^8: the traversal, nearestsplit.ts, and plan.wgsl still bind the labels whole);
 *   whole    the mutual-reachability prelude's arrival flags.
 *
 * Kernels: emst/split_relabel, split_changes, split_nodelabels, split_upperbounds, split_best (`key`, `lo`),
 * split_bestmax, split_winner (merge.wgsl's winner test, in a pass of its own: its flags in the changes buffer, so
 * that the merge binds neither best nor bestMax — 13 storage buffers instead of 17 at 6·10^8 points), split_merge,
 * split_mincore (uniform block emst/split_common.wgsl), and emst/fill unchanged. Each
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
/** The 4-byte arrays (issue 19: in parts above one binding, beyond 5.4·10^8 points at the H100's 2 GiB). */
const FOUR_BYTE = new Set(['label', 'order', 'ub', 'bestMax', 'parent', 'chg', 'prefix', 'core2']);
const LABEL = (access: 'read' | 'read_write'): PartArray => ({
  name: 'label',
  type: 'u32',
  stride: 4,
  // n labels, then the "tree complete" flag and plan.wgsl's previous edge count.
  length: (n) => n + 2,
  access,
});
const ORDER: PartArray = { name: 'order', type: 'u32', stride: 4, length: (n) => n, access: 'read' };
/** The upper bounds: plain words in relabel, atomicMin in upperbounds. */
const UB = (atomic: boolean): PartArray => ({
  name: 'ub',
  type: 'u32',
  stride: 4,
  length: (n) => n,
  access: 'read_write',
  atomic,
});
/** The best max index, in the upper bounds' buffer (boruvka.ts): atomicMax in bestmax, read in merge. */
const BEST_MAX = (access: 'read' | 'read_write'): PartArray => ({
  name: 'bestMax',
  type: 'u32',
  stride: 4,
  length: (n) => n,
  access,
  atomic: access === 'read_write',
});
/** The union-find's parents, for graph/split_uf.wgsl (parent_load, parent_min, parent_cas). */
const PARENT: PartArray = {
  name: 'parent',
  type: 'u32',
  stride: 4,
  length: (n) => n,
  access: 'read_write',
  atomic: true,
  cas: true,
};
/** The changes (written by split_changes) and, scanned, their prefix sums (read by split_nodelabels). */
const CHG: PartArray = { name: 'chg', type: 'u32', stride: 4, length: (n) => n, access: 'read_write' };
const PREFIX: PartArray = { name: 'prefix', type: 'u32', stride: 4, length: (n) => n, access: 'read' };
/** Squared core distances (mutual reachability; any small buffer otherwise, bound no further than it reaches). */
const CORE2: PartArray = { name: 'core2', type: 'f32', stride: 4, length: (n) => n, access: 'read' };
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
    private readonly fill: Kernel<Bindings, typeof FILL.uniforms>,
    private readonly p: Record<
      | 'relabel'
      | 'nodelabels'
      | 'upperbounds'
      | 'changes'
      | 'bestKey'
      | 'bestLo'
      | 'bestmax'
      | 'winner'
      | 'merge'
      | 'mincore',
      Planned
    >,
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
    // Forced (tests): best, edges, the parents and minCore2 in parts of about n elements, the 4-byte arrays in two
    // halves (each kernel then binds at most 15 storage buffers).
    const partElements = maxElements === undefined ? undefined : Math.ceil(Math.max(n, 64) / 64) * 64;
    const half = maxElements === undefined ? undefined : Math.ceil((n + 2) / 2 / 64) * 64;
    const words = (x: PartArray): PartArray => (half === undefined ? x : { ...x, partElements: half });
    const planned = async (
      name: string,
      entry: string,
      fixed: Bindings,
      arrays: PartArray[],
      extra: string[] = [],
    ): Promise<Planned> => {
      const four = arrays.map((x) => (x.stride === 4 && FOUR_BYTE.has(x.name) ? words(x) : x));
      const plan = planParts(ctx.limits, `emst::${name}`, four, n, Object.keys(fixed).length, partElements);
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
    const uf = ['graph/split_uf'];
    const made = await Promise.allSettled([
      ctx.kernel({ label: 'emst::split.fill', shader: 'emst/fill', entry: 'main', ...FILL, workgroupSize: 256 }),
      planned(
        'split_relabel',
        'main',
        { u: 'uniform', best: 'read_write' },
        [PARENT, LABEL('read_write'), UB(false)],
        uf,
      ),
      planned('split_nodelabels', 'main', { u: 'uniform', links: 'read', ranges: 'read', childLabel: 'read_write' }, [
        LABEL('read'),
        PREFIX,
      ]),
      planned('split_upperbounds', 'main', { u: 'uniform', points: 'read', cand: 'read' }, [
        CORE2,
        LABEL('read'),
        UB(true),
      ]),
      planned('split_changes', 'main', { u: 'uniform' }, [LABEL('read'), CHG]),
      planned('split_best', 'key', { u: 'uniform', cand: 'read' }, [LABEL('read'), ORDER, BEST('read_write')]),
      planned('split_best', 'lo', { u: 'uniform', cand: 'read' }, [LABEL('read'), ORDER, BEST('read_write')]),
      planned('split_bestmax', 'main', { u: 'uniform', cand: 'read' }, [
        LABEL('read'),
        ORDER,
        BEST_MAX('read_write'),
        BEST('read'),
      ]),
      planned('split_winner', 'main', { u: 'uniform', cand: 'read', win: 'read_write' }, [
        LABEL('read'),
        ORDER,
        BEST_MAX('read'),
        BEST('read'),
      ]),
      planned(
        'split_merge',
        'main',
        { u: 'uniform', cand: 'read', win: 'read', edgeCount: 'read_write' },
        [LABEL('read'), ORDER, PARENT, EDGES],
        uf,
      ),
      planned('split_mincore', 'main', { u: 'uniform', core2: 'read', arrive: 'read_write' }, [PARENTS, MIN_CORE]),
    ]);
    const failed = made.find((r) => r.status === 'rejected');
    const value = (i: number) => (made[i] as PromiseFulfilledResult<unknown>).value;
    if (failed) {
      for (const r of made.slice(1)) if (r.status === 'fulfilled') (r.value as Planned).unused?.destroy();
      throw (failed as PromiseRejectedResult).reason;
    }
    const names = [
      'relabel',
      'nodelabels',
      'upperbounds',
      'changes',
      'bestKey',
      'bestLo',
      'bestmax',
      'winner',
      'merge',
      'mincore',
    ] as const;
    return new SplitRounds(
      ctx,
      dim,
      n,
      maxElements,
      value(0) as Kernel<Bindings, typeof FILL.uniforms>,
      Object.fromEntries(names.map((k, i) => [k, value(i + 1) as Planned])) as Record<(typeof names)[number], Planned>,
    );
  }

  /** The windows of n items whose arrays have these strides (maxElements: a further cap). */
  private windows(n: number, strides: number[], most = Number.POSITIVE_INFINITY): Window[] {
    return windows(this.ctx.limits, n, strides, Math.min(most, this.maxElements ?? Number.POSITIVE_INFINITY));
  }

  private uniforms(p: SplitParams, w: Window): Uint8Array {
    return uniformBytes(this.p.relabel.kernel, {
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
  private perCandidate(
    rec: Recorder,
    k: Planned,
    p: SplitParams,
    fixed: (w: Window) => Record<string, Binding>,
    a: SplitRoundArrays,
  ) {
    const parts = this.parts(k, a, p.n);
    for (const w of this.windows(p.n, [8, 4])) {
      rec.dispatch(k.kernel, {
        buffers: { ...fixed(w), cand: windowBinding(this.ctx.limits, a.cand, 8, w), ...parts },
        uniforms: this.uniforms(p, w),
        threads: w.count,
      });
    }
  }

  private partBuffers(a: SplitRoundArrays): Record<string, Binding> {
    return {
      best: a.best,
      edges: a.edges,
      parents: a.bvh.parents,
      minCore2: a.minCore2,
      label: a.label,
      order: a.bvh.order,
      ub: a.ub,
      bestMax: a.bestMax,
      parent: a.ufParent,
      chg: a.chg,
      prefix: a.chg,
      core2: a.core2,
    };
  }

  /** The parts of a planned kernel's arrays for n points. */
  private parts(k: Planned, a: SplitRoundArrays, n: number): Record<string, Binding> {
    return k.plan ? bindParts(this.ctx.limits, k.plan, this.partBuffers(a), n, k.unused) : {};
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
    const parts = this.parts(this.p.relabel, a, p.n);
    for (const w of this.windows(p.n, [8])) {
      rec.dispatch(this.p.relabel.kernel, {
        buffers: { best: windowBinding(this.ctx.limits, a.best, 8, w), ...parts },
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
    rec.dispatch(this.p.changes.kernel, {
      buffers: this.parts(this.p.changes, a, n),
      uniforms: this.uniforms(p, { first: 0, count: n }),
      threads: n,
    });
    hooks.scan(rec);
    // Records [0, n): links, childLabel (n records, the header last) and ranges (n − 1; the header has none).
    const labels = this.parts(this.p.nodelabels, a, n);
    for (const w of this.windows(n, [8, 4, 8])) {
      const ranges =
        w.first < n - 1
          ? { first: w.first, count: Math.min(w.first + w.count, n - 1) - w.first }
          : { first: 0, count: 1 };
      rec.dispatch(this.p.nodelabels.kernel, {
        buffers: {
          links: windowBinding(limits, a.bvh.links, 8, w),
          ranges: windowBinding(limits, a.bvh.ranges, 4, ranges),
          childLabel: windowBinding(limits, a.childLabel, 8, w),
          ...labels,
        },
        uniforms: this.uniforms(p, w),
        threads: w.count,
      });
    }
    // The points with a halo of 2 after the window: a window of at most (one binding's points − 2).
    const pointsFit = Math.floor(limits.maxStorageBufferBindingSize / (4 * dim)) - 2;
    const bounds = this.parts(this.p.upperbounds, a, n);
    for (const w of this.windows(n, [4 * dim, 8], pointsFit)) {
      const halo = { first: w.first, count: Math.min(w.count + 2, n - w.first) };
      rec.dispatch(this.p.upperbounds.kernel, {
        buffers: {
          points: windowBinding(limits, a.bvh.sortedPoints, 4 * dim, halo),
          cand: windowBinding(limits, a.cand, 8, w),
          ...bounds,
        },
        uniforms: this.uniforms(p, w),
        threads: w.count,
      });
    }
    search(rec);
    this.perCandidate(rec, this.p.bestKey, p, () => ({}), a);
    this.perCandidate(rec, this.p.bestLo, p, () => ({}), a);
    this.perCandidate(rec, this.p.bestmax, p, () => ({}), a);
    // The winners' flags in the changes buffer (free from the search to the next round's changes), then the merge.
    const win = (w: Window) => ({ win: windowBinding(this.ctx.limits, a.chg, 4, w) });
    this.perCandidate(rec, this.p.winner, p, win, a);
    this.perCandidate(rec, this.p.merge, p, (w) => ({ ...win(w), edgeCount: a.edgeCount }), a);
    this.relabel(rec, p, a);
  }

  destroy(): void {
    for (const k of Object.values(this.p)) k.unused?.destroy();
  }
}
