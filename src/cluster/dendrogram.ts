/**
 * The single-linkage dendrogram on the GPU (issue 17 §1), from the MST in canonical order on the GPU
 * (src/emst/canonical.ts) to singleLinkage's rows (linkage.ts) and every node's parent, in O(log n) passes and none
 * per tree level. The algorithm — Borůvka on the MST recording "sided parents" (PANDORA, Sao, Prokopenko &
 * Lebrun-Grandié, ICPP 2024; ArborX fuses the same idea into its Borůvka), chains by one radix sort, sizes by an
 * Euler tour ranked with a sparse ruling set — is told step by step in the CPU twin's header (dendrogram.cpu.ts).
 *
 * | step                      | kernels (`cluster::linkage.*`)                | shader                       |
 * |---------------------------|-----------------------------------------------|------------------------------|
 * | 1. Borůvka rounds         | init, then per round min_edge, sided, hook,   | cluster/linkage_rounds.wgsl  |
 * |                           | flatten (⌈log2 n⌉ + 1 rounds)                 |                              |
 * | 2. sided parents          | resolve                                       | cluster/linkage_rounds.wgsl  |
 * | 3. chains                 | pack, stable radix sort by code, chains       | cluster/linkage_chains.wgsl  |
 * | 4. children               | points, fill                                  | cluster/linkage_chains.wgsl  |
 * | 5. sizes                  | tour, walk, ⌈log2(R + 2)⌉ × rjump, sizes      | cluster/linkage_sizes.wgsl   |
 *
 * Output buffers (DendrogramBuffers), node ids as in singleLinkage (points < n, merge i is node n + i):
 * | children: 2m u32, (left(i), right(i)) per merge | size: m u32 | parent: 2n − 1 u32, NONE = 0xffffffff at the
 * root | distance(i): the f32 weight in the canonical keys' .y (keys[i].y) |
 * Memory (maxN points, m = maxN − 1): the outputs 8m + 4(2n − 1) + 4m; the sort's keys and values 12m; one
 * scratch buffer for steps 1–4's arrays (labels, best, point parents, added / codes, sided parents / predecessors:
 * 12n + 8m) and, later, step 5's (successors 4T, owners 8T, rulers 2 · 8(T / 32 + 2), T = 2m + n) — ≈ 68 bytes
 * per point, + 12 for the sorter unless one is lent (create's `sorter`).
 */
import type { GpuContext } from '../gpu/context.js';
import type { Bindings, Kernel, UniformLayout } from '../gpu/kernel.js';
import type { Binding, Recorder } from '../gpu/recorder.js';
import { createRadixSorter, type RadixSorter } from '../primitives/radixsort.js';
import { InputError } from '../errors.js';
import { dendrogramRounds, rulingShape } from './dendrogram.cpu.js';
import type { SingleLinkageTree } from './types.js';

/** linkage_rounds.wgsl's bindings and uniform block, by their WGSL names. */
const ROUNDS = {
  bindings: {
    u: 'uniform',
    keys: 'read',
    targets: 'read',
    uf_parent: 'read_write',
    best: 'read_write',
    added: 'read_write',
    sp: 'read_write',
    point_parent: 'read_write',
  },
  uniforms: { n: 'u32', m: 'u32', round: 'u32', p0: 'u32' },
} as const;
/** linkage_chains.wgsl's. */
const CHAINS = {
  bindings: {
    u: 'uniform',
    keys: 'read',
    codes: 'read_write', // read only; read_write as the scratch buffer they share with pred is written
    point_parent: 'read_write',
    sort_keys: 'read_write',
    sort_vals: 'read_write',
    children: 'read_write',
    parent: 'read_write',
    pred: 'read_write',
  },
  uniforms: { n: 'u32', m: 'u32', p0: 'u32', p1: 'u32' },
} as const;
/** linkage_sizes.wgsl's. */
const SIZES = {
  bindings: {
    u: 'uniform',
    children: 'read',
    succ: 'read_write',
    own: 'read_write',
    r_in: 'read_write',
    r_out: 'read_write',
    size: 'read_write',
  },
  uniforms: { n: 'u32', m: 'u32', rulers: 'u32', bits: 'u32' },
} as const;

type RoundKernel = Kernel<typeof ROUNDS.bindings, typeof ROUNDS.uniforms>;
type ChainKernel = Kernel<typeof CHAINS.bindings, typeof CHAINS.uniforms>;
type SizeKernel = Kernel<typeof SIZES.bindings, typeof SIZES.uniforms>;

