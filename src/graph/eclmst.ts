/**
 * Minimum spanning forests of graphs on the GPU, after ECL-MST: Fallin, Gonzalez, Seo, Burtscher, "A
 * High-Performance MST Implementation for GPUs", SC'23 (../shared/seeds/000), §3.3, Algorithms 1–2.
 *
 *   init        every vertex its own set; both minimum-record arrays empty                  (Alg. 1)
 *   threshold   [average degree ≥ 4] the filtering threshold from 20 samples                (§3.2)
 *   per phase (all edges; or the light edges, then — after flattening the union-find — the heavy ones):
 *     round 1   populate: the phase's edges, one direction, into a worklist, recording     (Alg. 2, 1–11)
 *               each set's lightest (weight key, edge id) as it goes
 *     round r>1 filter: drop edges inside one set, store the rest with their set            (Alg. 2, 14–22)
 *               representatives (implicit path compression), record each set's lightest
 *     every round, select: join along every recorded edge, append it to the forest          (Alg. 2, 27–33)
 *
 * What we changed, and why:
 *  - No host read-back per round. A phase takes at most ⌊log2 n⌋ + 1 rounds — every set with an edge left merges
 *    in each round, so the number of such sets at least halves — and we encode exactly that many, each over a
 *    fixed grid of grid-stride loops that read the round's count on the GPU (default), or sized from that count by
 *    an indirect dispatch (`dispatch: 'indirect'`; select writes the arguments). Empty rounds cost a dispatch each,
 *    no data. Important! Direct dispatch by default: Dawn validates every indirect dispatch with an extra internal
 *    pass of device time each, outside our timed passes (its cost per MSF: bench/RESULTS.md).
 *  - The lightest edge per set: one 64-bit atomicStoreMin on atomic<vec2u> (key high, id low) where the device has
 *    'atomic-vec2u-min-max', else two 32-bit passes (key, then id among equal keys: min32.wgsl, min_ids.wgsl).
 *    ECL-MST's atomic guard (read before atomicMin) needs a readable copy of the key with 64-bit records: a u32
 *    guard word per vertex (min64.wgsl), tagged with the round so that nothing needs to empty it (option guard).
 *  - ECL-MST's reset kernel is folded into the next round's filter, with two record arrays alternating.
 *  - Worklist entries are 3 u32 (rep, rep, edge id), the weight read through the id, to stay within 40 bytes per
 *    edge. Appends: one global atomicAdd per workgroup and tile (populate: csrItems · WG entries; filter: up to
 *    4 · WG), the tile's kept entries held in registers meanwhile (option tileAppends). Important! Every append
 *    goes through one counter, and the H100 serialises atomics on one address: one atomicAdd per subgroup and
 *    item (ECL-MST's warp-aggregated appends) made populate and filter 2× slower at r4-23 (bench/RESULTS.md).
 *  - CSR population is edge-centric over tiles of entries rather than thread/warp per vertex (populate_csr.wgsl).
 *    Option `rowMinima` (issue 18): round 1 of the light / unfiltered phase starts from singletons, so each
 *    vertex's lightest edge is its own row's: reduced in workgroup memory, one atomic per row and tile.
 *  - Issue 18's options, A/B-tested on the H100 through TREELINE_GRAPH_OPTIONS in `bench graph`. On by default
 *    since the H100 showed each faster on every benchmark graph: `guard: 'tagged'` (round-tagged guard words,
 *    never emptied: select stops writing them), `finds: 'plain'` (populate and filter find through read-only,
 *    cacheable parents as ECL-MST does), `fillResets` (large rounds empty the previous records by one coalesced
 *    fill), `tileAppends` (above); r4-23 26.9 → 12.3 ms. Off: `rowMinima` (slower), `worklist: 'split'` (no
 *    gain measured), `filterC` below ECL-MST's 3 (faster on r4 and rmat, slower on knn2d). The old kernels stay
 *    selectable ({ guard: 'reset', finds: 'atomic', fillResets: false, tileAppends: false }).
 *  - The union-find is the project's (unionfind/unionfind.wgsl: the smaller root wins, find halves paths).
 *  - Arrays above one storage binding (issue 19): where the worklists, the edge slots or the 8-byte vertex records
 *    exceed one binding, createGraphMsf hands the graph to eclsplit.ts (edge arrays and worklists in windows, its own
 *    kernels graph/split_*); the kernels of this file always bind whole, unchanged.
 *
 * GPU memory beyond the graph: 24 bytes per edge (two worklists) + 28 per vertex (parent, two 8-byte record
 * arrays, guard key, forest slot) — 36 to 38 bytes per undirected edge on the benchmark graphs (limit: 40).
 *
 * Create once, run many: `const msf = await createGraphMsf(ctx, gpuGraph); ctx.submit('…', (rec) =>
 * msf.encode(rec)); …; msf.destroy()`. `encode` records one whole computation and never submits.
 */
