/**
 * The graph MSF on arrays above one storage binding (issue 19): eclmst.ts's ECL-MST phases and rounds, with every
 * array that grows with the edges bound per window (gpu/bigarray.ts). createGraphMsf takes this path only where an
 * array of its own exceeds one binding (or where GraphMsfOptions.split forces it, for tests): the fast path's
 * kernels and bind groups never see it.
 *
 *   windows   the edge slots — weights, sources and targets, or the CSR's neighbours — bound per window of slots
 *             (bigarray.ts windows(), strides 4 and 16) by populate only; and the two worklists, cut into one
 *             SEGMENT per window of slots, segment s holding what window s produced: populate of window s appends
 *             to segment s, and every filter of segment s reads segment s of one worklist and appends to segment s
 *             of the other (an entry never leaves its segment, so a segment never outgrows its phase's start). Each
 *             segment has its own two counters (state words from COUNTERS); filter, minIds and select run once per
 *             segment, every segment's filter before any minIds, every minIds before any select.
 *   parts     the 4-byte vertex arrays: the union-find (graph/split_uf.wgsl, through bigArrayWgsl's atomic accessors
 *             and its compare-exchange for the link; populate and filter only find, through read-only parents:
 *             graph/split_find.wgsl, as the fast path's default `finds: 'plain'`), the records (keys and ids in separate arrays, two of each
 *             alternating by round), the CSR's row starts and the forest (n − 1 ids), planned once per graph by
 *             planParts (whole, one binding each, where they fit); init runs per window of vertices. The filter
 *             binds four of them beside three other storage buffers, so 16 a stage allow 3 parts each: up to
 *             786,431 vertices at 1 MiB, 1.6·10^9 at the H100's 2 GiB (capacity.ts).
 *
 * What differs from eclmst.ts besides the bindings, and why:
 *  - A worklist entry is (p, q, id, key), 16 bytes: the weight key travels with the edge, so that no kernel after
 *    populate reads the weights (random reads by edge id would need the weights in parts, which multiply bindings
 *    with the edges). Segments are sized by the candidates of their window of slots (GpuGraph.candidates; one entry
 *    per slot without it), so the worklists take 32 bytes per candidate edge (fast path: 24).
 *  - The lightest edge per set in two 32-bit passes (graph/min32.wgsl's scheme: the smallest key, then the
 *    smallest id among that key's edges), whatever the device's 64-bit atomics: the records stay 4-byte arrays.
 *  - The threshold's 20 sampled weights are copied into the state by the host's sample slots (threshold.ts
 *    sampleHash, the slots graph/threshold.wgsl reads), so the threshold kernel binds no weights.
 *  - The fixed grid of grid-stride loops is capped per segment by the segment's capacity. No option of issue 18
 *    (guards, plain finds, tiles, row minima, fill resets, indirect dispatch) applies here.
 *
 * Every round joins exactly the sets the unsplit path joins (each set's lightest edge by (weight key, edge id)), so
 * the forest, the labels and every round's worklist size are the unsplit path's (test/gpu/graph.split.test.ts).
 *
 * GPU memory beyond the graph: 32 bytes per candidate edge (two worklists) + 24 per vertex (parent, two key and two
 * id arrays, forest slot).
 */
import {
  bindParts,
  planParts,
  windowBinding,
  windows,
  type PartArray,
  type PartPlan,
  type Window,
} from '../gpu/bigarray.js';
import type { GpuContext } from '../gpu/context.js';
import { uniformBytes, type Bindings, type Kernel } from '../gpu/kernel.js';
import type { Binding, Recorder } from '../gpu/recorder.js';
import { checkGraphCapacity } from './capacity.js';
import type { EclTrace } from './eclmst.cpu.js';
import type { GpuGraph, GraphMsf } from './eclmst.js';
import { forestFromState, roundsFor, traceFromState } from './msfstate.js';
import { sampleHash, type FilterPlan } from './threshold.js';
import type { WeightKind } from './types.js';

