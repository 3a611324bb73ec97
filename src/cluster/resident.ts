/**
 * HDBSCAN* after a GPU MST with the tree kept on the GPU (issue 17 §1–3): Borůvka's edge records → the canonical
 * edge order (emst/canonical.ts) → the single-linkage dendrogram (dendrogram.ts) → the condensed tree's rows in
 * hdbscan's order (condense.rows.ts), all in one submission; then only the rows cross the bus (as four columns, 16
 * bytes a row, n + 2 · splits rows, and each point's own row, 8 bytes) — the MST and the dendrogram too only when
 * the caller keeps them. The host turns the rows into
 * the tree, its per-cluster facts and float64 stabilities in one pass (condense.finish.ts) and does the rest as the
 * host path does (clusterFromMst.ts's fromCondensed: selection, labels, probabilities, GLOSH, exemplars): the
 * results are those of `clusterOnHost` on the read-back MST, bit for bit.
 *
 *   records ──canonical──▶ keys (source, weight bits), targets ──dendrogram──▶ children, sizes ──condense──▶ rows
 *
 * Where it does not apply (n < 2, or row keys wider than 64 bits: condenseRowsFits) the caller reads the MST back
 * and clusters on the host.
 */
import type { GpuContext } from '../gpu/context.js';
import { ScratchPool } from '../gpu/scratchpool.js';
import { startClock } from '../host/clock.js';
import { createCanonicalSort } from '../emst/canonical.js';
import type { EdgeList } from '../emst/edges.cpu.js';
import { clusterFromCondensedOnHost, type ClusterHost, type Clustering } from './clusterFromMst.js';
import { rowArrays } from './condense.finish.js';
import { condensedFromColumns } from './condense.threads.js';
import { GpuCondenser, releaseRows, type GpuCondensedRows } from './condense.rows.js';
import { condenseRowsFits } from './condense.rows.cpu.js';
import { GpuDendrogram, type DendrogramBuffers } from './dendrogram.js';
import { allocateResidentBuffers, type PreparedResident } from './buffers.js';
import type { ResolvedClusterOptions, SingleLinkageTree } from './types.js';

/** What the caller wants back besides the clustering. */
export interface ResidentKeep {
  /** The MST as a canonical edge list (12 bytes an edge more across the bus). */
  mst: boolean;
  /** The single-linkage tree (16 bytes a merge more). */
  singleLinkage: boolean;
}

export interface ResidentClustering {
  clustering: Clustering;
  /** The MST, canonical order, weights unscaled (when kept; else empty arrays). */
  mst: EdgeList;
  /** Wall times (ms): `cluster::gpu` (compile + the one submission), `cluster::readback`, `cluster::finish`. */
  timings: Record<string, number>;
}

/** Whether the GPU-resident clustering handles n points at this minClusterSize. */
export function residentApplies(n: number, minClusterSize: number): boolean {
  return n >= 2 && condenseRowsFits(n, minClusterSize);
}

const EMPTY: EdgeList = { sources: new Uint32Array(0), targets: new Uint32Array(0), weights: new Float32Array(0) };

/**
 * Clusters n points from their MST's Borůvka records on the GPU (`records`: n − 1 edges, 3 u32 each, emstGpu's
 * `afterGpu`; `points`, when given, the points' buffer, dead by then and used as scratch). `scale`: the factor that
 * brings the weights back to the caller's units (emst/scale.ts).
 *
 * Memory (issue 17: ≤ 48 bytes a point above the MST's peak): every buffer after the dendrogram's own comes from one
 * ScratchPool (gpu/scratchpool.ts) in recording order — the canonical keys take the points' buffer; the
 * condenser's scratch and outputs reuse Borůvka's records (dead once the canonical order has read them), the
 * dendrogram's scratch, the canonical targets and, unless kept, the dendrogram and the canonical keys (dead once
 * packed into merges), and the condenser's own dead phases.
 *
 * `more`: further settings (minClusterSize sweeps: `--min-cluster-size 5,10,20`) condensed from the same GPU
 * dendrogram after the first, one submission each, their scratch from the same pool; each gives what `hdbscan()`
 * with that setting gives (the same MST). Each must satisfy `residentApplies(n, …)`.
 */
