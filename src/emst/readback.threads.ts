/**
 * Where the GPU MST's read-back (pipeline.ts, readEdges) writes: the caller's shared arrays, first touched by worker
 * threads while the GPU computes the tree, for `treeline emst` (prepareEdgeArrays below) and hdbscan()'s host path
 * (cluster/buffers.ts). Into such arrays the GPU splits the canonical (source, weight bits) pairs itself
 * (canonical.ts, createCanonicalSplit) and each array is read straight into its destination: no host pass. Into
 * fresh arrays, `readbackPass` de-interleaves the pairs chunk by chunk as they arrive.
 */
import { sharedBuffer, touchOnWorkers } from '../host/buffers.js';
import { workersAtHand } from '../host/threads.js';
import { THRESHOLDS } from '../host/thresholds.js';
import type { EdgeList } from './edges.cpu.js';

/** Shared output arrays for readEdges (m edges each: a spanning tree's n − 1). */
export interface ReadbackInto {
  edges: EdgeList;
  /** Resolves when the arrays may be written (their first touch on worker threads is done). */
  ready: Promise<void>;
}

/** Read-backs that went straight into shared arrays (the GPU split the pairs), for tests that must know. */
export const readbackStats = { direct: 0 };

/**
 * Edges [e0, e1) from their (source, weight bits) pairs, `pairs` holding the pairs from edge `p0` on (default 0):
 * the host's side of the read-back into fresh arrays, and the CPU twin of canonical_split.wgsl. Locals, not the
 * edge list's fields, inside the loop: V8 keeps it faster that way (bench/RESULTS.md).
 */
export function readbackPass(job: { pairs: Uint32Array; edges: EdgeList; e0: number; e1: number; p0?: number }): void {
  const { pairs, edges, e0, e1 } = job;
  const o = 2 * (job.p0 ?? 0);
  const { sources, weights } = edges;
  const keys = new Float32Array(pairs.buffer, pairs.byteOffset, pairs.length);
  for (let e = e0; e < e1; e++) {
    sources[e] = pairs[2 * e - o];
    weights[e] = keys[2 * e + 1 - o];
  }
}

/**
 * Threads that touch the edge arrays: 120 MB take them ~30 ms, well inside the GPU's work, while 16 threads faulting
 * pages at once slowed the calling thread's own small read-backs beside them (emst::check 5 → 15–21 ms on the H100).
 */
const TOUCH_THREADS = 4;

/**
 * Shared arrays for an m-edge read-back, allocated now and first touched by worker threads once `start()` is called
 * — `treeline emst` calls it when the points are on the GPU (emst's afterUpload: touching beside the upload slowed it
 * 2×), so the touching runs beside the GPU's work and the read-back writes into mapped pages (a fresh array takes its
 * pages at 0.9–1.9 GB/s on the H100's host, a touched one 13–16: bench/RESULTS.md, issue 17). The result's arrays
 * then view SharedArrayBuffers. Null where worker threads or the built worker script are missing, or m is under
 * `minEdges`.
 */
export async function prepareEdgeArrays(
  m: number,
  threads: number,
  minEdges = THRESHOLDS.preparedMinPoints,
): Promise<{ into: ReadbackInto; start: () => void } | null> {
  if (threads < 2 || m < minEdges || !(await workersAtHand())) return null;
  const edges: EdgeList = {
    sources: new Uint32Array(sharedBuffer(4 * m), 0, m),
    targets: new Uint32Array(sharedBuffer(4 * m), 0, m),
    weights: new Float32Array(sharedBuffer(4 * m), 0, m),
  };
  const arrays = [edges.sources, edges.targets, edges.weights].map((a) => ({
    buffer: a.buffer as SharedArrayBuffer,
    bytes: a.byteLength,
  }));
  let start: () => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    start = () => {
      start = () => undefined;
      touchOnWorkers(arrays, Math.min(threads, TOUCH_THREADS), 'emst::edges').then(resolve, reject);
    };
  });
  return { into: { edges, ready }, start: () => start() };
}
