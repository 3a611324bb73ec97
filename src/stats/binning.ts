/**
 * MiSTree's four histograms (histogram.ts) counted on the GPU from values that stay there — degrees, float32 edge
 * lengths, the walks' branch lengths and end-to-end distances (branches.ts) — so only the counts cross the bus.
 * The counts equal the host's float64 histograms of the same values exactly (binning.cpu.ts: thresholds, and the
 * few branch shapes too close to an edge to decide in float32 are binned on the host), on any device's float32 (values
 * ordered by their bits, nothing that a device flushing subnormals would change; issue 17). Steps:
 *
 *   stats::extrema  the largest and smallest positive value of d, l, b (the default bins need them)  extrema.wgsl
 *   (host)          the float64 bin edges (histogram.ts binEdges) and their float32 thresholds     binning.cpu.ts
 *   stats::binning  counts per bin, per-workgroup in shared memory; ambiguous shapes listed        binning.wgsl
 *   (host)          the ambiguous shapes binned in float64; normalisation                          binning.cpu.ts
 *
 * Two submissions and two small read-backs (12 words, then the counts and the ambiguous pairs). CPU twins:
 * binning.cpu.ts (extremaCpu, binCountsCpu); the host histograms (histogram.ts) are the oracle.
 *
 * Big arrays (issue 19): both kernels are element-wise over the values, so where the values, their mask or their
 * end-to-end distances exceed one binding they run window by window (gpu/bigarray.ts), each binding its window's
 * ranges; one window, the whole arrays, otherwise.
 */
import type { GpuContext } from '../gpu/context.js';
import type { Kernel } from '../gpu/kernel.js';
import type { Binding, Recorder } from '../gpu/recorder.js';
import { InputError } from '../errors.js';
import { windowBinding, windows, type Window } from '../gpu/bigarray.js';
import { BIN_MODES, binThresholds, extremeValues, resolveShapes, type BinMode } from './binning.cpu.js';
import { binEdges, edgesNeedValues, histogramOfCounts, type MstBins } from './histogram.js';
import type { Histogram, MstHistograms, StatName } from './types.js';

/** One statistic's values in a GPU buffer: value i is words[i · stride + offset], kept where mask[i] ≠ 0. */
export interface GpuValues {
  words: GPUBuffer;
  count: number;
  stride?: number;
  offset?: number;
  mask?: GPUBuffer;
  /** Branch shapes: the float32 end-to-end distance per value (words then hold the branch lengths). */
  other?: GPUBuffer;
}

/** extrema.wgsl's and binning.wgsl's bindings and uniform blocks, by WGSL name. */
const EXTREMA = {
  bindings: { u: 'uniform', words: 'read', mask: 'read', out: 'read_write' },
  uniforms: {
    count: 'u32',
    stride: 'u32',
    offset: 'u32',
    masked: 'u32',
    slot: 'u32',
    p0: 'u32',
    p1: 'u32',
    p2: 'u32',
  },
} as const;
const BINNING = {
  bindings: {
    u: 'uniform',
    words: 'read',
    mask: 'read',
    other: 'read',
    thresholds: 'read',
    counts: 'read_write',
    ambiguous: 'read_write',
  },
  uniforms: {
    count: 'u32',
    stride: 'u32',
    offset: 'u32',
    masked: 'u32',
    bins: 'u32',
    mode: 'u32',
    capacity: 'u32',
    tbase: 'u32',
    cbase: 'u32',
    p0: 'u32',
    p1: 'u32',
    p2: 'u32',
  },
} as const;

const WG = 256;
/** Workgroups of the grid-stride loops: enough to fill an H100, few enough that their flushes stay cheap. */
const MAX_GROUPS = 2048;
/** Ambiguous branch shapes stored per call before a second pass with room for all (binning.cpu.ts). */
export const AMBIGUOUS_CAPACITY = 1 << 16;

export class GpuBinning {
  private constructor(
    private readonly extrema: Kernel<typeof EXTREMA.bindings, typeof EXTREMA.uniforms>,
    private readonly binning: Kernel<typeof BINNING.bindings, typeof BINNING.uniforms>,
    /** Bound where a kernel's mask or end-to-end array is unused. */
    private readonly dummy: GPUBuffer,
    /** Bound as the ambiguous list where there is none (a buffer may not be read and written in one dispatch). */
    private readonly dummyOut: GPUBuffer,
    private readonly ctx: GpuContext,
  ) {}

  static async create(ctx: GpuContext): Promise<GpuBinning> {
    const [extrema, binning] = await Promise.all([
      ctx.kernel({ label: 'stats::extrema', shader: 'stats/extrema', entry: 'main', ...EXTREMA, workgroupSize: WG }),
      ctx.kernel({ label: 'stats::binning', shader: 'stats/binning', entry: 'main', ...BINNING, workgroupSize: WG }),
    ]);
    const dummy = (label: string) => ctx.createBuffer(`stats::${label}`, 4);
    return new GpuBinning(extrema, binning, dummy('binningDummy'), dummy('binningDummyOut'), ctx);
  }

