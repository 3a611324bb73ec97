/**
 * Single-tree Borůvka on the GPU: Prokopenko, Sao & Lebrun-Grandié, "A single-tree algorithm to compute the
 * Euclidean minimum spanning tree on GPUs" (seed 002, §3, Fig. 3 and Algorithm 2). Every round:
 *
 *   plan         the "tree complete" flag: rounds encoded ahead return at once     (emst/plan.wgsl)
 *   labels       node label uniformity by prefix sum (no inter-thread hand-off)     (emst/changes, scan, nodelabels)
 *   upperBounds  Morton neighbours ±1, ±2 in different components                   (emst/upperbounds.wgsl)
 *   nearest      nearest point in another component, subtree skipping, pruning      (emst/nearest.wgsl)
 *   best         per-component minimum edge in (key, min, max) order                 (emst/best64|best32, bestmax)
 *   merge        union through the shared union-find, append new edges              (emst/merge.wgsl)
 *   relabel      labels = union-find roots; component slots reset for the next round (emst/relabel.wgsl)
 *
 * What we changed from the paper: labels by prefix sum instead of ArborX's bottom-up label walk (WebGPU has no
 * cross-workgroup memory ordering), merge through a lock-free union-find instead of chain following, several
 * rounds per submission instead of a read-back per round (direct dispatches that return at once after the last
 * round: Dawn validates each indirect one with an extra pass), and squared keys throughout. Issue 18 reshaped the
 * per-round passes (RoundPasses, all on by default; TREELINE_EMST_ROUNDS=none gives the shape before): relabel
 * writes the label changes as bits and per-tile counts (no changes pass; the scan runs over n / 256 counts), node
 * labels reuse last round's where a child was uniform, upper bounds and best edges are folded per workgroup before
 * the atomics, the minima run over the holders of a candidate only, and the per-point kernels stride over a grid of
 * at most 4096 workgroups (cheap rounds after the last); the active list keeps Morton order, the first round (every
 * point its own component) runs in a shape of its own, the traversal keeps the query's coordinates in registers, and
 * chunks of rounds after the first are submitted only when needed.
 *
 * Vertices are Morton positions of the BVH's leaves; edges come out as original indices.
 */
import { cutKey, inverseAlphaSquared } from './distance.cpu.js';
import { createBoxParts, type BoxParts } from '../bvh/boxparts.js';
import type { BvhBuffers } from '../bvh/lbvh.js';
import { boxArrayRecords, boxFormatFor, pointsForBoxRecords, type BoxFormat } from '../bvh/layout.js';
import type { GpuContext } from '../gpu/context.js';
import { floatBits, uniformBytes, type Bindings, type Kernel } from '../gpu/kernel.js';
import type { Binding, Recorder } from '../gpu/recorder.js';
import type { Timer } from '../gpu/timer.js';
import { MapMode, Usage } from '../gpu/usage.js';
import { AbortError, GpuUnavailableError, InputError, TreelineError } from '../errors.js';
import { roundsFraction, type ProgressCallback } from '../progress.js';
import { createScanner, type Scanner } from '../primitives/scan.js';
import { createUnionFind, type GpuUnionFind } from '../unionfind/unionfind.js';
import { SplitTraversal, splitFromEnv, traversalSplits } from './nearestsplit.js';
import { SplitRounds } from './roundsplit.js';
import { checkSubtreeRoots } from './splitroots.js';

/**
 * Buffers a caller may lend to Borůvka so that arrays with disjoint lifetimes share memory (issue 4's memory
 * figure). Each must be at least as large as the array it replaces, and may only be lent when nothing else reads or
 * writes it from the start of `run()`'s first submission (after its `before` hook) until the rounds `run()` queued
 * ahead have run on the GPU (they may still be running when it resolves; later work is ordered after them by the
 * queue), nor expects it to keep its contents: GpuEmst lends the BVH's codes (dead after the hierarchy; as childLabel) and
 * parents (dead after the refit and the mutual-reachability prelude, which runs first; as candidates), the radix
 * sorter's scratch (idle between sorts; as best and pointBound) and the k-NN's k-th distances (consumed by the
 * `before` hook; as upper bounds). readEdges' sort uses the candidates, the changes and that same sorter scratch,
 * after the run.
 *
 * GpuEmst's GPU memory per point in 3D with this sharing and an in-place build (the sorted points are the input's
 * buffer: pipeline.ts `inPlace`, issue 19), 96.5 bytes beyond the input (84.5 with the opt-in u16 boxes,
 * TREELINE_BVH_BOXES=u16, bvh/layout.ts "Box formats"; 12 more with a sorted copy):
 *
 *   BVH      boxes 24 (n − 1 internal boxes, f32; u16: 12), links 8, codes 8 (= childLabel),
 *            parents 8 (= candidates), ranges 4 (one end of each, bvh/layout.ts), order 4                       56
 *   sorter   scratch 12 (= best 8 + pointBound 4), digit table 0.5                                           12.5
 *   Borůvka  edges 12 (= the BVH's minIndex words until the first merge: pipeline.ts), label 4,
 *            changes 4 (= active list), upper bounds 4 (= bestMax: emst/bestmax.wgsl), union-find 4           28
 *   rest     scan partial sums, uniforms, counters                                                           ~0.05
 *
 * Mutual reachability adds the core distances (4; the k-th distances are lent as the upper bounds) at creation,
 * and for the length of a run minCore2 (8); its arrival flags live in pointBound's buffer.
 */
export interface BoruvkaBorrow {
  childLabel?: GPUBuffer;
  cand?: GPUBuffer;
  best?: GPUBuffer;
  pointBound?: GPUBuffer;
  ub?: GPUBuffer;
  /** The output edges, so that their lender may keep them past destroy() (GpuEmst.detachEdges; issue 19). */
  edges?: GPUBuffer;
}

/**
 * Which per-round passes run in their issue-18 shape (each gives the same tree bit for bit; all off is the shape
 * measured before). Default: `TREELINE_EMST_ROUNDS` (a comma list of the names below, `all` or `none`), else
 * DEFAULT_ROUND_PASSES (the shapes that were faster on the H100: bench/RESULTS.md, issue 18).
 */
