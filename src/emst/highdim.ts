/**
 * Candidate lists for the high-dimensional EMST on the GPU (issue 18): every point's K nearest neighbours, found
 * once before the Borůvka rounds, settle most points' best outgoing edge without a traversal in every round — the
 * CPU backend's candidates.cpu.ts (Euclidean keys), moved into the GPU rounds as one kernel before the upper bounds
 * (emst/highdim_settle.wgsl; hooked into boruvka.ts as BoruvkaRunOptions.settle). At 16 dimensions the BVH prunes
 * next to nothing and a traversal is a brute-force scan; with lists of 16 the points their lists do not settle are
 * mostly bounded (their last key above their component's upper bound) and skip it: on the H100, 10^6 normal 16D
 * points, the traversal took 0.3 ms over all 14 rounds (29 s without lists), the lists' search 2.1 s.
 *
 * The lists come from one of two searches ('source'):
 *   'brute'  a tiled brute-force scan (emst/highdim_brute.wgsl, and highdim_brute2.wgsl with two queries per
 *            thread, the default): points staged in workgroup memory, each thread's queries in registers — n² pairs,
 *            but dense and coalesced: the faster exact search where a BVH prunes nothing;
 *   'bvh'    the BVH's k-NN search (src/knn/knn.ts, Morton rows), its original indices mapped to Morton positions
 *            (emst/highdim_rank.wgsl) — where the tree still prunes (8 dimensions).
 * Both rank neighbours by (key, original index) with the rounds' exact keys, so the lists are the same.
 *
 * Euclidean or mutual reachability (whose core distances the lists then give too: no separate k-NN search), open
 * boundaries only (periodic boxes keep the plain rounds). Memory: 8·K bytes per point for the lists, 4 for the
 * cursors (and 4 for the ranks with 'bvh'): 132 at K = 16.
 * CPU twins: src/emst/highdim.cpu.ts.
 */
import type { GpuContext } from '../gpu/context.js';
import type { Kernel } from '../gpu/kernel.js';
import type { Recorder } from '../gpu/recorder.js';
import type { BvhBuffers } from '../bvh/lbvh.js';
import { createKnnSearcher, type KnnSearcher } from '../knn/knn.js';
import { InputError } from '../errors.js';
import type { Metric } from './metric.js';

export type CandidateSource = 'brute' | 'bvh';

/**
 * List length by default, per source (H100, 10^6 normal points, 52d9a0c): brute-force lists of 16 at 16D — the search
 * 3.0 s, and the rounds ~15 ms (with 8: the search 2.8 s, but the rounds 2.3 s of traversals for points whose lists
 * ran out); BVH lists of 8 at 8D — 176 ms in all (with 16: 237, the k-NN search 227 of it).
 */
export const HIGHDIM_K = { brute: 16, bvh: 8 } as const;
/**
 * Where the GPU EMST keeps candidate lists by default (H100, 10^6 normal points, 52d9a0c): 8D plain 236 ms, BVH
 * lists of 8 176 ms, brute-force 677; 16D plain 29.4 s (issue 18's table, cf54bdc), brute-force lists 2.08 s (two
 * queries per thread); 6D plain 45.0 ms, BVH lists 36.5 — but unmeasured at the 10^7 points of issue 18's 6D row, so
 * 6D stays plain. BVH lists for 7 and 8 dimensions (7D lies between two gains). Nothing was measured between 8 and
 * 16, and extrapolating — the plain rounds ×2.3 per dimension from 6D to 8D and ×1.8 from 8D to 16D, the k-NN ×2.5
 * (24.5 → 158 ms), the brute force roughly flat (it mostly leaves a pair after 4–8 axes) — puts both kinds of lists
 * near or above the plain rounds from 9 to 11 dimensions and the brute force clearly below from 12: so 9–11D stay
 * plain, and the brute-force lists start at 12. Above BRUTE_MAX_DIM, unmeasured: plain.
 */
