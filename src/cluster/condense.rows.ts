/**
 * hdbscan's condensed tree on the GPU (issue 17 §2): from the single-linkage dendrogram in GPU memory to the
 * condensed tree's rows in hdbscan's order, (parent cluster, child, weight bits of the merge, child size) per row,
 * without a kernel per tree level. Kernels: shaders/cluster/condense.wgsl; CPU twin: condense.rows.cpu.ts (same
 * rows); the host turns the rows into the CondensedTree, its per-cluster facts and stabilities (condense.finish.ts).
 *
 * How hdbscan's breadth-first row order comes out of O(log n) passes (the definitions are condense.ts's):
 *   1. parents: each node's parent merge and side;
 *   2. pointer jumping, ⌈log2 m⌉ + 1 double-buffered rounds over the m merges: each merge's depth and leftmost leaf
 *      position (sums along the path to the root), the top of its runt (the highest ancestor holding fewer than
 *      minClusterSize points; runts are what hdbscan's walk skips), and the start of its cluster (the nearest
 *      split child or the root: hdbscan's `relabel`);
 *   3. the queued merges (≥ minClusterSize points, or the root: exactly the merges hdbscan's walk processes) are
 *      sorted by (depth, leftmost leaf), which is the walk's order: each merge's breadth-first rank; a scan numbers
 *      the splits in that order (the k-th split makes clusters n + 1 + 2k and n + 2 + 2k);
 *   4. every point leaves at the queued merge A above its runt's top Y, in the breadth-first order of Y's subtree:
 *      row key (rank(A), side of Y, depth below Y, leaf position below Y), a split's cluster rows
 *      (rank(A), side, 0, 0); one 64-bit radix sort of the keys orders all rows.
 * The keys need ⌈log2 m⌉ + 1 + 2⌈log2(minClusterSize − 1)⌉ ≤ 64 bits (n = 10^7: minClusterSize ≤ 2^19);
 * `condenseRowsFits` says whether a case does.
 *
 * Input: `merges`, one vec4<u32> per merge i (node n + i): (left node, right node, size, f32 bits of the distance),
 * the rows of `singleLinkage` (linkage.ts) packed; `packMerges` packs a SingleLinkageTree.
 */
import type { GpuContext } from '../gpu/context.js';
import type { Kernel } from '../gpu/kernel.js';
import type { Recorder } from '../gpu/recorder.js';
import { createRadixSorter, type RadixSorter } from '../primitives/radixsort.js';
import { createScanner, type Scanner } from '../primitives/scan.js';
import type { SingleLinkageTree } from './types.js';
import { condenseKeyBits, maxSplits } from './condense.rows.cpu.js';
import type { ScratchAllocator } from '../gpu/scratchpool.js';

const LABEL = 'cluster::condense';
const PARAMS = {
  n: 'u32',
  m: 'u32',
  mcs: 'u32',
  bm: 'u32',
  root: 'u32',
  maxSplits: 'u32',
  p0: 'u32',
  p1: 'u32',
} as const;
const BINDINGS = {
  parents: { u: 'uniform', pa_merges: 'read', pa_par: 'read_write', pa_pparent: 'read_write' },
  init: { u: 'uniform', in_merges: 'read', in_par: 'read', in_jdl: 'read_write', in_c: 'read_write' },
  jump: { u: 'uniform', ju_jdl: 'read', ju_c: 'read', ju_jdl_out: 'read_write', ju_c_out: 'read_write' },
  bfs_keys: { u: 'uniform', bk_merges: 'read', bk_jdl: 'read', bk_keys: 'read_write', bk_vals: 'read_write' },
  ranks: {
    u: 'uniform',
    rk_keys: 'read',
    rk_vals: 'read',
    rk_merges: 'read',
    rk_jdl: 'read_write',
    rk_flags: 'read_write',
  },
  splits: {
    u: 'uniform',
    sp_vals: 'read',
    sp_flags: 'read',
    sp_scan: 'read',
    sp_index: 'read_write',
    sp_merge: 'read_write',
    sp_count: 'read_write',
  },
  cluster_ids: {
    u: 'uniform',
    ci_merges: 'read',
    ci_par: 'read',
    ci_c: 'read',
    ci_index: 'read',
    ci_cluster: 'read_write',
  },
  point_keys: {
    u: 'uniform',
    pk_pparent: 'read',
    pk_merges: 'read',
    pk_par: 'read',
    pk_jdl: 'read',
    pk_keys: 'read_write',
    pk_vals: 'read_write',
    pk_owner: 'read_write',
  },
  split_keys: {
    u: 'uniform',
    sk_merge: 'read',
    sk_jdl: 'read',
    sk_count: 'read',
    sk_keys: 'read_write',
    sk_vals: 'read_write',
  },
  point_rows: { u: 'uniform', pr_owner: 'read', pr_cluster: 'read', pr_merges: 'read', pr_out: 'read_write' },
  pack: { u: 'uniform', pm_children: 'read', pm_size: 'read', pm_keys: 'read', pm_merges: 'read_write' },
  rows: {
    u: 'uniform',
    ro_vals: 'read',
    ro_owner: 'read',
    ro_cluster: 'read',
    ro_merge: 'read',
    ro_merges: 'read',
    ro_count: 'read',
    ro_a: 'read_write',
    ro_b: 'read_write',
  },
} as const;
type Entry = keyof typeof BINDINGS;
type CondenseKernel<E extends Entry> = Kernel<(typeof BINDINGS)[E], typeof PARAMS>;
type CondenseKernels = { [E in Entry]: CondenseKernel<E> };