import type { GpuContext } from '../gpu/context.js';
import { uniformBytes, type Bindings, type Kernel, type KernelSpec } from '../gpu/kernel.js';
import type { Recorder } from '../gpu/recorder.js';
import { Usage } from '../gpu/usage.js';
import { InputError } from '../errors.js';
import { FILTER_C, filterPlan, type FilterPlan } from './threshold.js';
import type { WeightKind } from './types.js';
import type { EclTrace } from './eclmst.cpu.js';
import { fitsWhole } from './capacity.js';
import { createSplitGraphMsf } from './eclsplit.js';
import { forestFromState, roundsFor, traceFromState } from './msfstate.js';

export { roundsFor };

/** A graph resident on the GPU (see `uploadGraph` in gpugraph.ts). Buffers hold u32 words. */
export interface GpuGraph {
  kind: 'edges' | 'csr';
  numVertices: number;
  /** Edge-id slots: edge-list length, or CSR entries. */
  slots: number;
  /** Worklist capacity: at least the number of non-loop edges (edge list) or entries with v < neighbour (CSR). */
  capacity: number;
  weightKind: WeightKind;
  /** The raw 32 bits of every weight. */
  weights: GPUBuffer;
  /** Edge lists: both endpoints. */
  sources?: GPUBuffer;
  targets?: GPUBuffer;
  /** CSR: numVertices + 1 row starts and the entries' neighbours. */
  offsets?: GPUBuffer;
  neighbours?: GPUBuffer;
  /** CSR: every row's neighbours are non-decreasing (needed by the row minima; see GraphMsfOptions.rowMinima). */
  sortedRows?: boolean;
  /**
   * The candidate edges (non-loop edges; CSR entries with v < neighbour) among slots [first, first + count), counted
   * on the host: the split path (eclsplit.ts) sizes its worklist segments by them (one entry per slot without it).
   */
  candidates?: (first: number, count: number) => number;
}