/** graph/split_common.wgsl's SplitParams. */
const SPLIT_PARAMS = {
  n: 'u32',
  phase: 'u32',
  first: 'u32',
  count: 'u32',
  cap: 'u32',
  inSlot: 'u32',
  outSlot: 'u32',
  statsAt: 'u32',
  forestCap: 'u32',
  samples: 'u32',
  pick: 'u32',
  pad0: 'u32',
} as const;
type SplitKernel = Kernel<Bindings, typeof SPLIT_PARAMS>;

/** State words: graph/common.wgsl's (8 + 2·64), the samples (ST_SAMPLES, 20 words), then two counters a segment. */
const ST_SAMPLES = 136;
const COUNTERS = 160;
const counterWord = (segment: number, slot: number) => COUNTERS + 2 * segment + slot;
const PHASE_ALL = 0,
  PHASE_LIGHT = 1,
  PHASE_HEAVY = 2;
const KIND_CODE: Record<WeightKind, number> = { u32: 0, i32: 1, f32: 2 };
/** Bytes of a worklist entry (p, q, id, key). */
const ENTRY = 16;

const BASE = { P: 'uniform', g_state: 'read_write' } as const;
/** Each kernel's bindings before its vertex arrays: the state and the windows of edge slots or worklist segments. */
const B = {
  init: { ...BASE, parent: 'read_write', keyA: 'read_write', idA: 'read_write', keyB: 'read_write', idB: 'read_write' },
  labels: BASE,
  threshold: BASE,
  populateEdges: { ...BASE, wl_out: 'read_write', e_src: 'read', e_dst: 'read', e_w: 'read' },
  populateCsr: { ...BASE, wl_out: 'read_write', c_nbr: 'read', e_w: 'read' },
  filter: { ...BASE, wl_out: 'read_write', wl_in: 'read' },
  minIds: { ...BASE, wl: 'read' },
  select: { ...BASE, wl: 'read' },
} as const;

/** The vertex arrays (4-byte words, bound whole or in parts: bigarray.ts), by their WGSL names. */
const vertexArray = (name: string, access: 'read' | 'read_write', atomic = false): PartArray => ({
  name,
  type: 'u32',
  stride: 4,
  length: (n) => n,
  access,
  atomic,
});
const PARENT: PartArray = { ...vertexArray('parent', 'read_write', true), cas: true };
/** The parents of the kernels that only find (graph/split_find.wgsl). */
const PARENT_RO = vertexArray('parent', 'read');
const FOREST: PartArray = { ...vertexArray('forest', 'read_write'), length: (n) => Math.max(1, n - 1) };
const C_OFF: PartArray = { ...vertexArray('c_off', 'read'), length: (n) => n + 1 };
const V = {
  labels: [PARENT],
  populateEdges: [PARENT_RO, vertexArray('g_key', 'read_write', true)],
  populateCsr: [PARENT_RO, vertexArray('g_key', 'read_write', true), C_OFF],
  filter: [
    PARENT_RO,
    vertexArray('g_key', 'read_write', true),
    vertexArray('prevKey', 'read_write'),
    vertexArray('prevId', 'read_write'),
  ],
  minIds: [vertexArray('keys', 'read'), vertexArray('ids', 'read_write', true)],
  select: [PARENT, vertexArray('ids', 'read_write', true), FOREST],
};

/** A kernel and the plan of its vertex arrays (null: it has none). */
interface Planned {
  kernel: SplitKernel;
  plan: PartPlan | null;
}

interface SplitKernels {
  init: Planned;
  labels: Planned;
  threshold: Planned;
  populate: Planned;
  filter: Planned;
  minIds: Planned;
  select: Planned;
}

export interface SplitMsfConfig {
  wg: number;
  subgroups: boolean;
  fixedGroups: number;
  /** Windows of at most this many edge slots (tests: many segments at small sizes). */
  windowSlots?: number;
  /** Vertex arrays in parts of at most this many elements (tests: parts at small sizes). */
  partElements?: number;
}