export interface RoundPasses {
  /**
   * The per-component minima (best, bestmax, merge) over the points holding a candidate only — the traversed ones
   * and those keeping last round's candidate, listed by emst/active.wgsl — instead of all n (emst/holders.wgsl).
   */
  holders?: boolean;
  /** The label changes written by the relabel pass (no separate `changes` pass); component slots reset at roots only. */
  fusedLabels?: boolean;
  /**
   * Upper bounds, and with the 64-bit atomics the best edges, folded per workgroup before the atomics on the component
   * slots (the `grouped` entries of emst/upperbounds.wgsl and best64.wgsl).
   */
  groupMin?: boolean;
  /**
   * The per-point round kernels on a grid of at most STRIDED_GROUPS workgroups that strides over the points (or the
   * holders), instead of n threads: a round with little work left, or none after the last, launches a few
   * workgroups instead of n / 256 (emst/common.wgsl, grid_threads).
   */
  strided?: boolean;
  /**
   * The label changes as bits and counts per tile of 256 points, written by the relabel pass (implies
   * fusedLabels), so that the label scan runs over ⌈n / 256⌉ counts instead of n words (emst/common.wgsl,
   * tile_count; relabel.wgsl and nodelabels.wgsl entries `tiles`).
   */
  tileScan?: boolean;
  /**
   * Node labels reuse last round's: a child uniform then is uniform now, its label that of its old label's root
   * (emst/nodelabels.wgsl, INCREMENTAL); only children mixed last round are checked against the changes.
   */
  incremental?: boolean;
  /**
   * With `strided`, the active compaction still runs on n threads, so that the active list keeps Morton order.
   * Strided, its tiles interleave 4096 × 256 points apart and concurrent traversal warps take points far apart (the
   * traversal was slower on the H100 with `strided` alone: bench/RESULTS.md, issue 18).
   */
  orderedActive?: boolean;
  /**
   * The first round in its own shape (every point is then its own component and traverses): no label changes, scan
   * or active list — node labels straight from the links (emst/nodelabels.wgsl entry `first`), upper bounds gathered
   * by each point for its own slot (emst/upperbounds.wgsl entry `first`, no atomics), the traversal and the
   * merge over every point in Morton order (as with skipBounded false) — and no per-component minima: a point's
   * candidate is its component's best edge (emst/merge.wgsl, FIRST). Not with a `settle` (run()).
   */
  firstRound?: boolean;
  /** The first round's traversal reads no node labels (emst/traverse.wgsl, FIRST): only the query's own leaf is skipped. */
  firstTraversal?: boolean;
  /** The traversal keeps the query's coordinates in registers (emst/traverse.wgsl, QREG), in up to 4 dimensions. */
  queryRegs?: boolean;
  /** The traversal reads a leaf's original index only when its key is within the radius (emst/traverse.wgsl, LAZY). */
  lazyOrder?: boolean;
  /**
   * A subtree whose f32 box is one point is tested as its least-index leaf instead of being descended
   * (emst/traverse.wgsl, EQUAL; equal_leaf): without it, exact copies of one position make the search quadratic in
   * the copies (issue 19's note). The split traversal (nearest_split.wgsl) always does it.
   */
  equalSubtrees?: boolean;
  /**
   * Chunks of rounds after the first are submitted once the chunk before them is read back, instead of two chunks
   * queued ahead (run()): when the first chunk completes the tree, as it does for most inputs, no later chunk's empty
   * rounds run; otherwise the GPU waits for each read-back.
   */
  lateChunks?: boolean;
}

const ROUND_PASSES = [
  'holders',
  'fusedLabels',
  'groupMin',
  'strided',
  'tileScan',
  'incremental',
  'orderedActive',
  'firstRound',
  'firstTraversal',
  'queryRegs',
  'lateChunks',
  'equalSubtrees',
] as const;
/** Shapes in neither `all` nor the default, named one by one: lazyOrder was slower on the H100 (bench/RESULTS.md). */
const ROUND_OPTIONS = ['lazyOrder'] as const;
/** Words of the changes buffer the tiled changes take (emst/common.wgsl, tile_bits): counts, pad, 8 per tile. */
const tileWords = (n: number) => Math.ceil(Math.ceil(n / 256) / 8) * 8 + 8 * Math.ceil(n / 256);
/** Workgroups (of 256) of the strided grid: ~10^6 threads, a few times what an H100 keeps resident. */
const STRIDED_GROUPS = 4096;

/** The round passes' shape when `TREELINE_EMST_ROUNDS` is unset or empty. */
export const DEFAULT_ROUND_PASSES: Readonly<RoundPasses> = {
  holders: true,
  fusedLabels: true,
  groupMin: true,
  strided: true,
  tileScan: true,
  incremental: true,
  orderedActive: true,
  firstRound: true,
  firstTraversal: true,
  queryRegs: true,
  lateChunks: true,
  equalSubtrees: true,
};

/** Parses `TREELINE_EMST_ROUNDS` (RoundPasses); unset or empty: DEFAULT_ROUND_PASSES, `none`: the old shape. */
export function roundPassesFromEnv(
  value = typeof process !== 'undefined' ? process.env.TREELINE_EMST_ROUNDS : undefined,
): RoundPasses {
  if (value === undefined || value.trim() === '') return { ...DEFAULT_ROUND_PASSES };
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '' && s !== 'none');
  const passes: RoundPasses = {};
  for (const name of names) {
    if (name === 'all') {
      for (const p of ROUND_PASSES) passes[p] = true;
    } else if (([...ROUND_PASSES, ...ROUND_OPTIONS] as readonly string[]).includes(name)) {
      passes[name as keyof RoundPasses] = true;
    } else {
      throw new InputError(
        `TREELINE_EMST_ROUNDS: expected a comma list of ${[...ROUND_PASSES, ...ROUND_OPTIONS].join(', ')}, all or none, got '${name}'.`,
      );
    }
  }
  return passes;
}