export interface GraphMsfOptions {
  /** Threads per workgroup (default 256). */
  workgroupSize?: number;
  /** CSR entries per thread in the populate kernel (default 8). */
  csrItems?: number;
  /**
   * 'fixed' (default): rounds over a fixed grid of grid-stride loops; 'indirect': grids sized on the GPU from the
   * round's count (each indirect dispatch costs a pass of Dawn validation; see the header).
   */
  dispatch?: 'indirect' | 'fixed';
  /** Workgroups of the fixed grid (default 1024). */
  fixedGroups?: number;
  /**
   * Rounds `from` on (1-based, every phase) run over a fixed grid of `groups` workgroups instead: late rounds are
   * nearly always small or empty, and an empty round over the full grid costs ~10 µs per dispatch on the H100
   * (two per round, ⌊log2 n⌋ + 1 rounds per phase). Default: none (every round over fixedGroups). H100 (fa7695b):
   * no gain — { from: 10, groups: 64 } left an empty round at ~10 µs, so the cost is per dispatch, not per group.
   */
  tail?: { from: number; groups: number };
  /** Use the 64-bit atomic minimum (default: where the device has 'atomic-vec2u-min-max'). */
  atomic64?: boolean;
  /** Aggregate worklist appends per subgroup instead of per workgroup (default: where the device has 'subgroups'). */
  subgroups?: boolean;
  /** Filtering: ECL-MST's rule ('auto', default), always, or never. The forest is the same either way. */
  filter?: 'auto' | 'on' | 'off';
  /** The light phase's target, c·numVertices lightest edges (default ECL-MST's c = 3; threshold.ts). */
  filterC?: number;
  /**
   * 64-bit minima's guard keys (min64.wgsl): 'tagged' (default) tags them with the round and never empties them;
   * 'reset' empties them in select after every round.
   */
  guard?: 'reset' | 'tagged';
  /**
   * Finds in populate and filter: 'plain' (default) through a read-only binding (graph/parent_ro.wgsl: cacheable
   * loads, no halving, as ECL-MST's find); 'atomic' through the shared union-find with path halving.
   */
  finds?: 'atomic' | 'plain';
  /**
   * CSR round 1 from singletons (light or unfiltered phase): each vertex's lightest edge reduced over its own row
   * in workgroup memory (populate_csr.wgsl) instead of two guarded atomics per edge. Used only with 64-bit
   * minima, rows sorted by neighbour and room for the tile in workgroup memory; default false.
   */
  rowMinima?: boolean;
  /**
   * Filter rounds with at least numVertices / 16 entries empty the previous round's records by one coalesced
   * fill instead of two scattered stores per entry (filter.wgsl); default true.
   */
  fillResets?: boolean;
  /**
   * Worklist layout: 'interleaved' (default; entry i at words 3i..3i + 2) or 'split' (each field in its own third
   * of the buffer, so a subgroup's loads and stores of a field are contiguous); same bytes either way.
   */
  worklist?: 'interleaved' | 'split';
  /**
   * CSR populate and filter: each workgroup reserves a whole tile's worklist slots (populate: csrItems · WG entries;
   * filter: up to 4 · WG) with one global atomicAdd, each thread's kept entries held in registers meanwhile
   * (populate_csr.wgsl, filter.wgsl), instead of one atomicAdd per subgroup and item; needs csrItems ≤ 32 (ignored
   * otherwise); default true.
   */
  tileAppends?: boolean;
  /**
   * With tile appends and subgroups: each subgroup records the lightest of its entries that touch its smallest set
   * (late rounds' giant set, whose root is small) once, instead of each entry its own record on the same address
   * (graph/hot_sg.wgsl); default false: slower on the H100 (fa7695b: r4-23 12.97 vs 12.32 ms, knn2d-22 4.21 vs 4.10).
   */
  hotSets?: boolean;
  /**
   * Select's forest appends by tiles too (select.wgsl, selectTiles: up to 4 · WG entries per chunk); default false.
   * H100 (fa7695b): faster on r4-23 (11.67 vs 12.32 ms), knn2d-22 (3.93 vs 4.10) and grid2d-20 (1.01 vs 1.08);
   * rmat-22 unmeasured, so not yet the default.
   */
  selectTiles?: boolean;
  /**
   * Issue 19: run on split arrays (eclsplit.ts: edge arrays and worklists in windows) even where every array fits
   * one binding — tests; default: only where an array exceeds one binding. None of the options above but
   * workgroupSize, subgroups, fixedGroups, filter and filterC apply there.
   */
  split?: boolean;
  /** With the split arrays: windows of at most this many edge slots (tests: many windows at small sizes). */
  splitWindow?: number;
  /** With the split arrays: vertex arrays in parts of at most this many elements (tests: parts at small sizes). */
  splitParts?: number;
}

export interface GraphMsf {
  /** Forest edge ids, unordered; their number is the u32 at byte FOREST_COUNT_OFFSET of `state`. */
  readonly forest: GPUBuffer;
  /** Counters, threshold and per-round statistics (layout in shaders/graph/common.wgsl). */
  readonly state: GPUBuffer;
  /** The union-find parents; after `encodeLabels`, each vertex's smallest set member. */
  readonly parent: GPUBuffer;
  /** The filtering decision. */
  readonly plan: FilterPlan;
  /** Rounds encoded per phase. */
  readonly rounds: number;
  /** Whether round 1 records each row's minimum in workgroup memory (GraphMsfOptions.rowMinima, where it applies). */
  readonly rowMinima: boolean;
  /** Records one full MSF computation (graph in, forest in `forest`). */
  encode(rec: Recorder): void;
  /** Records turning the union-find into component labels (after `encode`). */
  encodeLabels(rec: Recorder): void;
  /** Reads the forest's edge ids (unordered) and checks the run's invariants. */
  readForest(): Promise<Uint32Array>;
  /** Reads the component labels (after `encodeLabels` was submitted). */
  readLabels(): Promise<Uint32Array>;
  /** Reads the threshold and per-round worklist sizes (comparable with `eclMstCpu`'s trace). */
  readTrace(): Promise<EclTrace>;
  destroy(): void;
}

