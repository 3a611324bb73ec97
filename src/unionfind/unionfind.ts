/**
 * Union-find on the GPU: lock-free find (path halving through atomics) and union by compare-and-swap where the
 * smaller root wins, after ECL-MST (Fallin et al., SC'23, ../shared/seeds/000, §3.2). The WGSL functions
 * `uf_find` / `uf_union` live in `shaders/unionfind/unionfind.wgsl` for other kernels to include (the EMST merge,
 * the graph MSF); this module drives the stand-alone kernels of `shaders/unionfind/kernels.wgsl` and
 * `roots.wgsl`. CPU twin: `unionfind.cpu.ts` (identical labels, see there).
 *
 * Create once, run many: `const uf = await createUnionFind(gpu, maxCount); … uf.encodeInit(rec, n); …
 * uf.destroy()`. Every `encode*` records into a `Recorder` and never submits.
 */
import type { GpuContext } from '../gpu/context.js';
import type { Bindings, Kernel, KernelSpec } from '../gpu/kernel.js';
import type { Binding, Recorder } from '../gpu/recorder.js';
import { InputError, TreelineError } from '../errors.js';
import { checkPairs } from './unionfind.cpu.js';

export interface UnionFindOptions {
  /** Threads per workgroup of every union-find kernel (default 256). */
  workgroupSize?: number;
  /**
   * Compile only `init` (issue 17 §5: only the kernels a call needs), for callers that union in their own WGSL
   * through `unionfind/unionfind` (Borůvka's merge); the other encoders then throw. Default false.
   */
  initOnly?: boolean;
}

export interface GpuUnionFind {
  /**
   * maxCount u32 parent pointers (`unionfind::parent`): parent[i] <= i, equal at roots. Other kernels bind it as
   * `uf_parent: array<atomic<u32>>` and include `unionfind/unionfind`. After `encodeFlatten(rec, n)`, parent[i]
   * for i < n is the smallest index of i's set.
   */
  readonly parent: GPUBuffer;
  /** The largest n this union-find holds. */
  readonly maxCount: number;
  /** Records parent[i] = i for i < n. */
  encodeInit(rec: Recorder, n: number): void;
  /**
   * Records uf_union(a[i], b[i]) for i < count (every a[i], b[i] must be below the n of the last init), and,
   * when `merged` is given, merged[i] = 1 if pair i linked two sets, else 0. Exactly n − (number of sets) pairs
   * report 1 over all unions since the init; which pair of a redundant group reports 1 depends on timing.
   */
  encodeUnionPairs(rec: Recorder, a: Binding, b: Binding, count: number, merged?: Binding): void;
  /** Records parent[i] = find(i) for i < n: afterwards parent[i] is the smallest index of i's set. */
  encodeFlatten(rec: Recorder, n: number): void;
  /**
   * Records writing the number of roots among elements [0, n) (= the number of sets) as a u32 into `out` at
   * `offset` (a multiple of the device's minStorageBufferOffsetAlignment, 256).
   */
  encodeCountRoots(rec: Recorder, n: number, out: GPUBuffer, offset?: number): void;
  /** Frees the parent buffer. */
  destroy(): void;
}

const MAX_COUNT = 0xffffffff;

/** kernels.wgsl's uniform block (`UfParams`) and its entry points' bindings (each uses a prefix), by WGSL name. */
const UF_PARAMS = { n: 'u32', count: 'u32', first: 'u32', pad1: 'u32' } as const;
const PARENT = { uf_u: 'uniform', uf_parent: 'read_write' } as const;
const PAIRS = { ...PARENT, uf_a: 'read', uf_b: 'read' } as const;
const PAIRS_MERGED = { ...PAIRS, uf_merged: 'read_write' } as const;
/** roots.wgsl's uniform block (`RootsParams`) and bindings. */
const ROOTS_PARAMS = { n: 'u32', pad0: 'u32', pad1: 'u32', pad2: 'u32' } as const;
const ROOTS = { roots_u: 'uniform', roots_parent: 'read', roots_total: 'read_write' } as const;

function spec<const B extends Bindings>(
  label: string,
  entry: string,
  bindings: B,
  wg: number,
): KernelSpec<B, typeof UF_PARAMS> {
  return {
    label,
    shader: 'unionfind/kernels',
    entry,
    bindings,
    uniforms: UF_PARAMS,
    workgroupSize: wg,
    include: ['common/grid', 'unionfind/unionfind'],
  };
}