async function compile(ctx: GpuContext, g: GpuGraph, cfg: SplitMsfConfig): Promise<SplitKernels> {
  const reserve = cfg.subgroups ? 'graph/reserve_sg' : 'graph/reserve_wg';
  const enable = cfg.subgroups ? ['subgroups'] : [];
  const base = ['common/grid', 'graph/base', 'graph/split_common'];
  const k = async (
    name: string,
    shader: string,
    entry: string,
    fixed: Bindings,
    arrays: PartArray[],
    include: string[],
    more = {},
  ): Promise<Planned> => {
    const label = `graph::split.${name}`;
    const first = Object.keys(fixed).length;
    const plan = arrays.length ? planParts(ctx.limits, label, arrays, g.numVertices, first, cfg.partElements) : null;
    const kernel = (await ctx.kernel({
      label,
      shader: `graph/${shader}`,
      entry,
      bindings: { ...fixed, ...plan?.bindings },
      uniforms: SPLIT_PARAMS,
      workgroupSize: cfg.wg,
      include,
      overrides: { WEIGHT_KIND: KIND_CODE[g.weightKind] },
      generated: plan?.generated,
      ...more,
    })) as SplitKernel;
    return { kernel, plan };
  };
  const uf = [...base, 'graph/split_uf'];
  const producer = { enable };
  const producing = [...base, 'graph/split_find', reserve, 'graph/split_push'];
  // populate's round-1 rule (graph/round1.wgsl, shared with the fast path's populates).
  const populating = [...producing, 'graph/round1'];
  const [init, labels, threshold, populate, filter, minIds, select] = await Promise.all([
    k('init', 'split_init', 'init', B.init, [], base),
    k('labels', 'split_labels', 'labels', B.labels, V.labels, uf),
    k('threshold', 'split_threshold', 'threshold', B.threshold, [], base, { workgroupSize: 1 }),
    g.kind === 'edges'
      ? k('populate', 'split_populate_edges', 'populateEdges', B.populateEdges, V.populateEdges, populating, producer)
      : k('populate', 'split_populate_csr', 'populateCsr', B.populateCsr, V.populateCsr, populating, producer),
    k('filter', 'split_filter', 'filterRound', B.filter, V.filter, producing, producer),
    k('minIds', 'split_min_ids', 'minIds', B.minIds, V.minIds, base),
    k('select', 'split_select', 'selectRound', B.select, V.select, [...uf, reserve], producer),
  ]);
  return { init, labels, threshold, populate, filter, minIds, select };
}

/** Compiles the split kernels (once per device) and allocates the scratch for MSFs of `graph` on split arrays. */
export async function createSplitGraphMsf(
  ctx: GpuContext,
  graph: GpuGraph,
  plan: FilterPlan,
  cfg: SplitMsfConfig,
): Promise<GraphMsf> {
  checkGraphCapacity(ctx.limits, graph.numVertices, graph.slots, graph.capacity);
  const slotWindows = windows(ctx.limits, graph.slots, [4, ENTRY], cfg.windowSlots);
  // Segment s of a worklist: the candidates of window s, from an offset the device accepts (16 entries = 256 B).
  const align = Math.max(1, ctx.limits.minStorageBufferOffsetAlignment / ENTRY);
  const segments: Window[] = [];
  let at = 0;
  for (const w of slotWindows) {
    const count = Math.max(1, graph.candidates ? graph.candidates(w.first, w.count) : w.count);
    segments.push({ first: at, count });
    at += Math.ceil(count / align) * align;
  }
  const kernels = await compile(ctx, graph, cfg);
  return new SplitGraphMsf(ctx, graph, kernels, plan, cfg, slotWindows, segments, Math.max(at, align));
}

class SplitGraphMsf implements GraphMsf {
  readonly forest: GPUBuffer;
  readonly state: GPUBuffer;
  readonly parent: GPUBuffer;
  readonly rounds: number;
  readonly rowMinima = false;
  private readonly keys: [GPUBuffer, GPUBuffer];
  private readonly ids: [GPUBuffer, GPUBuffer];
  private readonly wl: [GPUBuffer, GPUBuffer];
  private readonly forestCap: number;