/** Byte offset of the forest edge count in `state`. */
export const FOREST_COUNT_OFFSET = 8;
const STATE_WORDS = 8 + 2 * 64;
const PHASE_ALL = 0,
  PHASE_LIGHT = 1,
  PHASE_HEAVY = 2;
const KIND_CODE: Record<WeightKind, number> = { u32: 0, i32: 1, f32: 2 };

/**
 * The uniform block (`GraphParams`) and the bindings every kernel shares (graph/common.wgsl), then each kernel's
 * own (shaders/graph/<name>.wgsl, min32/min64.wgsl's `g_min` at 3), by their WGSL names.
 */
const GRAPH_PARAMS = {
  n: 'u32',
  slots: 'u32',
  cap: 'u32',
  phase: 'u32',
  inSlot: 'u32',
  outSlot: 'u32',
  statsAt: 'u32',
  maxDim: 'u32',
  forestCap: 'u32',
  samples: 'u32',
  pick: 'u32',
  guardTag: 'u32',
} as const;
const COMMON = { P: 'uniform', g_state: 'read_write', uf_parent: 'read_write' } as const;
/** The common bindings of the kernels that only find, under `finds: 'plain'` (graph/parent_ro.wgsl). */
const COMMON_RO = { ...COMMON, uf_parent: 'read' } as const;
const B = {
  init: { g_minA: 'read_write', g_minB: 'read_write', g_guard: 'read_write' },
  threshold: { e_w: 'read' },
  populateEdges: { g_min: 'read_write', wl_out: 'read_write', e_src: 'read', e_dst: 'read', e_w: 'read' },
  populateCsr: { g_min: 'read_write', wl_out: 'read_write', c_off: 'read', c_nbr: 'read', e_w: 'read' },
  filter: { g_min: 'read_write', wl_out: 'read_write', wl_in: 'read', e_w: 'read', g_prev: 'read_write' },
  minIds: { g_min: 'read_write', wl: 'read', e_w: 'read' },
  select: { g_min: 'read', wl: 'read', forest: 'read_write', args_next: 'read_write', g_guard: 'read_write' },
} as const;

interface Kernels {
  rowMinima: boolean;
  init: Kernel;
  threshold: Kernel;
  populate: Kernel;
  filter: Kernel;
  minIds: Kernel | null;
  select: Kernel;
  labels: Kernel;
}

/** Entries per thread and chunk of the filter's and select's tile appends (GraphMsfOptions.tileAppends, selectTiles). */
const FILTER_TILE_ITEMS = 4;

/** The round tag of tagged guard words (min64.wgsl): falls with every round of every phase. */
export function guardTag(phaseIndex: number, round: number): number {
  return 63 - (32 * phaseIndex + round - 1);
}

interface Variant {
  wg: number;
  items: number;
  atomic64: boolean;
  subgroups: boolean;
  guardTagged: boolean;
  plainFinds: boolean;
  rowMinima: boolean;
  fillResets: boolean;
  splitWorklist: boolean;
  tileAppends: boolean;
  hotSets: boolean;
  selectTiles: boolean;
}