export interface BoruvkaRunOptions {
  /**
   * Mutual reachability (ArborX's MutualReachability{core}; the metric pipeline.ts was created for, metric.ts): n
   * squared core distances in Morton order and alpha. Omit for the Euclidean MST.
   */
  reachability?: { core2: GPUBuffer; alpha: number };
  /** Periodic side lengths (one per dimension; points inside [0, L)): required iff created with `periodic`. */
  period?: Float32Array;
  /**
   * MiSTree's scale cut (Euclidean only): pairs shorter than this are not edges, and the result is the minimum
   * spanning forest of what remains (count = n − components).
   */
  minEdgeLength?: number;
  /**
   * Points whose bound from earlier rounds already exceeds their component's upper bound skip the traversal
   * (default true; false for the ablation in bench/RESULTS.md).
   */
  skipBounded?: boolean;
  /**
   * Workgroups of the traversal's fixed grid (default min(⌈n / 32⌉, 8192)): tests make it tiny so that every
   * workgroup takes many turns.
   */
  nearestGroups?: number;
  /**
   * Workgroups of the per-point kernels' strided grid (RoundPasses.strided; default min(⌈n / 256⌉, 4096)): tests make
   * it tiny so that every workgroup strides over many tiles.
   */
  stridedGroups?: number;
  /** Rounds encoded per submission (default 4). */
  roundsPerSubmit?: number;
  timer?: Timer;
  /** Called after every read-back with roundsFraction(n, components left) and the next 'Borůvka round r' (src/progress.ts). */
  onProgress?: ProgressCallback;
  signal?: AbortSignal;
  /**
   * Work recorded at the head of the first submission (the BVH build, the core distances), so that no host
   * round trip separates it from the first rounds.
   */
  before?: (rec: Recorder) => void;
  /**
   * Recorded in every round after the labels, before the upper bounds: the high-dimensional candidate lists' settle
   * (highdim.ts), which writes the candidates and point bounds of the points its lists decide. `cut`: the scale
   * cut's key bits.
   */
  settle?: (
    rec: Recorder,
    round: { label: GPUBuffer; cand: GPUBuffer; pointBound: GPUBuffer; n: number; cut: number },
  ) => void;
}

export interface BoruvkaResult {
  /**
   * `count` records of 3 u32, | source | target | key | (12 bytes each): original indices and the f32 bits of the
   * squared weight, in the order found.
   */
  edges: GPUBuffer;
  count: number;
  rounds: number;
}

const EMST_INCLUDE = ['common/grid', 'knn/distance', 'emst/common', 'bvh/range'];
/** Storage buffers the full traversal binds (emst/nearest.wgsl), and the binding-lean one (nearest_lite.wgsl). */
const NEAREST_STORAGE_BUFFERS = 15;
const LEAN_STORAGE_BUFFERS = 10;
const NONE = 0xffffffff;

/**
 * The round kernels' uniform block (`Params`, emst/common.wgsl) and each kernel's bindings (shaders/emst/<name>.wgsl),
 * by their WGSL names; checked against the WGSL when the kernels are created.
 */