  /** The windows of `v` (one where everything fits one binding) and each window's words, mask and other. */
  private windowsOf(v: GpuValues): { w: Window; words: GPUBuffer | Binding; mask: Binding; other: Binding }[] {
    const limits = this.ctx.limits;
    const stride = 4 * (v.stride ?? 1);
    const strides = [stride, ...(v.mask ? [4] : []), ...(v.other ? [4] : [])];
    return windows(limits, v.count, strides).map((w) => ({
      w,
      words: windowBinding(limits, v.words, stride, w),
      mask: v.mask ? windowBinding(limits, v.mask, 4, w) : this.dummy,
      other: v.other ? windowBinding(limits, v.other, 4, w) : this.dummy,
    }));
  }

  private static groups(count: number): number {
    return Math.max(1, Math.min(MAX_GROUPS, Math.ceil(count / WG)));
  }

  /** Records the extremes of `v` into out[slot], out[slot + 1], out[slot + 2] (extrema.wgsl; out cleared first). */
  encodeExtrema(r: Recorder, v: GpuValues, out: GPUBuffer, slot: number): void {
    if (v.count === 0) return;
    for (const { w, words, mask } of this.windowsOf(v)) {
      r.dispatch(this.extrema, {
        buffers: { words, mask, out },
        uniforms: { ...shape(v), count: w.count, slot, p0: 0, p1: 0, p2: 0 },
        groups: GpuBinning.groups(w.count),
      });
    }
  }

  /** Records the counts of `v` over `bins` thresholds at thresholds[tbase …] into counts[cbase …] (binning.wgsl). */
  encodeCounts(
    r: Recorder,
    v: GpuValues,
    mode: BinMode,
    at: { thresholds: GPUBuffer; tbase: number; bins: number; counts: GPUBuffer; cbase: number },
    ambiguous: { buffer: GPUBuffer; capacity: number } | null,
  ): void {
    if (v.count === 0) return;
    if (mode === 'shape' && (!v.other || !ambiguous)) {
      throw new InputError(`stats::binning: mode 'shape' needs the end-to-end buffer and an ambiguous list.`);
    }
    for (const { w, words, mask, other } of this.windowsOf(v)) {
      r.dispatch(this.binning, {
        buffers: {
          words,
          mask,
          other,
          thresholds: at.thresholds,
          counts: at.counts,
          ambiguous: ambiguous?.buffer ?? this.dummyOut,
        },
        uniforms: {
          ...shape(v),
          count: w.count,
          bins: at.bins,
          mode: BIN_MODES[mode],
          capacity: ambiguous?.capacity ?? 0,
          tbase: at.tbase,
          cbase: at.cbase,
          p0: 0,
          p1: 0,
          p2: 0,
        },
        groups: GpuBinning.groups(w.count),
      });
    }
  }

  destroy(): void {
    this.dummy.destroy();
    this.dummyOut.destroy();
  }
}

function shape(v: GpuValues) {
  return { count: v.count, stride: v.stride ?? 1, offset: v.offset ?? 0, masked: v.mask ? 1 : 0 };
}

/** The four statistics' values on the GPU. `branchShapes.words` are the branch lengths, `other` their end-to-end. */
export interface GpuMstValues {
  degree: GpuValues;
  edgeLengths: GpuValues;
  branchLengths: GpuValues;
  branchShapes: GpuValues;
}

const MODES: Record<StatName, BinMode> = {
  degree: 'u32',
  edgeLength: 'f32',
  branchLength: 'f32',
  branchShape: 'shape',
};
const SOURCES = {
  degree: 'degree',
  edgeLength: 'edgeLengths',
  branchLength: 'branchLengths',
  branchShape: 'branchShapes',
} as const satisfies Record<StatName, keyof GpuMstValues>;

/** Whether the GPU can count the shapes with these bins: their edges must not depend on the shape values. */
export function gpuCanBinShapes(bins: MstBins = {}): boolean {
  return !edgesNeedValues('branchShape', bins.branchShape);
}

/**
 * mstHistograms (histogram.ts) of values on the GPU, equal to the host's on the same values. Lengths on the GPU are
 * the host's divided by `scale` (a power of two). The shape bins must not depend on the values (gpuCanBinShapes).
 */