async function compile(ctx: GpuContext, g: GpuGraph, v: Variant): Promise<Kernels> {
  const { wg, items, atomic64, subgroups } = v;
  const base = ['common/grid', 'unionfind/unionfind', 'graph/base', 'graph/common', 'graph/parent'];
  // The kernels that only find (populate, filter): the shared union-find, or the read-only parents.
  const finder = v.plainFinds ? ['common/grid', 'graph/base', 'graph/common', 'graph/parent_ro'] : base;
  const finderCommon: Bindings = v.plainFinds ? COMMON_RO : COMMON;
  const minMod = atomic64 ? 'graph/min64' : 'graph/min32';
  const reserve = subgroups ? 'graph/reserve_sg' : 'graph/reserve_wg';
  const appendEnable = subgroups ? ['subgroups'] : [];
  const enable = [...(atomic64 ? ['atomic_vec2u_min_max'] : []), ...appendEnable];
  const overrides = {
    WEIGHT_KIND: KIND_CODE[g.weightKind],
    GUARD_TAGGED: v.guardTagged ? 1 : 0,
    FILL_RESETS: v.fillResets ? 1 : 0,
    WL_SPLIT: v.splitWorklist ? 1 : 0,
    HOT_SETS: v.hotSets ? 1 : 0,
  };
  const spec = (
    name: string,
    shader: string,
    entry: string,
    bindings: Bindings,
    extra: Partial<KernelSpec> = {},
  ): KernelSpec => ({
    label: `graph::${name}`,
    shader: `graph/${shader}`,
    entry,
    bindings: { ...COMMON, ...bindings },
    uniforms: GRAPH_PARAMS,
    workgroupSize: wg,
    include: base,
    overrides,
    ...extra,
  });
  const hot = subgroups ? 'graph/hot_sg' : 'graph/hot_wg';
  const producer = { include: [...finder, reserve, minMod, 'graph/push', hot], enable };
  // populate's round-1 rule (graph/round1.wgsl, shared with the split path's populates).
  const populating = { ...producer, include: [...producer.include, 'graph/round1'] };
  // min64.wgsl's guard keys are one more binding (8) of the kernels that record minima.
  const guard: Bindings = atomic64 ? { g_guard: 'read_write' } : {};
  const [init, threshold, populate, filter, minIds, select, labels] = await Promise.all([
    ctx.kernel(spec('init', 'init', 'init', B.init)),
    ctx.kernel({ ...spec('threshold', 'threshold', 'threshold', B.threshold), workgroupSize: 1 }),
    g.kind === 'edges'
      ? ctx.kernel({
          ...spec('populate', 'populate_edges', 'populateEdges', { ...B.populateEdges, ...guard }),
          ...populating,
          bindings: { ...finderCommon, ...B.populateEdges, ...guard },
        })
      : ctx.kernel({
          ...spec('populate', 'populate_csr', 'populateCsr', { ...B.populateCsr, ...guard }),
          ...populating,
          bindings: { ...finderCommon, ...B.populateCsr, ...guard },
          constants: { ITEMS: items, ROW_MINIMA: v.rowMinima ? 1 : 0, TILE_APPENDS: v.tileAppends ? 1 : 0 },
        }),
    ctx.kernel({
      ...spec('filter', 'filter', 'filterRound', { ...B.filter, ...guard }),
      ...producer,
      bindings: { ...finderCommon, ...B.filter, ...guard },
      constants: { FILTER_ITEMS: v.tileAppends ? FILTER_TILE_ITEMS : 0 },
    }),
    atomic64 ? null : ctx.kernel(spec('minIds', 'min_ids', 'minIds', B.minIds)),
    ctx.kernel({
      ...spec('select', 'select', 'selectRound', B.select),
      include: [...base, reserve],
      enable: appendEnable,
      constants: { SELECT_ITEMS: v.selectTiles ? FILTER_TILE_ITEMS : 0 },
    }),
    ctx.kernel(spec('labels', 'labels', 'labels', {})),
  ]);
  return { rowMinima: v.rowMinima, init, threshold, populate, filter, minIds, select, labels };
}