const WORKGROUP = 256;

/** Packs a single-linkage tree into the kernels' merges (4 words per merge; distances as f32 bits). */
export function packMerges(linkage: SingleLinkageTree): Uint32Array {
  const m = linkage.left.length;
  const out = new Uint32Array(4 * m);
  const f = new Float32Array(out.buffer);
  for (let i = 0; i < m; i++) {
    out[4 * i] = linkage.left[i];
    out[4 * i + 1] = linkage.right[i];
    out[4 * i + 2] = linkage.size[i];
    f[4 * i + 3] = linkage.distance[i];
  }
  return out;
}

/** The condensed tree's rows on the GPU, as columns (`read` interleaves them on the host), until freed. */
export interface GpuCondensedRows {
  /** One u32: the number of splits; rows = n + 2 · splits. */
  splitCount: GPUBuffer;
  /** Rows allotted (n + 2 · the most splits n points can make); the first n + 2 · splits are the tree's. */
  capacity: number;
  /** Per point, its own row's (parent cluster, weight bits): 2 words a point, in point order. */
  pointRows: GPUBuffer;
  /** The rows as columns (capacity u32 each): parent, child, child size, weight bits. */
  columns: { parent: GPUBuffer; child: GPUBuffer; size: GPUBuffer; weight: GPUBuffer };
}

/** Condenses dendrograms of up to `maxN` points on the GPU; one instance per (context, maxN). */
export class GpuCondenser {
  private constructor(
    private readonly ctx: GpuContext,
    readonly maxN: number,
    private readonly k: CondenseKernels,
    /** Its 64-bit radix sorter (maxCount ≥ maxN): idle between encodings, others may record sorts with it. */
    readonly sorter: RadixSorter,
    private readonly scanner: Scanner,
  ) {}

  /**
   * `minMinClusterSize`: the smallest minClusterSize the instance will be given (default 2, the worst case): the
   * row sort's sorter holds n + 2 · maxSplits(n, it) pairs (1.13 n at 15 instead of 2 n).
   */
  static async create(ctx: GpuContext, maxN: number, minMinClusterSize = 2): Promise<GpuCondenser> {
    const n = Math.max(2, maxN);
    const rowsMax = n + 2 * maxSplits(n, Math.max(2, minMinClusterSize));
    const spec = <E extends Entry>(entry: E) =>
      ctx.kernel({
        label: `${LABEL}.${entry}`,
        shader: 'cluster/condense',
        entry,
        bindings: BINDINGS[entry],
        uniforms: PARAMS,
        workgroupSize: WORKGROUP,
      }) as Promise<CondenseKernel<E>>;
    const entries = Object.keys(BINDINGS) as Entry[];
    const [kernels, sorter, scanner] = await Promise.all([
      Promise.all(entries.map((e) => spec(e))),
      createRadixSorter(ctx, { maxCount: rowsMax, keyWords: 2 }),
      createScanner(ctx, n),
    ]);
    const k = Object.fromEntries(entries.map((e, i) => [e, kernels[i]])) as unknown as CondenseKernels;
    return new GpuCondenser(ctx, maxN, k, sorter, scanner);
  }

