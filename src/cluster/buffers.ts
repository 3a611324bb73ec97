/**
 * Host memory for clustering n points, allocated and first touched ahead of time by worker threads (issue 5).
 *
 * Every page of a fresh typed array costs a page fault at its first write, and single linkage, condensing and
 * labelling write ~1 GB at 10^7 points. `hdbscan()` instead allocates those arrays in shared memory before the MST and has worker threads touch
 * them while the GPU computes it; the clustering then writes into memory that is already mapped. The contents are
 * zeros, as a fresh array's (its measured gain: bench/RESULTS.md, issue 5). The threaded passes
 * (labelling, runts) write into these arrays, and they are what the result's arrays view.
 *
 * The condensed tree's row count (n + 2 · splits) is known only while condensing, so its arrays get room for the
 * most rows any tree has (every split leaves two clusters of ≥ minClusterSize points: splits < n / minClusterSize)
 * and are handed out as views of exactly the rows written.
 */
import { sharedBuffer as shared, touchOnWorkers } from '../host/buffers.js';
import { workersAtHand } from '../host/threads.js';
import { THRESHOLDS } from '../host/thresholds.js';
import type { SingleLinkageTree } from './types.js';

/** The arrays, all in SharedArrayBuffers. */
export interface ClusterBuffers {
  n: number;
  /** The MST as the GPU's read-back writes it (n − 1 edges; emst's readInto). */
  mst: { sources: Uint32Array; targets: Uint32Array; weights: Float32Array };
  /** singleLinkage's output (n − 1 rows each). */
  linkage: SingleLinkageTree;
  /** singleLinkage's union-find records (4n words: 16-byte records when it gathers the counts, else 8). */
  unionFind: Int32Array;
  /** singleLinkage's queued counts for condense (linkage.ts, QueuedCounts: n − 1 each). */
  queued: Int32Array;
  queuedLeft: Int32Array;
  queuedRight: Int32Array;
  /**
   * condense's scratch: slot payloads (its first 16 bytes a merge; also the threaded linkage's
   * scratch before), deferred runts (n). The union-find, the queued counts and the deferred runts lie in the same
   * buffer after the payloads (see allocateClusterBuffers).
   */
  payload: SharedArrayBuffer;
  deferred: Uint32Array;
  /** condense's rows, room for `rowCapacity`. */
  rows: { parent: Uint32Array; child: Uint32Array; lambda: Float64Array; childSize: Uint32Array };
  rowCapacity: number;
  /** The labelling pass's outputs (n each). */
  labels: Int32Array;
  probabilities: Float64Array;
  outlierScores: Float64Array;
}

/** The most condensed-tree rows n points give at this minClusterSize (n point rows, two per split). */
export function maxCondensedRows(n: number, minClusterSize: number): number {
  return n + 2 * Math.max(0, Math.floor(n / minClusterSize) - 1) + 2;
}

/** Allocates the buffers (zeros, untouched). */
export function allocateClusterBuffers(n: number, minClusterSize: number): ClusterBuffers {
  const m = Math.max(0, n - 1);
  const u32 = (length: number) => new Uint32Array(shared(4 * length), 0, length);
  const f32 = (length: number) => new Float32Array(shared(4 * length), 0, length);
  const f64 = (length: number) => new Float64Array(shared(8 * length), 0, length);
  const i32 = (length: number) => new Int32Array(shared(4 * length), 0, length);
  const rowCapacity = maxCondensedRows(n, minClusterSize);
  // The scratch arrays share one buffer, the payloads first (their users view it from offset 0).
  const payloadBytes = 16 * m;
  const scratch = shared(8 * Math.ceil((payloadBytes + 4 * (4 * n + 3 * m + n)) / 8));
  let offset = payloadBytes;
  const scratchI32 = (length: number) => {
    const view = new Int32Array(scratch, offset, length);
    offset += 4 * length;
    return view;
  };
  const unionFind = scratchI32(4 * n);
  const queued = scratchI32(m);
  const queuedLeft = scratchI32(m);
  const queuedRight = scratchI32(m);
  const deferred = new Uint32Array(scratch, offset, n);
  return {
    n,
    mst: { sources: u32(m), targets: u32(m), weights: f32(m) },
    linkage: { left: u32(m), right: u32(m), distance: f64(m), size: u32(m) },
    unionFind,
    queued,
    queuedLeft,
    queuedRight,
    payload: scratch,
    deferred,
    rows: { parent: u32(rowCapacity), child: u32(rowCapacity), lambda: f64(rowCapacity), childSize: u32(rowCapacity) },
    rowCapacity,
    labels: i32(n),
    probabilities: f64(n),
    outlierScores: f64(n),
  };
}

/** Every SharedArrayBuffer of `b` with the bytes its arrays use (from offset 0). */
function buffersOf(b: ClusterBuffers): { buffer: SharedArrayBuffer; bytes: number }[] {
  const { linkage: l, rows: r, mst, n } = b;
  const arrays: ArrayBufferView[] = [l.left, l.right, l.distance, l.size, r.parent, r.child, r.lambda, r.childSize];
  arrays.push(b.labels, b.probabilities, b.outlierScores, mst.sources, mst.targets, mst.weights);
  // The scratch arrays are views of the payload's buffer, the deferred runts last.
  const scratch = { buffer: b.payload, bytes: b.deferred.byteOffset + 4 * n };
  const used = (a: ArrayBufferView) => ({ buffer: a.buffer as SharedArrayBuffer, bytes: a.byteOffset + a.byteLength });
  return [...arrays.map(used), scratch];
}