export async function clusterResident(
  ctx: GpuContext,
  edges: { records: GPUBuffer; count: number; points?: GPUBuffer },
  n: number,
  options: ResolvedClusterOptions,
  host: ClusterHost,
  keep: ResidentKeep,
  scale: number,
  prepared?: PreparedResident | null,
  more: ResolvedClusterOptions[] = [],
): Promise<ResidentClustering & { also: Clustering[] }> {
  const m = n - 1;
  if (edges.count !== m) throw new Error(`cluster::resident: ${edges.count} edges for ${n} points.`);
  const mcs = options.minClusterSize;
  for (const o of more) {
    if (!residentApplies(n, o.minClusterSize)) {
      throw new Error(
        `cluster::resident: minClusterSize ${o.minClusterSize} does not fit the GPU's row keys at n = ${n}.`,
      );
    }
  }
  const clock = startClock();
  // One 64-bit sorter for the canonical order, the dendrogram's chains and condensing (sequential in the
  // submission): the condenser's, lent to the others (12 bytes a point fewer than a sorter each); sized for the
  // smallest minClusterSize condensed.
  const smallest = Math.min(mcs, ...more.map((o) => o.minClusterSize));
  const [canonical, condenser] = await Promise.all([createCanonicalSort(ctx), GpuCondenser.create(ctx, n, smallest)]);
  const dendrogram = await GpuDendrogram.create(ctx, n, { sorter: condenser.sorter }).catch((e: unknown) => {
    condenser.destroy();
    throw e;
  });
  clock.lap('cluster::compile');
  const pool = new ScratchPool(ctx);
  let rows: GpuCondensedRows | null = null;
  let tree: DendrogramBuffers | null = null;
  let merges: GPUBuffer | null = null;
  try {
    if (edges.points) pool.give(edges.points); // nothing reads the points after the MST here (still emstGpu's)
    const keys = pool.take('cluster::canonicalKeys', 8 * m);
    const targets = pool.take('cluster::canonicalTargets', 4 * m);
    await ctx.submit('cluster::resident', (rec) => {
      canonical.encode(rec, { edges: edges.records, count: m, n, sorter: condenser.sorter, keys, values: targets });
      pool.give(edges.records); // read by the canonical order only (still emstGpu's to destroy)
      tree = dendrogram.encode(rec, { keys, targets, n });
      if (!keep.mst) pool.release(targets);
      pool.give(...dendrogram.spare(), tree.parent);
      merges = condenser.encodePack(rec, { children: tree.children, size: tree.size, keys }, n, pool);
      if (!keep.singleLinkage) pool.give(tree.children, tree.size);
      if (!keep.mst && !keep.singleLinkage) pool.release(keys);
      rows = condenser.encode(rec, merges, n, mcs, pool);
    });
    await ctx.onDone();
    clock.lap('cluster::gpu');
    // The host arrays were touched by worker threads while the GPU worked (buffers.ts, prepareResidentBuffers).
    const b = prepared?.buffers;
    if (prepared) await prepared.start();
    clock.lap('cluster::wait');
    const shared = host.threads > 1 && n >= host.thresholds.labelMinPoints;
    const [first, mst, linkage] = await Promise.all([
      readCondensed(condenser, rows!, n, scale, host, shared, b),
      keep.mst ? readMst(ctx, keys, targets, m, scale, b?.mst) : Promise.resolve(EMPTY),
      keep.singleLinkage ? readLinkage(ctx, tree!, keys, m, scale, b?.linkage) : Promise.resolve(emptyLinkage()),
    ]);
    clock.lap('cluster::readback');
    const condensed = await first.finish();
    clock.lap('cluster::finish');
    const clustering = await clusterFromCondensedOnHost(condensed, options, host, {
      linkage,
      mst: keep.mst ? mst : undefined,
      shared,
      into: b,
      pointWords: { words: first.pointWords, scale },
    });
    const t = clustering.result.timings;
    const laps = clock.laps;
    t.linkage = laps['cluster::gpu'];
    t.condense = laps['cluster::readback'] + laps['cluster::finish'];
    t.total += laps['cluster::compile'] + t.linkage + t.condense;
    // The sweep: the same merges condensed again per setting; the last one's buffers reused (all read back).
    const also: Clustering[] = [];
    for (const o of more) {
      const t0 = performance.now();
      releaseRows(rows!, pool);
      rows = null;
      await ctx.submit('cluster::recluster', (rec) => {
        rows = condenser.encode(rec, merges!, n, o.minClusterSize, pool);
      });
      // Shared arrays where the host's threads label (as prepareResidentBuffers gives the first), not touched ahead.
      const into = shared
        ? allocateResidentBuffers(n, o.minClusterSize, { mst: false, singleLinkage: false })
        : undefined;
      const got = await readCondensed(condenser, rows!, n, scale, host, shared, into);
      const again = await clusterFromCondensedOnHost(await got.finish(), o, host, {
        linkage,
        mst: keep.mst ? mst : undefined,
        shared,
        into,
        pointWords: { words: got.pointWords, scale },
      });
      laps[`cluster::recluster(${o.minClusterSize})`] = performance.now() - t0;
      also.push(again);
    }
    return { clustering, mst, timings: laps, also };
  } finally {
    // After the last submission's commands ran (readbacks awaited, or the submission failed).
    pool.destroy();
    condenser.destroy();
    dendrogram.destroy();
  }
}