  constructor(
    private readonly ctx: GpuContext,
    private readonly g: GpuGraph,
    private readonly k: SplitKernels,
    readonly plan: FilterPlan,
    private readonly cfg: SplitMsfConfig,
    /** Windows of edge slots, populate's. */
    private readonly slotWindows: Window[],
    /** Worklist segment s (entries): what window s produces. */
    private readonly segments: Window[],
    entries: number,
  ) {
    const n = g.numVertices;
    this.rounds = roundsFor(n);
    this.forestCap = Math.max(1, n - 1);
    this.parent = ctx.createBuffer('graph::parent', 4 * n);
    this.keys = [ctx.createBuffer('graph::keyA', 4 * n), ctx.createBuffer('graph::keyB', 4 * n)];
    this.ids = [ctx.createBuffer('graph::idA', 4 * n), ctx.createBuffer('graph::idB', 4 * n)];
    this.wl = [
      ctx.createBuffer('graph::worklistA', ENTRY * entries),
      ctx.createBuffer('graph::worklistB', ENTRY * entries),
    ];
    this.forest = ctx.createBuffer('graph::forest', 4 * this.forestCap);
    this.state = ctx.createBuffer('graph::state', 4 * counterWord(segments.length, 0));
  }

  private params(p: {
    phase?: number;
    first?: number;
    count?: number;
    cap?: number;
    inSlot?: number;
    outSlot?: number;
    statsAt?: number;
  }): Uint8Array {
    return uniformBytes(this.k.init.kernel, {
      n: this.g.numVertices,
      phase: p.phase ?? 0,
      first: p.first ?? 0,
      count: p.count ?? 0,
      cap: p.cap ?? 0,
      inSlot: p.inSlot ?? 0,
      outSlot: p.outSlot ?? 0,
      statsAt: p.statsAt ?? 0,
      forestCap: this.forestCap,
      samples: this.plan.samples,
      pick: this.plan.pick,
    });
  }

  private segment(buffer: GPUBuffer, s: number): Binding {
    return windowBinding(this.ctx.limits, buffer, ENTRY, this.segments[s]);
  }

  /** A kernel's dispatch with its vertex arrays bound (whole or in parts) beside `fixed`. */
  private dispatch(
    rec: Recorder,
    k: Planned,
    fixed: Record<string, Binding>,
    vertex: Record<string, Binding>,
    uniforms: Uint8Array,
    size: { threads?: number; groups?: number },
  ): void {
    const parts = k.plan ? bindParts(this.ctx.limits, k.plan, vertex, this.g.numVertices, null) : {};
    rec.dispatch(k.kernel, { buffers: { g_state: this.state, ...fixed, ...parts }, uniforms, ...size });
  }

  /** A segment's fixed grid: fixedGroups workgroups, at most one per WG entries of its capacity. */
  private groups(s: number): number {
    return Math.min(this.cfg.fixedGroups, Math.ceil(this.segments[s].count / this.cfg.wg));
  }

  encode(rec: Recorder): void {
    const { g, k } = this;
    const n = g.numVertices;
    const limits = this.ctx.limits;
    rec.clear(this.state);
    for (const w of windows(limits, n, [4])) {
      const at = (b: GPUBuffer) => windowBinding(limits, b, 4, w);
      rec.dispatch(k.init.kernel, {
        buffers: {
          g_state: this.state,
          parent: at(this.parent),
          keyA: at(this.keys[0]),
          idA: at(this.ids[0]),
          keyB: at(this.keys[1]),
          idB: at(this.ids[1]),
        },
        uniforms: this.params({ first: w.first, count: w.count }),
        threads: w.count,
      });
    }
    if (g.slots === 0 || n < 2) return;
    if (!this.plan.filter) return this.encodePhase(rec, PHASE_ALL, 0);
    // The sampled weights (graph/threshold.wgsl's slots) into the state, then their pick-th smallest key.
    for (let i = 0; i < this.plan.samples; i++)
      rec.copy(g.weights, 4 * (sampleHash(i) % g.slots), this.state, 4 * (ST_SAMPLES + i), 4);
    this.dispatch(rec, k.threshold, {}, {}, this.params({}), { groups: 1 });
    this.encodePhase(rec, PHASE_LIGHT, 0);
    // Flatten the union-find once (parent = root) so that the heavy phase's finds are short.
    this.encodeLabels(rec);
    this.encodePhase(rec, PHASE_HEAVY, 1);
  }