export const HIGHDIM_MIN_DIM = 7;
export const BVH_MAX_DIM = 8;
export const BRUTE_MIN_DIM = 12;
/** The brute-force kernel keeps a query's coordinates in registers: up to this many dimensions. */
export const BRUTE_MAX_DIM = 64;
/**
 * Queries per brute-force dispatch (each scans all points): 8192 workgroups, several per SM of an H100 (2^17, 1024
 * workgroups, would leave half its SMs' slots idle; dispatches run one after another).
 */
const BRUTE_CHUNK = 1 << 20;
const BRUTE_WG = 128;

const BRUTE = {
  bindings: {
    u: 'uniform',
    points: 'read',
    order: 'read',
    lkeys: 'read_write',
    lpos: 'read_write',
    tileBoxes: 'read',
  },
  uniforms: { n: 'u32', base: 'u32', count: 'u32', one: 'f32' },
} as const;
const TILES = {
  bindings: { u: 'uniform', points: 'read', tileBoxes: 'read_write' },
  uniforms: { n: 'u32', tiles: 'u32', p0: 'u32', p1: 'u32' },
} as const;
const SETTLE = {
  bindings: {
    u: 'uniform',
    label: 'read',
    lkeys: 'read',
    lpos: 'read',
    cursor: 'read_write',
    cand: 'read_write',
    pointBound: 'read_write',
    core2: 'read',
    order: 'read',
  },
  uniforms: { n: 'u32', cut: 'u32', mr: 'u32', ia2: 'f32' },
} as const;
const CORE = {
  bindings: { u: 'uniform', lkeys: 'read', core2: 'read_write' },
  uniforms: { n: 'u32', m: 'u32', p0: 'u32', p1: 'u32' },
} as const;
const RANK = {
  bindings: { u: 'uniform', order: 'read', rank: 'read_write', lpos: 'read_write' },
  uniforms: { count: 'u32', p0: 'u32', p1: 'u32', p2: 'u32' },
} as const;

/**
 * Points the brute-force kernel stages per tile: a power of two with tile·⌈dim/4⌉ vec4s within 8 KiB of workgroup
 * memory (WebGPU guarantees 16), at most its workgroup size.
 */
export function bruteTile(dim: number): number {
  const d4 = Math.ceil(dim / 4);
  let tile = BRUTE_WG;
  while (tile > 8 && tile * d4 > 512) tile /= 2;
  return tile;
}

/**
 * Which candidate lists GpuEmst.create uses by default for a run of `dim` dimensions and `metric`, or null for the
 * plain rounds; TREELINE_HIGHDIM=off|brute|bvh overrides it (benchmarks' A/B), TREELINE_HIGHDIM_K the list length.
 */
export function highDimDefault(dim: number, metric: Metric, periodic: boolean): CandidateSource | null {
  const env = typeof process !== 'undefined' ? process.env.TREELINE_HIGHDIM : undefined;
  if (periodic) return null;
  if (env === 'off') return null;
  if (env === 'brute' || env === 'bvh') return env === 'brute' && dim > BRUTE_MAX_DIM ? 'bvh' : env;
  if (env !== undefined && env !== '') {
    throw new InputError(`Expected TREELINE_HIGHDIM to be off, brute or bvh, got '${env}'.`);
  }
  // Mutual reachability too: its plain path runs a k-NN search anyway (for the core distances), which the lists
  // replace. (Measured: 16D minSamples 5, brute-force lists, one query per thread, 3.0 s.)
  void metric;
  if (dim >= HIGHDIM_MIN_DIM && dim <= BVH_MAX_DIM) return 'bvh';
  if (dim >= BRUTE_MIN_DIM && dim <= BRUTE_MAX_DIM) return 'brute';
  return null;
}