  /**
   * Records the condensing of the dendrogram of n points (`merges`: n − 1 vec4<u32>, see the file comment) for
   * `minClusterSize`; the rows stay on the GPU. n ≥ 2, and `condenseRowsFits(n, minClusterSize)`. Without `alloc`
   * the buffers are new: the caller frees the result with `destroyRows`, `releaseScratch` the rest once the GPU is
   * done. With `alloc` (a ScratchPool) every buffer is taken from it just before its first use and the scratch given
   * back right after its last, so that later phases reuse it (the clustering's memory Must); the result's buffers
   * are then the allocator's too (`releaseRows` hands them back).
   */
  encode(
    rec: Recorder,
    merges: GPUBuffer,
    n: number,
    minClusterSize: number,
    alloc?: ScratchAllocator,
  ): GpuCondensedRows {
    const { k } = this;
    if (n < 2 || n > this.maxN) throw new Error(`${LABEL}: n = ${n} outside 2 … ${this.maxN}.`);
    const bits = condenseKeyBits(n, minClusterSize);
    if (bits.total > 64) throw new Error(`${LABEL}: ${bits.total}-bit row keys for n = ${n}, mcs ${minClusterSize}.`);
    const m = n - 1;
    const splitsMax = maxSplits(n, minClusterSize);
    const capacity = n + 2 * splitsMax;
    if (capacity > this.sorter.maxCount) {
      throw new Error(
        `${LABEL}: made for ${this.sorter.maxCount} rows, asked for ${capacity} (minClusterSize ${minClusterSize}).`,
      );
    }
    const a = alloc ?? this.fresh;
    const uniforms = { n, m, mcs: minClusterSize, bm: bits.bm, root: m - 1, maxSplits: splitsMax, p0: 0, p1: 0 };
    const b = (label: string, bytes: number) => a.take(`${LABEL}.${label}`, Math.max(16, bytes));
    const done = (...xs: GPUBuffer[]) => {
      for (const x of xs) a.release(x);
    };
    // Each buffer taken just before its first recorded use and released right after its last.
    const par = b('par', 4 * m);
    const pparent = b('pparent', 4 * n);
    rec.dispatch(k.parents, { buffers: { pa_merges: merges, pa_par: par, pa_pparent: pparent }, uniforms, threads: m });
    let jdl = b('jdl', 16 * m);
    let c = b('c', 4 * m);
    rec.dispatch(k.init, {
      buffers: { in_merges: merges, in_par: par, in_jdl: jdl, in_c: c },
      uniforms,
      threads: m,
    });
    let jdl2 = b('jdl2', 16 * m);
    let c2 = b('c2', 4 * m);
    // Depth ≤ m − 1: after r rounds every jump spans 2^r levels.
    const rounds = Math.ceil(Math.log2(Math.max(2, m))) + 1;
    for (let r = 0; r < rounds; r++) {
      rec.dispatch(k.jump, {
        buffers: { ju_jdl: jdl, ju_c: c, ju_jdl_out: jdl2, ju_c_out: c2 },
        uniforms,
        threads: m,
      });
      [jdl, jdl2] = [jdl2, jdl];
      [c, c2] = [c2, c];
    }
    done(jdl2, c2);
    const keys = b('keys', 8 * capacity);
    const vals = b('vals', 4 * capacity);
    rec.dispatch(k.bfs_keys, {
      buffers: { bk_merges: merges, bk_jdl: jdl, bk_keys: keys, bk_vals: vals },
      uniforms,
      threads: m,
    });
    this.sorter.encode(rec, { keys, values: vals, count: m });
    const flags = b('flags', 4 * m);
    rec.dispatch(k.ranks, {
      buffers: { rk_keys: keys, rk_vals: vals, rk_merges: merges, rk_jdl: jdl, rk_flags: flags },
      uniforms,
      threads: m,
    });
    const scan = b('scan', 4 * m);
    this.scanner.encode(rec, flags, scan, m, 'exclusive');
    const index = b('splitIndex', 4 * m);
    const merge = b('splitMerge', 4 * Math.max(1, splitsMax));
    const count = b('splitCount', 4);
    rec.dispatch(k.splits, {
      buffers: { sp_vals: vals, sp_flags: flags, sp_scan: scan, sp_index: index, sp_merge: merge, sp_count: count },
      uniforms,
      threads: m,
    });
    done(flags, scan);
    const cluster = b('cluster', 4 * m);
    rec.dispatch(k.cluster_ids, {
      buffers: { ci_merges: merges, ci_par: par, ci_c: c, ci_index: index, ci_cluster: cluster },
      uniforms,
      threads: m,
    });
    done(c, index);
    const owner = b('owner', 4 * n);
    rec.dispatch(k.point_keys, {
      buffers: {
        pk_pparent: pparent,
        pk_merges: merges,
        pk_par: par,
        pk_jdl: jdl,
        pk_keys: keys,
        pk_vals: vals,
        pk_owner: owner,
      },
      uniforms,
      threads: n,
    });
    done(pparent, par);
    rec.dispatch(k.split_keys, {
      buffers: { sk_merge: merge, sk_jdl: jdl, sk_count: count, sk_keys: keys, sk_vals: vals },
      uniforms,
      threads: splitsMax,
    });
    done(jdl);
    this.sorter.encode(rec, { keys, values: vals, count: capacity, bitsLo: 0, bitsHi: bits.total });
    // The rows straight into their columns, two per dispatch (p0: which two).
    const columns = {
      parent: b('parent', 4 * capacity),
      child: b('child', 4 * capacity),
      size: b('childSize', 4 * capacity),
      weight: b('weight', 4 * capacity),
    };
    const rowBuffers = { ro_vals: vals, ro_owner: owner, ro_cluster: cluster, ro_merge: merge, ro_merges: merges };
    for (const [p0, ro_a, ro_b] of [
      [0, columns.parent, columns.child],
      [1, columns.weight, columns.size],
    ] as const) {
      rec.dispatch(k.rows, {
        buffers: { ...rowBuffers, ro_count: count, ro_a, ro_b },
        uniforms: { ...uniforms, p0 },
        threads: capacity,
      });
    }
    done(keys, vals, merge);
    const pointRows = b('pointRows', 8 * n);
    rec.dispatch(k.point_rows, {
      buffers: { pr_owner: owner, pr_cluster: cluster, pr_merges: merges, pr_out: pointRows },
      uniforms,
      threads: n,
    });
    done(owner, cluster);
    return { splitCount: count, capacity, pointRows, columns };
  }