/** The dendrogram on the GPU; valid until the next encode or destroy. */
export interface DendrogramBuffers {
  /** Points. */
  n: number;
  /** 2(n − 1) u32: (left, right) node ids of merge i. */
  children: GPUBuffer;
  /** n − 1 u32: points under merge i. */
  size: GPUBuffer;
  /** 2n − 1 u32: parent node of each node; 0xffffffff at the root. */
  parent: GPUBuffer;
}

/** A single-linkage tree with each node's parent (2n − 1 entries, 0xffffffff at the root). */
export interface SingleLinkageTreeWithParents extends SingleLinkageTree {
  parent: Uint32Array;
}

const WG = 256;

/** Where everything lives: outputs in their own buffers, the rest as regions of one scratch buffer. */
interface DendrogramScratch {
  scratch: GPUBuffer;
  children: GPUBuffer;
  parent: GPUBuffer;
  size: GPUBuffer;
  label: Binding;
  best: Binding;
  pointParent: Binding;
  added: Binding;
  sp: Binding;
  sortKeys: GPUBuffer;
  sortVals: GPUBuffer;
  succ: Binding;
  own: Binding;
  rulersA: Binding;
  rulersB: Binding;
}

/** Consecutive regions of the given byte sizes, each starting at a multiple of `align`. */
function carve<K extends string>(
  align: number,
  sizes: Record<K, number>,
): { regions: Record<K, { offset: number; size: number }>; total: number } {
  let offset = 0;
  const regions = {} as Record<K, { offset: number; size: number }>;
  for (const k of Object.keys(sizes) as K[]) {
    regions[k] = { offset, size: sizes[k] };
    offset = Math.ceil((offset + sizes[k]) / align) * align;
  }
  return { regions, total: offset };
}

export class GpuDendrogram {
  private constructor(
    private readonly ctx: GpuContext,
    readonly maxN: number,
    private readonly k: {
      rounds: Record<'init' | 'min_edge' | 'sided' | 'hook' | 'flatten' | 'resolve', RoundKernel>;
      chains: Record<'pack' | 'chains' | 'points' | 'fill', ChainKernel>;
      sizes: Record<'tour' | 'walk' | 'rjump' | 'sizes', SizeKernel>;
    },
    private readonly sorter: RadixSorter,
    private readonly ownSorter: boolean,
    private readonly b: DendrogramScratch,
  ) {}