/**
 * Reads an encoding's condensed columns and point rows (into the prepared host buffers `b` when given); `finish`
 * turns them into the condensed tree on the host's threads (condense.threads.ts).
 */
async function readCondensed(
  condenser: GpuCondenser,
  rows: GpuCondensedRows,
  n: number,
  scale: number,
  host: ClusterHost,
  shared: boolean,
  b?: PreparedResident['buffers'],
): Promise<{ pointWords: Uint32Array; finish: () => ReturnType<typeof condensedFromColumns> }> {
  const count = await condenser.rowCount(rows, n);
  const arrays = rowArrays(count, shared, b?.rows);
  const weight = b
    ? b.rowWeight.subarray(0, count)
    : shared
      ? new Float32Array(new SharedArrayBuffer(4 * count))
      : new Float32Array(count);
  const [, pointWords] = await Promise.all([
    condenser.readColumns(rows, count, { ...arrays, weight }),
    condenser.readPointRows(rows, n, b?.pointWords),
  ]);
  return {
    pointWords,
    finish: () => condensedFromColumns(arrays, weight, n, scale, host.threads, host.thresholds.labelMinPoints),
  };
}

/** The canonical MST from the GPU's keys (source, weight bits) and targets (into `into` when given). */
async function readMst(
  ctx: GpuContext,
  keys: GPUBuffer,
  targets: GPUBuffer,
  m: number,
  scale: number,
  into?: EdgeList,
): Promise<EdgeList> {
  const mst: EdgeList = into ?? {
    sources: new Uint32Array(m),
    targets: new Uint32Array(m),
    weights: new Float32Array(m),
  };
  await Promise.all([
    // Chunk by chunk (ctx.readChunks): `at` is a byte offset, 8 bytes an edge.
    ctx.readChunks(keys, 0, 8 * m, (a, at) => {
      const k = new Uint32Array(a);
      const w = new Float32Array(a);
      const { sources, weights } = mst;
      for (let j = 0, i = at / 8; j < k.length; j += 2, i++) {
        sources[i] = k[j];
        weights[i] = w[j + 1] * scale; // rounded to f32 by the store, as unscaleWeights does
      }
    }),
    ctx.readInto(targets, 0, 4 * m, mst.targets),
  ]);
  return mst;
}

/** singleLinkage's rows from the GPU dendrogram (children, sizes) and the canonical keys' weights. */
async function readLinkage(
  ctx: GpuContext,
  tree: DendrogramBuffers,
  keys: GPUBuffer,
  m: number,
  scale: number,
  into?: SingleLinkageTree,
): Promise<SingleLinkageTree> {
  const out: SingleLinkageTree = into ?? {
    left: new Uint32Array(m),
    right: new Uint32Array(m),
    distance: new Float64Array(m),
    size: new Uint32Array(m),
  };
  await Promise.all([
    // Chunk by chunk (ctx.readChunks): `at` is a byte offset, 8 bytes a merge.
    ctx.readChunks(tree.children, 0, 8 * m, (a, at) => {
      const c = new Uint32Array(a);
      const { left, right } = out;
      for (let j = 0, i = at / 8; j < c.length; j += 2, i++) {
        left[i] = c[j];
        right[i] = c[j + 1];
      }
    }),
    ctx.readInto(tree.size, 0, 4 * m, out.size),
    ctx.readChunks(keys, 0, 8 * m, (a, at) => {
      const w = new Float32Array(a);
      const { distance } = out;
      for (let j = 1, i = at / 8; j < w.length; j += 2, i++) {
        distance[i] = scale === 1 ? w[j] : Math.fround(w[j] * scale);
      }
    }),
  ]);
  return out;
}

function emptyLinkage(): SingleLinkageTree {
  return {
    left: new Uint32Array(0),
    right: new Uint32Array(0),
    distance: new Float64Array(0),
    size: new Uint32Array(0),
  };
}