/**
 * Queries per thread of the brute-force search (1: emst/highdim_brute.wgsl, 2: highdim_brute2.wgsl, which reads each
 * staged point once for two queries): TREELINE_HIGHDIM_QPT, else 2 — H100, 10^6 normal 16D points, 52d9a0c: the
 * search 2.07 s with two, 3.01 s with one.
 */
export function highDimQueriesPerThread(): 1 | 2 {
  const env = typeof process !== 'undefined' ? process.env.TREELINE_HIGHDIM_QPT : undefined;
  if (env === undefined || env === '' || env === '2') return 2;
  if (env === '1') return 1;
  throw new InputError(`Expected TREELINE_HIGHDIM_QPT to be 1 or 2, got '${env}'.`);
}

/**
 * Whether the brute-force search (one query per thread) skips tiles by their bounding boxes (emst/highdim_tiles.wgsl):
 * TREELINE_HIGHDIM_BOXES=1|0, else not — on lavapipe, 2·10^4 normal 8D points, the search took as long with them
 * (3.09 vs 2.90 s): a tile of 128 Morton-consecutive points spans about half of most axes there, and the workgroup
 * skips a tile only when none of its 128 queries needs it. On the H100, 10^6 normal 8D points, the search with boxes
 * took 667 ms (the BVH k-NN 158); without them it was not measured there.
 */
export function highDimBoxes(): boolean {
  const env = typeof process !== 'undefined' ? process.env.TREELINE_HIGHDIM_BOXES : undefined;
  if (env === undefined || env === '') return false;
  if (env === '1' || env === '0') return env === '1';
  throw new InputError(`Expected TREELINE_HIGHDIM_BOXES to be 1 or 0, got '${env}'.`);
}

/** The list length: TREELINE_HIGHDIM_K, else HIGHDIM_K of the source. */
export function highDimK(source: CandidateSource): number {
  const env = typeof process !== 'undefined' ? process.env.TREELINE_HIGHDIM_K : undefined;
  if (env === undefined || env === '') return HIGHDIM_K[source];
  const k = Number(env);
  if (!Number.isInteger(k) || k < 1 || k > 64) {
    throw new InputError(`Expected TREELINE_HIGHDIM_K to be an integer in [1, 64], got '${env}'.`);
  }
  return k;
}

/** The buffers of one round that the settle kernel reads and writes (Boruvka's, by WGSL name). */
export interface SettleBuffers {
  label: GPUBuffer;
  cand: GPUBuffer;
  pointBound: GPUBuffer;
}

/** Mutual reachability's inputs of the settle: core² and original indices per Morton position, 1 / alpha². */
export interface SettleReach {
  core2: GPUBuffer;
  order: GPUBuffer;
  ia2: number;
}

export class GpuCandidateLists {
  /** Queries per brute-force dispatch (tests lower it so that one search takes several). */
  bruteChunk = BRUTE_CHUNK;

  private constructor(
    private readonly ctx: GpuContext,
    readonly maxN: number,
    readonly dim: number,
    readonly k: number,
    readonly source: CandidateSource,
    /** Queries per thread of the brute-force search (1 or 2). */
    readonly queriesPerThread: 1 | 2,
    private readonly kernels: {
      settle: Kernel;
      core: Kernel;
      brute?: Kernel;
      tiles?: Kernel;
      invert?: Kernel;
      convert?: Kernel;
    },
    private readonly knn: KnnSearcher | null,
    /** n × k key bits and Morton positions, row j = Morton position j. */
    readonly keys: GPUBuffer,
    readonly pos: GPUBuffer,
    /** n u32: entries of row j before cursor[j] lie in j's component for good (zeroed by encode()). */
    readonly cursor: GPUBuffer,
    private readonly rank: GPUBuffer | null,
    /** Bound as the settle's core2 and order in Euclidean runs, and as unread tile boxes (never read there). */
    private readonly unused: GPUBuffer,
    /** The brute-force search's tile boxes (emst/highdim_tiles.wgsl), when it skips tiles; else null. */
    readonly tileBoxes: GPUBuffer | null,
  ) {}