const EMST_PARAMS = {
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
const PLAN = {
  bindings: { p: 'uniform', edgeCount: 'read', label: 'read_write' },
  uniforms: { n: 'u32', at: 'u32', pad1: 'u32', pad2: 'u32' },
} as const;
const FILL = {
  bindings: { f: 'uniform', out: 'read_write' },
  uniforms: { count: 'u32', value: 'u32', p0: 'u32', p1: 'u32' },
} as const;
const TRAVERSE = {
  u: 'uniform',
  points: 'read',
  core2: 'read',
  order: 'read',
  links: 'read',
  boxes0: 'read',
  childLabel: 'read',
  label: 'read',
  ub: 'read',
  minCore2: 'read',
  cand: 'read_write',
} as const;
const B = {
  relabel: {
    u: 'uniform',
    uf_parent: 'read_write',
    label: 'read_write',
    ub: 'read_write',
    best: 'read_write',
    chg: 'read_write',
  },
  changes: { u: 'uniform', label: 'read', chg: 'read_write' },
  nodelabels: {
    u: 'uniform',
    label: 'read',
    prefix: 'read',
    links: 'read',
    ranges: 'read',
    childLabel: 'read_write',
    edgeCount: 'read',
  },
  upperbounds: { u: 'uniform', points: 'read', core2: 'read', label: 'read', ub: 'read_write', cand: 'read' },
  traverse: TRAVERSE,
  nearest: {
    ...TRAVERSE,
    pointBound: 'read_write',
    activeList: 'read',
    activeCount: 'read_write',
    boxes1: 'read',
    boxes2: 'read',
  },
  best: {
    u: 'uniform',
    label: 'read',
    cand: 'read',
    best: 'read_write',
    order: 'read',
    activeList: 'read',
    activeCount: 'read',
  },
  bestmax: {
    u: 'uniform',
    label: 'read',
    cand: 'read',
    best: 'read',
    bestMax: 'read_write',
    order: 'read',
    activeList: 'read',
    activeCount: 'read',
  },
  active: {
    u: 'uniform',
    label: 'read',
    ub: 'read',
    pointBound: 'read',
    cand: 'read_write',
    activeList: 'read_write',
    activeCount: 'read_write',
  },
  merge: {
    u: 'uniform',
    label: 'read',
    order: 'read',
    cand: 'read',
    best: 'read',
    bestMax: 'read',
    uf_parent: 'read_write',
    edgeCount: 'read_write',
    edges: 'read_write',
    activeList: 'read',
    activeCount: 'read',
  },
  mincore: { u: 'uniform', core2: 'read', parents: 'read', arrive: 'read_write', minCore2: 'read_write' },
} as const;
/** Workgroups (of 32) of the traversal's fixed grid: ~2^18 threads, about what an H100 keeps resident. */
const NEAREST_GROUPS = 8192;

export class Boruvka {
  private constructor(
    private readonly ctx: GpuContext,
    readonly maxN: number,
    readonly dim: number,
    /** Minimum-image distances in a periodic box (side lengths given to run()). */
    readonly periodic: boolean,
    private readonly k: Record<string, Kernel>,
    private readonly scanner: Scanner,
    private readonly uf: GpuUnionFind,
    private readonly b: Record<string, GPUBuffer>,
    private readonly parts: BoxParts,
    /** The binding-lean traversal (emst/nearest_lite.wgsl): no skipping, one box part. */
    readonly lean: boolean,
    /** Buffers lent by the caller (BoruvkaBorrow): not ours to destroy. */
    private readonly borrowed: Set<GPUBuffer> = new Set(),
    /** Compiles the mutual-reachability prelude's kernel, on the first run that needs it. */
    private readonly mincore: () => Promise<Kernel> = () => Promise.reject(new Error('emst::mincore')),
    /** The per-round passes' shape (RoundPasses). */
    readonly passes: RoundPasses = {},
    /** Issue 19: the subtree-window traversal (nearestsplit.ts), where created. */
    private readonly split: SplitTraversal | null = null,
    /** … and the per-round passes on split arrays (roundsplit.ts), created with it. */
    private readonly splitRounds: SplitRounds | null = null,
  ) {}

  /**
   * `lean` (default: when the device binds fewer than 15 storage buffers per shader stage, as browsers do) runs the
   * traversal without skipping bounded points and with the box array in one binding (emst/nearest_lite.wgsl).
   */
  static async create(
    ctx: GpuContext,
    maxN: number,
    dim: number,
    periodic = false,
    boxPartRecords?: number,
    lean?: boolean,
    /** Or a promise of them (taken once the kernels are compiled: their creator's compile can overlap ours). */
    borrow: BoruvkaBorrow | Promise<BoruvkaBorrow> = {},
    /**
     * Compile the mutual-reachability kernel with the others (else on the first run that needs it); `rounds`: the
     * per-round passes' shape (default roundPassesFromEnv()); `split`: the subtree-window traversal with windows of
     * at most this many points even where the arrays fit (tests, A/B runs; default TREELINE_EMST_SPLIT); `boxes`: the
     * box format of the BVHs it will traverse (bvh/layout.ts boxFormatFor).
     */
    options: { reachability?: boolean; rounds?: RoundPasses; split?: number; boxes?: BoxFormat } = {},
  ): Promise<Boruvka> {
    const n = Math.max(maxN, 2);
    // bestMax keeps ~index in the upper bounds' buffer, above every key only for indices below 2^31 (bestmax.wgsl).
    if (n > 2 ** 31) throw new InputError(`emst::boruvka: at most 2^31 points, got maxN=${maxN}.`);
    const perStage = ctx.limits.maxStorageBuffersPerShaderStage;
    const useLean = lean ?? perStage < NEAREST_STORAGE_BUFFERS;
    if (perStage < LEAN_STORAGE_BUFFERS) {
      throw new GpuUnavailableError(
        `The EMST needs ${LEAN_STORAGE_BUFFERS} storage buffers per shader stage; this device binds ${perStage}.`,
      );
    }
    const passes = options.rounds ?? roundPassesFromEnv();
    // The split traversal (issue 19), where forced or where the arrays exceed one binding.
    const splitCap = options.split ?? splitFromEnv();
    const splits = splitCap !== undefined || traversalSplits(ctx.limits, n, dim);
    const boxFormat = boxFormatFor(dim, { given: options.boxes });
    const parts = createBoxParts(ctx, dim, boxPartRecords, n, boxFormat);
    // HOLDERS: the per-component minima over the holders of a candidate (emst/holders.wgsl).
    const holders = { HOLDERS: passes.holders ? 1 : 0 };
    const relabelEntry = passes.tileScan ? 'tiles' : passes.fusedLabels ? 'fused' : 'main';
    const spec = (
      name: string,
      bindings: Bindings,
      wg = 256,
      entry = 'main',
      extra: string[] = [],
      overrides?: Record<string, number>,
      tag = entry === 'main' ? '' : `.${entry}`,
    ) =>
      ctx.kernel({
        label: `emst::${name}${tag}`,
        shader: `emst/${name}`,
        entry,
        bindings,
        uniforms: EMST_PARAMS,
        workgroupSize: wg,
        include: [...EMST_INCLUDE, ...extra],
        constants: { D: dim, PERIODIC: periodic ? 1 : 0, ...parts.constants },
        overrides,
        enable: name === 'best64' ? ['atomic_vec2u_min_max'] : undefined,
      });
    // The traversal (FIRST = 1: the first round's, RoundPasses.firstTraversal; QREG, LAZY: RoundPasses.queryRegs,
    // lazyOrder).
    const [traversalName, traversalBindings, boxRead] = useLean
      ? (['nearest_lite', B.traverse, 'bvh/boxread1'] as const)
      : (['nearest', B.nearest, 'bvh/boxread'] as const);
    const traversalSpec = (first = 0) =>
      spec(
        traversalName,
        traversalBindings,
        32,
        'main',
        ['emst/distance', boxRead, 'bvh/boxget', 'emst/traverse'],
        {
          FIRST: first,
          QREG: passes.queryRegs && dim <= 4 ? 1 : 0,
          LAZY: passes.lazyOrder ? 1 : 0,
          EQUAL: passes.equalSubtrees ? 1 : 0,
        },
        first ? '.first' : '',
      );
    // Every kernel, the scanner's and the union-find's start compiling together (issue 17 §5); the
    // mutual-reachability prelude's `mincore` only when asked or when a run needs it (run()).
    const specs: Record<string, Promise<Kernel>> = {
      plan: ctx.kernel({ label: 'emst::plan', shader: 'emst/plan', entry: 'main', ...PLAN, workgroupSize: 1 }),
      fill: ctx.kernel({ label: 'emst::fill', shader: 'emst/fill', entry: 'main', ...FILL, workgroupSize: 256 }),
      // Important! The `tiles` entries assume tiles of 256 points: WG = 256.
      relabel: spec('relabel', B.relabel, 256, relabelEntry, ['unionfind/unionfind']),
      ...(relabelEntry !== 'main' ? {} : { changes: spec('changes', B.changes) }),
      nodelabels: spec('nodelabels', B.nodelabels, 256, passes.tileScan ? 'tiles' : 'main', [], {
        INCREMENTAL: passes.incremental ? 1 : 0,
      }),
      upperbounds: spec('upperbounds', B.upperbounds, 256, passes.groupMin ? 'grouped' : 'main', ['emst/distance']),
      nearest: traversalSpec(),
      ...(passes.firstRound
        ? {
            nodelabelsFirst: spec('nodelabels', B.nodelabels, 256, 'first'),
            upperboundsFirst: spec('upperbounds', B.upperbounds, 256, 'first', ['emst/distance']),
            mergeFirst: spec(
              'merge',
              B.merge,
              256,
              'main',
              ['unionfind/unionfind', 'emst/holders'],
              {
                ...holders,
                FIRST: 1,
              },
              '.first',
            ),
          }
        : {}),
      ...(passes.firstRound && passes.firstTraversal ? { nearestFirst: traversalSpec(1) } : {}),
      bestmax: spec('bestmax', B.bestmax, 256, 'main', ['emst/holders'], holders),
      // The active list serves only the skipping of bounded points, which the lean traversal never does (run()).
      ...(useLean ? {} : { active: spec('active', B.active, 256, 'main', [], holders) }),
      merge: spec('merge', B.merge, 256, 'main', ['unionfind/unionfind', 'emst/holders'], holders),
      ...(ctx.features.atomicVec2uMinMax
        ? { best64: spec('best64', B.best, 256, passes.groupMin ? 'grouped' : 'main', ['emst/holders'], holders) }
        : {
            best32key: spec('best32', B.best, 256, 'key', ['emst/holders'], holders),
            best32lo: spec('best32', B.best, 256, 'lo', ['emst/holders'], holders),
          }),
    };
    const mincore = () => spec('mincore', B.mincore);
    if (options.reachability) specs.mincore = mincore();
    const kernels = Promise.all(Object.values(specs)).then((ks) =>
      Object.fromEntries(Object.keys(specs).map((name, i) => [name, ks[i]])),
    );
    // Issue 19: the subtree-window traversal where the traversal's arrays exceed one binding, or where asked.
    const splitMade = splits
      ? SplitTraversal.create(ctx, n, dim, periodic, splitCap, boxFormat, options.reachability === true)
      : null;
    const roundsMade = splits ? SplitRounds.create(ctx, n, dim, periodic, splitCap) : null;
    const made = await Promise.allSettled([
      kernels,
      createScanner(ctx, n),
      createUnionFind(ctx, n, { initOnly: true }),
      borrow,
      splitMade,
      roundsMade,
    ]);
    if (made.some((r) => r.status === 'rejected')) {
      for (const r of [made[1], made[2], made[4], made[5]])
        if (r.status === 'fulfilled') (r.value as { destroy(): void } | null)?.destroy();
      parts.destroy();
      throw (made.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason;
    }
    const [k, scanner, uf, lent, split, splitRounds] = made.map(
      (r) => (r as PromiseFulfilledResult<unknown>).value,
    ) as [Record<string, Kernel>, Scanner, GpuUnionFind, BoruvkaBorrow, SplitTraversal | null, SplitRounds | null];
    const buf = (name: string, bytes: number, usage = 0) => ctx.createBuffer(`emst::${name}`, bytes, usage);
    // A borrowed buffer stands in for one of ours when it is large enough (BoruvkaBorrow says when that is safe).
    const borrowed = new Set<GPUBuffer>();
    const take = (key: keyof BoruvkaBorrow, name: string, bytes: number) => {
      const buffer = lent[key];
      if (buffer && buffer.size >= bytes) {
        borrowed.add(buffer);
        return buffer;
      }
      return buf(name, bytes);
    };
    const chg = buf('changes', 4 * Math.max(n, passes.tileScan ? tileWords(n) : 0));
    const ub = take('ub', 'upperBounds', 4 * n);
    const b: Record<string, GPUBuffer> = {
      // n labels, then the "tree complete" flag label[n] and the previous round's edge count + 1 (plan.wgsl).
      label: buf('label', 4 * (n + 2)),
      chg,
      childLabel: take('childLabel', 'childLabel', 8 * n),
      ub,
      best: take('best', 'best', 8 * n),
      // The upper bounds live from the relabel to the traversal, the best max indices from `bestmax` to `merge`: one
      // buffer (issue 19's memory, 4 bytes a point; emst/bestmax.wgsl says why it needs no reset in between).
      bestMax: ub,
      cand: take('cand', 'candidates', 8 * n),
      pointBound: take('pointBound', 'pointBound', 4 * n),
      // The active list lives from `active` to `nearest`, the changes from `changes` to `nodelabels`, and no
      // dispatch binds both: one buffer.
      active: chg,
      // The active points' count, the traversal's counter of points taken (nearest.wgsl), the kept points' count
      // (RoundPasses.holders; active.wgsl), and a pad word.
      activeCount: buf('activeCount', 16),
      edges: take('edges', 'edges', 12 * n),
      edgeCount: buf('edgeCount', 4),
      noCore: buf('noCore', 16),
      noMinCore: buf('noMinCore', 16),
    };
    return new Boruvka(
      ctx,
      maxN,
      dim,
      periodic,
      k,
      scanner,
      uf,
      b,
      parts,
      useLean,
      borrowed,
      mincore,
      passes,
      split,
      splitRounds,
    );
  }

  /**
   * Compiles the kernel only mutual-reachability runs use (the prelude's `mincore`), if not yet done: run() does it
   * on the first such run (GpuEmst.create has it compiled with the others, `options.reachability`).
   */
  async compileReachability(): Promise<void> {
    this.k.mincore ??= await this.mincore();
  }

  /** Computes the MST of the BVH's points. Resolves when the tree is complete (read-backs: one u32 per submit). */
  async run(bvh: BvhBuffers, opts: BoruvkaRunOptions = {}): Promise<BoruvkaResult> {
    const { ctx, k, b } = this;
    const n = bvh.n;
    if (n > this.maxN)
      throw new TreelineError(`emst::boruvka: n=${n} exceeds the maxN=${this.maxN} it was created for`);
    if (bvh.dim !== this.dim) throw new TreelineError(`emst::boruvka: dim=${bvh.dim}, created for dim=${this.dim}`);
    if (bvh.boxFormat !== this.parts.format) {
      throw new TreelineError(`emst::boruvka: a BVH with ${bvh.boxFormat} boxes, created for ${this.parts.format}`);
    }
    if (n < 2) return { edges: b.edges, count: 0, rounds: 0 };
    const mr = opts.reachability !== undefined;
    const alpha = opts.reachability?.alpha ?? 1;
    if (this.periodic !== (opts.period !== undefined) || (opts.period && opts.period.length !== this.dim)) {
      throw new TreelineError(
        `emst::boruvka: created ${this.periodic ? '' : 'non-'}periodic for dim=${this.dim}, run with period=${opts.period}`,
      );
    }
    const cut = cutKey(opts.minEdgeLength ?? 0);
    if (cut > 0 && mr) throw new TreelineError('emst::boruvka: the scale cut is for the Euclidean MST only');
    if (this.lean && boxArrayRecords(n, this.parts.format) > this.parts.records) {
      throw new InputError(
        `emst: ${n} points need the box array in several bindings, which this device's ${this.ctx.limits.maxStorageBuffersPerShaderStage} storage buffers per stage leave no room for (at most ${pointsForBoxRecords(this.parts.records, this.parts.format)} points).`,
      );
    }
    // Issue 19: the split traversal decides which points search itself (no active list; the rounds take every point).
    const split = this.split?.applies(n) ? this.split : null;
    if (split && opts.settle) {
      throw new InputError(
        `emst: ${n} points take Borůvka's split traversal, which the ${this.dim}-dimensional candidate lists cannot join yet (TREELINE_HIGHDIM=none).`,
      );
    }
    // Its search for this metric (Euclidean or mutual reachability: each binds its own arrays, issue 19).
    await split?.prepare(mr);
    const skip = opts.skipBounded !== false && !this.lean && !split;
    // Params (emst/common.wgsl, EMST_PARAMS), the same for every round kernel: written once. `cut` is a squared
    // length's f32 bits (keys are compared as u32), `one` = 1.0 for add_square.
    const u = uniformBytes(k.relabel as Kernel<Bindings, typeof EMST_PARAMS>, {
      n,
      mr: mr ? 1 : 0,
      ia2: inverseAlphaSquared(alpha),
      skip: skip ? 1 : 0,
      cut: floatBits(cut),
      one: 1,
      period: opts.period,
    });
    // RoundPasses.firstRound: the first round runs over every point (skip = 0), as no point is bounded or keeps a
    // candidate yet; a settle may decide points before it, so then the first round keeps the shape of the others.
    const firstRound = this.passes.firstRound === true && opts.settle === undefined;
    const u0 = firstRound
      ? uniformBytes(k.relabel as Kernel<Bindings, typeof EMST_PARAMS>, {
          n,
          mr: mr ? 1 : 0,
          ia2: inverseAlphaSquared(alpha),
          skip: 0,
          cut: floatBits(cut),
          one: 1,
          period: opts.period,
        })
      : u;
    const core2 = opts.reachability?.core2 ?? b.noCore;
    let minCore2 = b.noMinCore;
    // Important! Every round dispatch is direct (plan.wgsl says why): per-point kernels over n threads, the traversal
    // over a fixed grid that strides over the active points.
    // The flag words label[n], label[n + 1] where plan.wgsl finds them: the whole labels, or (issue 19: labels above one
    // binding) a range of them from the last 256-byte boundary at or below word n.
    const planBase = b.label.size > ctx.limits.maxStorageBufferBindingSize ? Math.floor(n / 64) * 64 : 0;
    const planLabel: Binding =
      planBase > 0 ? { buffer: b.label, offset: 4 * planBase, size: 4 * (n + 2 - planBase) } : b.label;
    const plan = uniformBytes(k.plan as Kernel<Bindings, typeof PLAN.uniforms>, { n, at: n - planBase });
    const nearestGroups = opts.nearestGroups ?? Math.min(Math.ceil(n / 32), NEAREST_GROUPS);
    if (!Number.isInteger(nearestGroups) || nearestGroups < 1) {
      throw new TreelineError(`emst::boruvka: nearestGroups must be a positive integer, got ${opts.nearestGroups}`);
    }
    // The split traversal binds the boxes by windows (nearestsplit.ts): no parts, which may not hold them.
    const [boxes0, boxes1, boxes2] = split ? [bvh.boxes, bvh.boxes, bvh.boxes] : this.parts.bind(bvh.boxes, n);
    const uf = this.uf;

    // The per-point kernels' grid: n threads, or a strided grid (RoundPasses.strided); the kernels loop either way.
    const stridedGroups = opts.stridedGroups ?? Math.min(Math.ceil(n / 256), STRIDED_GROUPS);
    if (!Number.isInteger(stridedGroups) || stridedGroups < 1) {
      throw new TreelineError(`emst::boruvka: stridedGroups must be a positive integer, got ${opts.stridedGroups}`);
    }
    const at = this.passes.strided ? { uniforms: u, groups: stridedGroups } : { uniforms: u, threads: n };
    const relabel = (rec: Recorder, at: { uniforms: Uint8Array; threads?: number; groups?: number }) =>
      rec.dispatch(k.relabel, {
        ...at,
        buffers: { uf_parent: uf.parent, label: b.label, ub: b.ub, best: b.best, chg: b.chg },
      });
    let arrive: GPUBuffer | null = null;
    if (mr) {
      await this.compileReachability();
      minCore2 = ctx.createBuffer('emst::minCore2', 8 * n);
      // The arrival flags live in pointBound's buffer: the prelude's mincore is done with them before it clears
      // pointBound (issue 19's memory: 4 bytes a point).
      arrive = b.pointBound;
    }
    // The buffers of the traversal (emst/traverse.wgsl; nearest.wgsl adds the skip's and the other box parts) and of
    // the per-component minima, by binding name: the same objects every round.
    const traversal = {
      points: bvh.sortedPoints,
      core2,
      order: bvh.order,
      links: bvh.links,
      boxes0,
      childLabel: b.childLabel,
      label: b.label,
      ub: b.ub,
      minCore2,
      cand: b.cand,
    };
    const nearest = {
      ...traversal,
      pointBound: b.pointBound,
      activeList: b.active,
      activeCount: b.activeCount,
      boxes1,
      boxes2,
    };
    // The split traversal's values and arrays (nearestsplit.ts), which skips as the active list does.
    const splitParams = {
      n,
      skip: opts.skipBounded !== false ? 1 : 0,
      mr: mr ? 1 : 0,
      ia2: inverseAlphaSquared(alpha),
      cut: floatBits(cut),
      period: opts.period,
    };
    const splitArrays = {
      bvh,
      core2,
      mr,
      minCore2,
      childLabel: b.childLabel,
      label: b.label,
      ub: b.ub,
      cand: b.cand,
      pointBound: b.pointBound,
      list: b.chg,
    };
    // … and the rounds' (roundsplit.ts), where the traversal splits.
    const splitRounds = split ? this.splitRounds : null;
    const roundArrays = {
      ...splitArrays,
      chg: b.chg,
      best: b.best,
      bestMax: b.bestMax,
      edges: b.edges,
      edgeCount: b.edgeCount,
      ufParent: uf.parent,
    };
    const roundHooks = {
      ufInit: (rec: Recorder) => uf.encodeInit(rec, n),
      scan: (rec: Recorder) => this.scanner.encode(rec, b.chg, b.chg, n, 'exclusive'),
    };
    const best = {
      label: b.label,
      cand: b.cand,
      best: b.best,
      order: bvh.order,
      activeList: b.active,
      activeCount: b.activeCount,
    };
    // Recorded at the head of the first submission.
    const prelude = (rec: Recorder) => {
      opts.before?.(rec);
      split?.encodeRoots(rec, bvh, n);
      if (splitRounds) return splitRounds.prelude(rec, splitParams, roundArrays, roundHooks);
      // First what reads the BVH's parents: the candidates may be lent from them (BoruvkaBorrow).
      if (arrive) {
        rec.dispatch(k.fill, { buffers: { out: arrive }, uniforms: { count: n, value: NONE }, threads: n });
        rec.dispatch(k.mincore, {
          buffers: { core2, parents: bvh.parents, arrive, minCore2 },
          uniforms: u,
          threads: n,
        });
      }
      rec.clear(b.edgeCount);
      rec.clear(b.label, 4 * n, 8); // the "tree complete" flag and plan.wgsl's previous edge count
      rec.clear(b.pointBound, 0, 4 * n);
      rec.dispatch(k.fill, { buffers: { out: b.cand }, uniforms: { count: 2 * n, value: NONE }, threads: 2 * n });
      uf.encodeInit(rec, n);
      relabel(rec, at);
    };

    const nodeLabels = {
      label: b.label,
      prefix: b.chg,
      links: bvh.links,
      ranges: bvh.ranges,
      childLabel: b.childLabel,
      edgeCount: b.edgeCount,
    };
    // `first`: the run's first round, in its own shape with RoundPasses.firstRound (firstRound above).
    const round = (rec: Recorder, first: boolean) => {
      const one = first && firstRound;
      const atOne = one ? { ...at, uniforms: u0 } : at;
      rec.dispatch(k.plan, { buffers: { edgeCount: b.edgeCount, label: planLabel }, uniforms: plan, groups: 1 });
      if (splitRounds) {
        return splitRounds.round(rec, splitParams, roundArrays, roundHooks, (r) =>
          split!.encode(r, splitParams, splitArrays),
        );
      }
      if (one) {
        rec.dispatch(k.nodelabelsFirst, { ...at, buffers: nodeLabels });
      } else {
        // With fused labels the last relabel (the prelude's, or the previous round's) wrote the changes.
        if (k.changes) rec.dispatch(k.changes, { ...at, buffers: { label: b.label, chg: b.chg } });
        // In place: the changes (with tileScan, the tile counts) become their exclusive prefix sums. Not gated (gating it would take indirect
        // dispatches): after the last round it re-scans the buffer's stale contents, which no gated kernel reads; a
        // few streaming passes whose cost does not depend on the data.
        this.scanner.encode(rec, b.chg, b.chg, this.passes.tileScan ? Math.ceil(n / 256) : n, 'exclusive');
        rec.dispatch(k.nodelabels, { ...at, buffers: nodeLabels });
      }
      opts.settle?.(rec, { label: b.label, cand: b.cand, pointBound: b.pointBound, n, cut: floatBits(cut) });
      rec.dispatch(one ? k.upperboundsFirst : k.upperbounds, {
        ...at,
        buffers: { points: bvh.sortedPoints, core2, label: b.label, ub: b.ub, cand: b.cand },
      });
      rec.clear(b.activeCount);
      if (skip && !one) {
        rec.dispatch(k.active, {
          ...(this.passes.orderedActive ? { uniforms: u, threads: n } : at),
          buffers: {
            label: b.label,
            ub: b.ub,
            pointBound: b.pointBound,
            cand: b.cand,
            activeList: b.active,
            activeCount: b.activeCount,
          },
        });
      }
      if (split) split.encode(rec, splitParams, splitArrays);
      else
        rec.dispatch((one && k.nearestFirst) || k.nearest, {
          groups: nearestGroups,
          uniforms: atOne.uniforms,
          buffers: this.lean ? traversal : nearest,
        });
      // The per-component minima; in the first round's own shape every component is one point, whose candidate is its
      // best edge: none.
      if (!one) {
        if (k.best64) {
          rec.dispatch(k.best64, { ...at, buffers: best });
        } else {
          rec.dispatch(k.best32key, { ...at, buffers: best });
          rec.dispatch(k.best32lo, { ...at, buffers: best });
        }
        rec.dispatch(k.bestmax, { ...at, buffers: { ...best, bestMax: b.bestMax } });
      }
      rec.dispatch(one ? k.mergeFirst : k.merge, {
        ...atOne,
        buffers: { ...best, bestMax: b.bestMax, uf_parent: uf.parent, edgeCount: b.edgeCount, edges: b.edges },
      });
      relabel(rec, at);
    };

    // Pipelined submissions: two chunks of rounds stay queued ahead of the one whose edge count is being read back
    // (through its own staging buffer), so the GPU never waits for the host. The rounds after the last are
    // wasted, but nearly empty (every kernel but the label scan returns at the "tree complete" flag). With
    // RoundPasses.lateChunks (the default) none is queued ahead: a later chunk is submitted only when the read-back says
    // the tree is not complete, so the chunks after a first one that completes it never run. The
    // first chunk holds the rounds nearly every input needs (0.7·log2(n): 17 at 10^7, where uniform 2D needs 14);
    // later chunks are short. With a signal, one round per submission instead, so that an abort stops the host within
    // a round and leaves at most DEPTH − 1 queued ones to the GPU (issue 15 §3); the pipelining hides the read-backs.
    const abortable = opts.signal !== undefined;
    const firstChunk = opts.roundsPerSubmit ?? (abortable ? 1 : Math.max(2, Math.ceil(0.7 * Math.log2(n))));
    const laterChunk = opts.roundsPerSubmit ?? (abortable ? 1 : 3);
    const maxRounds = 2 * Math.ceil(Math.log2(n)) + 8;
    const DEPTH = 3;
    const staging = Array.from({ length: DEPTH }, (_, i) =>
      ctx.device.createBuffer({
        label: `emst::edgeCountReadback${i}`,
        size: 4,
        usage: Usage.MAP_READ | Usage.COPY_DST,
      }),
    );
    const mapped: Promise<void>[] = [];
    const chunkEnd: number[] = [];
    let encoded = 0;
    // Important! mapAsync waits for all work submitted before it is called: map chunk c's staging buffer right
    // after submitting chunk c, before chunk c + 1, or the read waits for the chunks after it too.
    const errors: Promise<void>[] = [];
    const submitChunk = (c: number) => {
      const rounds = c === 0 ? firstChunk : laterChunk;
      errors[c] = ctx.enqueue(
        'emst::rounds',
        (rec) => {
          if (c === 0) prelude(rec);
          for (let r = 0; r < rounds; r++) round(rec, c === 0 && r === 0);
          rec.copy(b.edgeCount, 0, staging[c % DEPTH], 0, 4);
        },
        { timer: opts.timer },
      );
      encoded += rounds;
      chunkEnd[c] = encoded;
      mapped[c] = staging[c % DEPTH].mapAsync(MapMode.READ);
    };
    let rounds = 0;
    let count = 0;
    let previous = -1;
    const abort = whenAborted(
      opts.signal,
      () =>
        new AbortError(`emst was aborted after Borůvka round ${rounds} (${count} of ${n - 1} edges; emst::rounds).`),
    );
    try {
      let next = 0;
      // Chunks queued ahead of the one being read back, besides the one submitted right before the read (lateChunks: none).
      const ahead = this.passes.lateChunks && !abortable ? 0 : DEPTH - 1;
      while (next < ahead && encoded < maxRounds) submitChunk(next++);
      for (let c = 0; ; c++) {
        abort.check();
        if (encoded < maxRounds) submitChunk(next++);
        // The read-back waits race the signal: the host returns at once, the GPU finishes what was queued.
        await abort.race(errors[c]);
        await abort.race(mapped[c]);
        count = new Uint32Array(staging[c % DEPTH].getMappedRange())[0];
        staging[c % DEPTH].unmap();
        rounds = chunkEnd[c];
        ctx.check('emst::rounds');
        // The split traversal's roots, found by the first chunk: a window that lost roots fails here, by name.
        if (split && c === 0) await checkSubtreeRoots(ctx, split, n);
        // Named as the CPU names them, by the round that runs now: the next one is already queued (pipelined).
        opts.onProgress?.(roundsFraction(n, n - count), count < n - 1 ? `Borůvka round ${rounds + 1}` : undefined);
        if (count >= n - 1) break;
        // With a scale cut, a chunk of rounds that added no edge leaves only components with no edge out.
        if (cut > 0 && c > 0 && count === previous) break;
        previous = count;
        if (c + 1 >= next && encoded >= maxRounds) {
          if (cut > 0) break; // every round encoded (more than Borůvka ever needs): the forest is complete
          throw new TreelineError(`emst::boruvka: no progress after ${rounds} rounds (${count} of ${n - 1} edges)`);
        }
      }
    } finally {
      abort.off();
      if (mr) minCore2.destroy();
      // A map still pending (the chunk after the last) is aborted by destroy(): expected, not an error.
      for (const m of [...mapped, ...errors]) m?.catch(() => undefined);
      for (const st of staging) st.destroy();
    }
    if (cut === 0 && count !== n - 1) throw new TreelineError(`emst::boruvka: ${count} edges for ${n} points`);
    return { edges: b.edges, count, rounds };
  }

  destroy(): void {
    for (const buf of new Set(Object.values(this.b))) if (!this.borrowed.has(buf)) buf.destroy();
    this.scanner.destroy();
    this.uf.destroy();
    this.parts.destroy();
    this.split?.destroy();
    this.splitRounds?.destroy();
  }
}

/**
 * An AbortSignal as checks and races: `check()` throws `error()` once aborted, `race(p)` rejects with it as soon as the
 * signal aborts (p's own rejection is then ignored), `off()` removes the listener. Without a signal, p as it is.
 */
function whenAborted(signal: AbortSignal | undefined, error: () => Error) {
  let onAbort: (() => void) | null = null;
  const aborted = signal
    ? new Promise<never>((_, reject) => {
        onAbort = () => reject(error());
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      })
    : null;
  aborted?.catch(() => undefined);
  return {
    check(): void {
      if (signal?.aborted) throw error();
    },
    race<T>(p: Promise<T>): Promise<T> {
      if (!aborted) return p;
      p.catch(() => undefined);
      return Promise.race([p, aborted]);
    },
    off(): void {
      if (signal && onAbort) signal.removeEventListener('abort', onAbort);
    },
  };
}