/** Compiles the kernels (once per device) and allocates the scratch for MSFs of `graph`. */
export async function createGraphMsf(
  ctx: GpuContext,
  graph: GpuGraph,
  options: GraphMsfOptions = {},
): Promise<GraphMsf> {
  const wg = options.workgroupSize ?? 256;
  if (!Number.isInteger(wg) || wg < 1 || wg > ctx.limits.maxComputeInvocationsPerWorkgroup) {
    throw new InputError(
      `Expected workgroupSize in [1, ${ctx.limits.maxComputeInvocationsPerWorkgroup}], got ${options.workgroupSize}.`,
    );
  }
  const items = options.csrItems ?? 8;
  if (!Number.isInteger(items) || items < 1) throw new InputError(`Expected csrItems ≥ 1, got ${options.csrItems}.`);
  const atomic64 = options.atomic64 ?? ctx.features.atomicVec2uMinMax;
  if (atomic64 && !ctx.features.atomicVec2uMinMax) {
    throw new InputError(`atomic64: true needs the 'atomic-vec2u-min-max' feature, which this GPU context lacks.`);
  }
  const subgroups = options.subgroups ?? ctx.features.subgroups;
  if (subgroups && !ctx.features.subgroups) {
    throw new InputError(`subgroups: true needs the 'subgroups' feature, which this GPU context lacks.`);
  }
  if (options.dispatch !== undefined && options.dispatch !== 'fixed' && options.dispatch !== 'indirect') {
    throw new InputError(`Expected dispatch 'fixed' or 'indirect', got ${JSON.stringify(options.dispatch)}.`);
  }
  if (options.guard !== undefined && options.guard !== 'reset' && options.guard !== 'tagged') {
    throw new InputError(`Expected guard 'reset' or 'tagged', got ${JSON.stringify(options.guard)}.`);
  }
  if (options.finds !== undefined && options.finds !== 'atomic' && options.finds !== 'plain') {
    throw new InputError(`Expected finds 'atomic' or 'plain', got ${JSON.stringify(options.finds)}.`);
  }
  if (options.worklist !== undefined && options.worklist !== 'interleaved' && options.worklist !== 'split') {
    throw new InputError(`Expected worklist 'interleaved' or 'split', got ${JSON.stringify(options.worklist)}.`);
  }
  const fixedGroups = options.fixedGroups ?? 1024;
  if (!Number.isInteger(fixedGroups) || fixedGroups < 1)
    throw new InputError(`Expected fixedGroups ≥ 1, got ${options.fixedGroups}.`);
  const tail = options.tail ?? { from: Infinity, groups: fixedGroups };
  if (!(tail.from >= 1) || !Number.isInteger(tail.groups) || tail.groups < 1) {
    throw new InputError(`Expected tail { from ≥ 1, groups ≥ 1 (an integer) }, got ${JSON.stringify(options.tail)}.`);
  }
  const n = graph.numVertices;
  const cap = Math.max(1, graph.capacity);
  const directed = graph.kind === 'csr' ? graph.slots : 2 * graph.slots;
  const filterC = options.filterC ?? FILTER_C;
  if (!(filterC > 0 && Number.isFinite(filterC))) {
    throw new InputError(`Expected filterC > 0, got ${options.filterC}.`);
  }
  const plan = filterPlan(n, graph.slots, directed, options.filter, filterC);
  // Issue 19: an array above one binding (worklists, edge slots, 8-byte vertex records) takes the split path.
  if (options.split || !fitsWhole(ctx.limits, n, graph.slots, cap)) {
    const split = { windowSlots: options.splitWindow, partElements: options.splitParts };
    return createSplitGraphMsf(ctx, graph, plan, { wg, subgroups, fixedGroups, ...split });
  }
  const kernels = await compile(ctx, graph, {
    wg,
    items,
    atomic64,
    subgroups,
    guardTagged: options.guard !== 'reset',
    plainFinds: options.finds !== 'atomic',
    fillResets: options.fillResets ?? true,
    splitWorklist: options.worklist === 'split',
    tileAppends: (options.tileAppends ?? true) && items <= 32,
    hotSets: (options.hotSets ?? false) && subgroups,
    selectTiles: options.selectTiles ?? false,
    // populate_csr's workgroup memory: the tile's row offsets, and with row minima two more words per entry.
    rowMinima:
      (options.rowMinima ?? false) &&
      atomic64 &&
      graph.kind === 'csr' &&
      graph.sortedRows === true &&
      3 * 4 * wg * items + 64 <= ctx.limits.maxComputeWorkgroupStorageSize,
  });
  return new GraphMsfImpl(ctx, graph, kernels, plan, {
    wg,
    items,
    cap,
    fixed: options.dispatch !== 'indirect',
    fixedGroups,
    tail,
  });
}