  /** Whether lists for n points of k entries fit the device's bindings (else GpuEmst keeps the plain rounds). */
  static fits(ctx: GpuContext, n: number, k: number): boolean {
    return 4 * n * k <= ctx.limits.maxStorageBufferBindingSize;
  }

  static async create(
    ctx: GpuContext,
    maxN: number,
    dim: number,
    source: CandidateSource,
    k: number = HIGHDIM_K[source],
    queriesPerThread: 1 | 2 = highDimQueriesPerThread(),
    boxes = queriesPerThread === 1 && highDimBoxes(),
  ): Promise<GpuCandidateLists> {
    if (boxes && queriesPerThread !== 1) throw new InputError('emst::highdim: tile boxes need one query per thread.');
    const n = Math.max(maxN, 2);
    if (!Number.isInteger(k) || k < 1 || k > 64) throw new InputError(`Expected k in [1, 64], got ${k}.`);
    if (source === 'brute' && dim > BRUTE_MAX_DIM) {
      throw new InputError(
        `emst::highdim: the brute-force lists take at most ${BRUTE_MAX_DIM} dimensions, got ${dim}.`,
      );
    }
    if (!GpuCandidateLists.fits(ctx, n, k)) {
      throw new InputError(
        `emst::highdim: ${n} lists of ${k} exceed one binding (${ctx.limits.maxStorageBufferBindingSize} bytes).`,
      );
    }
    const rank = (entry: 'invert' | 'convert') =>
      ctx.kernel({
        label: `emst::highdimRank.${entry}`,
        shader: 'emst/highdim_rank',
        entry,
        ...RANK,
        workgroupSize: 256,
      });
    const tile = bruteTile(dim);
    const useBoxes = source === 'brute' && boxes;
    const [settle, core, brute, tiles, invert, convert, knn] = await Promise.all([
      ctx.kernel({
        label: 'emst::highdimSettle',
        shader: 'emst/highdim_settle',
        entry: 'main',
        ...SETTLE,
        workgroupSize: 256,
        constants: { K: k },
      }),
      ctx.kernel({
        label: 'emst::highdimCore',
        shader: 'emst/highdim_core',
        entry: 'main',
        ...CORE,
        workgroupSize: 256,
        constants: { K: k },
      }),
      source === 'brute'
        ? ctx.kernel({
            label: 'emst::highdimBrute',
            shader: queriesPerThread === 2 ? 'emst/highdim_brute2' : 'emst/highdim_brute',
            entry: 'main',
            ...BRUTE,
            workgroupSize: BRUTE_WG,
            include: ['common/grid', 'knn/distance'],
            constants: { D: dim, K: k, TILE: tile, BOXES: useBoxes ? 1 : 0 },
          })
        : undefined,
      useBoxes
        ? ctx.kernel({
            label: 'emst::highdimTiles',
            shader: 'emst/highdim_tiles',
            entry: 'main',
            ...TILES,
            workgroupSize: 256,
            constants: { D: dim, TILE: tile },
          })
        : undefined,
      source === 'bvh' ? rank('invert') : undefined,
      source === 'bvh' ? rank('convert') : undefined,
      source === 'bvh' ? createKnnSearcher(ctx, { dim, k, output: 'all', rows: 'morton' }) : null,
    ]);
    const keys = ctx.createBuffer('emst::highdimKeys', 4 * n * k);
    const pos = ctx.createBuffer('emst::highdimPositions', 4 * n * k);
    const cursor = ctx.createBuffer('emst::highdimCursor', 4 * n);
    const rankBuffer = source === 'bvh' ? ctx.createBuffer('emst::highdimRank', 4 * n) : null;
    return new GpuCandidateLists(
      ctx,
      maxN,
      dim,
      k,
      source,
      queriesPerThread,
      { settle, core, brute, tiles, invert, convert },
      knn,
      keys,
      pos,
      cursor,
      rankBuffer,
      ctx.createBuffer('emst::highdimUnused', 16),
      useBoxes ? ctx.createBuffer('emst::highdimTileBoxes', 8 * dim * Math.ceil(n / tile)) : null,
    );
  }