/** Compiles (once per device) the union-find kernels and allocates a parent array of maxCount elements. */
export async function createUnionFind(
  ctx: GpuContext,
  maxCount: number,
  options: UnionFindOptions = {},
): Promise<GpuUnionFind> {
  if (!Number.isInteger(maxCount) || maxCount < 0 || maxCount > MAX_COUNT) {
    throw new InputError(`Expected createUnionFind's maxCount to be an integer in [0, 2^32 − 1], got ${maxCount}.`);
  }
  const wg = options.workgroupSize ?? 256;
  if (!Number.isInteger(wg) || wg < 1 || wg > ctx.limits.maxComputeInvocationsPerWorkgroup) {
    throw new InputError(
      `Expected workgroupSize in [1, ${ctx.limits.maxComputeInvocationsPerWorkgroup}], got ${options.workgroupSize}.`,
    );
  }
  const all = !options.initOnly;
  const [init, union, unionMerged, flatten, roots] = await Promise.all([
    ctx.kernel(spec('unionfind::init', 'init', PARENT, wg)),
    all ? ctx.kernel(spec('unionfind::unionPairs', 'unionPairs', PAIRS, wg)) : null,
    all ? ctx.kernel(spec('unionfind::unionPairsMerged', 'unionPairsMerged', PAIRS_MERGED, wg)) : null,
    all ? ctx.kernel(spec('unionfind::flatten', 'flatten', PARENT, wg)) : null,
    all
      ? ctx.kernel({
          label: 'unionfind::countRoots',
          shader: 'unionfind/roots',
          entry: 'countRoots',
          bindings: ROOTS,
          uniforms: ROOTS_PARAMS,
          workgroupSize: wg,
        })
      : null,
  ]);
  const parent = ctx.createBuffer('unionfind::parent', maxCount * 4);
  const align = ctx.limits.minStorageBufferOffsetAlignment;
  return new UnionFindImpl(
    parent,
    maxCount,
    align,
    { init, union, unionMerged, flatten, roots },
    ctx.limits.maxStorageBufferBindingSize,
  );
}

/** The kernels; all but `init` are null when created `initOnly`. */
interface Kernels {
  init: Kernel<typeof PARENT, typeof UF_PARAMS>;
  union: Kernel<typeof PAIRS, typeof UF_PARAMS> | null;
  unionMerged: Kernel<typeof PAIRS_MERGED, typeof UF_PARAMS> | null;
  flatten: Kernel<typeof PARENT, typeof UF_PARAMS> | null;
  roots: Kernel<typeof ROOTS, typeof ROOTS_PARAMS> | null;
}

/** A kernel a union-find created `initOnly` lacks. */
function compiled<K>(k: K | null, what: string): K {
  if (k === null) throw new TreelineError(`unionfind::${what}: this union-find was created initOnly`);
  return k;
}

class UnionFindImpl implements GpuUnionFind {
  constructor(
    readonly parent: GPUBuffer,
    readonly maxCount: number,
    private readonly offsetAlignment: number,
    private readonly k: Kernels,
    /** The storage binding limit (encodeInit windows the parents above it). */
    private readonly maxBindingBytes: number,
  ) {}

  encodeInit(rec: Recorder, n: number): void {
    this.checkN(n, 'encodeInit');
    if (this.parent.size <= this.maxBindingBytes) {
      rec.dispatch(this.k.init, { buffers: { uf_parent: this.parent }, uniforms: { n }, threads: n });
      return;
    }
    // Issue 19: parents above one storage binding (Borůvka's split path beyond 5.4·10^8 points on the H100) are
    // initialised by windows of whole offset-alignment units, each bound from its first element (one window where
    // the n parents fit).
    const unit = this.offsetAlignment / 4;
    const step = Math.floor(this.maxBindingBytes / 4 / unit) * unit;
    for (let first = 0; first < n; first += step) {
      const count = Math.min(step, n - first);
      rec.dispatch(this.k.init, {
        buffers: { uf_parent: { buffer: this.parent, offset: 4 * first, size: 4 * count } },
        uniforms: { n: count, first },
        threads: count,
      });
    }
  }