  /**
   * Compiles the kernels and allocates for up to maxN points. `sorter`: a 64-bit-key radix sorter for ≥ maxN − 1
   * pairs to borrow (its scratch is used only during step 3; not destroyed here), else one of our own.
   */
  static async create(ctx: GpuContext, maxN: number, options: { sorter?: RadixSorter } = {}): Promise<GpuDendrogram> {
    if (!Number.isInteger(maxN) || maxN < 1 || maxN > 2 ** 30) {
      throw new InputError(`cluster::linkage: expected maxN to be an integer in [1, 2^30], got ${maxN}.`);
    }
    const m = Math.max(1, maxN - 1);
    const tokens = 2 * m + maxN + 1;
    const maxBinding = ctx.limits.maxStorageBufferBindingSize;
    if (8 * tokens > maxBinding) {
      throw new InputError(
        `cluster::linkage: ${maxN} points need ${8 * tokens} bytes of Euler tokens in one binding; this device binds ${maxBinding}.`,
      );
    }
    const group = async <B extends Bindings, U extends UniformLayout, E extends string>(
      shader: string,
      spec: { bindings: B; uniforms: U },
      entries: readonly E[],
    ): Promise<Record<E, Kernel<B, U>>> => {
      const include = shader === 'linkage_rounds' ? ['common/grid', 'unionfind/unionfind'] : ['common/grid'];
      const ks = await Promise.all(
        entries.map((entry) =>
          ctx.kernel({
            label: `cluster::linkage.${entry}`,
            shader: `cluster/${shader}`,
            entry,
            bindings: spec.bindings,
            uniforms: spec.uniforms,
            workgroupSize: WG,
            include,
          }),
        ),
      );
      return Object.fromEntries(entries.map((e, i) => [e, ks[i]])) as Record<E, Kernel<B, U>>;
    };
    const lent = options.sorter;
    if (lent && (lent.keyWords !== 2 || lent.maxCount < m)) {
      throw new InputError(
        `cluster::linkage: a lent sorter must sort 64-bit keys for ≥ ${m} pairs, got keyWords=${lent.keyWords}, maxCount=${lent.maxCount}.`,
      );
    }
    const [rounds, chains, sizes, sorter] = await Promise.all([
      group('linkage_rounds', ROUNDS, ['init', 'min_edge', 'sided', 'hook', 'flatten', 'resolve'] as const),
      group('linkage_chains', CHAINS, ['pack', 'chains', 'points', 'fill'] as const),
      group('linkage_sizes', SIZES, ['tour', 'walk', 'rjump', 'sizes'] as const),
      lent ?? createRadixSorter(ctx, { maxCount: m, keyWords: 2 }),
    ]);
    // Steps 1–4's arrays and step 5's tokens are never live together: one scratch buffer, carved twice.
    const align = ctx.limits.minStorageBufferOffsetAlignment;
    const early = carve(align, {
      label: 4 * maxN,
      best: 4 * maxN,
      pointParent: 4 * maxN,
      added: 4 * m,
      sp: 4 * m,
    });
    const { rulers } = rulingShape(maxN);
    const late = carve(align, {
      succ: 4 * tokens,
      own: 8 * tokens,
      rulersA: 8 * (rulers + 2),
      rulersB: 8 * (rulers + 2),
    });
    const buf = (name: string, bytes: number) => ctx.createBuffer(`cluster::linkage.${name}`, bytes);
    const b: GPUBuffer[] = [];
    try {
      b.push(buf('scratch', Math.max(early.total, late.total)));
      b.push(buf('children', 8 * m), buf('parents', 4 * (2 * maxN - 1)), buf('sizes', 4 * m));
      // The sorter sorts whole buffers (offset 0): the sort's keys and values have their own.
      b.push(buf('sortKeys', 8 * m), buf('sortValues', 4 * m));
    } catch (e) {
      for (const x of b) x.destroy();
      if (!lent) sorter.destroy();
      throw e;
    }
    const [scratch, children, parent, size, sortKeys, sortVals] = b;
    const at = (r: { offset: number; size: number }): Binding => ({ buffer: scratch, ...r });
    const regions = {
      ...Object.fromEntries(Object.entries(early.regions).map(([k, r]) => [k, at(r)])),
      ...Object.fromEntries(Object.entries(late.regions).map(([k, r]) => [k, at(r)])),
    } as Record<keyof typeof early.regions | keyof typeof late.regions, Binding>;
    return new GpuDendrogram(ctx, maxN, { rounds, chains, sizes }, sorter, !lent, {
      ...regions,
      children,
      parent,
      size,
      scratch,
      sortKeys,
      sortVals,
    });
  }