  /** New buffers for an encoding without an allocator; the scratch among them freed by `releaseScratch`. */
  private readonly fresh: ScratchAllocator = {
    take: (label, bytes) => this.ctx.createBuffer(label, bytes),
    release: (buffer) => void this.pending.push(buffer),
  };

  private readonly pending: GPUBuffer[] = [];

  /**
   * Records the packing of the GPU dendrogram (dendrogram.ts: children, sizes) and the canonical keys whose high
   * words are the merges' weights (emst/canonical.ts) into `encode`'s merges (n − 1 vec4<u32>), from `alloc` when
   * given (the caller releases them after the last `encode` that reads them), else a new buffer freed with the
   * scratch. Several minClusterSizes condense the same merges.
   */
  encodePack(
    rec: Recorder,
    tree: { children: GPUBuffer; size: GPUBuffer; keys: GPUBuffer },
    n: number,
    alloc?: ScratchAllocator,
  ): GPUBuffer {
    const m = n - 1;
    const label = `${LABEL}.merges`;
    const merges = alloc ? alloc.take(label, Math.max(16, 16 * m)) : this.ctx.createBuffer(label, Math.max(16, 16 * m));
    if (!alloc) this.pending.push(merges);
    const uniforms = { n, m, mcs: 0, bm: 0, root: m - 1, maxSplits: 0, p0: 0, p1: 0 };
    rec.dispatch(this.k.pack, {
      buffers: { pm_children: tree.children, pm_size: tree.size, pm_keys: tree.keys, pm_merges: merges },
      uniforms,
      threads: m,
    });
    return merges;
  }

  /** Frees the scratch of the encodings submitted so far (call once the GPU is done with them). */
  releaseScratch(): void {
    for (const t of this.pending.splice(0)) t.destroy();
  }