export async function gpuMstHistograms(
  ctx: GpuContext,
  binning: GpuBinning,
  values: GpuMstValues,
  options: {
    bins?: MstBins;
    normalised?: boolean;
    scale?: number;
    capacity?: number;
    /** `stats::extrema` and `stats::binning` wall times (ms) are added here. */
    timings?: Record<string, number>;
  } = {},
): Promise<MstHistograms> {
  let t = performance.now();
  const lap = (label: string) => {
    const now = performance.now();
    if (options.timings) options.timings[label] = now - t;
    t = now;
  };
  const bins = options.bins ?? {};
  const scale = options.scale ?? 1;
  if (!gpuCanBinShapes(bins)) {
    throw new InputError(
      `stats::binning: shape bins that depend on the shapes (log without min and max) need them on the host.`,
    );
  }
  const made: GPUBuffer[] = [];
  const buf = (label: string, bytes: number) => {
    const b = ctx.createBuffer(`stats::${label}`, Math.max(bytes, 4));
    made.push(b);
    return b;
  };
  try {
    // 1. Extremes of d, l, b (slots 0, 4, 8), where the default bins need them.
    const stats = ['degree', 'edgeLength', 'branchLength'] as const;
    const need = stats.filter((name) => edgesNeedValues(name, bins[name]));
    const extremes = buf('extrema', 48);
    let words = new Uint32Array(12);
    if (need.length > 0) {
      await ctx.submit('stats::extrema', (r) => {
        r.clear(extremes);
        for (const name of need) binning.encodeExtrema(r, values[SOURCES[name]], extremes, 4 * stats.indexOf(name));
      });
      words = new Uint32Array(await ctx.read(extremes, 0, 48));
    }
    lap('stats::extrema');
    // 2. Edges on the host, then the counts of all four on the GPU.
    const names = ['degree', 'edgeLength', 'branchLength', 'branchShape'] as const;
    const edges = {} as Record<StatName, Float64Array>;
    for (const name of names) {
      const j = stats.indexOf(name as (typeof stats)[number]);
      const proxy =
        j >= 0 && need.includes(stats[j])
          ? extremeValues(
              { maxBits: words[4 * j], minPositiveBits: ~words[4 * j + 1] >>> 0, count: words[4 * j + 2] },
              MODES[name] === 'u32' ? 'u32' : 'f32',
              scale,
            )
          : [];
      edges[name] = binEdges(name, bins[name], proxy);
    }
    const tables = names.map((name) => binThresholds(edges[name], MODES[name], MODES[name] === 'f32' ? scale : 1));
    const tbase: number[] = [];
    const cbase: number[] = [];
    let tw = 0;
    let cw = 0;
    for (const t of tables) {
      tbase.push(tw);
      cbase.push(cw);
      tw += t.length;
      cw += t.length - 2;
    }
    const all = new Uint32Array(tw);
    tables.forEach((t, i) => all.set(t, tbase[i]));
    const thresholds = ctx.upload('stats::thresholds', all);
    made.push(thresholds);
    const counts = buf('binCounts', 4 * cw);
    // Within one binding where the limit is lowered (TREELINE_MAX_BINDING_BYTES, issue 19); the second pass's list,
    // of at most one entry per branch (8 bytes each), fits wherever the MST's 16-byte-a-point arrays do.
    const fits = Math.floor((ctx.limits.maxStorageBufferBindingSize / 4 - 1) / 2);
    let capacity = options.capacity ?? Math.min(AMBIGUOUS_CAPACITY, fits);
    let ambiguous = buf('ambiguous', 4 * (1 + 2 * capacity));
    const countAll = (r: Recorder, only?: StatName) => {
      for (const [i, name] of names.entries()) {
        if (only && name !== only) continue;
        const at = { thresholds, tbase: tbase[i], bins: tables[i].length - 2, counts, cbase: cbase[i] };
        binning.encodeCounts(
          r,
          values[SOURCES[name]],
          MODES[name],
          at,
          name === 'branchShape' ? { buffer: ambiguous, capacity } : null,
        );
      }
    };
    await ctx.submit('stats::binning', (r) => {
      r.clear(counts);
      r.clear(ambiguous, 0, 4);
      countAll(r);
    });
    let [cb, ab] = await Promise.all([ctx.read(counts, 0, 4 * cw), ctx.read(ambiguous, 0, 4)]);
    let found = new Uint32Array(ab)[0];
    if (found > capacity) {
      // More shapes near an edge than the list holds (many collinear chains): count the shapes again with room for all.
      capacity = found;
      ambiguous = buf('ambiguousAll', 4 * (1 + 2 * capacity));
      const s = names.indexOf('branchShape');
      await ctx.submit('stats::binning', (r) => {
        r.clear(counts, 4 * cbase[s], 4 * (tables[s].length - 2));
        r.clear(ambiguous, 0, 4);
        countAll(r, 'branchShape');
      });
      [cb, ab] = await Promise.all([ctx.read(counts, 0, 4 * cw), ctx.read(ambiguous, 0, 4)]);
      found = new Uint32Array(ab)[0];
    }
    const pairs =
      found > 0 ? new Float32Array(await ctx.read(ambiguous, 4, 8 * Math.min(found, capacity))) : new Float32Array(0);
    const raw = new Uint32Array(cb);
    const out = {} as Record<StatName, Histogram>;
    for (const [i, name] of names.entries()) {
      const c = Float64Array.from(raw.subarray(cbase[i], cbase[i] + tables[i].length - 2));
      if (name === 'branchShape') resolveShapes(pairs, edges[name], c, scale);
      out[name] = histogramOfCounts(edges[name], c, options.normalised ?? true);
    }
    lap('stats::binning');
    return out;
  } finally {
    for (const b of made) b.destroy();
  }
}