/**
 * Allocates the buffers for n points and starts `threads` worker threads touching them; `touched` resolves when
 * they are done (the caller awaits it before clustering, meanwhile computing the MST). Null where worker threads
 * or the built worker script are missing, or n is small.
 */
export async function prepareClusterBuffers(
  n: number,
  minClusterSize: number,
  threads: number,
  minPoints = THRESHOLDS.preparedMinPoints,
): Promise<{ buffers: ClusterBuffers; touched: Promise<void> } | null> {
  if (threads < 2 || n < minPoints || !(await workersAtHand())) return null;
  const buffers = allocateClusterBuffers(n, minClusterSize);
  return { buffers, touched: touchOnWorkers(buffersOf(buffers), threads, 'cluster::buffers') };
}

/**
 * The host arrays of hdbscan()'s GPU-resident clustering (resident.ts), allocated and touched ahead like the
 * ClusterBuffers: the condensed tree's rows as the GPU writes them (4 words a row, the read-back's destination),
 * the tree's four arrays, the labelling's outputs, and the MST and dendrogram when the caller keeps them.
 */
export interface ResidentBuffers {
  n: number;
  rowCapacity: number;
  /** The rows' distances as the GPU wrote them (the tree's other columns are read straight into `rows`). */
  rowWeight: Float32Array;
  /** Each point's own row in point order (2 words a point: parent cluster, weight bits), read back. */
  pointWords: Uint32Array;
  rows: ClusterBuffers['rows'];
  labels: Int32Array;
  probabilities: Float64Array;
  outlierScores: Float64Array;
  mst?: ClusterBuffers['mst'];
  linkage?: SingleLinkageTree;
}

/** Allocates the resident path's buffers (zeros, untouched). */
export function allocateResidentBuffers(
  n: number,
  minClusterSize: number,
  keep: { mst: boolean; singleLinkage: boolean },
): ResidentBuffers {
  const m = Math.max(0, n - 1);
  const u32 = (length: number) => new Uint32Array(shared(4 * length), 0, length);
  const f32 = (length: number) => new Float32Array(shared(4 * length), 0, length);
  const f64 = (length: number) => new Float64Array(shared(8 * length), 0, length);
  const rowCapacity = maxCondensedRows(n, minClusterSize);
  return {
    n,
    rowCapacity,
    rowWeight: f32(rowCapacity),
    pointWords: u32(2 * n),
    rows: { parent: u32(rowCapacity), child: u32(rowCapacity), lambda: f64(rowCapacity), childSize: u32(rowCapacity) },
    labels: new Int32Array(shared(4 * n), 0, n),
    probabilities: f64(n),
    outlierScores: f64(n),
    mst: keep.mst ? { sources: u32(m), targets: u32(m), weights: f32(m) } : undefined,
    linkage: keep.singleLinkage ? { left: u32(m), right: u32(m), distance: f64(m), size: u32(m) } : undefined,
  };
}

/** The resident path's buffers and their first touch, started on demand (`start`, idempotent). */
export interface PreparedResident {
  buffers: ResidentBuffers;
  /** Starts the worker threads touching the buffers (once) and resolves when they are done. */
  start(): Promise<void>;
  /** The touching under way, or null if it was never started. */
  started(): Promise<void> | null;
}

/**
 * Allocates the resident path's buffers (null where worker threads are missing or n is small, as
 * prepareClusterBuffers). hdbscan() starts the touching once the points are uploaded: touching during the upload
 * slows it (page faults on 16 threads; 25 → 63 ms at 10^7 × 3 on the H100), and the GPU's rounds leave time enough.
 */
export async function prepareResidentBuffers(
  n: number,
  minClusterSize: number,
  threads: number,
  keep: { mst: boolean; singleLinkage: boolean },
  minPoints = THRESHOLDS.preparedMinPoints,
): Promise<PreparedResident | null> {
  if (threads < 2 || n < minPoints || !(await workersAtHand())) return null;
  const b = allocateResidentBuffers(n, minClusterSize, keep);
  const arrays: ArrayBufferView[] = [
    b.rowWeight,
    b.pointWords,
    b.rows.parent,
    b.rows.child,
    b.rows.lambda,
    b.rows.childSize,
  ];
  arrays.push(b.labels, b.probabilities, b.outlierScores);
  if (b.mst) arrays.push(b.mst.sources, b.mst.targets, b.mst.weights);
  if (b.linkage) arrays.push(b.linkage.left, b.linkage.right, b.linkage.distance, b.linkage.size);
  const used = (a: ArrayBufferView) => ({ buffer: a.buffer as SharedArrayBuffer, bytes: a.byteOffset + a.byteLength });
  let touching: Promise<void> | null = null;
  return {
    buffers: b,
    start: () => (touching ??= touchOnWorkers(arrays.map(used), threads, 'cluster::buffers')),
    started: () => touching,
  };
}