  /** Records the search of every point's list (and zeroes the cursors): once per run, after the BVH's build. */
  encode(rec: Recorder, bvh: BvhBuffers): void {
    const n = bvh.n;
    if (n > this.maxN) throw new InputError(`emst::highdim: n=${n} exceeds the maxN=${this.maxN} it was created for.`);
    if (bvh.dim !== this.dim) throw new InputError(`emst::highdim: dim=${bvh.dim}, created for dim=${this.dim}.`);
    if (n < 2) return;
    rec.clear(this.cursor, 0, 4 * n);
    const { brute, tiles, invert, convert } = this.kernels;
    if (brute) {
      const tileBoxes = this.tileBoxes ?? this.unused;
      if (tiles) {
        const count = Math.ceil(n / bruteTile(this.dim));
        rec.dispatch(tiles, {
          buffers: { points: bvh.sortedPoints, tileBoxes },
          uniforms: { n, tiles: count },
          threads: count * this.dim,
        });
      }
      for (let base = 0; base < n; base += this.bruteChunk) {
        const count = Math.min(this.bruteChunk, n - base);
        rec.dispatch(brute, {
          buffers: { points: bvh.sortedPoints, order: bvh.order, lkeys: this.keys, lpos: this.pos, tileBoxes },
          uniforms: { n, base, count, one: 1 },
          groups: Math.ceil(count / (BRUTE_WG * this.queriesPerThread)),
        });
      }
      return;
    }
    this.knn!.encode(rec, bvh, { indices: this.pos, squaredDistances: this.keys }, { k: this.k });
    const buffers = { order: bvh.order, rank: this.rank!, lpos: this.pos };
    rec.dispatch(invert!, { buffers, uniforms: { count: n }, threads: n });
    rec.dispatch(convert!, { buffers, uniforms: { count: n * this.k }, threads: n * this.k });
  }

  /**
   * Records mutual reachability's squared core distances, in Morton order, from the lists (after encode()): row j's
   * min(minSamples, n − 1)-th key, as the k-NN's 'kth' search gives it. minSamples must not exceed k.
   */
  encodeCores(rec: Recorder, n: number, minSamples: number, core2: GPUBuffer): void {
    if (!Number.isInteger(minSamples) || minSamples < 1 || minSamples > this.k) {
      throw new InputError(`emst::highdim: expected minSamples in [1, ${this.k}], got ${minSamples}.`);
    }
    if (n < 2) return;
    rec.dispatch(this.kernels.core, {
      buffers: { lkeys: this.keys, core2 },
      uniforms: { n, m: Math.min(minSamples, n - 1) },
      threads: n,
    });
  }

  /**
   * Records one round's settle (BoruvkaRunOptions.settle): before the upper bounds, after the labels; `reach` for
   * mutual reachability.
   */
  settle(rec: Recorder, round: SettleBuffers, n: number, cut: number, reach?: SettleReach): void {
    rec.dispatch(this.kernels.settle, {
      buffers: {
        label: round.label,
        lkeys: this.keys,
        lpos: this.pos,
        cursor: this.cursor,
        cand: round.cand,
        pointBound: round.pointBound,
        core2: reach?.core2 ?? this.unused,
        order: reach?.order ?? this.unused,
      },
      uniforms: { n, cut, mr: reach ? 1 : 0, ia2: reach?.ia2 ?? 1 },
      threads: n,
    });
  }

  destroy(): void {
    this.knn?.destroy();
    this.keys.destroy();
    this.pos.destroy();
    this.cursor.destroy();
    this.rank?.destroy();
    this.unused.destroy();
    this.tileBoxes?.destroy();
  }
}