  /**
   * Records the dendrogram of n points from their MST in canonical order on the GPU: `keys` (source, weight bits)
   * pairs and `targets`, n − 1 each (canonical.ts's result). The MST must be a spanning tree (not checked here:
   * a forest gives garbage, not an error).
   */
  encode(rec: Recorder, args: { keys: GPUBuffer; targets: GPUBuffer; n: number }): DendrogramBuffers {
    const { n, keys, targets } = args;
    const { k, b } = this;
    if (!Number.isInteger(n) || n < 0 || n > this.maxN) {
      throw new InputError(`cluster::linkage: expected n in [0, maxN=${this.maxN}], got ${n}.`);
    }
    const m = Math.max(0, n - 1);
    const out: DendrogramBuffers = { n, children: b.children, size: b.size, parent: b.parent };
    // Fewer than 2 points: nothing to record (readDendrogram knows the trivial tree; the buffers are not written).
    if (m === 0) return out;
    // 1–2. Borůvka rounds, then resolve.
    const rb = {
      keys,
      targets,
      uf_parent: b.label,
      best: b.best,
      added: b.added,
      sp: b.sp,
      point_parent: b.pointParent,
    };
    rec.dispatch(k.rounds.init, { buffers: rb, uniforms: { n, m }, threads: n });
    for (let round = 0; round < dendrogramRounds(n); round++) {
      const uniforms = { n, m, round };
      rec.dispatch(k.rounds.min_edge, { buffers: rb, uniforms, threads: m });
      rec.dispatch(k.rounds.sided, { buffers: rb, uniforms, threads: m });
      rec.dispatch(k.rounds.hook, { buffers: rb, uniforms, threads: n });
      rec.dispatch(k.rounds.flatten, { buffers: rb, uniforms, threads: n });
    }
    rec.dispatch(k.rounds.resolve, { buffers: rb, uniforms: { n, m }, threads: m });
    // 3–4. Chains by (code, rank); children. The predecessors reuse the sided parents' array (dead after resolve).
    const cb = {
      keys,
      codes: b.added,
      point_parent: b.pointParent,
      sort_keys: b.sortKeys,
      sort_vals: b.sortVals,
      children: b.children,
      parent: b.parent,
      pred: b.sp,
    };
    const cu = { n, m };
    rec.dispatch(k.chains.pack, { buffers: cb, uniforms: cu, threads: m });
    // Keys written in rank order and sorted stably on the code's bits alone: each chain comes out in rank order.
    const codeBits = 32 - Math.clz32(2 * m);
    this.sorter.encode(rec, { keys: b.sortKeys, values: b.sortVals, count: m, bitsLo: 0, bitsHi: codeBits });
    rec.dispatch(k.chains.chains, { buffers: cb, uniforms: cu, threads: m });
    rec.dispatch(k.chains.points, { buffers: cb, uniforms: cu, threads: n });
    rec.dispatch(k.chains.fill, { buffers: cb, uniforms: cu, threads: m });
    // 5. Sizes: the tour, the rulers' walks, pointer jumping over the rulers (A → B → A …), the offsets.
    const shape = rulingShape(n);
    const su = { n, m, rulers: shape.rulers, bits: shape.bits };
    let [from, to] = [b.rulersA, b.rulersB];
    const sb = () => ({ children: b.children, succ: b.succ, own: b.own, r_in: from, r_out: to, size: b.size });
    rec.dispatch(k.sizes.tour, { buffers: sb(), uniforms: su, threads: m });
    rec.dispatch(k.sizes.walk, { buffers: sb(), uniforms: su, threads: shape.rulers + 1 });
    for (let pass = 0; pass < shape.passes; pass++) {
      rec.dispatch(k.sizes.rjump, { buffers: sb(), uniforms: su, threads: shape.rulers + 2 });
      [from, to] = [to, from];
    }
    rec.dispatch(k.sizes.sizes, { buffers: sb(), uniforms: su, threads: m });
    return out;
  }

  /**
   * The buffers whose contents are dead once `encode`'s commands are recorded (its scratch and the chain sort's
   * keys and values; not the outputs): a caller may record other work into them after it (a ScratchPool's `give`),
   * until the next encode. Still this instance's to destroy.
   */
  spare(): GPUBuffer[] {
    return [this.b.scratch, this.b.sortKeys, this.b.sortVals];
  }

  destroy(): void {
    const { scratch, children, parent, size, sortKeys, sortVals } = this.b;
    for (const x of [scratch, children, parent, size, sortKeys, sortVals]) x.destroy();
    if (this.ownSorter) this.sorter.destroy();
  }
}

/**
 * Reads a dendrogram back as singleLinkage's rows plus parents; distances from the canonical keys' weights
 * (f32 widened to f64, as singleLinkage stores an f32 MST's weights).
 */
export async function readDendrogram(
  ctx: GpuContext,
  d: DendrogramBuffers,
  keys: GPUBuffer,
): Promise<SingleLinkageTreeWithParents> {
  const { n } = d;
  const m = Math.max(0, n - 1);
  const tree: SingleLinkageTreeWithParents = {
    left: new Uint32Array(m),
    right: new Uint32Array(m),
    distance: new Float64Array(m),
    size: new Uint32Array(m),
    parent: new Uint32Array(Math.max(0, 2 * n - 1)),
  };
  if (n === 0) return tree;
  if (m === 0) {
    tree.parent[0] = 0xffffffff;
    return tree;
  }
  // Chunk by chunk where pairs are split (ctx.readChunks: `at` is a byte offset, 8 bytes a merge).
  const { left, right, distance } = tree;
  await Promise.all([
    ctx.readChunks(d.children, 0, 8 * m, (a, at) => {
      const c = new Uint32Array(a);
      for (let j = 0, i = at / 8; j < c.length; j += 2, i++) {
        left[i] = c[j];
        right[i] = c[j + 1];
      }
    }),
    ctx.readInto(d.size, 0, 4 * m, tree.size),
    ctx.readInto(d.parent, 0, 4 * (2 * n - 1), tree.parent),
    ctx.readChunks(keys, 0, 8 * m, (a, at) => {
      const w = new Float32Array(a);
      for (let j = 1, i = at / 8; j < w.length; j += 2, i++) distance[i] = w[j];
    }),
  ]);
  return tree;
}