class GraphMsfImpl implements GraphMsf {
  readonly forest: GPUBuffer;
  readonly state: GPUBuffer;
  readonly parent: GPUBuffer;
  readonly rounds: number;
  readonly rowMinima: boolean;
  private readonly minRec: [GPUBuffer, GPUBuffer];
  private readonly wl: [GPUBuffer, GPUBuffer];
  private readonly args: [GPUBuffer, GPUBuffer];
  /** min64.wgsl's guard keys (one u32 per vertex). */
  private readonly guard: GPUBuffer;
  /** The extra binding of the minimum-recording kernels: { g_guard } with 64-bit minima, none with 32-bit ones. */
  private readonly guardBinding: Readonly<Record<string, GPUBuffer>>;
  private readonly forestCap: number;

  constructor(
    private readonly ctx: GpuContext,
    private readonly g: GpuGraph,
    private readonly k: Kernels,
    readonly plan: FilterPlan,
    private readonly cfg: {
      wg: number;
      items: number;
      cap: number;
      fixed: boolean;
      fixedGroups: number;
      tail: { from: number; groups: number };
    },
  ) {
    const n = g.numVertices;
    this.rounds = roundsFor(n);
    this.rowMinima = k.rowMinima;
    this.forestCap = Math.max(1, n - 1);
    this.parent = ctx.createBuffer('graph::parent', 4 * n);
    this.minRec = [ctx.createBuffer('graph::minA', 8 * n), ctx.createBuffer('graph::minB', 8 * n)];
    this.wl = [ctx.createBuffer('graph::worklistA', 12 * cfg.cap), ctx.createBuffer('graph::worklistB', 12 * cfg.cap)];
    this.forest = ctx.createBuffer('graph::forest', 4 * this.forestCap);
    this.state = ctx.createBuffer('graph::state', 4 * STATE_WORDS);
    this.args = [
      ctx.createBuffer('graph::argsA', 16, Usage.INDIRECT),
      ctx.createBuffer('graph::argsB', 16, Usage.INDIRECT),
    ];
    this.guard = ctx.createBuffer('graph::guard', 4 * n);
    this.guardBinding = k.minIds ? {} : { g_guard: this.guard };
  }

  private params(p: {
    phase?: number;
    inSlot?: number;
    outSlot?: number;
    statsAt?: number;
    guardTag?: number;
  }): Uint8Array {
    const g = this.g;
    return uniformBytes(this.k.init as Kernel<Bindings, typeof GRAPH_PARAMS>, {
      n: g.numVertices,
      slots: g.slots,
      cap: this.cfg.cap,
      phase: p.phase ?? 0,
      inSlot: p.inSlot ?? 0,
      outSlot: p.outSlot ?? 0,
      statsAt: p.statsAt ?? 0,
      maxDim: this.ctx.maxWorkgroupsPerDimension,
      forestCap: this.forestCap,
      samples: this.plan.samples,
      pick: this.plan.pick,
      guardTag: p.guardTag ?? 0,
    });
  }

  /** A round's dispatch: direct over the capacity in round 1, then from the GPU-written arguments (or fixed). */
  private round(
    rec: Recorder,
    kernel: Kernel,
    buffers: Readonly<Record<string, GPUBuffer>>,
    uniforms: Uint8Array,
    r: number,
  ): void {
    if (this.cfg.fixed) {
      const groups = r >= this.cfg.tail.from ? this.cfg.tail.groups : this.cfg.fixedGroups;
      rec.dispatch(kernel, { buffers, uniforms, groups });
    } else if (r === 1) rec.dispatch(kernel, { buffers, uniforms, threads: this.cfg.cap });
    else rec.dispatch(kernel, { buffers, uniforms, indirect: { buffer: this.args[r % 2] } });
  }