  private encodePhase(rec: Recorder, phase: number, index: number): void {
    const { g, k, wl, keys, ids, segments } = this;
    const limits = this.ctx.limits;
    const parent = this.parent;
    rec.clear(this.state, 4 * COUNTERS, 8 * segments.length);
    // Round 1: window s of the slots into segment s of worklist 1 (counter 1 of segment s), keys in keys[1].
    this.slotWindows.forEach((w, s) => {
      const slots: Record<string, Binding> =
        g.kind === 'edges'
          ? {
              e_src: windowBinding(limits, g.sources!, 4, w),
              e_dst: windowBinding(limits, g.targets!, 4, w),
              e_w: windowBinding(limits, g.weights, 4, w),
            }
          : {
              c_nbr: windowBinding(limits, g.neighbours!, 4, w),
              e_w: windowBinding(limits, g.weights, 4, w),
            };
      const vertex = { parent, g_key: keys[1], ...(g.kind === 'csr' ? { c_off: g.offsets! } : {}) };
      const u = this.params({
        phase,
        first: w.first,
        count: w.count,
        cap: segments[s].count,
        outSlot: counterWord(s, 1),
      });
      this.dispatch(rec, k.populate, { wl_out: this.segment(wl[1], s), ...slots }, vertex, u, { threads: w.count });
    });
    for (let r = 1; r <= this.rounds; r++) {
      const cur = r % 2;
      const prev = 1 - cur;
      // Once per segment: its windows `fixed(s)` beside the vertex arrays.
      const each = (
        kernel: Planned,
        fixed: (s: number) => Record<string, Binding>,
        vertex: Record<string, Binding>,
        statsAt = 0,
      ) => {
        for (let s = 0; s < segments.length; s++) {
          const u = this.params({
            phase,
            cap: segments[s].count,
            inSlot: counterWord(s, prev),
            outSlot: counterWord(s, cur),
            statsAt,
          });
          this.dispatch(rec, kernel, fixed(s), vertex, u, { groups: this.groups(s) });
        }
      };
      if (r > 1) {
        each(k.filter, (s) => ({ wl_out: this.segment(wl[cur], s), wl_in: this.segment(wl[prev], s) }), {
          parent,
          g_key: keys[cur],
          prevKey: keys[prev],
          prevId: ids[prev],
        });
      }
      each(k.minIds, (s) => ({ wl: this.segment(wl[cur], s) }), { keys: keys[cur], ids: ids[cur] });
      each(
        k.select,
        (s) => ({ wl: this.segment(wl[cur], s) }),
        { parent, ids: ids[cur], forest: this.forest },
        64 * index + r,
      );
    }
  }

  encodeLabels(rec: Recorder): void {
    this.dispatch(rec, this.k.labels, {}, { parent: this.parent }, this.params({}), { threads: this.g.numVertices });
  }

  async readForest(): Promise<Uint32Array> {
    const state = new Uint32Array(await this.ctx.read(this.state));
    return forestFromState(this.ctx, state, this.forest, this.forestCap, this.trace(state));
  }

  async readLabels(): Promise<Uint32Array> {
    return new Uint32Array(await this.ctx.read(this.parent, 0, 4 * this.g.numVertices));
  }

  async readTrace(): Promise<EclTrace> {
    return this.trace(new Uint32Array(await this.ctx.read(this.state)));
  }

  private trace(state: Uint32Array): EclTrace {
    return traceFromState(state, this.plan, this.rounds, this.g.slots, this.g.numVertices);
  }

  destroy(): void {
    for (const b of [this.parent, ...this.keys, ...this.ids, ...this.wl, this.forest, this.state]) b.destroy();
  }
}