  /**
   * Reads the rows back interleaved, (parent, child, weight bits, child size) per row, n + 2 · splits rows (into
   * `dest` when given: a view of its start). Tests and benches; hdbscan() reads the columns (`readColumns`).
   */
  async read(rows: GpuCondensedRows, n: number, dest?: Uint32Array): Promise<Uint32Array> {
    const count = await this.rowCount(rows, n);
    if (dest && dest.length < 4 * count) throw new Error(`${LABEL}: room for ${dest.length / 4} rows, not ${count}.`);
    const out = dest ? dest.subarray(0, 4 * count) : new Uint32Array(4 * count);
    const cols = {
      parent: new Uint32Array(count),
      child: new Uint32Array(count),
      childSize: new Uint32Array(count),
      weight: new Float32Array(count),
    };
    await this.readColumns(rows, count, cols);
    const bits = new Uint32Array(cols.weight.buffer);
    for (let r = 0; r < count; r++) {
      out[4 * r] = cols.parent[r];
      out[4 * r + 1] = cols.child[r];
      out[4 * r + 2] = bits[r];
      out[4 * r + 3] = cols.childSize[r];
    }
    return out;
  }

  /** The number of rows of an encoding (n + 2 · splits), read back. */
  async rowCount(rows: GpuCondensedRows, n: number): Promise<number> {
    return n + 2 * new Uint32Array(await this.ctx.read(rows.splitCount, 0, 4))[0];
  }

  /**
   * Reads the rows back as columns straight into `into` (room for `count` rows each; `weight` as f32 bits: the
   * merge's distance, which the host turns into λ).
   */
  async readColumns(
    rows: GpuCondensedRows,
    count: number,
    into: { parent: Uint32Array; child: Uint32Array; childSize: Uint32Array; weight: Float32Array },
  ): Promise<void> {
    const c = rows.columns;
    await Promise.all([
      this.ctx.readInto(c.parent, 0, 4 * count, into.parent.subarray(0, count)),
      this.ctx.readInto(c.child, 0, 4 * count, into.child.subarray(0, count)),
      this.ctx.readInto(c.size, 0, 4 * count, into.childSize.subarray(0, count)),
      this.ctx.readInto(c.weight, 0, 4 * count, into.weight.subarray(0, count)),
    ]);
  }

  /** Reads each point's row (parent cluster, weight bits) back, in point order (into `dest` when given). */
  async readPointRows(rows: GpuCondensedRows, n: number, dest?: Uint32Array): Promise<Uint32Array> {
    const out = dest ? dest.subarray(0, 2 * n) : new Uint32Array(2 * n);
    await this.ctx.readInto(rows.pointRows, 0, 8 * n, out);
    return out;
  }

  destroy(): void {
    this.releaseScratch();
    this.sorter.destroy();
    this.scanner.destroy();
  }
}

/** Hands a result of `encode` with an allocator back to it (once its read-backs are done). */
export function releaseRows(rows: GpuCondensedRows, alloc: ScratchAllocator): void {
  alloc.release(rows.pointRows);
  for (const c of Object.values(rows.columns)) alloc.release(c);
  alloc.release(rows.splitCount);
}

/** Frees a result of `encode` without an allocator. */
export function destroyRows(rows: GpuCondensedRows): void {
  rows.pointRows.destroy();
  for (const c of Object.values(rows.columns)) c.destroy();
  rows.splitCount.destroy();
}

/**
 * The condensed rows of the dendrogram `linkage` of n ≥ 2 points, computed on the GPU from host arrays (tests and
 * benches; hdbscan()'s pipeline keeps the dendrogram on the GPU).
 */
export async function condenseRowsGpu(
  ctx: GpuContext,
  linkage: SingleLinkageTree,
  n: number,
  minClusterSize: number,
  condenser?: GpuCondenser,
): Promise<Uint32Array> {
  const own = condenser ?? (await GpuCondenser.create(ctx, n));
  const merges = ctx.upload(`${LABEL}.merges`, packMerges(linkage));
  let rows: GpuCondensedRows | null = null;
  try {
    await ctx.submit(LABEL, (rec) => {
      rows = own.encode(rec, merges, n, minClusterSize);
    });
    const out = await own.read(rows!, n);
    own.releaseScratch();
    return out;
  } finally {
    if (rows) destroyRows(rows);
    merges.destroy();
    if (!condenser) own.destroy();
  }
}