  encode(rec: Recorder): void {
    const { g, k } = this;
    const n = g.numVertices;
    const common = { g_state: this.state, uf_parent: this.parent };
    rec.clear(this.state);
    rec.dispatch(k.init, {
      buffers: { ...common, g_minA: this.minRec[0], g_minB: this.minRec[1], g_guard: this.guard },
      uniforms: this.params({}),
      threads: n,
    });
    if (g.slots === 0 || n < 2) return;
    if (this.plan.filter)
      rec.dispatch(k.threshold, { buffers: { ...common, e_w: g.weights }, uniforms: this.params({}), groups: 1 });
    if (!this.plan.filter) return this.encodePhase(rec, PHASE_ALL, 0);
    this.encodePhase(rec, PHASE_LIGHT, 0);
    // Flatten the union-find once (parent = root) so that the heavy phase's finds over every edge are two loads.
    this.encodeLabels(rec);
    this.encodePhase(rec, PHASE_HEAVY, 1);
  }

  private encodePhase(rec: Recorder, phase: number, index: number): void {
    const { g, k, wl, minRec } = this;
    const common = { g_state: this.state, uf_parent: this.parent };
    rec.clear(this.state, 0, 8); // both worklist counters
    const input: Readonly<Record<string, GPUBuffer>> =
      g.kind === 'edges'
        ? { e_src: g.sources!, e_dst: g.targets!, e_w: g.weights }
        : { c_off: g.offsets!, c_nbr: g.neighbours!, e_w: g.weights };
    // Round 1: populate into worklist 1 / counter 1, records in minRec[1].
    const pop = this.params({ phase, outSlot: 1, guardTag: guardTag(index, 1) });
    const popBuffers = { ...common, g_min: minRec[1], wl_out: wl[1], ...input, ...this.guardBinding };
    if (g.kind === 'edges') rec.dispatch(k.populate, { buffers: popBuffers, uniforms: pop, threads: g.slots });
    else
      rec.dispatch(k.populate, {
        buffers: popBuffers,
        uniforms: pop,
        groups: Math.ceil(g.slots / (this.cfg.wg * this.cfg.items)),
      });
    for (let r = 1; r <= this.rounds; r++) {
      const cur = r % 2;
      const prev = 1 - cur;
      if (r > 1) {
        const u = this.params({ phase, inSlot: prev, outSlot: cur, guardTag: guardTag(index, r) });
        const buffers = {
          ...common,
          g_min: minRec[cur],
          wl_out: wl[cur],
          wl_in: wl[prev],
          e_w: g.weights,
          g_prev: minRec[prev],
        };
        this.round(rec, k.filter, { ...buffers, ...this.guardBinding }, u, r);
      }
      if (k.minIds) {
        this.round(
          rec,
          k.minIds,
          { ...common, g_min: minRec[cur], wl: wl[cur], e_w: g.weights },
          this.params({ outSlot: cur }),
          r,
        );
      }
      const s = this.params({ inSlot: prev, outSlot: cur, statsAt: 64 * index + r });
      const selected = {
        g_min: minRec[cur],
        wl: wl[cur],
        forest: this.forest,
        args_next: this.args[(r + 1) % 2],
        g_guard: this.guard,
      };
      this.round(rec, k.select, { ...common, ...selected }, s, r);
    }
  }

  encodeLabels(rec: Recorder): void {
    const n = this.g.numVertices;
    rec.dispatch(this.k.labels, {
      buffers: { g_state: this.state, uf_parent: this.parent },
      uniforms: this.params({}),
      threads: n,
    });
  }

  async readForest(): Promise<Uint32Array> {
    const state = new Uint32Array(await this.ctx.read(this.state));
    return forestFromState(this.ctx, state, this.forest, this.forestCap, this.traceOf(state));
  }

  async readLabels(): Promise<Uint32Array> {
    return new Uint32Array(await this.ctx.read(this.parent, 0, 4 * this.g.numVertices));
  }

  async readTrace(): Promise<EclTrace> {
    return this.traceOf(new Uint32Array(await this.ctx.read(this.state)));
  }

  private traceOf(state: Uint32Array): EclTrace {
    return traceFromState(state, this.plan, this.rounds, this.g.slots, this.g.numVertices);
  }

  destroy(): void {
    for (const b of [this.parent, ...this.minRec, ...this.wl, this.forest, this.state, ...this.args, this.guard])
      b.destroy();
  }
}