  encodeUnionPairs(rec: Recorder, a: Binding, b: Binding, count: number, merged?: Binding): void {
    if (!Number.isInteger(count) || count < 0) {
      throw new InputError(`unionfind::unionPairs: expected count to be a non-negative integer, got ${count}.`);
    }
    for (const [name, buf] of [
      ['a', a],
      ['b', b],
      ['merged', merged],
    ] as const) {
      if (buf === undefined) continue;
      const offset = 'buffer' in buf ? (buf.offset ?? 0) : 0;
      if (offset % this.offsetAlignment !== 0) {
        throw new InputError(
          `unionfind::unionPairs: expected ${name}'s offset to be a multiple of ${this.offsetAlignment}, got ${offset}.`,
        );
      }
      const size = bindingSize(buf);
      if (size < count * 4) {
        throw new InputError(`unionfind::unionPairs: ${name} holds ${size / 4} u32s, fewer than count=${count}.`);
      }
    }
    const uniforms = { count };
    if (merged) {
      rec.dispatch(compiled(this.k.unionMerged, 'unionPairs'), {
        buffers: { uf_parent: this.parent, uf_a: a, uf_b: b, uf_merged: merged },
        uniforms,
        threads: count,
      });
    } else {
      rec.dispatch(compiled(this.k.union, 'unionPairs'), {
        buffers: { uf_parent: this.parent, uf_a: a, uf_b: b },
        uniforms,
        threads: count,
      });
    }
  }

  encodeFlatten(rec: Recorder, n: number): void {
    this.checkN(n, 'encodeFlatten');
    rec.dispatch(compiled(this.k.flatten, 'flatten'), {
      buffers: { uf_parent: this.parent },
      uniforms: { n },
      threads: n,
    });
  }

  encodeCountRoots(rec: Recorder, n: number, out: GPUBuffer, offset = 0): void {
    this.checkN(n, 'encodeCountRoots');
    if (!Number.isInteger(offset) || offset < 0 || offset % this.offsetAlignment !== 0 || offset + 4 > out.size) {
      throw new InputError(
        `unionfind::countRoots: expected offset to be a multiple of ${this.offsetAlignment} within ` +
          `${out.label} (${out.size} bytes), got ${offset}.`,
      );
    }
    rec.clear(out, offset, 4);
    rec.dispatch(compiled(this.k.roots, 'countRoots'), {
      buffers: { roots_parent: this.parent, roots_total: { buffer: out, offset, size: 4 } },
      uniforms: { n },
      threads: n,
    });
  }

  destroy(): void {
    this.parent.destroy();
  }

  private checkN(n: number, what: string): void {
    if (!Number.isInteger(n) || n < 0 || n > this.maxCount) {
      throw new InputError(`unionfind::${what}: expected n in [0, maxCount=${this.maxCount}], got ${n}.`);
    }
  }
}

/** Bytes a binding exposes (the recorder's convention: a whole buffer, or a range of one). */
function bindingSize(b: Binding): number {
  if (!('buffer' in b)) return b.size;
  return b.size ?? b.buffer.size - (b.offset ?? 0);
}

/**
 * Unions every pair (pairsA[i], pairsB[i]) on the GPU and returns each element's canonical label: the smallest
 * index of its set. One submission, one read-back; identical to `unionFindLabelsCpu`.
 */
export async function unionFindLabels(
  ctx: GpuContext,
  n: number,
  pairsA: Uint32Array,
  pairsB: Uint32Array,
  options: UnionFindOptions = {},
): Promise<Uint32Array> {
  checkPairs(n, pairsA, pairsB);
  if (n === 0) return new Uint32Array(0);
  const uf = await createUnionFind(ctx, n, options);
  const a = ctx.upload('unionfind::pairsA', pairsA);
  const b = ctx.upload('unionfind::pairsB', pairsB);
  try {
    await ctx.submit('unionfind::labels', (rec) => {
      uf.encodeInit(rec, n);
      uf.encodeUnionPairs(rec, a, b, pairsA.length);
      uf.encodeFlatten(rec, n);
    });
    return new Uint32Array(await ctx.read(uf.parent, 0, n * 4));
  } finally {
    a.destroy();
    b.destroy();
    uf.destroy();
  }
}
